//! Split: a declaration → an instantiation (data parallelism: `-dp`, `-mdp`,
//! `-gpp` in `docs/commands.md`, "`ssc build` options"; the rules in
//! `docs/lowering.md`, "Split").
//!
//! Takes a declaration, the timing table and [`SplitOptions`]; gives the
//! sub-boxes of every function instance and the fine-grained dependencies
//! between them (see [`super::deps`]).
//!
//! Part counts (P = `max_parts`, `-mdp`; `NONE` functions always get 1):
//! * `-dp none`: 1 for every function;
//! * `-dp full`: P for every `FULL` function;
//! * `-dp some`: the heaviest `FULL` function (its timing, [`Timing::cost`])
//!   gets P, every other `FULL` one `round(P·t/tmax)`, at least 1;
//! * `-gpp` (precise, overrides `-dp some`/`full`; `-dp none` still wins):
//!   one target grain `g = W / P²`, with `W` the total work of one
//!   iteration (every function's timing, `NONE` ones included). P threads
//!   each get about `W/P`; cutting that into about P grains balances the
//!   list schedule while keeping sub-boxes coarse. Each `FULL` function gets
//!   `clamp(round(t/g), 1, P)` parts, so each of its sub-boxes takes about
//!   `g` (less only when capped by P or by its rows).
//!
//! * **strips** (`-ts fused`, overrides all of the above but `-dp none`):
//!   every `FULL` function gets the same count `S = ceil(H / rows)`, with
//!   `H` the most rows of any function and `rows` the strip height: given
//!   (`--strip-rows`), or the most rows such that one strip of every
//!   buffer, twice over (a strip being written and the one being read),
//!   fits the cache budget (`--cache-bytes`, default the per-core L2):
//!   `rows = budget / (2 · Σ buffer bytes / H)`, at least 1. The same count
//!   everywhere aligns the strips across scales: strip k of every function
//!   covers the same share of the frame. The split makes at most
//!   [`Strips::max_subboxes`] sub-boxes (`--max-subboxes`, default
//!   [`MAX_SUBBOXES`]): a height from the budget is raised to stay within
//!   it; a given height beyond it is refused with E141 before anything is
//!   split (compile time and memory grow with the sub-boxes).
//!
//! Guarantees: never more parts than rows; the parts are near-equal row
//! strips `[0, y0]:[w, y1]` with `y_k = floor(k·h/n)`, which tile the
//! function's space exactly; sub-boxes `F.0`, `F.1`, … in row order,
//! functions in declaration order.
//!
//! Under fused, when one output frame fills the cache budget, the default
//! height is also at most 1/[`MEMORY_STRIPS`] of the frame (at least 4
//! rows), so the folded buffers stay near 1/20 of box-at-a-time's memory.
//! The sub-box cap raises a default height instead of refusing, so a tall
//! frame is never refused; E141 for a given `--strip-rows` is a command-line
//! error (exit 2), because the option is what cannot be honoured: the same
//! description builds with the default height, and exit 1 stays for
//! descriptions that are wrong whatever the options.

use super::deps::dependencies;
use super::timing::{Instance, Timing};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    Declaration, Instantiation, Parallelism, Region, Span, Spanned, SubBox, SubBoxRef,
};

/// `-dp none|some|full`: this stage owns the keywords, their list and
/// their parsing (the command line lists [`DataParallelism::keywords`] and
/// parses with `FromStr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DataParallelism {
    None,
    Some,
    #[default]
    Full,
}

impl DataParallelism {
    /// Every kind, in the order `--help` lists them.
    pub const ALL: [DataParallelism; 3] = [
        DataParallelism::None,
        DataParallelism::Some,
        DataParallelism::Full,
    ];

    /// The `-dp` keyword.
    pub const fn keyword(self) -> &'static str {
        match self {
            DataParallelism::None => "none",
            DataParallelism::Some => "some",
            DataParallelism::Full => "full",
        }
    }

    /// Every `-dp` keyword, in the order of [`DataParallelism::ALL`].
    pub fn keywords() -> [&'static str; 3] {
        DataParallelism::ALL.map(DataParallelism::keyword)
    }
}

impl std::str::FromStr for DataParallelism {
    type Err = String;

    /// The `-dp` keyword.
    fn from_str(s: &str) -> Result<DataParallelism, String> {
        DataParallelism::ALL
            .into_iter()
            .find(|k| k.keyword() == s)
            .ok_or_else(|| {
                format!(
                    "unknown data parallelism `{s}`: expected {}",
                    DataParallelism::keywords().join(", ")
                )
            })
    }
}

