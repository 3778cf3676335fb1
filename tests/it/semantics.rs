//! What a defined function computes, value by value, where a compiler
//! easily computes a wrong value or refuses a legal description: `round`
//! of a `select` and of `linear`, conversions at the edge of what a float
//! holds, numbers computed in the type they meet, integer division of
//! numbers, ranges of integer quotients, 1 × 1 windows, and `separable` of
//! an expression beside reads at offsets or 2:1 outputs.
//!
//! Each case builds a one-function chain (`src` → `f` → `snk`, declared),
//! feeds one raw frame, reads the raw output back and compares it with
//! values worked out by hand from docs/language.md, under a one-thread
//! schedule (`-ts simple`) and under fused strips of 2 rows; the refusals are `ssc check`
//! runs that must exit 1 with their code.

use crate::support::*;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A port's element type, as the raw files hold it.
#[derive(Clone, Copy)]
enum Ty {
    Ushort,
    Int,
    Float,
}

impl Ty {
    fn keyword(self) -> &'static str {
        match self {
            Ty::Ushort => "ushort",
            Ty::Int => "int",
            Ty::Float => "float",
        }
    }

    fn encode(self, v: &[f64]) -> Vec<u8> {
        v.iter()
            .flat_map(|x| match self {
                Ty::Ushort => (*x as u16).to_ne_bytes().to_vec(),
                Ty::Int => (*x as i32).to_ne_bytes().to_vec(),
                Ty::Float => (*x as f32).to_ne_bytes().to_vec(),
            })
            .collect()
    }

    fn decode(self, b: &[u8]) -> Vec<f64> {
        match self {
            Ty::Ushort => b
                .chunks(2)
                .map(|c| u16::from_ne_bytes(c.try_into().unwrap()) as f64)
                .collect(),
            Ty::Int => b
                .chunks(4)
                .map(|c| i32::from_ne_bytes(c.try_into().unwrap()) as f64)
                .collect(),
            Ty::Float => b
                .chunks(4)
                .map(|c| f32::from_ne_bytes(c.try_into().unwrap()) as f64)
                .collect(),
        }
    }
}

/// One function `f` from an input `p0` (type `input`, `in_mul`, window
/// `window`) to outputs `o0`, … (type `output`, `mul`), defined by `body`,
/// at `w` × `h`.
struct Chain {
    input: Ty,
    in_mul: (usize, usize),
    window: String,
    output: Ty,
    mul: (usize, usize),
    outputs: usize,
    body: String,
    w: usize,
    h: usize,
}

