//! The frames a chain is fed and the files its program writes.
//!
//! Takes a chain's seed and a source's type and grid; gives deterministic
//! pseudo-random frames (smooth, noisy, real-looking values, and about one
//! element in eight an edge value: NaN, ±inf, ±0, denormals, the type's
//! extremes, halves), their raw files (`--input NAME=DIR`, one `.raw` per
//! frame: the port's type, native byte order, top row first), and reads
//! back what `--output DIR` wrote (8-bit PGM for uchar, 16-bit PGM for
//! ushort, PFM for float, raw for the rest; runtime-c/README.md, "Image
//! files"). Guarantees: the same seed gives the same frames; a file of the
//! wrong size or header is an error naming it.

use super::ast::{Ty, Val};
use super::eval::Grid;
use std::path::Path;

/// splitmix64.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const FLOAT_EDGES: [f64; 16] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    -0.0,
    0.0,
    1e-40,
    -1e-45,
    3.4028234663852886e38,
    -3.4028234663852886e38,
    0.5,
    2.5,
    -2.5,
    -0.5,
    1e30,
    2147483647.0,
    4294967296.0,
];

/// One frame of a source of type `ty`.
pub fn frame(rng: &mut Rng, ty: Ty, w: u32, h: u32) -> Grid {
    let (lo, hi) = ty.range();
    let base = rng.below(1000) as f64;
    let slope = rng.below(50) as f64 / 7.0;
    let n = (w * h) as usize;
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        let (x, y) = ((i % w as usize) as f64, (i / w as usize) as f64);
        let edge = rng.below(8) == 0;
        let noise = (rng.below(2001) as f64 - 1000.0) / 64.0;
        let smooth = base + slope * (x + 2.0 * y) + noise;
        v.push(match ty {
            Ty::Float | Ty::Double => {
                let x = if edge {
                    let e = FLOAT_EDGES[rng.below(16) as usize];
                    if ty == Ty::Double && rng.below(3) == 0 {
                        [5e-324, 1e300, -1.7976931348623157e308][rng.below(3) as usize]
                    } else {
                        e
                    }
                } else {
                    smooth - 300.0
                };
                if ty == Ty::Float {
                    Val::F(x as f32)
                } else {
                    Val::D(x)
                }
            }
            _ => Val::I(
                if edge {
                    [lo, hi, 0, 1, lo + 1, hi - 1][rng.below(6) as usize].clamp(lo, hi)
                } else {
                    let span = (hi - lo).min(4000) as f64;
                    let mid = if lo < 0 { 0.0 } else { span / 2.0 };
                    ((smooth % span) - span / 2.0 + mid).round() as i64
                }
                .clamp(lo, hi),
            ),
        });
    }
    Grid {
        w,
        h,
        loose: vec![false; n],
        v,
    }
}

fn le_bytes(ty: Ty, v: Val, out: &mut Vec<u8>) {
    match (ty, v) {
        (Ty::Char, Val::I(x)) => out.extend((x as i8).to_ne_bytes()),
        (Ty::UChar, Val::I(x)) => out.extend((x as u8).to_ne_bytes()),
        (Ty::Short, Val::I(x)) => out.extend((x as i16).to_ne_bytes()),
        (Ty::UShort, Val::I(x)) => out.extend((x as u16).to_ne_bytes()),
        (Ty::Int, Val::I(x)) => out.extend((x as i32).to_ne_bytes()),
        (Ty::UInt, Val::I(x)) => out.extend((x as u32).to_ne_bytes()),
        (Ty::Float, Val::F(x)) => out.extend(x.to_ne_bytes()),
        (Ty::Double, Val::D(x)) => out.extend(x.to_ne_bytes()),
        _ => panic!("a {} frame holds another type's value", ty.name()),
    }
}

/// The raw file of a frame.
pub fn raw(ty: Ty, g: &Grid) -> Vec<u8> {
    let mut out = Vec::with_capacity(g.v.len() * ty.bytes());
    for &v in &g.v {
        le_bytes(ty, v, &mut out);
    }
    out
}

fn from_ne(ty: Ty, b: &[u8]) -> Val {
    match ty {
        Ty::Char => Val::I(i8::from_ne_bytes([b[0]]) as i64),
        Ty::UChar => Val::I(b[0] as i64),
        Ty::Short => Val::I(i16::from_ne_bytes([b[0], b[1]]) as i64),
        Ty::UShort => Val::I(u16::from_ne_bytes([b[0], b[1]]) as i64),
        Ty::Int => Val::I(i32::from_ne_bytes(b.try_into().unwrap()) as i64),
        Ty::UInt => Val::I(u32::from_ne_bytes(b.try_into().unwrap()) as i64),
        Ty::Float => Val::F(f32::from_ne_bytes(b.try_into().unwrap())),
        Ty::Double => Val::D(f64::from_ne_bytes(b.try_into().unwrap())),
    }
}

/// The output file of a sink of type `ty` and grid w × h, top row first.
pub fn read_output(
    dir: &Path,
    sink: &str,
    frame: usize,
    ty: Ty,
    w: u32,
    h: u32,
) -> Result<Vec<Val>, String> {
    let ext = match ty {
        Ty::UChar | Ty::UShort => "pgm",
        Ty::Float => "pfm",
        _ => "raw",
    };
    let path = dir.join(format!("{sink}_{frame:04}.{ext}"));
    let b = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (w, h) = (w as usize, h as usize);
    let px = if ext == "raw" {
        &b[..]
    } else {
        let end = b
            .iter()
            .enumerate()
            .filter(|(_, c)| **c == b'\n')
            .nth(2)
            .ok_or_else(|| format!("{}: no header", path.display()))?
            .0;
        let header = String::from_utf8_lossy(&b[..end]).into_owned();
        let want = match ty {
            Ty::UChar => format!("P5\n{w} {h}\n255"),
            Ty::UShort => format!("P5\n{w} {h}\n65535"),
            _ => format!("Pf\n{w} {h}\n-1.0"),
        };
        if header != want {
            return Err(format!(
                "{}: header {header:?}, not {want:?}",
                path.display()
            ));
        }
        &b[end + 1..]
    };
    let size = ty.bytes();
    if px.len() != w * h * size {
        return Err(format!(
            "{}: {} bytes of pixels, not {}",
            path.display(),
            px.len(),
            w * h * size
        ));
    }
    let mut rows: Vec<Vec<Val>> = px
        .chunks(w * size)
        .map(|r| {
            r.chunks(size)
                .map(|c| match ty {
                    Ty::UShort => Val::I(u16::from_be_bytes([c[0], c[1]]) as i64),
                    Ty::Float => Val::F(f32::from_le_bytes(c.try_into().unwrap())),
                    _ => from_ne(ty, c),
                })
                .collect()
        })
        .collect();
    if ty == Ty::Float {
        // PFM: bottom row first.
        rows.reverse();
    }
    Ok(rows.into_iter().flatten().collect())
}