/// How to split (`-dp`, `-mdp`, `-gpp`, `-cd`, `-wt`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitOptions {
    pub dp: DataParallelism,
    /// P: the most sub-boxes per function (at least 1 is used).
    pub max_parts: u64,
    /// `-gpp`: part counts from one target grain.
    pub precise: bool,
    /// `-cd`: all-to-all dependencies between connected functions.
    pub coarse: bool,
    /// `-wt`: weight a sub-box's time by its share (used by the HSDFG).
    pub weighted: bool,
    /// `-ts fused`: row strips sized to a cache budget.
    pub strips: Option<Strips>,
}

/// How tall the strips of `-ts fused` are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strips {
    /// The cache budget of one strip of every buffer, twice (bytes).
    pub cache_bytes: u64,
    /// The strip height, rows of the tallest function (overrides the budget).
    pub rows: Option<u64>,
    /// Strip even when every frame fits the budget (`--strip-rows` or
    /// `--cache-bytes` given). Otherwise `-ts fused` on such a chain is
    /// scheduled box-at-a-time (see `pipeline::streaming`).
    pub forced: bool,
    /// The most sub-boxes the split may make (`--max-subboxes`, by default
    /// [`MAX_SUBBOXES`]): the height from the budget is raised to stay
    /// within it, a given height that does not is refused (E141).
    pub max_subboxes: u64,
}

impl Strips {
    /// Strips sized to `cache_bytes`, not forced, within [`MAX_SUBBOXES`].
    pub fn new(cache_bytes: u64) -> Strips {
        Strips {
            cache_bytes,
            rows: None,
            forced: false,
            max_subboxes: MAX_SUBBOXES,
        }
    }

    /// The budget by default: the per-core (level 2) cache of CPU 0 as
    /// sysfs gives it, else 1 MiB.
    pub fn default_cache_bytes() -> u64 {
        l2_cache_bytes().unwrap_or(1 << 20)
    }
}

/// The size of CPU 0's level-2 cache from sysfs
/// (`/sys/devices/system/cpu/cpu0/cache/index*/{level,size}`).
pub fn l2_cache_bytes() -> Option<u64> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let mut entries: Vec<_> = std::fs::read_dir(dir).ok()?.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    entries.into_iter().find_map(|e| {
        let level = std::fs::read_to_string(e.path().join("level")).ok()?;
        if level.trim() != "2" {
            return None;
        }
        let size = std::fs::read_to_string(e.path().join("size")).ok()?;
        let size = size.trim();
        let (num, unit) = size.split_at(
            size.find(|c: char| !c.is_ascii_digit())
                .unwrap_or(size.len()),
        );
        let n: u64 = num.parse().ok()?;
        Some(match unit {
            "K" => n << 10,
            "M" => n << 20,
            "G" => n << 30,
            _ => n,
        })
    })
}

/// Strips a frame at least when one frame fills the cache budget (see
/// [`strip_count`]).
pub const MEMORY_STRIPS: u64 = 128;
/// The shortest default strip, rows.
pub const MIN_STRIP_ROWS: u64 = 4;
/// The most sub-boxes a `-ts fused` split makes unless `--max-subboxes`
/// says otherwise: 2^17, which compile in a few seconds. Compile time and
/// memory grow linearly with the sub-boxes, about 15–25 µs and 2 KB each
/// (`-t info`, release build, on 2 shared cores; docs/fused.md, "How many
/// strips").
pub const MAX_SUBBOXES: u64 = 1 << 17;

/// The rows of the tallest function (at least 1).
fn tallest_rows(d: &Declaration) -> u64 {
    d.functions
        .iter()
        .map(|f| f.resolution.value.y)
        .max()
        .unwrap_or(1)
        .max(1)
}

/// The sub-boxes a split into `strips` strips makes: each `FULL` function
/// as many strips, at most one per row; every other function one.
pub fn strip_subboxes(d: &Declaration, strips: u64) -> u128 {
    d.functions
        .iter()
        .map(|f| {
            let full = d
                .function_decl(f.function.as_str())
                .is_some_and(|fd| fd.parallelism == Parallelism::Full);
            if full {
                strips.min(f.resolution.value.y.max(1)) as u128
            } else {
                1
            }
        })
        .sum()
}