impl Chain {
    fn text(&self) -> String {
        let (i, o) = (self.input.keyword(), self.output.keyword());
        let (mx, my) = self.mul;
        let (ix, iy) = self.in_mul;
        let outs: String = (0..self.outputs)
            .map(|k| format!(" o{k} OUT {o} mul [{mx}, {my}];"))
            .collect();
        let (w, h) = (self.w, self.h);
        let sinks: String = (0..self.outputs)
            .map(|k| format!(", snk{k} func_sink_out [{}, {}]", w * mx, h * my))
            .collect();
        let edges: String = (0..self.outputs)
            .map(|k| format!("  f.o{k} -> snk{k}.in;\n"))
            .collect();
        format!(
            "declaration {{
  function_declaration func_source_in NONE {{ out OUT {i} mul [1, 1]; }};
  function_declaration func_sink_out NONE {{ in IN {o} mul [1, 1]; }};
  function_declaration def FULL {{ p0 IN {i} mul [{ix}, {iy}] {window};{outs} }};
  function_definition def {{
    {body}
  }};
  function src func_source_in [{sw}, {sh}], f def [{w}, {h}]{sinks};
  src.out -> f.p0;
{edges}}}
",
            window = self.window,
            body = self.body,
            sw = w * ix,
            sh = h * iy,
        )
    }

    /// Builds the chain under each schedule, runs one frame of `frame`
    /// and returns each output (the same under every schedule, asserted).
    fn run(&self, tag: &str, frame: &[f64]) -> Vec<Vec<f64>> {
        self.run_with(tag, frame, "")
    }

    /// [`Chain::run`] with `extra` flags on every build (`--contract`).
    fn run_with(&self, tag: &str, frame: &[f64], extra: &str) -> Vec<Vec<f64>> {
        self.run_c(tag, frame, extra).0
    }

    /// [`Chain::run_with`], and the C the first build generated.
    fn run_c(&self, tag: &str, frame: &[f64], extra: &str) -> (Vec<Vec<f64>>, String) {
        let (ix, iy) = self.in_mul;
        assert_eq!(frame.len(), self.w * ix * self.h * iy, "{tag}: frame size");
        let dir = scratch(&format!("semantics-{tag}"));
        let desc = write_input(&dir, &format!("{tag}.ssc"), &self.text());
        let input = dir.join("frame.raw");
        std::fs::write(&input, self.input.encode(frame)).unwrap();
        let mut seen: Option<Vec<Vec<f64>>> = None;
        let mut c = String::new();
        for flags in ["-ts simple", "-ts fused 2 --strip-rows 2"] {
            let sub = dir.join(flags.replace([' ', '-'], "_"));
            std::fs::create_dir_all(&sub).unwrap();
            let exe = build(gcc(), &Case::new(&desc, &format!("{flags} {extra}")), &sub)
                .unwrap_or_else(|e| panic!("{tag}: {e}"));
            if c.is_empty() {
                // The program's own C: the one not of the runtime.
                let own = std::fs::read_dir(&sub)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .find(|p| {
                        p.extension().is_some_and(|e| e == "c")
                            && !p.file_name().unwrap().to_string_lossy().starts_with("ssc_")
                    })
                    .unwrap();
                c = std::fs::read_to_string(own).unwrap();
            }
            let out = sub.join("out");
            let ran = run_in(
                &[],
                &exe,
                &[
                    "--iterations",
                    "1",
                    "--input",
                    &format!("src={}", input.display()),
                    "--output",
                    &out.display().to_string(),
                ],
                &[],
                &sub,
                std::time::Duration::from_secs(60),
            )
            .unwrap_or_else(|e| panic!("{tag}: {e}"));
            assert!(
                ran.status.success(),
                "{tag} {flags}: {}{}",
                ran.stdout,
                ran.stderr
            );
            let values: Vec<Vec<f64>> = (0..self.outputs)
                .map(|k| read_output(&out, &format!("snk{k}"), self.output))
                .collect();
            match &seen {
                Some(s) => assert!(
                    same_bits(s, &values),
                    "{tag}: {flags} computed {values:?}, the first schedule {s:?}"
                ),
                None => seen = Some(values),
            }
        }
        (seen.unwrap(), c)
    }
}

/// The one frame `--output` wrote for sink `name`: raw, PGM (8 or 16
/// bits) or PFM (float: little-endian here, bottom row first), top row
/// first.
fn read_output(dir: &Path, name: &str, ty: Ty) -> Vec<f64> {
    let path: PathBuf = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with(&format!("{name}_0000")))
        })
        .unwrap_or_else(|| panic!("no output of {name} in {}", dir.display()));
    let bytes = std::fs::read(&path).unwrap();
    if path.extension().is_some_and(|e| e == "raw") {
        return ty.decode(&bytes);
    }
    if path.extension().is_some_and(|e| e == "pgm") {
        // `P5`, `W H`, maxval; 16-bit samples big-endian above 255.
        let mut at = 0;
        let mut words = Vec::new();
        while words.len() < 4 {
            let end = at
                + bytes[at..]
                    .iter()
                    .position(|b| b.is_ascii_whitespace())
                    .unwrap();
            if end > at {
                words.push(String::from_utf8_lossy(&bytes[at..end]).to_string());
            }
            at = end + 1;
        }
        let wide = words[3].parse::<u32>().unwrap() > 255;
        return if wide {
            bytes[at..]
                .chunks(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]) as f64)
                .collect()
        } else {
            bytes[at..].iter().map(|b| *b as f64).collect()
        };
    }
    assert!(
        path.extension().is_some_and(|e| e == "pfm"),
        "{}",
        path.display()
    );
    // Three header lines: `Pf`, `W H`, the scale (negative: little endian).
    let mut at = 0;
    let mut lines = Vec::new();
    while lines.len() < 3 {
        let end = at + bytes[at..].iter().position(|b| *b == b'\n').unwrap();
        lines.push(String::from_utf8_lossy(&bytes[at..end]).to_string());
        at = end + 1;
    }
    assert!(lines[0] == "Pf" && lines[2].starts_with('-'), "{lines:?}");
    let w: usize = lines[1].split_whitespace().next().unwrap().parse().unwrap();
    let rows: Vec<Vec<f64>> = bytes[at..]
        .chunks(4 * w)
        .map(|r| {
            r.chunks(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
                .collect()
        })
        .collect();
    rows.into_iter().rev().flatten().collect()
}

