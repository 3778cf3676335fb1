//! Sliding sums and sorted columns (docs/fused.md, "The loops of defined
//! functions"), checked element by element against the float operations
//! written out here.

use super::run_frames;
use crate::support::*;
use std::path::Path;

const SW: usize = 1100;
const SH: usize = 20;

/// A separable blur with an asymmetric window and a weight of 0, a 3 × 3
/// median and `linear`'s 2 × upscale of one float frame.
const SEP: &str = "composition {
  container_declaration sourcef { out OUT float mul [1, 1]; };
  container_declaration sinkf { in IN float mul [1, 1]; };
  container_declaration blur { in IN float mul [1, 1] [4, 3]; out OUT float mul [1, 1]; };
  container_declaration med { in IN float mul [1, 1] [3, 3]; out OUT float mul [1, 1]; };
  container_declaration up { in IN float mul [1, 1] [3, 3]; out OUT float mul [2, 2]; };
  container_declaration top { };
  container_bind sourcef func_source_f FULL, sinkf func_sink_f FULL, blur blur FULL,
    med med FULL, up up FULL;
  function_definition blur {
    out = separable(in, [1, 2, 3, 2], [1, 0, 2]) / 7;
  };
  function_definition med {
    out = median(in);
  };
  function_definition up {
    out = linear(in);
  };
  container_composition top {
    container i sourcef index, b blur index, o sinkf index, m med index, mo sinkf index,
      u up index, uo sinkf [2200, 40];
    i.out -> b.in;
    b.out -> o.in;
    i.out -> m.in;
    m.out -> mo.in;
    i.out -> u.in;
    u.out -> uo.in;
  };
  compose top [1100, 20];
}
";

/// The input frame: values that round differently in every order.
fn sliding_input() -> Vec<f32> {
    (0..SW * SH)
        .map(|i| ((i * 7919 % 1013) as f32) * 0.37 - 100.0)
        .collect()
}

/// `input` as a PFM file at `path` (rows bottom-up).
fn write_pfm(path: &Path, input: &[f32]) {
    let mut pfm = format!("Pf\n{SW} {SH}\n-1.0\n").into_bytes();
    for y in (0..SH).rev() {
        for v in &input[y * SW..(y + 1) * SW] {
            pfm.extend_from_slice(&v.to_le_bytes());
        }
    }
    std::fs::write(path, pfm).unwrap();
}

/// The blur, the median and the upscale of `input`, each element computed
/// alone with the program's float operations in the program's order.
fn expected(input: &[f32]) -> [Vec<f32>; 3] {
    let at = |x: i64, y: i64| {
        let (x, y) = (x.clamp(0, SW as i64 - 1), y.clamp(0, SH as i64 - 1));
        input[y as usize * SW + x as usize]
    };
    let row = |x: i64, y: i64| {
        at(x - 1, y) + 2.0f32 * at(x, y) + 3.0f32 * at(x + 1, y) + 2.0f32 * at(x + 2, y)
    };
    let blur: Vec<f32> = (0..SW * SH)
        .map(|i| {
            let (x, y) = ((i % SW) as i64, (i / SW) as i64);
            (row(x, y - 1) + 2.0f32 * row(x, y + 1)) / 7.0f32
        })
        .collect();
    let median: Vec<f32> = (0..SW * SH)
        .map(|i| {
            let (x, y) = ((i % SW) as i64, (i / SW) as i64);
            let mut w: Vec<f32> = (-1..=1)
                .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
                .map(|(dx, dy)| at(x + dx, y + dy))
                .collect();
            w.sort_by(f32::total_cmp);
            w[4]
        })
        .collect();
    // linear: x first (3/4 of the nearest point, 1/4 of the next), then y.
    let hx = |ex: i64, r: i64| {
        let x = ex / 2;
        if ex % 2 == 0 {
            0.25f32 * at(x - 1, r) + 0.75f32 * at(x, r)
        } else {
            0.75f32 * at(x, r) + 0.25f32 * at(x + 1, r)
        }
    };
    let up: Vec<f32> = (0..4 * SW * SH)
        .map(|i| {
            let (ex, ey) = ((i % (2 * SW)) as i64, (i / (2 * SW)) as i64);
            let y = ey / 2;
            if ey % 2 == 0 {
                0.25f32 * hx(ex, y - 1) + 0.75f32 * hx(ex, y)
            } else {
                0.75f32 * hx(ex, y) + 0.25f32 * hx(ex, y + 1)
            }
        })
        .collect();
    [blur, median, up]
}

/// The floats of a `w` × `h` PFM file, rows top-down.
fn read_pfm(b: &[u8], w: usize, h: usize, context: &str) -> Vec<f32> {
    let header = format!("Pf\n{w} {h}\n-1.0\n");
    assert!(b.starts_with(header.as_bytes()), "{context}");
    b[header.len()..]
        .chunks(4 * w)
        .rev()
        .flat_map(|r| {
            r.chunks(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        })
        .collect()
}

/// A separable sum's x pass kept in rows and a 3 × 3 median's column
/// triples sorted once per row (docs/fused.md, "The loops of defined
/// functions"): an asymmetric window ([4, 3]: one column before the
/// centre, two after), a weight of 0, and a frame 1100 wide (three chunks of
/// columns, the last short), in strips and whole. Every element has the
/// bits of the same float operations written out here, in the same order;
/// the median is the middle of the nine values sorted; `linear`'s rows
/// interpolated in x once (2 200 wide out) are blended in y.
#[test]
fn sliding_sums_and_sorted_columns_give_the_bits_of_each_element_alone() {
    let dir = scratch("images-sliding-separable");
    let desc = write_input(&dir, "sep.ssc", SEP);
    let input = sliding_input();
    let frame = dir.join("in.pfm");
    write_pfm(&frame, &input);
    let [blur, median, up] = expected(&input);
    for flags in [
        "-ts fused 2 --strip-rows 3",
        "-ts reduced 2 -ms interference",
    ] {
        let tag = flags.replace(' ', "");
        let exe = build(gcc(), &Case::new(&desc, flags), &dir.join(&tag))
            .unwrap_or_else(|e| panic!("{e}"));
        let out = dir.join(format!("out-{tag}"));
        run_frames(&exe, &format!("i={}", frame.display()), &out);
        for (sink, want, w, h) in [
            ("o", &blur, SW, SH),
            ("mo", &median, SW, SH),
            ("uo", &up, 2 * SW, 2 * SH),
        ] {
            let b = std::fs::read(out.join(format!("{sink}_0000.pfm"))).unwrap();
            let got = read_pfm(&b, w, h, flags);
            let wrong = (0..w * h)
                .find(|&i| got[i].to_bits() != want[i].to_bits())
                .map(|i| (i % w, i / w, got[i], want[i]));
            assert_eq!(wrong, None, "{flags}, {sink}: (x, y, got, want)");
        }
    }
}
