//! `-ts auto`, the default without `-ts`: the build chooses the scheduler,
//! its strips, `--inline` and the thread count by the cost model.
//!
//! Takes the build's arguments (no `-ts`, or `-ts auto [N]`) and the
//! description; gives the arguments of the chosen candidate, with the
//! reason the build's last line and `-v` print ([`BuildArgs::auto_choice`]).
//!
//! The candidates, on every thread count from the most (N, else the cores
//! this process may use: its affinity and CPU quota) down to 1:
//! `fused n` with its default strips and with strips of 16, 32 and 64
//! rows (the taller ones where a strip fits a share of the model's cache,
//! [`STRIP_SHARE`]), `predictable n` and `reduced n`; each with and without
//! `--inline`, except that on whole frames an inlined candidate that fuses
//! an `int` or `uint` function is not tried ([`integer_fusion`]).
//! Where `fused n` runs box-at-a-time (its frames fit the cache), the
//! whole-frame candidates take the memory schedule it chose
//! (`pipeline/streaming.rs`: naive where every buffer fits the cores'
//! caches, measured faster there), said as `-ms` in their flags.
//! What the command line says stays its own: `--inline` keeps every
//! candidate inlined, `--strip-rows`, `--cache-bytes` or `--max-subboxes`
//! keep only the fused ones, `-ms` applies to all. `--contract` and
//! `--reciprocal` change the bits and are never chosen (`--inline` and the
//! schedules keep them: one checksum for every candidate). Each candidate
//! goes through the pipeline as `-pr` would analyse it (lowered, scheduled,
//! allocated, synchronised and proven) and is priced by `-pr`'s latency of
//! one iteration under this machine's cost model (`ssc calibrate`, else the
//! shipped coefficients; docs/fused.md, "What -ts auto chooses"). A fused
//! candidate whose frames all fit the cache runs box-at-a-time (E140): it
//! is the predictable one, and the other strip heights are not tried.
//!
//! The choice: the least predicted latency; a candidate within 1 % of it
//! that comes earlier in the order above (more threads, strips before
//! whole frames, taller strips after the default) wins, because the model
//! does not tell such candidates apart. Chains of more than
//! [`FEW_FUNCTIONS`] functions try only the most threads, without
//! changing `--inline`, to bound the build's time (each candidate is a
//! whole compile).
//!
//! Guarantees: deterministic for a description, its flags and the
//! machine's cores and calibration; never more threads than usable cores;
//! a description whose runtime section schedules it is built as written
//! (no choice is made); when no candidate compiles, the first one's
//! diagnostics are the build's.

use super::super::args::{BuildArgs, ThreadSchedule};
use super::super::config::online_cpus as usable_cores;
use super::super::defaults::DEFAULT_MEMORY;
use super::{lower_or_report, options};
use ssc::diagnostics::SourceFile;
use ssc::ir::{Description, ElemType};
use ssc::memory::MemoryKind;
use ssc::pipeline;
use ssc::schedule::SchedulerKind;

/// Above this many function instances only the most threads are tried,
/// with `--inline` as given.
pub(crate) const FEW_FUNCTIONS: usize = 300;

/// Strip heights tried besides the default one: the first always, a
/// taller one where a strip of the chain's widest buffer takes at most
/// [`STRIP_SHARE`] of the per-core cache ([`shapes`]).
const STRIP_ROWS: [u64; 3] = [16, 32, 64];

/// The share of the per-core cache (the cost model's `cache`) one strip
/// of the widest buffer may take for its height to be tried. A stage
/// reads and writes a strip of two or three buffers at once, with its
/// stencils' halos: at a quarter each they still fit the level-2 cache.
/// The model prices a strip by its sub-boxes alone, so it always prefers
/// the tallest; measured on fluoro and xray at 1024² (rows of 4 KiB), 64
/// rows (256 KiB a strip) were 1.04–1.24× slower than 32 in six of six
/// runs with 512 KiB of level-2 cache a core (`benches/auto/run.py`), and
/// within 1.08× of the best with 1 MiB, where they are still tried.
const STRIP_SHARE: f64 = 0.25;

/// A candidate within this share of the best is as good as it.
const TIE: f64 = 0.01;

/// One candidate: its flags as `-ts` and the others spell them, the
/// arguments that build it, and its predicted latency (µs).
struct Candidate {
    flags: String,
    args: BuildArgs,
    latency_us: f64,
}