fn same_bits(a: &[Vec<f64>], b: &[Vec<f64>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.len() == y.len() && x.iter().zip(y).all(|(u, v)| u.to_bits() == v.to_bits())
        })
}

fn floats(body: &str, window: &str, w: usize, h: usize) -> Chain {
    Chain {
        input: Ty::Float,
        in_mul: (1, 1),
        window: window.to_string(),
        output: Ty::Float,
        mul: (1, 1),
        outputs: 1,
        body: body.to_string(),
        w,
        h,
    }
}

/// `ssc check` of the chain exits 1 with `code` in its report.
fn refused(tag: &str, chain: &Chain, code: &str) -> String {
    let dir = scratch(&format!("semantics-{tag}"));
    let desc = write_input(&dir, &format!("{tag}.ssc"), &chain.text());
    let out = Command::new(SSC).arg("check").arg(&desc).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{tag}: {text}");
    assert!(text.contains(code), "{tag}: no {code} in\n{text}");
    text
}

/// `round` takes its whole argument: `round(select(c, a, b))` is
/// ⌊(c ? a : b) + 0.5⌋, not ⌊c ? a : (b + 0.5)⌋.
#[test]
fn round_of_a_select_rounds_the_selected_value() {
    let c = floats("o0 = round(select(p0 > 0, p0, 2.7));", "", 4, 1);
    let got = c.run("round-select", &[2.7, -1.0, 0.6, 1.5]);
    assert_eq!(got[0], vec![3.0, 3.0, 1.0, 2.0]);
}

/// `round(linear(p))` is ⌊linear(p) + 0.5⌋ at every element, the border
/// and odd rows included (where linear's choice of neighbour is a
/// select per element): one function computes linear, another its round.
#[test]
fn round_of_linear_is_the_rounded_interpolation_everywhere() {
    let (w, h) = (5usize, 3usize);
    let frame: Vec<f64> = (0..w * h).map(|i| ((i * 37) % 11) as f64 * 0.3).collect();
    let mut lin = floats("o0 = linear(p0);", "[3, 3]", w, h);
    lin.mul = (2, 2);
    let mut rounded = floats("o0 = round(linear(p0));", "[3, 3]", w, h);
    rounded.mul = (2, 2);
    let l = &lin.run("linear", &frame)[0];
    let r = &rounded.run("round-linear", &frame)[0];
    let want: Vec<f64> = l
        .iter()
        .map(|v| ((*v as f32 + 0.5f32).floor()) as f64)
        .collect();
    assert_eq!(r, &want, "linear {l:?}");
    // The values are not all whole already: the round changed some.
    assert!(l.iter().zip(r).any(|(a, b)| a != b));
}

/// A conversion's proof uses each bound as the computing type holds it:
/// 2147483647 is 2³¹ as float, so `int(clamp(x, …, 2147483647))` of a
/// float can overflow and is refused (E046); the largest float below 2³¹
/// converts, and 5e9 clamps to it.
#[test]
fn a_float_bound_is_the_float_it_rounds_to() {
    let t = refused(
        "int-bound",
        &floats("o0 = int(clamp(p0, -2147483648, 2147483647));", "", 4, 1),
        "E046",
    );
    assert!(t.contains("2147483648"), "{t}");
    refused(
        "uint-bound",
        &floats("o0 = uint(clamp(p0, 0, 4294967295));", "", 4, 1),
        "E046",
    );
    // An int converted to float rounds too: the full int range does not
    // come back.
    let mut back = floats("o0 = int(float(p0));", "", 4, 1);
    back.input = Ty::Int;
    back.output = Ty::Int;
    refused("int-float-int", &back, "E046");
    let mut edge = floats("o0 = int(clamp(p0, -2147483648, 2147483520));", "", 4, 1);
    edge.output = Ty::Int;
    let got = edge.run("int-edge", &[5e9, -5e9, 2147483520.0, -7.9]);
    assert_eq!(
        got[0],
        vec![2147483520.0, -2147483648.0, 2147483520.0, -7.0]
    );
}

