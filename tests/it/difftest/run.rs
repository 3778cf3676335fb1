//! One differential check: a bundle of chains built under every exact
//! configuration, run on its frames, compared with the evaluator.
//!
//! Takes a bundle of [`Chain`]s and a scratch directory; writes the
//! description (`difftest.ssc`) and each source's frames (`in/NAME/`)
//! there, builds the program with `ssc build` under each of [`CONFIGS`],
//! runs it (`--input NAME=DIR` per source, `--output DIR`, one iteration
//! per frame) and compares every sink's every frame with [`evaluate`].
//! Gives Ok, or the first discrepancies with what reproduces them. A
//! refusal of the description (ssc's exit 1) is a discrepancy too: the
//! generator writes only chains the docs call legal.

use super::ast::*;
use super::eval::{evaluate, Cell, Grid};
use super::frames::{frame, raw, read_output, Rng};
use super::known_open;
use crate::support::{self, Case, Toolchain};
use std::fmt::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Elements compared: exactly, against several allowed values, not at all
/// (computed from a median that could take several values).
pub static COMPARED: [AtomicUsize; 3] = [
    AtomicUsize::new(0),
    AtomicUsize::new(0),
    AtomicUsize::new(0),
];

/// Iterations (frames) per run: enough for a delay to carry a frame's
/// value into the next and the next.
pub const FRAMES: usize = 3;

/// The configurations whose results are exact (no `--contract`, no
/// `--reciprocal`).
pub const CONFIGS: [&str; 5] = [
    "-ts simple",
    "-ts reduced 2",
    "-ts fused 2",
    "-ts fused 2 --strip-rows 2",
    "-ts reduced 2 --inline",
];

/// `cc -O2 -Werror`, or `cc -O2` while the generated C of a function
/// that does not read one of its ports declares an unused variable
/// (`unread-port-warning` on [`super::KNOWN_OPEN`]).
fn toolchain() -> &'static Toolchain {
    static TC: OnceLock<Toolchain> = OnceLock::new();
    TC.get_or_init(|| {
        let _s = support::slot();
        let flags = if known_open("unread-port-warning") {
            "-O2"
        } else {
            "-O2 -Werror"
        };
        Toolchain::new("difftest", "cc", flags).unwrap_or_else(|e| panic!("{e}"))
    })
}

