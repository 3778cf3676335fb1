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
//! The harness' own command line: `--runs N`, `--warmup N`,
//! `--percentile P` (0 < P ≤ 100), `--json`, `--etp-dir DIR`, `--help`.
//! [`parse_report`] reads its JSON back ([`WcetReport`]).

use super::c::{Program, RUNTIME_FILES};
use crate::back::c::c_type;
use crate::diagnostics::Diagnostic;
use crate::ir::builtins::builtin_of;
use crate::ir::Direction;
use crate::lower::hsdfg::Hsdfg;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

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
}

impl Default for WcetOptions {
    fn default() -> Self {
        WcetOptions {
            name: "wcet".into(),
            runs: 100,
            warmup: 10,
            percentile: 99.0,
            user_kernels: Vec::new(),
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
pub fn parse_report(json: &str) -> Result<WcetReport, String> {
    serde_json::from_str(json).map_err(|e| format!("cannot read the wcet harness' report: {e}"))
}

/// The functions in a topological order of their buffers (Kahn, smallest
/// index first).
fn topological(h: &Hsdfg) -> Vec<usize> {
    let n = h.functions.len();
    let mut indeg = vec![0usize; n];
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for b in &h.buffers {
        for r in &b.readers {
            out[b.producer.0 .0].push(r.0 .0);
            indeg[r.0 .0] += 1;
        }
    }
    let mut ready: std::collections::BTreeSet<usize> = (0..n).filter(|&f| indeg[f] == 0).collect();
    let mut order = Vec::new();
    while let Some(f) = ready.pop_first() {
        order.push(f);
        for &g in &out[f] {
            indeg[g] -= 1;
            if indeg[g] == 0 {
                ready.insert(g);
            }
        }
    }
    // A cycle cannot pass the checker; run what is left in index order.
    for f in 0..n {
        if !order.contains(&f) {
            order.push(f);
        }
    }
    order
}

fn c_str(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Renders the harness.
pub fn emit(h: &Hsdfg, o: &WcetOptions) -> Result<Program, Vec<Diagnostic>> {
    if let Some((_, d)) = super::c::unimplemented(h, &o.user_kernels) {
        return Err(vec![d]);
    }
    let n = h.functions.len();
    // The C functions, and for each the instances with the largest space.
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
    let representative: Vec<u8> = h
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| u8::from(f.resolution.x * f.resolution.y == largest[kind_of[i]]))
        .collect();

    let mut s = String::new();
    let _ = writeln!(
        s,
        "/* {name}.c — generated by ssc {v} (-t wcet): runs every function of the\n \
         * description alone over its whole resolution on its real buffers and\n \
         * prints a timing section ({p} percentile of {runs} runs after {w} warm-up\n \
         * runs by default) and, with --json, each function's execution-time profile. */",
        name = o.name,
        v = env!("CARGO_PKG_VERSION"),
        p = o.percentile,
        runs = o.runs,
        w = o.warmup
    );
    s.push_str(
        "#define _POSIX_C_SOURCE 200809L\n#include \"ssc_rt.h\"\n#include \"ssc_kernels.h\"\n\
         #include <errno.h>\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <sys/stat.h>\n\n",
    );
    let mut users: Vec<&String> = o
        .user_kernels
        .iter()
        .filter(|k| h.functions.iter().any(|f| &f.function == *k))
        .collect();
    users.dedup();
    for k in users {
        let _ = writeln!(s, "void {k}(const ssc_call *call);");
    }
    let _ = writeln!(
        s,
        "\n#define PROGRAM_NAME \"{}\"\n#define N_FUNCTIONS {n}\n#define N_KINDS {}",
        c_str(&o.name),
        kinds.len()
    );
    let list = |v: Vec<String>| v.join(", ");
    let _ = writeln!(
        s,
        "static const char *const instance_name[N_FUNCTIONS + 1] = {{ {} }};",
        list(
            h.functions
                .iter()
                .map(|f| format!("\"{}\"", c_str(&f.name)))
                .chain(["NULL".into()])
                .collect()
        )
    );
    let _ = writeln!(
        s,
        "static const char *const kind_name[N_KINDS + 1] = {{ {} }};",
        list(
            kinds
                .iter()
                .map(|k| format!("\"{}\"", c_str(k)))
                .chain(["NULL".into()])
                .collect()
        )
    );
    let _ = writeln!(
        s,
        "static const int kind_of[N_FUNCTIONS + 1] = {{ {} }};",
        list(
            kind_of
                .iter()
                .map(|k| k.to_string())
                .chain(["0".into()])
                .collect()
        )
    );
    let _ = writeln!(
        s,
        "static const int representative[N_FUNCTIONS + 1] = {{ {} }};",
        list(
            representative
                .iter()
                .map(|k| k.to_string())
                .chain(["0".into()])
                .collect()
        )
    );
    // The printed table: per C function (sorted) its entry (-1), then its
    // instances by name.
    let mut table_order: Vec<i64> = Vec::new();
    for (c, _) in kinds.iter().enumerate() {
        table_order.push(-(c as i64) - 1);
        let mut inst: Vec<usize> = (0..n).filter(|&i| kind_of[i] == c).collect();
        inst.sort_by(|&a, &b| h.functions[a].name.cmp(&h.functions[b].name));
        table_order.extend(inst.into_iter().map(|i| i as i64));
    }
    let _ = writeln!(
        s,
        "#define N_TABLE {}\nstatic const int table_order[N_TABLE + 1] = {{ {} }}; /* -1 - k: C function k; i: instance i */",
        table_order.len(),
        list(
            table_order
                .iter()
                .map(|k| k.to_string())
                .chain(["0".into()])
                .collect()
        )
    );
    let _ = writeln!(
        s,
        "static const int order[N_FUNCTIONS + 1] = {{ {} }};",
        list(
            topological(h)
                .iter()
                .map(|k| k.to_string())
                .chain(["0".into()])
                .collect()
        )
    );
    let kernel = |f: &crate::lower::hsdfg::FunctionInfo| -> String {
        if o.user_kernels.contains(&f.function) {
            f.function.clone()
        } else {
            builtin_of(&f.function).unwrap_or(&f.function).to_string()
        }
    };
    let _ = writeln!(
        s,
        "static const ssc_kernel kernel_of[N_FUNCTIONS + 1] = {{ {} }};",
        list(
            h.functions
                .iter()
                .map(kernel)
                .chain(["NULL".into()])
                .collect()
        )
    );
    let _ = writeln!(
        s,
        "static ssc_call call[N_FUNCTIONS + 1];\nstatic unsigned char *buffer[{}];",
        h.buffers.len() + 1
    );
    for f in &h.functions {
        let ins = f
            .ports
            .iter()
            .filter(|p| p.direction == Direction::In)
            .count();
        let outs = f.ports.len() - ins;
        let _ = writeln!(
            s,
            "static ssc_port in_{0}[{1}], out_{0}[{2}];",
            f.name,
            ins.max(1),
            outs.max(1)
        );
    }
    s.push_str(HELPERS);
    let _ = writeln!(
        s,
        "int main(int argc, char **argv)\n{{\n    uint64_t runs = {}, warmup = {};\n    double percentile = {:?};",
        o.runs.max(1),
        o.warmup,
        o.percentile
    );
    s.push_str(ARGS);
    s.push_str("    /* the buffers, whole grids, 64-byte aligned and zeroed */\n");
    for (bi, b) in h.buffers.iter().enumerate() {
        let _ = writeln!(
            s,
            "    buffer[{bi}] = alloc_buffer({}); /* {} */",
            b.bytes, b.name
        );
    }
    s.push_str("    /* the ports and the calls, over each function's whole resolution */\n");
    for (fi, f) in h.functions.iter().enumerate() {
        let (mut ni, mut no) = (0, 0);
        for p in &f.ports {
            let (arr, k) = match p.direction {
                Direction::In => {
                    ni += 1;
                    ("in", ni - 1)
                }
                Direction::Out => {
                    no += 1;
                    ("out", no - 1)
                }
            };
            let _ = writeln!(
                s,
                "    {arr}_{}[{k}] = ssc_port_make(buffer[{}], {}, {}, {}, {}, {}, {}, {});",
                f.name,
                p.buffer.0,
                c_type(p.ty),
                p.grid.x,
                p.grid.y,
                p.mul.x,
                p.mul.y,
                p.window.x,
                p.window.y
            );
        }
        let _ = writeln!(
            s,
            "    call[{fi}] = (ssc_call){{ {{0, 0, {w}, {h}}}, {w}, {h}, 0, {fi}u, {ip}, {ni}, {op}, {no} }};",
            w = f.resolution.x,
            h = f.resolution.y,
            ip = if ni > 0 { format!("in_{}", f.name) } else { "NULL".into() },
            op = if no > 0 { format!("out_{}", f.name) } else { "NULL".into() },
        );
    }
    s.push_str(MAIN_BODY);
    let mut files = vec![(format!("{}.c", o.name), s)];
    for (name, text) in RUNTIME_FILES {
        files.push((name.to_string(), text.to_string()));
    }
    Ok(Program {
        name: o.name.clone(),
        files,
    })
}

const HELPERS: &str = r#"
static unsigned char *alloc_buffer(size_t bytes)
{
    size_t rounded = (bytes + 63) / 64 * 64;
    unsigned char *p = aligned_alloc(64, rounded ? rounded : 64);
    if (!p) { fprintf(stderr, "error: out of memory\n"); exit(3); }
    memset(p, 0, rounded ? rounded : 64);
    return p;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

typedef struct { double mean, min, max, pct; } summary;

static void usage(FILE *f, const char *me)
{
    fprintf(f, "usage: %s [--runs N] [--warmup N] [--percentile P] [--json] [--etp-dir DIR]\n", me);
}

/* The PMF of sorted samples (ns): values on a grid of 0.1, 0.2, 0.5, 1, 2,
 * 5, … us, the finest that gives at most 50 points, each the nearest grid
 * point of its runs; probabilities are the shares of the runs. */
static void write_pmf(FILE *f, const uint64_t *s, uint64_t n)
{
    double step = 0.1, spread = (double)(s[n - 1] - s[0]) / 1000.0;
    static const double mant[3] = {1, 2, 5};
    for (int k = 0; spread / step > 50.0; k++) step = mant[(k + 1) % 3] * pow(10.0, (k + 1) / 3 - 1);
    fputs("[", f);
    uint64_t i = 0;
    int first = 1;
    while (i < n) {
        long long g = llround((double)s[i] / 1000.0 / step);
        uint64_t j = i;
        while (j < n && llround((double)s[j] / 1000.0 / step) == g) j++;
        fprintf(f, "%s[%.1f, %.6g]", first ? "" : ", ", (double)g * step, (double)(j - i) / (double)n);
        first = 0;
        i = j;
    }
    fputs("]", f);
}

static void write_profile(FILE *f, int i, const uint64_t *s, uint64_t n, const summary *m, int full)
{
    fprintf(f, "{\"function\": \"%s\", \"unit\": \"us\", ", instance_name[i]);
    if (full)
        fprintf(f, "\"c_function\": \"%s\", \"resolution\": [%lld, %lld], \"runs\": %llu, "
                   "\"mean\": %.3f, \"min\": %.3f, \"max\": %.3f, \"percentile\": %.3f, ",
                kind_name[kind_of[i]], (long long)call[i].width, (long long)call[i].height,
                (unsigned long long)n, m->mean, m->min, m->max, m->pct);
    fputs("\"pmf\": ", f);
    write_pmf(f, s, n);
    fputs("}", f);
}

"#;

const ARGS: &str = r#"    int json = 0;
    const char *etp_dir = NULL;
    for (int a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(argv[a], "--help")) { usage(stdout, argv[0]); return 0; }
        else if (!strcmp(argv[a], "--json")) json = 1;
        else if (!strcmp(argv[a], "--runs") && v) { runs = strtoull(v, NULL, 10); a++; }
        else if (!strcmp(argv[a], "--warmup") && v) { warmup = strtoull(v, NULL, 10); a++; }
        else if (!strcmp(argv[a], "--percentile") && v) { percentile = strtod(v, NULL); a++; }
        else if (!strcmp(argv[a], "--etp-dir") && v) { etp_dir = v; a++; }
        else { fprintf(stderr, "error: unknown or incomplete option `%s`\n", argv[a]); usage(stderr, argv[0]); return 2; }
    }
    if (runs < 1 || !(percentile > 0.0 && percentile <= 100.0)) {
        fprintf(stderr, "error: --runs must be at least 1 and --percentile in (0, 100]\n");
        return 2;
    }
"#;

const MAIN_BODY: &str = r#"    /* one pass in a topological order: every input holds real data */
    for (int k = 0; k < N_FUNCTIONS; k++) kernel_of[order[k]](&call[order[k]]);

    uint64_t *samples = malloc(sizeof(uint64_t) * runs * (N_FUNCTIONS ? N_FUNCTIONS : 1));
    summary *sum = malloc(sizeof(summary) * (N_FUNCTIONS + 1));
    if (!samples || !sum) { fprintf(stderr, "error: out of memory\n"); return 3; }
    for (int k = 0; k < N_FUNCTIONS; k++) {
        int i = order[k];
        uint64_t *s = samples + (uint64_t)i * runs;
        for (uint64_t w = 0; w < warmup; w++) { call[i].iteration = w + 1; kernel_of[i](&call[i]); }
        for (uint64_t r = 0; r < runs; r++) {
            call[i].iteration = warmup + r + 1;
            uint64_t t0 = ssc_now_ns();
            kernel_of[i](&call[i]);
            s[r] = ssc_now_ns() - t0;
        }
        qsort(s, runs, sizeof(uint64_t), cmp_u64);
        double total = 0;
        for (uint64_t r = 0; r < runs; r++) total += (double)s[r];
        uint64_t rank = (uint64_t)ceil(percentile * (double)runs / 100.0 - 1e-9);
        if (rank < 1) rank = 1;
        if (rank > runs) rank = runs;
        sum[i].mean = total / (double)runs / 1000.0;
        sum[i].min = (double)s[0] / 1000.0;
        sum[i].max = (double)s[runs - 1] / 1000.0;
        sum[i].pct = (double)s[rank - 1] / 1000.0;
    }
    /* the table: per C function, its largest instance's percentile */
    double table[N_KINDS + 1];
    for (int c = 0; c < N_KINDS; c++) table[c] = 0;
    for (int i = 0; i < N_FUNCTIONS; i++)
        if (representative[i] && sum[i].pct > table[kind_of[i]]) table[kind_of[i]] = sum[i].pct;

    if (json) {
        printf("{\"program\": \"%s\", \"runs\": %llu, \"warmup\": %llu, \"percentile\": %g, \"unit\": \"us\",\n \"timing\": {",
               PROGRAM_NAME, (unsigned long long)runs, (unsigned long long)warmup, percentile);
        for (int c = 0; c < N_KINDS; c++) printf("%s\"%s\": %.3f", c ? ", " : "", kind_name[c], table[c]);
        printf("},\n \"profiles\": [\n");
        for (int i = 0; i < N_FUNCTIONS; i++) {
            printf("  ");
            write_profile(stdout, i, samples + (uint64_t)i * runs, runs, &sum[i], 1);
            printf("%s\n", i + 1 < N_FUNCTIONS ? "," : "");
        }
        printf(" ]}\n");
    } else {
        printf("// ssc -t wcet: p%g of %llu runs per function after %llu warm-up runs, us\n",
               percentile, (unsigned long long)runs, (unsigned long long)warmup);
        printf("// %-24s %-20s %12s %10s %10s %10s\n", "function", "C function", "resolution", "mean", "p", "max");
        for (int k = 0; k < N_FUNCTIONS; k++) {
            int i = order[k];
            char res[48];
            snprintf(res, sizeof res, "%lldx%lld", (long long)call[i].width, (long long)call[i].height);
            printf("// %-24s %-20s %12s %10.3f %10.3f %10.3f\n", instance_name[i], kind_name[kind_of[i]], res,
                   sum[i].mean, sum[i].pct, sum[i].max);
        }
        printf("runtime {\n  timing\n");
        for (int k = 0; k < N_TABLE; k++) {
            const char *end = k + 1 < N_TABLE ? "," : ";";
            int e = table_order[k];
            if (e < 0)
                printf("    %s %.3f%s\n", kind_name[-1 - e], table[-1 - e], end);
            else
                printf("    %s %s %.3f%s\n", instance_name[e], kind_name[kind_of[e]], sum[e].pct, end);
        }
        printf("}\n");
    }
    if (etp_dir) {
        mkdir(etp_dir, 0777);
        for (int i = 0; i < N_FUNCTIONS; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.json", etp_dir, instance_name[i]);
            FILE *f = fopen(path, "w");
            if (!f) { fprintf(stderr, "error: cannot write `%s`: %s\n", path, strerror(errno)); return 3; }
            write_profile(f, i, samples + (uint64_t)i * runs, runs, &sum[i], 0);
            fputs("\n", f);
            fclose(f);
        }
    }
    free(samples);
    free(sum);
    for (size_t b = 0; b < sizeof buffer / sizeof buffer[0]; b++) free(buffer[b]);
    return 0;
}
"#;

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