/// Numbers compute in the type they meet, in the order written: in float
/// `0.1 + 0.2 - 0.3` is 0 and `16777216 + 1 + 1` is 16777216; in double
/// they are not; `1e30 * 1e30` is no float (E042).
#[test]
fn numbers_compute_in_the_type_they_meet() {
    let got = floats("o0 = p0 + (0.1 + 0.2 - 0.3);", "", 2, 1).run("float-order", &[0.0, 1.0]);
    assert_eq!(got[0], vec![0.0, 1.0]);
    let got = floats("o0 = p0 + (16777216 + 1 + 1);", "", 2, 1).run("float-big", &[0.0, 2.0]);
    assert_eq!(got[0], vec![16777216.0, 16777218.0]);
    // In double the same numbers keep what float loses (converted back to
    // float at the end, each once).
    let got = floats("o0 = float(double(p0) + (16777216 + 1 + 1));", "", 2, 1)
        .run("double-big", &[0.0, 2.0]);
    assert_eq!(got[0], vec![16777218.0, 16777220.0]);
    refused(
        "float-inf",
        &floats("o0 = p0 + 1e30 * 1e30 / 1e30;", "", 2, 1),
        "E042",
    );
}

/// Integer division of numbers truncates toward zero, as integer division
/// does (`7 / 2` is 3 in int); a divisor that truncates to 0 is E043.
#[test]
fn integer_division_of_numbers_truncates() {
    let mut c = floats("o0 = clamp(p0, 0, 100) + 7 / 2 - -7 / 2;", "", 3, 1);
    c.input = Ty::Int;
    c.output = Ty::Int;
    let got = c.run("int-div", &[5.0, -4.0, 1000.0]);
    assert_eq!(got[0], vec![11.0, 6.0, 106.0]);
    let mut z = floats("o0 = p0 / (1 / 2);", "", 3, 1);
    z.input = Ty::Int;
    z.output = Ty::Int;
    refused("int-div-zero", &z, "E043");
}

/// The range of an integer quotient is the quotients' (49 / 49 is 1,
/// though 49 · (1/49) is below 1): a table indexed by it needs 2 entries.
#[test]
fn an_integer_quotient_has_the_range_of_its_corners() {
    let mut short = floats("o0 = lut(clamp(p0, 49, 49) / 49, [5]);", "", 2, 1);
    short.input = Ty::Int;
    short.output = Ty::Int;
    refused("quotient-short-table", &short, "E045");
    let mut ok = floats("o0 = lut(clamp(p0, 49, 49) / 49, [5, 7]);", "", 2, 1);
    ok.input = Ty::Int;
    ok.output = Ty::Int;
    assert_eq!(ok.run("quotient", &[0.0, 100.0])[0], vec![7.0, 7.0]);
}

/// A window of [1, 1] is the element alone: its median, box and gauss
/// give the element back.
#[test]
fn a_one_by_one_window_is_the_element() {
    let frame = [1.5, -2.25, 0.125, 7.0, -0.0, 3.0];
    for (tag, body) in [
        ("median-1x1", "o0 = median(p0);"),
        ("box-1x1", "o0 = box(p0);"),
        ("gauss-1x1", "o0 = gauss(p0, 1.0);"),
    ] {
        let got = floats(body, "[1, 1]", 3, 2).run(tag, &frame);
        assert!(same_bits(&got, &[frame.to_vec()]), "{tag}: {got:?}");
    }
}