/// The arguments `-ts auto` builds with, or `None` when `-ts` names a
/// scheduler or the description schedules itself.
pub(super) fn choose(
    a: &BuildArgs,
    desc: &Description,
    kernels: &[String],
    file: &SourceFile,
) -> Result<Option<BuildArgs>, i32> {
    let most = match a.thread_schedule {
        None => usable_cores(),
        Some(ThreadSchedule::Auto(0)) => usable_cores(),
        Some(ThreadSchedule::Auto(n)) => n.min(usable_cores()),
        Some(ThreadSchedule::Kind(_)) => return Ok(None),
    };
    let scheduled = desc
        .runtime
        .as_ref()
        .is_some_and(|r| !r.thread_executions.is_empty() || !r.thread_schedule.is_empty());
    if scheduled {
        return Ok(None);
    }
    let declaration = ssc::lower::lower_to_declaration(desc, &ssc::lower::LowerOptions::default())
        .ok()
        .and_then(|d| d.declaration);
    let functions = declaration.as_ref().map_or(0, |d| d.functions.len());
    let row_bytes = declaration
        .as_ref()
        .map_or(0.0, ssc::lower::split::widest_strip_row);
    let cache = super::options::cost_model().coefficients.cache;
    let few = functions <= FEW_FUNCTIONS;
    let mut tried: Vec<Candidate> = Vec::new();
    let mut first_error = None;
    for threads in (1..=most.max(1)).rev() {
        if !few && threads != most {
            continue;
        }
        let mut streams = true;
        // The memory `-ts fused` chose running box-at-a-time, for the
        // whole-frame candidates (`pipeline/streaming.rs`'s measured rule).
        let mut whole_frames = None;
        for (kind, rows) in shapes(a, threads, row_bytes, cache) {
            if !streams && matches!(kind, SchedulerKind::Fused(_)) {
                continue;
            }
            for inline in inlines(a, few) {
                let mut args = with_choice(a, kind, rows, inline);
                if !matches!(kind, SchedulerKind::Fused(_)) && a.memory_schedule.is_none() {
                    // (Interference, their default, is left unsaid.)
                    args.memory_schedule = whole_frames.filter(|&m| m != DEFAULT_MEMORY);
                }
                let flags = spell(kind, rows.or(a.strip_rows), inline, args.memory_schedule);
                match predict(&args, desc, kernels, file) {
                    Ok((latency_us, fell_back, integers)) => {
                        if fell_back.is_some() && !restricted(a) {
                            // Box-at-a-time: the predictable candidate.
                            streams = false;
                            whole_frames = whole_frames.or(fell_back.flatten());
                            continue;
                        }
                        if integers
                            && inline
                            && !a.inline
                            && !matches!(kind, SchedulerKind::Fused(_))
                        {
                            continue;
                        }
                        tried.push(Candidate {
                            flags,
                            args,
                            latency_us,
                        });
                    }
                    Err(()) => {
                        first_error.get_or_insert(args);
                    }
                }
            }
        }
    }
    if tried.is_empty() {
        // Report the first candidate's diagnostics as the build's own.
        if let Some(args) = first_error {
            let (_, lowered) = compile(&args, desc, kernels, file)?;
            lower_or_report(lowered, file)?;
        }
        return Ok(None);
    }
    let best = tried
        .iter()
        .map(|c| c.latency_us)
        .fold(f64::INFINITY, f64::min);
    let pick = tried
        .iter()
        .position(|c| c.latency_us <= best * (1.0 + TIE))
        .expect("the best is within the tie");
    let mut ranked: Vec<&Candidate> = tried.iter().collect();
    ranked.sort_by(|x, y| x.latency_us.total_cmp(&y.latency_us));
    let chosen = &tried[pick];
    let mut args = chosen.args.clone();
    args.verbose = a.verbose;
    args.auto_choice = Some(AutoChoice {
        flags: chosen.flags.clone(),
        table: ranked
            .iter()
            .map(|c| (c.flags.clone(), c.latency_us))
            .collect(),
    });
    Ok(Some(args))
}

/// What `-ts auto` chose and why, for the build's last line and `-v`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AutoChoice {
    /// The chosen flags (`-ts fused 2 --inline --strip-rows 32`).
    pub flags: String,
    /// Every candidate with its predicted latency (µs), best first.
    pub table: Vec<(String, f64)>,
}

impl AutoChoice {
    /// The reason, as the build's last line gives it: the choice's
    /// prediction and the next two candidates'.
    pub(crate) fn reason(&self) -> String {
        let mine = self
            .table
            .iter()
            .find(|(f, _)| *f == self.flags)
            .map_or(f64::NAN, |(_, us)| *us);
        let next: Vec<String> = self
            .table
            .iter()
            .filter(|(f, _)| *f != self.flags)
            .take(2)
            .map(|(f, us)| format!("{f} {us:.0} µs"))
            .collect();
        format!(
            "chosen by -ts auto: predicted {mine:.0} µs{}",
            if next.is_empty() {
                String::new()
            } else {
                format!("; next {}", next.join(", "))
            }
        )
    }

    /// `-v`'s table of the candidates.
    pub(crate) fn verbose(&self) -> String {
        let mut s = String::from("-ts auto: predicted latency of each candidate (-pr)\n");
        for (flags, us) in &self.table {
            s += &format!("  {us:>10.1} µs  {flags}\n");
        }
        s
    }
}

