//! `-t wcet`: a C harness that measures every function of a description
//! (docs/commands.md, `-t wcet`, `-gw`).
//!
//! Takes the HSDFG (function instances, their ports and buffers) and
//! [`WcetOptions`]; gives a program directory like the C back end's (the
//! same embedded runtime and kernels, the same kernel ABI) whose `NAME.c`
//! allocates every buffer at its whole grid, runs every function once in a
//! topological order so every input holds real data, and then runs each
//! function *alone*, over its whole resolution, `warmup` times untimed and
//! `runs` times timed. It prints
//!
//! * a `runtime { timing …; }` section, in µs (the unit of `timing`): per
//!   instance, `INSTANCE FUNC T` with the chosen percentile of its runs, and
//!   per C function, `FUNC T` with the figure of its instance with the
//!   largest iteration space (the largest such figure when several tie),
//!   which the instance entries override (the most specific entry wins,
//!   docs/language.md) and which stays for instances the table does not
//!   name (the table given to another description). Grouped by C function
//!   (sorted), its own entry first, then its instances by name;
//! * with `--json`, the same as JSON together with every instance's
//!   execution-time profile (ETP): `{"function": INSTANCE, "unit": "us",
//!   "pmf": [[value, probability], …]}` plus its C function, resolution,
//!   mean, min, max and percentile — values on the grid 0.1, 0.2, 0.5, 1, 2, 5… µs, the finest
//!   that gives at most 50 points, probabilities the shares of the runs;
//! * with `--etp-dir DIR`, one such ETP file per instance, `DIR/F.json`
//!   (what `ssc ptts`' `etp file "…"` reads).
//!
//! `NAME.c` is rendered by the template `runtime-c/templates/wcet.c` from
//! the [`Layout`] every C emitter shares (ports, kernels, C string
//! literals escaped by [`c_string`]), with every buffer its own whole grid
//! ([`Memory::Whole`]).
//!
//! The harness' own command line: `--runs N`, `--warmup N`,
//! `--percentile P` (0 < P ≤ 100), `--json`, `--etp-dir DIR`, `--help`.
//! [`parse_report`] reads its JSON back ([`WcetReport`]).
//!
//! The instance entries win and the C function's entry stays for what the
//! table does not name; [`with_timing`] merges a table into a description,
//! replacing entries of the same key and grouping the table by C function.

use super::c::{FloatRules, KernelTypes, Program, RUNTIME_FILES};
use crate::back::layout::{c_string, comment, FunctionLayout, Layout, Memory, PortMake};
use crate::diagnostics::Diagnostic;
use crate::ir::hsdfg::Hsdfg;
use crate::reach::{kahn, Pick};
use askama::Template;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Defaults of the harness, baked into it (its command line overrides them).
#[derive(Clone, Debug, PartialEq)]
pub struct WcetOptions {
    /// The program's name; the harness is `NAME.c`.
    pub name: String,
    /// Timed runs per function.
    pub runs: u64,
    /// Untimed runs per function before them.
    pub warmup: u64,
    /// The percentile of the runs that goes into the timing table.
    pub percentile: f64,
    /// Functions implemented by `--kernels` files.
    pub user_kernels: Vec<String>,
    /// `--contract` and `--reciprocal`: the kernels timed as the program
    /// runs them.
    pub float: FloatRules,
}

impl Default for WcetOptions {
    fn default() -> Self {
        WcetOptions {
            name: "wcet".into(),
            runs: 100,
            warmup: 10,
            percentile: 99.0,
            user_kernels: Vec::new(),
            float: FloatRules::default(),
        }
    }
}

/// One instance's profile, as the harness reports it.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Profile {
    /// The function instance (`tgain`).
    pub function: String,
    /// Its C function (`func_gain`).
    pub c_function: String,
    pub unit: String,
    pub resolution: [u64; 2],
    pub runs: u64,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    /// The chosen percentile of the runs.
    pub percentile: f64,
    /// `[value, probability]` pairs, values ascending.
    pub pmf: Vec<[f64; 2]>,
}

/// The harness' `--json` report.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct WcetReport {
    pub program: String,
    pub runs: u64,
    pub warmup: u64,
    /// Which percentile the table holds (99 = p99).
    pub percentile: f64,
    /// µs per C function: the timing table.
    pub timing: BTreeMap<String, f64>,
    pub profiles: Vec<Profile>,
}