/// `separable` of an expression in a function that also reads its port at
/// an x offset, and in one whose outputs are 2:1 (`mul [2, 2]`): built,
/// and equal to the sums worked out here (small whole values: exact in
/// float in any order).
#[test]
fn separable_of_an_expression_beside_offsets_and_blocks() {
    let (w, h) = (5usize, 4usize);
    let frame: Vec<f64> = (0..w * h).map(|i| ((i * 7) % 13) as f64).collect();
    let at = |x: i64, y: i64| {
        let x = x.clamp(0, w as i64 - 1) as usize;
        let y = y.clamp(0, h as i64 - 1) as usize;
        frame[y * w + x]
    };
    let sep = |x: i64, y: i64, scale: f64| {
        let k = [1.0, 2.0, 1.0];
        (0..3)
            .map(|j| {
                k[j] * (0..3)
                    .map(|i| k[i] * scale * at(x + i as i64 - 1, y + j as i64 - 1))
                    .sum::<f64>()
            })
            .sum::<f64>()
    };
    let mut offset = floats(
        "o0 = float(p0[1, 0]) + separable(float(p0), [1, 2, 1], [1, 2, 1]);",
        "[3, 3]",
        w,
        h,
    );
    offset.input = Ty::Ushort;
    let got = offset.run("separable-offset", &frame);
    let want: Vec<f64> = (0..w * h)
        .map(|i| {
            let (x, y) = ((i % w) as i64, (i / w) as i64);
            at(x + 1, y) + sep(x, y, 1.0)
        })
        .collect();
    assert_eq!(got[0], want);

    let mut blocks = floats(
        "o0 = separable(p0 * 2, [1, 2, 1], [1, 2, 1]);",
        "[3, 3]",
        w,
        h,
    );
    blocks.mul = (2, 2);
    let got = blocks.run("separable-blocks", &frame);
    let want: Vec<f64> = (0..4 * w * h)
        .map(|i| {
            let (ex, ey) = (i % (2 * w), i / (2 * w));
            sep((ex / 2) as i64, (ey / 2) as i64, 2.0)
        })
        .collect();
    assert_eq!(got[0], want);
}

/// Deterministic values in [-4, 4) with a fraction (a 32-bit LCG).
fn noise(n: usize, seed: u32) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1664525).wrapping_add(1013904223);
            ((s >> 8) as f64 / (1u32 << 24) as f64 * 8.0 - 4.0) as f32 as f64
        })
        .collect()
}

/// A window's sum of more than 49 terms is a loop in the C: the same
/// operations in the same order as the written-out sum (products rounded
/// to float, added left to right, a weight of 1 adding the element, a
/// weight of 0 left out; under `--contract` every later term an fma), so
/// a 9 × 9 stencil of float weights gives the bits of that order computed
/// here, and a mean of 8 × 8 blocks the left-to-right block sum / 64.
#[test]
fn a_large_window_sums_in_the_order_of_a_small_one() {
    let (w, h) = (13usize, 11usize);
    let frame = noise(w * h, 7);
    let weights: Vec<f64> = noise(81, 11)
        .into_iter()
        .enumerate()
        .map(|(k, v)| match k % 9 {
            0 => 1.0,
            4 => 0.0,
            _ => v,
        })
        .collect();
    let list: Vec<String> = weights.iter().map(|v| format!("{v:?}")).collect();
    let c = floats(
        &format!("o0 = stencil(p0, [{}]);", list.join(", ")),
        "[9, 9]",
        w,
        h,
    );
    let at = |x: i64, y: i64| {
        frame[y.clamp(0, h as i64 - 1) as usize * w + x.clamp(0, w as i64 - 1) as usize] as f32
    };
    let model = |fused: bool| -> Vec<f64> {
        (0..w * h)
            .map(|i| {
                let (x, y) = ((i % w) as i64, (i / w) as i64);
                let mut acc: Option<f32> = None;
                for (k, wk) in weights.iter().enumerate() {
                    if *wk == 0.0 {
                        continue;
                    }
                    let t = at(x + (k % 9) as i64 - 4, y + (k / 9) as i64 - 4);
                    let wf = *wk as f32;
                    acc = Some(match acc {
                        None if *wk == 1.0 => t,
                        None => wf * t,
                        Some(a) if *wk == 1.0 => a + t,
                        Some(a) if fused => wf.mul_add(t, a),
                        Some(a) => a + wf * t,
                    });
                }
                acc.unwrap() as f64
            })
            .collect()
    };
    let (got, text) = c.run_c("stencil-9x9", &frame, "");
    assert!(text.contains("ssc_wsum_float_float("), "no loop in the C");
    assert!(same_bits(&got, &[model(false)]), "stencil 9 x 9");
    let got = c.run_with("stencil-9x9-contract", &frame, "--contract");
    assert!(same_bits(&got, &[model(true)]), "stencil 9 x 9 --contract");
    // Contraction changed some element: the two models differ.
    assert!(!same_bits(&[model(false)], &[model(true)]));

    let (bw, bh) = (3usize, 2usize);
    let big = noise(64 * bw * bh, 5);
    let mut mean = floats("o0 = mean(p0);", "", bw, bh);
    mean.in_mul = (8, 8);
    let (got, text) = mean.run_c("mean-8x8", &big, "");
    assert!(text.contains("ssc_bsum_float_float("), "no loop in the C");
    let got = got[0].clone();
    let want: Vec<f64> = (0..bw * bh)
        .map(|i| {
            let (px, py) = (i % bw, i / bw);
            let mut acc = 0f32;
            for j in 0..8 {
                for k in 0..8 {
                    let v = big[(8 * py + j) * 8 * bw + 8 * px + k] as f32;
                    acc = if j == 0 && k == 0 { v } else { acc + v };
                }
            }
            (acc / 64.0) as f64
        })
        .collect();
    assert!(
        same_bits(std::slice::from_ref(&got), std::slice::from_ref(&want)),
        "mean 8 x 8: {got:?} {want:?}"
    );
}