/// The most strips whose split stays within `max_subboxes` sub-boxes (at
/// least 1: one strip per function is no split at all).
pub fn most_strips(d: &Declaration, max_subboxes: u64) -> u64 {
    let (mut lo, mut hi) = (1, tallest_rows(d));
    // The sub-boxes grow with the strips: the last count within the limit.
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if strip_subboxes(d, mid) <= max_subboxes as u128 {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// The strip count of `-ts fused` (see the module documentation): the
/// strip height is `--strip-rows`, else what the cache budget allows (one
/// strip of every function's outputs, twice, in `cache_bytes`) — and when
/// one output frame is as large as the budget, at most 1/[`MEMORY_STRIPS`]
/// of the tallest function's rows (at least [`MIN_STRIP_ROWS`]) — raised
/// where needed so that the split stays within `max_subboxes` sub-boxes
/// ([`most_strips`]). A given height is not raised: [`split`] refuses it
/// when it makes too many (E141).
pub fn strip_count(d: &Declaration, st: &Strips) -> u64 {
    let tallest = tallest_rows(d);
    let rows = st.rows.unwrap_or_else(|| {
        let within = tallest.div_ceil(most_strips(d, st.max_subboxes));
        budget_rows(d, st, tallest).max(within)
    });
    tallest.div_ceil(rows.max(1))
}

/// The strip height the cache budget allows (see [`strip_count`]).
fn budget_rows(d: &Declaration, st: &Strips, tallest: u64) -> u64 {
    let outputs = output_frames(d);
    let per_row = (outputs.iter().sum::<u128>() / tallest as u128).max(1);
    let budget = ((st.cache_bytes as u128 / (2 * per_row)).max(1)).min(u64::MAX as u128) as u64;
    // A frame larger than the cache budget goes through DRAM or the
    // last-level cache box-at-a-time: streaming is the point, and its
    // strips are also made short enough that the folded buffers hold
    // about 1/20 of what box-at-a-time needs (rings ∝ strip height).
    if frames_exceed(&outputs, st.cache_bytes) {
        budget.min((tallest / MEMORY_STRIPS).max(MIN_STRIP_ROWS))
    } else {
        budget
    }
}

/// E141 when the strips of a given height (`--strip-rows`) make more
/// sub-boxes than `max_subboxes`, before anything is split: the count, the
/// limit, the least height within it and how to raise the limit.
fn too_many_strips(d: &Declaration, st: &Strips, strips: u64) -> Option<Diagnostic> {
    let rows = st.rows?;
    let subboxes = strip_subboxes(d, strips);
    if subboxes <= st.max_subboxes as u128 {
        return None;
    }
    let tallest = tallest_rows(d);
    let least = tallest.div_ceil(most_strips(d, st.max_subboxes));
    let tall = d.functions.iter().find(|f| f.resolution.value.y == tallest);
    let mut e = Diagnostic::error(
        "E141",
        format!(
            "`--strip-rows {rows}` cuts {tallest} rows into {strips} strips: {subboxes} sub-boxes, more than the {} a `-ts fused` split may make",
            st.max_subboxes
        ),
    )
    .hint(format!(
        "give taller strips, `--strip-rows {least}` or more (without --strip-rows the strips are sized to stay within the limit), or raise the limit with `--max-subboxes {subboxes}` (compile time and memory grow with the sub-boxes: docs/fused.md)"
    ));
    if let Some(f) = tall {
        e = e.label(
            f.resolution.span,
            format!("{tallest} rows, in {strips} strips of {rows}"),
        );
    }
    Some(e)
}

/// Every output frame: each OUT port of each function instance, its
/// element type and its grid (a grid that overflows is left out).
fn output_grids(d: &Declaration) -> Vec<(crate::ir::ElemType, crate::ir::Pair)> {
    d.functions
        .iter()
        .filter_map(|f| Some((f, d.function_decl(f.function.as_str())?)))
        .flat_map(|(f, fd)| {
            fd.ports
                .iter()
                .filter(|p| p.direction == crate::ir::Direction::Out)
                .filter_map(move |p| Some((p.ty, p.grid(f.resolution.value)?)))
        })
        .collect()
}

/// The bytes of every output frame: its grid × the size of its type.
fn output_frames(d: &Declaration) -> Vec<u128> {
    output_grids(d)
        .into_iter()
        .map(|(t, g)| g.x as u128 * g.y as u128 * t.size() as u128)
        .collect()
}

/// Bytes of one strip row of the declaration's widest buffer: `--strip-rows`
/// counts rows of the tallest function, and an output frame of `h` rows
/// holds `h / tallest` of its rows in each (0 without any output).
pub fn widest_strip_row(d: &Declaration) -> f64 {
    let tallest = tallest_rows(d) as f64;
    output_grids(d)
        .iter()
        .map(|(t, g)| (g.x * t.size()) as f64 * g.y as f64 / tallest)
        .fold(0.0, f64::max)
}

/// The largest output frame of the declaration, bytes (0 without any).
pub fn largest_output_frame(d: &Declaration) -> u128 {
    output_frames(d).into_iter().max().unwrap_or(0)
}

/// Whether streaming strips pays: some output frame is at least the cache
/// budget, so that box-at-a-time it would go through DRAM or the
/// last-level cache. When every frame fits, a box-at-a-time schedule
/// finds each frame in the core's cache already and strips only add
/// sub-boxes and waits.
pub fn streams(d: &Declaration, cache_bytes: u64) -> bool {
    frames_exceed(&output_frames(d), cache_bytes)
}

/// [`streams`] on frames already listed.
fn frames_exceed(frames: &[u128], cache_bytes: u64) -> bool {
    frames.iter().any(|&b| b >= cache_bytes as u128)
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions {
            dp: DataParallelism::Full,
            max_parts: 2,
            precise: false,
            coarse: false,
            weighted: true,
            strips: None,
        }
    }
}

/// The number of parts of every function instance, in declaration order
/// (before the cap by rows).
pub fn part_counts(d: &Declaration, timing: &Timing, opts: &SplitOptions) -> Vec<u64> {
    let p = opts.max_parts.max(1);
    let full = |f: &crate::ir::Function| {
        d.function_decl(f.function.as_str())
            .map(|fd| fd.parallelism == Parallelism::Full)
            .unwrap_or(false)
    };
    let t = |f: &crate::ir::Function| {
        match d.function_decl(f.function.as_str()) {
            Some(fd) => {
                timing
                    .cost(
                        &Instance::new(f.name.as_str(), fd, f.resolution.value)
                            .defined_by(d.definition(fd.name.as_str()), &fd.ports),
                    )
                    .0
            }
            None => timing.of(f.name.as_str(), f.function.as_str(), f.resolution.value),
        }
        .max(0.0)
    };
    if opts.dp == DataParallelism::None {
        return vec![1; d.functions.len()];
    }
    if let Some(st) = &opts.strips {
        let n = strip_count(d, st);
        return d
            .functions
            .iter()
            .map(|f| if full(f) { n } else { 1 })
            .collect();
    }
    if opts.precise {
        let w: f64 = d.functions.iter().map(t).sum();
        let g = w / (p as f64 * p as f64);
        return d
            .functions
            .iter()
            .map(|f| {
                if !full(f) {
                    1
                } else if g <= 0.0 {
                    p
                } else {
                    ((t(f) / g).round() as u64).clamp(1, p)
                }
            })
            .collect();
    }
    match opts.dp {
        DataParallelism::Full => d
            .functions
            .iter()
            .map(|f| if full(f) { p } else { 1 })
            .collect(),
        _ => {
            let tmax = d
                .functions
                .iter()
                .filter(|f| full(f))
                .map(t)
                .fold(0.0, f64::max);
            d.functions
                .iter()
                .map(|f| {
                    if !full(f) {
                        1
                    } else if tmax <= 0.0 {
                        p
                    } else {
                        ((p as f64 * t(f) / tmax).round() as u64).clamp(1, p)
                    }
                })
                .collect()
        }
    }
}

/// Near-equal row strips of a `[w, h]` space into `n` parts (capped by `h`).
pub fn strips(w: u64, h: u64, n: u64) -> Vec<Region> {
    let n = n.clamp(1, h.max(1));
    (0..n)
        .map(|k| {
            let y0 = (k as u128 * h as u128 / n as u128) as u64;
            let y1 = ((k + 1) as u128 * h as u128 / n as u128) as u64;
            Region::new(0, y0, w, y1)
        })
        .collect()
}

/// Splits every function instance of `d` and computes the dependencies;
/// refuses (E141) strips of a given height that make more sub-boxes than
/// [`Strips::max_subboxes`], before splitting anything.
pub fn split(
    d: &Declaration,
    timing: &Timing,
    opts: &SplitOptions,
) -> Result<Instantiation, Vec<Diagnostic>> {
    if let (Some(st), false) = (&opts.strips, opts.dp == DataParallelism::None) {
        if let Some(e) = too_many_strips(d, st, strip_count(d, st)) {
            return Err(vec![e]);
        }
    }
    let counts = part_counts(d, timing, opts);
    let mut subboxes = Vec::new();
    for (f, n) in d.functions.iter().zip(counts) {
        let res = f.resolution.value;
        for (k, r) in strips(res.x, res.y, n).into_iter().enumerate() {
            subboxes.push(SubBox {
                id: SubBoxRef::new(f.name.as_str(), k as u64),
                region: Spanned::bare(r),
                span: Span::NONE,
            });
        }
    }
    let dependencies = dependencies(d, &subboxes, opts.coarse);
    Ok(Instantiation {
        subboxes,
        dependencies,
        span: Span::NONE,
    })
}