/// The schedules tried on `threads` threads, in the order of preference:
/// `(scheduler, strip rows)`.
fn shapes(
    a: &BuildArgs,
    threads: usize,
    row_bytes: f64,
    cache: f64,
) -> Vec<(SchedulerKind, Option<u64>)> {
    let fused = SchedulerKind::Fused(threads);
    if restricted(a) {
        return vec![(fused, None)];
    }
    let mut v = vec![(fused, None)];
    v.extend(
        STRIP_ROWS
            .iter()
            .enumerate()
            .filter(|&(k, &r)| k == 0 || r as f64 * row_bytes <= cache * STRIP_SHARE)
            .map(|(_, &r)| (fused, Some(r))),
    );
    v.push((SchedulerKind::Predictable(threads), None));
    v.push((SchedulerKind::Reduced(threads), None));
    v
}

/// Whether the command line sized the strips (only `-ts fused` is tried).
fn restricted(a: &BuildArgs) -> bool {
    a.strip_rows.is_some() || a.cache_bytes.is_some() || a.max_subboxes.is_some()
}

/// `--inline`'s values tried: the one given, or both for a small chain
/// (on whole frames an inlined candidate that fuses an `int` or `uint`
/// function is then dropped, [`integer_fusion`]).
fn inlines(a: &BuildArgs, few: bool) -> Vec<bool> {
    if a.inline || !few {
        vec![a.inline]
    } else {
        vec![true, false]
    }
}

fn with_choice(a: &BuildArgs, kind: SchedulerKind, rows: Option<u64>, inline: bool) -> BuildArgs {
    let mut b = a.clone();
    // The candidates are built quietly: `-v` speaks of the chosen one.
    b.verbose = false;
    b.thread_schedule = Some(ThreadSchedule::Kind(kind));
    if rows.is_some() {
        b.strip_rows = rows;
    }
    b.inline = inline;
    b
}

/// `-ts fused 2 --inline --strip-rows 32`, `-ts predictable 2 -ms naive`.
fn spell(
    kind: SchedulerKind,
    rows: Option<u64>,
    inline: bool,
    memory: Option<MemoryKind>,
) -> String {
    let mut s = format!("-ts {kind}");
    if let Some(m) = memory {
        s += &format!(" -ms {}", m.keyword());
    }
    if inline {
        s += " --inline";
    }
    if let (SchedulerKind::Fused(_), Some(r)) = (kind, rows) {
        s += &format!(" --strip-rows {r}");
    }
    s
}

type Lowered = Result<pipeline::Compiled, Vec<ssc::diagnostics::Diagnostic>>;

/// The pipeline's options of `args` and what the pipeline makes of them.
fn compile(
    args: &BuildArgs,
    desc: &Description,
    kernels: &[String],
    file: &SourceFile,
) -> Result<(pipeline::Options, Lowered), i32> {
    let config = options::resolve(args, file)?;
    let opts = options::options_of(args, &config, kernels);
    let compiled = pipeline::compile(desc, &opts);
    Ok((opts, compiled))
}

/// A candidate's predicted latency; when `-ts fused` ran it box-at-a-time,
/// `Some` of the memory schedule it used; whether `--inline` fused an
/// `int` or `uint` function ([`integer_fusion`]). `Err(())` when it does not
/// compile.
fn predict(
    args: &BuildArgs,
    desc: &Description,
    kernels: &[String],
    file: &SourceFile,
) -> Result<(f64, Option<Option<MemoryKind>>, bool), ()> {
    let Ok((opts, Ok(c))) = compile(args, desc, kernels, file) else {
        return Err(());
    };
    let fell_back = (matches!(opts.scheduler, SchedulerKind::Fused(_))
        && c.schedule
            .as_ref()
            .is_some_and(|s| !matches!(s.kind, SchedulerKind::Fused(_))))
    .then(|| c.memory.as_ref().and_then(|m| m.kind));
    let analysis = ssc::analysis::analyse(&c).map_err(|_| ())?;
    Ok((analysis.latency_us, fell_back, integer_fusion(&c)))
}

/// Whether `--inline` made a fused function (`fused_…`) with a port of a
/// 32-bit integer type (`int`, `uint`), whose built-ins compute in
/// `double` and saturate back. On whole frames such a candidate is not
/// tried: nested, those conversions do not vectorise where each stage's
/// own loop does. Measured on the generated chains at 256²: `--inline`
/// made the `int` ones 1.1–1.5× slower (gen3's fused average took 186 µs
/// where the three functions it replaced took 68) and the `float` ones
/// 0.6–0.9× (docs/fused.md). The narrower types compute in `int`, and a
/// `float` function that reads or writes one converts once: gen10's
/// `ushort` chain inlined on whole frames was the fastest configuration in
/// five of six runs on two machines, and xray, whose fused flat field
/// reads `ushort`, in three of six at 512² (`benches/auto/run.py`). The
/// model prices an operation the same nested or not, so it cannot tell
/// them apart.
fn integer_fusion(c: &pipeline::Compiled) -> bool {
    c.description.declaration.as_ref().is_some_and(|d| {
        d.function_decls.iter().any(|f| {
            f.name.as_str().starts_with("fused_")
                && f.ports
                    .iter()
                    .any(|p| matches!(p.ty, ElemType::Int | ElemType::Uint))
        })
    })
}