/// A definition that leaves one of its inputs unread compiles without a
/// warning (`-Werror`): the unread port gets no variable.
#[test]
fn an_unread_input_leaves_no_unused_variable() {
    let dir = scratch("semantics-unread");
    let desc = write_input(
        &dir,
        "unread.ssc",
        "declaration {
  function_declaration func_source_f NONE { out OUT float mul [1, 1]; };
  function_declaration func_sink_f NONE { in IN float mul [1, 1]; };
  function_declaration f FULL { a IN float mul [1, 1]; b IN float mul [1, 1]; out OUT float mul [1, 1]; };
  function_definition f { out = a * 2; };
  function s1 func_source_f [16, 8], s2 func_source_f [16, 8], k f [16, 8], snk func_sink_f [16, 8];
  s1.out -> k.a;
  s2.out -> k.b;
  k.out -> snk.in;
}
",
    );
    let tc = Toolchain::new("werror", "cc", "-O2 -Werror").unwrap_or_else(|e| panic!("{e}"));
    build(&tc, &Case::new(&desc, "-ts reduced 2"), &dir).unwrap_or_else(|e| panic!("{e}"));
}

/// A saturating conversion from a type whose values cannot reach one of
/// the target's bounds (`ushort_sat` of a `short` never reaches 65535)
/// leaves that comparison out: the C compiles without a warning
/// (`-Werror`, gcc's -Wtype-limits).
#[test]
fn a_saturation_compares_only_the_bounds_its_values_reach() {
    let mut c = floats("o0 = ushort_sat(p0);", "", 4, 1);
    c.input = Ty::Int;
    c.output = Ty::Ushort;
    let text = c.text().replace("int mul", "short mul");
    let dir = scratch("semantics-sat");
    let desc = write_input(&dir, "sat.ssc", &text);
    let tc = Toolchain::new("werror", "cc", "-O2 -Werror").unwrap_or_else(|e| panic!("{e}"));
    build(&tc, &Case::new(&desc, "-ts reduced 2"), &dir).unwrap_or_else(|e| panic!("{e}"));
}

/// A comparison of integers that their ranges decide (`u >= 0` of an
/// unsigned `u`) is its branch: the same values, and C without the
/// comparison its types decide (gcc warns on it, -Wtype-limits).
#[test]
fn a_comparison_the_ranges_decide_is_its_branch() {
    let mut c = floats(
        "o0 = select(p0 >= 0, p0, 7) + select(p0 > 65535, 7, 0) + select(p0 <= 65535, 0, 1);",
        "",
        3,
        1,
    );
    c.input = Ty::Ushort;
    c.output = Ty::Ushort;
    assert_eq!(
        c.run("decided", &[0.0, 5.0, 65535.0])[0],
        vec![0.0, 5.0, 65535.0]
    );
    let dir = scratch("semantics-decided-werror");
    let desc = write_input(&dir, "decided.ssc", &c.text());
    let tc = Toolchain::new("werror", "cc", "-O2 -Werror").unwrap_or_else(|e| panic!("{e}"));
    build(&tc, &Case::new(&desc, "-ts reduced 2"), &dir).unwrap_or_else(|e| panic!("{e}"));
}

