//! `-t info`: a summary of a compiled description — actors, threads,
//! signals, waits per iteration, bytes against the lower bound for every
//! memory schedule, predicted makespan against its lower bound, and which
//! buffers the build folds into rings of rows (and why a buffer that could
//! not be is whole) — as text or JSON. Deterministic: it reports
//! predictions, never measurements.

use crate::ir::hsdfg::Hsdfg;
use crate::memory::MemoryKind;
use crate::pipeline::Compiled;
use crate::schedule::Schedule;
use serde::Serialize;
use std::fmt::Write as _;

/// Bytes one memory schedule uses for the compiled thread schedule.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MemoryLine {
    pub memory_schedule: &'static str,
    pub bytes: u64,
    pub lower_bound: u64,
    /// `bytes / lower_bound`.
    pub ratio: f64,
}

/// The summary.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Info {
    pub functions: usize,
    pub actors: usize,
    pub dependencies: usize,
    pub buffers: usize,
    pub buffer_bytes: u64,
    pub threads: usize,
    pub signals: usize,
    pub waits_per_iteration: usize,
    pub barriers: usize,
    pub scheduler: Option<String>,
    pub makespan_us: Option<f64>,
    pub makespan_lower_bound_us: Option<f64>,
    pub memory: Vec<MemoryLine>,
    /// Under `-ts fused`: the bytes of the box-at-a-time reference and the
    /// share of them the chosen memory schedule uses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<Reference>,
    /// Under a memory schedule that folds: every buffer, folded or not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub folds: Vec<FoldLine>,
    pub kernels: Kernels,
    pub proof: String,
}

/// What each function runs as, by function name (sorted): a loop nest
/// generated from its definition (a defined function, or a built-in that
/// computes), the runtime's I/O built-ins (sources and sinks), or a C
/// function of one's own that the build's `--kernels` gives (a generated
/// built-in's name there runs the user's C instead).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Kernels {
    pub generated: Vec<String>,
    pub io: Vec<String>,
    pub c: Vec<String>,
}

fn kernels(h: &Hsdfg) -> Kernels {
    let mut k = Kernels {
        generated: Vec::new(),
        io: Vec::new(),
        c: Vec::new(),
    };
    let names: std::collections::BTreeSet<&str> =
        h.functions.iter().map(|f| f.function.as_str()).collect();
    for name in names {
        let list = if h.kernels.contains_key(name) {
            &mut k.generated
        } else if crate::ir::builtins::builtin_of(name).is_some() {
            &mut k.io
        } else {
            &mut k.c
        };
        list.push(name.to_string());
    }
    k
}

/// One buffer under a folding memory schedule.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FoldLine {
    /// `producer.port`.
    pub buffer: String,
    /// Rows of each ring (`None`: the whole frame).
    pub ring_rows: Option<u64>,
    pub rings: usize,
    /// Why it is whole: it is read through a delay, or a kernel of one's
    /// own without `ROWS` touches it (`None`: folded, or whole because its
    /// accesses need the frame).
    pub whole_because: Option<String>,
}

/// The buffers of the build's runtime and their rings, when any is folded.
fn fold_lines(h: &Hsdfg, r: &crate::ir::Runtime) -> Vec<FoldLine> {
    let Ok(ps) = crate::memory::sections::placements(h, r) else {
        return Vec::new();
    };
    let rings = crate::memory::sections::rings(h, r, &ps);
    if rings.iter().all(Option::is_none) {
        return Vec::new();
    }
    h.buffers
        .iter()
        .enumerate()
        .map(|(bi, b)| {
            let state = b.initial.map(|_| {
                let readers: Vec<&str> = b
                    .readers
                    .iter()
                    .filter(|r| h.function(r.0).ports[r.1].delayed)
                    .map(|r| h.function(r.0).name.as_str())
                    .collect();
                let frames = if b.copies == 2 {
                    "two whole frames (double-buffered)"
                } else {
                    "a whole frame"
                };
                format!(
                    "read through a delay by `{}`: it keeps {frames} across iterations",
                    readers.join("`, `")
                )
            });
            let own = std::iter::once(b.producer.0)
                .chain(b.readers.iter().map(|x| x.0))
                .find(|&f| !h.streams(f))
                .map(|f| {
                    format!(
                        "`{}` runs `{}`, a kernel of one's own without ROWS",
                        h.function(f).name,
                        h.function(f).function
                    )
                });
            FoldLine {
                buffer: b.name.clone(),
                ring_rows: rings[bi].as_ref().map(|r| r.rows),
                rings: rings[bi].as_ref().map_or(0, |r| r.bands.len().max(1)),
                whole_because: if rings[bi].is_some() {
                    None
                } else {
                    state.or(own)
                },
            }
        })
        .collect()
}

/// A reference configuration's memory, against this build's.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Reference {
    pub configuration: String,
    pub bytes: u64,
    /// This build's memory schedule bytes.
    pub used_bytes: u64,
    /// `used_bytes / bytes`.
    pub fraction: f64,
}