/// The frames of every source of every chain: `[chain][source][frame]`.
fn all_frames(chains: &[Chain]) -> Vec<Vec<Vec<Grid>>> {
    chains
        .iter()
        .map(|ch| {
            let mut rng = Rng::new(ch.seed);
            (0..ch.sources.len())
                .map(|s| {
                    let (w, h) = ch.source_grid(s);
                    (0..FRAMES)
                        .map(|_| frame(&mut rng, ch.sources[s].ty, w, h))
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// The inputs of function `f` at output element (x, y), for a report.
fn inputs_at(c: usize, ch: &Chain, frames: &[Vec<Grid>], f: usize, x: u32, y: u32) -> String {
    let func = &ch.funcs[f];
    let mut s = String::new();
    for (p, port) in func.inputs.iter().enumerate() {
        let (px, py) = if func.out_mul == (2, 2) {
            (x / 2, y / 2)
        } else {
            (x, y)
        };
        let what = match port.src {
            Src::Source(k) => {
                let at = |fr: usize| {
                    let g = &frames[k][fr];
                    let (gx, gy) = (px.min(g.w - 1), py.min(g.h - 1));
                    g.v[(gy * g.w + gx) as usize].show()
                };
                format!(
                    "source {} at ({px}, {py}), frames 0..{FRAMES}: {}",
                    source_name(c, k),
                    (0..FRAMES).map(at).collect::<Vec<_>>().join(", ")
                )
            }
            Src::Func(j) => format!("function {j}'s output"),
            Src::Delayed(j) => format!("function {j}'s output of the previous frame"),
        };
        let _ = writeln!(s, "      {}: {what}", port_name(p));
    }
    s
}

/// Builds, runs and compares the bundle in `dir`.
pub fn check(chains: &[Chain], dir: &Path) -> Result<(), String> {
    let text = description(chains);
    let file = dir.join("difftest.ssc");
    std::fs::write(&file, &text).unwrap();
    let frames = all_frames(chains);
    let mut inputs = Vec::new();
    for (c, ch) in chains.iter().enumerate() {
        for (s, src) in ch.sources.iter().enumerate() {
            let name = source_name(c, s);
            let d = dir.join("in").join(&name);
            std::fs::create_dir_all(&d).unwrap();
            for (k, g) in frames[c][s].iter().enumerate() {
                std::fs::write(d.join(format!("f{k}.raw")), raw(src.ty, g)).unwrap();
            }
            inputs.push("--input".to_string());
            inputs.push(format!("{name}={}", d.display()));
        }
    }
    let want: Vec<_> = chains
        .iter()
        .zip(&frames)
        .map(|(ch, fr)| evaluate(ch, fr, FRAMES))
        .collect();
    let one = |cfg: &&str| -> Result<(), String> {
        let d = dir.join(cfg.replace([' ', '-'], "_"));
        std::fs::create_dir_all(&d).unwrap();
        let exe = support::build(toolchain(), &Case::new(&file, cfg), &d).map_err(|e| {
            format!(
                "`ssc build {} {cfg}` failed on a legal description:\n{e}",
                file.display()
            )
        })?;
        let out = d.join("out");
        let mut args = inputs.clone();
        args.extend(["--output".to_string(), out.display().to_string()]);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = support::run_in(&[], &exe, &a, &[], &d, support::RUN_DEADLINE)?;
        if !ran.status.success() {
            return Err(format!(
                "{cfg}: the program exited {:?}:\n{}{}",
                ran.status.code(),
                ran.stdout,
                ran.stderr
            ));
        }
        compare(chains, &frames, &want, &out, cfg)
    };
    // The first configuration alone: a refusal or a C error is every
    // configuration's, and a shrinking run learns it in one build.
    let mut results = vec![one(&CONFIGS[0])];
    if results[0].is_ok() {
        results.extend(support::parallel(&CONFIGS[1..], one));
    }
    let errors: Vec<String> = results.into_iter().filter_map(Result::err).collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\nthe description ({}):\n{text}",
            errors.join("\n"),
            file.display()
        ))
    }
}

fn compare(
    chains: &[Chain],
    frames: &[Vec<Vec<Grid>>],
    want: &[Vec<Vec<Vec<Cell>>>],
    out: &Path,
    cfg: &str,
) -> Result<(), String> {
    let mut report = String::new();
    for (c, ch) in chains.iter().enumerate() {
        for (f, func) in ch.funcs.iter().enumerate() {
            let (w, h) = ch.out_grid(f);
            let sink = sink_name(c, f);
            for (k, iteration) in want[c].iter().enumerate() {
                let got = read_output(out, &sink, k, func.out_ty, w, h)?;
                for cell in &iteration[f] {
                    let kind = match cell {
                        Cell::Exact(_) => 0,
                        Cell::OneOf(_) => 1,
                        Cell::Unknown => 2,
                    };
                    COMPARED[kind].fetch_add(1, Ordering::Relaxed);
                }
                let bad: Vec<usize> = (0..got.len())
                    .filter(|&i| !iteration[f][i].admits(got[i]))
                    .collect();
                if let Some(&i) = bad.first() {
                    let (x, y) = (i as u32 % w, i as u32 / w);
                    let mut e = String::new();
                    print_expr(&func.expr, &mut e);
                    let _ = writeln!(
                        report,
                        "{cfg}: chain {c} function {f} (`out = {e};`, {} [{}, {}]) \
                         frame {k}: {} of {} elements differ; first at ({x}, {y}): \
                         expected {:?}, got {}\n    inputs:\n{}",
                        func.out_ty.name(),
                        w,
                        h,
                        bad.len(),
                        got.len(),
                        iteration[f][i],
                        got[i].show(),
                        inputs_at(c, ch, &frames[c], f, x, y)
                    );
                    break;
                }
            }
        }
    }
    if report.is_empty() {
        Ok(())
    } else {
        Err(report)
    }
}