/// A window's row that only weights of 0 read has no row pointer in the
/// C (an unused variable is a warning, `-Werror` refuses it): a stencil
/// with a row of zeros, a separable sum with a zero y weight or zero x
/// weights, beside reads at offsets (so they are summed element by
/// element).
#[test]
fn rows_only_zero_weights_read_get_no_pointer() {
    let mut c = floats(
        "o0 = stencil(p0, [1, 2, 1, 0, 0, 0, 1, 2, 1]) + separable(p0, [1, 2, 1], [1, 0, 1]) + separable(p0, [0, 0, 0], [1, 2, 1]) + p0[1, 0];",
        "[3, 3]",
        5,
        4,
    );
    c.input = Ty::Float;
    let dir = scratch("semantics-zero-rows");
    let desc = write_input(&dir, "zero_rows.ssc", &c.text());
    let tc = Toolchain::new("werror", "cc", "-O2 -Werror").unwrap_or_else(|e| panic!("{e}"));
    build(&tc, &Case::new(&desc, "-ts reduced 2"), &dir).unwrap_or_else(|e| panic!("{e}"));
    let frame: Vec<f64> = (0..20).map(|i| i as f64).collect();
    c.run("zero-rows", &frame);
}

/// A select the ranges decide drops the branch it never takes, and a
/// window of an expression only that branch read reads nothing: the port
/// it read gets no variable in the C (`-Werror`).
#[test]
fn a_branch_never_taken_reads_no_port() {
    let dir = scratch("semantics-dead-local");
    let desc = write_input(
        &dir,
        "dead_local.ssc",
        "declaration {
  function_declaration func_source_d NONE { out OUT double mul [1, 1]; };
  function_declaration func_sink_d NONE { in IN double mul [1, 1]; };
  function_declaration f FULL { p0 IN double mul [1, 1] [1, 1]; out OUT double mul [1, 1]; };
  function_definition f { out = select(uint(clamp(floor(p0), 0, 7)) > 100, double(box(uchar(clamp(floor(p0), 0, 100)))), 0.5); };
  function s func_source_d [16, 4], k f [16, 4], snk func_sink_d [16, 4];
  s.out -> k.p0;
  k.out -> snk.in;
}
",
    );
    let tc = Toolchain::new("werror", "cc", "-O2 -Werror").unwrap_or_else(|e| panic!("{e}"));
    build(&tc, &Case::new(&desc, "-ts reduced 2"), &dir).unwrap_or_else(|e| panic!("{e}"));
}

/// Adding a zero turns -0 into +0, which the C compiler must not fold
/// away: gcc 12 compiled `-(-(float)i + 0.0f)` to `(float)i`, +0 for i = 0
/// where C's arithmetic gives -0 (the differential tester's seed
/// 20261204). `(0.1 + 0.2 - 0.3)` is 0 in float.
#[test]
fn an_added_zero_turns_minus_zero_into_plus_zero() {
    let mut c = floats("o0 = -(-float(p0) + (0.1 + 0.2 - 0.3));", "", 3, 1);
    c.input = Ty::Int;
    let got = c.run("added-zero", &[0.0, 1.0, -2.0]);
    assert!(
        same_bits(&got, &[vec![-0.0, 1.0, -2.0]]),
        "{:?}",
        got[0].iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    // x - -0 adds a zero too; x + 0 of a plain element as well.
    let mut c = floats("o0 = -(-p0 - 0 * -1); o1 = -p0 + 0;", "", 2, 1);
    c.outputs = 2;
    let got = c.run("added-minus-zero", &[0.0, 2.5]);
    assert!(
        same_bits(&got, &[vec![-0.0, 2.5], vec![0.0, -2.5]]),
        "{got:?}"
    );
}