impl Info {
    /// Records the reference configuration's bytes.
    pub fn set_reference(&mut self, configuration: &str, bytes: u64, used_bytes: u64) {
        self.reference = Some(Reference {
            configuration: configuration.to_string(),
            bytes,
            used_bytes,
            fraction: used_bytes as f64 / bytes.max(1) as f64,
        });
    }
}

fn memory_lines(h: &Hsdfg, s: &Schedule) -> Vec<MemoryLine> {
    MemoryKind::ALL
        .iter()
        .map(|&k| {
            let plan = crate::memory::allocate(h, s, k);
            let bytes = plan.used_bytes();
            MemoryLine {
                memory_schedule: k.keyword(),
                bytes,
                lower_bound: plan.lower_bound,
                ratio: if plan.lower_bound == 0 {
                    1.0
                } else {
                    bytes as f64 / plan.lower_bound as f64
                },
            }
        })
        .collect()
}

/// Summarises a compiled description.
pub fn info(c: &Compiled) -> Info {
    let r = &c.runtime;
    let waits = r
        .thread_executions
        .iter()
        .flat_map(|t| &t.ops)
        .filter(|op| matches!(op.value, crate::ir::Op::Wait(_)))
        .count();
    // A hand-written runtime has no schedule of ssc's: its thread lists,
    // simulated with the timing table, stand in for one.
    let written = match &c.schedule {
        Some(_) => None,
        None => crate::schedule::given::from_lists(&c.hsdfg, &r.thread_schedule).ok(),
    };
    let (schedule, scheduler) = match (&c.schedule, &written) {
        (Some(s), _) => (Some(s), Some(format!("{:?}", s.kind).to_lowercase())),
        (None, Some(s)) => (Some(s), Some("as written".to_string())),
        (None, None) => (None, None),
    };
    Info {
        functions: c.hsdfg.functions.len(),
        actors: c.hsdfg.graph.node_count(),
        dependencies: c.hsdfg.dependencies().count(),
        buffers: c.hsdfg.buffers.len(),
        buffer_bytes: c.hsdfg.buffers.iter().map(|b| b.bytes).sum(),
        threads: r.thread_executions.len(),
        signals: r.signals.len(),
        waits_per_iteration: waits,
        barriers: r.barriers.len() + usize::from(c.periodic_barrier.is_some()),
        scheduler,
        makespan_us: schedule.map(|s| s.makespan),
        makespan_lower_bound_us: schedule.map(|s| s.lower_bound),
        memory: schedule
            .map(|s| memory_lines(&c.hsdfg, s))
            .unwrap_or_default(),
        reference: None,
        folds: fold_lines(&c.hsdfg, r),
        kernels: kernels(&c.hsdfg),
        proof: c.proof.to_string(),
    }
}

/// The summary as text.
pub fn text(i: &Info) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "functions            {}", i.functions);
    let _ = writeln!(s, "actors (sub-boxes)   {}", i.actors);
    let _ = writeln!(s, "dependencies         {}", i.dependencies);
    let _ = writeln!(
        s,
        "buffers              {} ({} bytes)",
        i.buffers, i.buffer_bytes
    );
    let _ = writeln!(s, "threads              {}", i.threads);
    let _ = writeln!(s, "signals              {}", i.signals);
    let _ = writeln!(s, "waits per iteration  {}", i.waits_per_iteration);
    let _ = writeln!(s, "barriers             {}", i.barriers);
    if let (Some(k), Some(m), Some(lb)) = (&i.scheduler, i.makespan_us, i.makespan_lower_bound_us) {
        let _ = writeln!(
            s,
            "makespan             {m:.1} µs predicted ({k}), lower bound {lb:.1} µs ({:.2}×)",
            if lb > 0.0 { m / lb } else { 1.0 }
        );
    }
    if !i.memory.is_empty() {
        let _ = writeln!(s, "memory schedule      bytes        lower bound  ratio");
        for m in &i.memory {
            let _ = writeln!(
                s,
                "  {:<18} {:<12} {:<12} {:.2}×",
                m.memory_schedule, m.bytes, m.lower_bound, m.ratio
            );
        }
    }
    if let Some(r) = &i.reference {
        let _ = writeln!(
            s,
            "memory used          {} bytes, {:.1}% of {} bytes under {}",
            r.used_bytes,
            100.0 * r.fraction,
            r.bytes,
            r.configuration
        );
    }
    if !i.folds.is_empty() {
        let _ = writeln!(
            s,
            "folded buffers       rows of each ring (× rings), or whole"
        );
        for f in &i.folds {
            let what = match (f.ring_rows, &f.whole_because) {
                (Some(rows), _) => format!("{rows} rows × {}", f.rings),
                (None, Some(why)) => format!("whole: {why}"),
                (None, None) => "whole".to_string(),
            };
            let _ = writeln!(s, "  {:<18} {what}", f.buffer);
        }
    }
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    let _ = writeln!(
        s,
        "kernels              generated: {}; runtime I/O: {}; C calls: {}",
        list(&i.kernels.generated),
        list(&i.kernels.io),
        list(&i.kernels.c)
    );
    let _ = writeln!(s, "proof                {}", i.proof);
    s
}