/// Reads the harness' `--json` output.
pub fn parse_report(json: &str) -> Result<WcetReport, ReportError> {
    serde_json::from_str(json).map_err(ReportError)
}

/// Why the harness' `--json` output is not a [`WcetReport`]: serde's
/// reason (line, column, what was expected).
#[derive(Debug, thiserror::Error)]
#[error("cannot read the wcet harness' report: {0}")]
pub struct ReportError(#[source] pub serde_json::Error);

/// The functions in a topological order of their buffers (Kahn, smallest
/// index first).
fn topological(h: &Hsdfg) -> Vec<usize> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); h.functions.len()];
    for b in &h.buffers {
        for r in &b.readers {
            out[b.producer.0 .0].push(r.0 .0);
        }
    }
    match kahn(out.len(), |f| out[f].iter().copied(), Pick::Smallest) {
        Ok(order) => order,
        // A cycle cannot pass the checker; run what is left in index order.
        Err(c) => {
            let mut order = c.partial;
            for f in 0..out.len() {
                if !order.contains(&f) {
                    order.push(f);
                }
            }
            order
        }
    }
}

/// The harness, as its template `runtime-c/templates/wcet.c` renders it.
#[derive(Template)]
#[template(path = "wcet.c", escape = "none")]
struct HarnessView {
    /// The program's name, in a comment.
    name: String,
    /// The program's name as a C string literal's contents.
    name_literal: String,
    version: &'static str,
    percentile: f64,
    /// The percentile as a C `double` literal.
    percentile_c: String,
    runs: u64,
    warmup: u64,
    /// The `--kernels` functions the description uses.
    user_kernels: Vec<String>,
    functions: Vec<FunctionView>,
    /// The C functions (sorted), as C string literals' contents.
    kinds: Vec<String>,
    /// The printed table: per C function `-1 - k`, then its instances.
    table_order: Vec<i64>,
    /// The functions in a topological order.
    order: Vec<usize>,
    buffers: Vec<BufferView>,
    /// The defined functions' loops (`templates/kernels.c`).
    defs: super::c::kernels::KernelsView,
}

struct FunctionView {
    index: usize,
    name: String,
    /// The instance's name as a C string literal's contents.
    literal: String,
    kind: usize,
    /// 1 when its iteration space is the largest of its C function's.
    representative: u8,
    kernel: String,
    width: u64,
    height: u64,
    ports: Vec<PortMake>,
    n_in: usize,
    n_out: usize,
    inputs: String,
    outputs: String,
}

struct BufferView {
    label: String,
    bytes: u64,
}

/// Renders the harness.
pub fn emit(h: &Hsdfg, o: &WcetOptions) -> Result<Program, Vec<Diagnostic>> {
    if let Some((_, d)) = super::c::unimplemented(h, &o.user_kernels) {
        return Err(vec![d]);
    }
    let error = |e: String| vec![Diagnostic::error("E300", e)];
    let layout =
        Layout::new(h, Memory::Whole, &o.user_kernels).map_err(|es| error(es.join("; ")))?;
    let mut users: Vec<String> = o
        .user_kernels
        .iter()
        .filter(|k| h.functions.iter().any(|f| &f.function == *k))
        .cloned()
        .collect();
    users.dedup();
    let (kinds, kind_of, representative) = kinds(h);
    let view = HarnessView {
        name: comment(&o.name),
        name_literal: c_string(&o.name),
        version: env!("CARGO_PKG_VERSION"),
        percentile: o.percentile,
        percentile_c: format!("{:?}", o.percentile),
        runs: o.runs,
        warmup: o.warmup,
        user_kernels: users,
        functions: layout
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| function_view(&layout, i, f, kind_of[i], representative[i]))
            .collect(),
        table_order: table_order(h, &kinds, &kind_of),
        kinds: kinds.iter().map(|k| c_string(k)).collect(),
        order: topological(h),
        defs: super::c::kernels::view(h, o.float, &o.user_kernels),
        buffers: layout
            .buffers
            .iter()
            .map(|b| BufferView {
                label: comment(&b.label),
                bytes: b.bytes,
            })
            .collect(),
    };
    let text = view
        .render()
        .map_err(|e| error(format!("template error: {e}")))?;
    let mut files = vec![(format!("{}.c", o.name), text)];
    for f in RUNTIME_FILES {
        files.push((f.name.to_string(), f.text.to_string()));
    }
    Ok(Program {
        name: o.name.clone(),
        files,
        kernel_types: KernelTypes::of(h),
    })
}

/// The C functions (sorted), each instance's C function, and whether it is
/// one with the largest iteration space of its C function (1) or not (0).
fn kinds(h: &Hsdfg) -> (Vec<String>, Vec<usize>, Vec<u8>) {
    let mut kinds: Vec<String> = h.functions.iter().map(|f| f.function.clone()).collect();
    kinds.sort();
    kinds.dedup();
    let kind_of: Vec<usize> = h
        .functions
        .iter()
        .map(|f| kinds.binary_search(&f.function).unwrap_or(0))
        .collect();
    let mut largest = vec![0u64; kinds.len()];
    for (i, f) in h.functions.iter().enumerate() {
        largest[kind_of[i]] = largest[kind_of[i]].max(f.resolution.x * f.resolution.y);
    }
    let representative = h
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| u8::from(f.resolution.x * f.resolution.y == largest[kind_of[i]]))
        .collect();
    (kinds, kind_of, representative)
}

/// The printed table: per C function (sorted) its entry (`-1 - k`), then
/// its instances by name.
fn table_order(h: &Hsdfg, kinds: &[String], kind_of: &[usize]) -> Vec<i64> {
    let mut order: Vec<i64> = Vec::new();
    for (c, _) in kinds.iter().enumerate() {
        order.push(-(c as i64) - 1);
        let mut inst: Vec<usize> = (0..h.functions.len())
            .filter(|&i| kind_of[i] == c)
            .collect();
        inst.sort_by(|&a, &b| h.functions[a].name.cmp(&h.functions[b].name));
        order.extend(inst.into_iter().map(|i| i as i64));
    }
    order
}

/// One function instance over its whole resolution, its ports on whole
/// grids.
fn function_view(
    layout: &Layout,
    index: usize,
    f: &FunctionLayout,
    kind: usize,
    representative: u8,
) -> FunctionView {
    FunctionView {
        index,
        name: f.name.clone(),
        literal: c_string(&f.name),
        kind,
        representative,
        kernel: f.kernel.clone(),
        width: f.resolution.x,
        height: f.resolution.y,
        ports: f.ports.iter().map(|p| layout.port_make(f, p)).collect(),
        n_in: f.n_in,
        n_out: f.n_out,
        inputs: f.inputs(),
        outputs: f.outputs(),
    }
}

/// The entries of a measured table: per C function the figure of the
/// report's table (its largest instance), and per instance its chosen
/// percentile (`INSTANCE FUNC T`).
pub fn entries(report: &WcetReport) -> Vec<crate::ir::TimingEntry> {
    use crate::ir::TimingEntry;
    let mut out: Vec<TimingEntry> = report
        .timing
        .iter()
        .map(|(f, t)| TimingEntry::function(f.clone(), *t))
        .collect();
    out.extend(
        report
            .profiles
            .iter()
            .map(|p| TimingEntry::instance(p.function.clone(), p.c_function.clone(), p.percentile)),
    );
    out
}

/// The description with measured timing entries put into its runtime
/// section (one is added when it has none): each replaces the entry of
/// the same key (`FUNC`, `FUNC [w, h]`, `INSTANCE`), the others are kept.
/// The table is then grouped by C function (sorted): its own entry, its
/// resolutions, its instances by name.
pub fn with_timing(
    desc: &crate::ir::Description,
    measured: &[crate::ir::TimingEntry],
) -> crate::ir::Description {
    use crate::ir::{TimingEntry, TimingScope};
    fn key(e: &TimingEntry) -> (String, u8, String) {
        let (rank, rest) = match &e.scope {
            TimingScope::Function => (0, String::new()),
            TimingScope::Resolution(r) => (1, format!("{:020}x{:020}", r.value.x, r.value.y)),
            TimingScope::Instance(i) => (2, i.name.clone()),
        };
        (e.name.name.clone(), rank, rest)
    }
    // Instances are keyed by their own name only.
    fn same(a: &TimingEntry, b: &TimingEntry) -> bool {
        match (&a.scope, &b.scope) {
            (TimingScope::Instance(x), TimingScope::Instance(y)) => x.name == y.name,
            _ => key(a) == key(b),
        }
    }
    let mut d = desc.clone();
    let rt = d.runtime.get_or_insert_with(Default::default);
    rt.timing.retain(|e| !measured.iter().any(|m| same(e, m)));
    rt.timing.extend(measured.iter().cloned());
    rt.timing.sort_by_key(key);
    d
}
