//! The views the kernels template renders: for each kernel its C
//! function, its passes, medians, rows, locals, tables and the
//! saturating conversions it calls. Plain data; `super` fills it in.

use super::super::expr::{blend, c_name, sum_helper};
use super::super::median::RowMedianView;
use crate::ir::ElemType;

/// The rounding the defined functions' floating arithmetic may give up,
/// each the same in every loop of every schedule (docs/language.md,
/// "Contraction" and "Reciprocals"): none by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FloatRules {
    /// `--contract`: `a * b ± c` and weighted sums as `fma` (`Emit::contract`).
    pub contract: bool,
    /// `--reciprocal`: `a / c` by a constant as `a * (1/c)` (`Emit::reciprocal`).
    pub reciprocal: bool,
}

/// The C function a defined function runs as.
pub fn function_name(kernel: &str) -> String {
    format!("def_{kernel}")
}

/// Everything the template prints for the defined functions.
pub struct KernelsView {
    pub kernels: Vec<KernelView>,
    pub sats: Vec<SatView>,
    /// `(type keyword, C type)` of the min, max, abs and median helpers
    /// needed (the median of any odd window, by sorting).
    pub mins: Vec<(String, &'static str)>,
    pub maxs: Vec<(String, &'static str)>,
    pub abss: Vec<(String, &'static str)>,
    pub medians: Vec<(String, &'static str)>,
    /// Those of the 9-value median ([`MEDIAN9`]): its sorted triples
    /// (`ssc_sort3_T`, `ssc_median9_sorted_T`), and, for the types some
    /// median reads element by element, `ssc_median9_T` (`medians9_direct`;
    /// a chunked median reads a row of medians, `medians9_rows`).
    pub medians9: Vec<(String, &'static str)>,
    pub medians9_direct: Vec<(String, &'static str)>,
    /// The types of the 3 × 3 medians computed a row at a time
    /// (`ssc_median9_row_T`).
    pub medians9_rows: Vec<RowMedianView>,
    /// The loops of the window sums (`ssc_wsum_U_T`) and block sums
    /// (`ssc_bsum_U_T`) of more than [`UNROLLED_TERMS`] terms.
    pub wsums: Vec<SumView>,
    pub bsums: Vec<SumView>,
}

/// A sum's loop helper: its name, the C types it computes in and reads,
/// and the fused multiply-add of its computing type.
pub struct SumView {
    pub name: String,
    pub ctype: &'static str,
    pub src: &'static str,
    pub fma: &'static str,
}

impl SumView {
    pub(super) fn of(kind: &str, (u, t): (ElemType, ElemType)) -> SumView {
        SumView {
            name: sum_helper(kind, u, t),
            ctype: c_name(u),
            src: c_name(t),
            fma: if u == ElemType::Double { "fma" } else { "fmaf" },
        }
    }
}

impl KernelsView {
    /// Whether a kernel reads rows past the border: a row at an offset, an
    /// x pass or a local computed into rows, a sliding interpolation (the
    /// template then defines the row clamp, which clang would report
    /// unused otherwise).
    pub fn clamps_rows(&self) -> bool {
        self.kernels.iter().any(|k| {
            !k.passes.is_empty()
                || !k.locals.is_empty()
                || k.slide.is_some()
                || k.rows.iter().any(|r| r.expr.contains("ssc_clamp_row"))
        })
    }

    /// Whether a kernel reads columns past the border (the template then
    /// defines the column clamp).
    pub fn clamps_columns(&self) -> bool {
        self.kernels
            .iter()
            .any(|k| k.border.is_some() || k.passes.iter().any(|p| p.left > 0 || p.right > 0))
    }

    /// Whether a row median has a vector path (the template then
    /// includes the intrinsics' header).
    pub fn simd(&self) -> bool {
        self.medians9_rows.iter().any(|m| !m.paths.is_empty())
    }

    /// Whether a kernel loops over chunks of columns (x passes, medians).
    pub fn chunked(&self, k: &KernelView) -> bool {
        k.chunked
    }

    /// Columns of a chunk of the sliding x passes ([`CHUNK`]).
    pub fn chunk(&self) -> usize {
        CHUNK
    }
}

pub struct KernelView {
    pub fn_name: String,
    pub comment: Vec<String>,
    /// `(index, port name)` of the inputs.
    pub inputs: Vec<(usize, String)>,
    pub outputs: Vec<OutputView>,
    pub mx: u64,
    pub my: u64,
    pub rows: Vec<RowView>,
    pub tables: Vec<TableView>,
    /// The floating bounds of `min` and `max` ([`bounds`]), each a
    /// variable hidden from the optimiser.
    pub bounds: Vec<BoundView>,
    pub uses_x: bool,
    pub uses_y: bool,
    /// The columns of the window before and after the centre, in points,
    /// when some read has a column offset.
    pub border: Option<(i64, i64)>,
    /// The x passes kept in rows ([`XPass`]): when there are any, the
    /// template loops over chunks of [`CHUNK`] columns, and in each over
    /// the rows, computing each input row's sums once.
    pub passes: Vec<PassView>,
    /// The 3 × 3 medians whose column triples are sorted once per output
    /// row (a kernel with any is chunked too).
    pub medians: Vec<MedianView>,
    /// The locals, computed into rows (a chunked kernel; the others
    /// compute a local where a window operator reads it).
    pub locals: Vec<LocalView>,
    /// Inside the border of a kernel that interpolates (`linear`, whose
    /// outputs have `mul [2, 2]`): for the even rows, then the odd ones,
    /// the statements of one point `x`, each output element of either
    /// column parity written with its own weights, so the loop over x has
    /// no select per element. Empty for every other kernel.
    pub by_parity: Vec<Vec<String>>,
    /// A kernel that is `out = linear(in)` alone, in a floating type:
    /// each input row interpolated in x once, into rows that slide down
    /// with the output rows ([`SlideView`]).
    pub slide: Option<SlideView>,
    /// Whether it loops over chunks of columns ([`Chunked::any`]).
    pub chunked: bool,
}

/// `out = linear(in)` as Halide's sliding window computes it: each input
/// row's x interpolation once, into rows of `2 × CHUNK` elements that
/// stay in the level-1 cache (3 rows), and each output row the blend in
/// y of two of them. The same operations as the element loops (x first,
/// then y), so the same bits, with a third of the multiplications.
pub struct SlideView {
    /// The element type, and its weights 1/4 and 3/4 as C literals.
    pub ty: ElemType,
    pub quarter: String,
    pub three_quarters: String,
    /// `--contract`: each blend one `fma` ([`crate::back::c::expr::blend`]).
    pub contract: bool,
    /// The input's and the output's names (their `NAME_port`).
    pub input: String,
    pub output: String,
}

impl SlideView {
    /// The C name of the element type.
    pub fn ctype(&self) -> &'static str {
        c_name(self.ty)
    }

    /// A point of even column or row: 1/4 of the one before, 3/4 of its own.
    pub fn even(&self, before: &str, own: &str) -> String {
        blend(
            self.contract,
            self.ty,
            (&self.quarter, before),
            (&self.three_quarters, own),
        )
    }

    /// A point of odd column or row: 3/4 of its own, 1/4 of the one after.
    pub fn odd(&self, own: &str, after: &str) -> String {
        blend(
            self.contract,
            self.ty,
            (&self.three_quarters, own),
            (&self.quarter, after),
        )
    }
}

/// Columns of a chunk of the sliding x passes: its rows of sums stay in
/// the level-1 cache (3 rows of 512 floats: 6 KiB).
pub const CHUNK: usize = 512;

/// One x pass kept in rows.
pub struct PassView {
    /// `h0`: the array of its rows of sums, `rows` × [`CHUNK`].
    pub name: String,
    /// The type of the sums, and of the input's elements.
    pub ctype: &'static str,
    pub in_ctype: &'static str,
    /// The row of the input it sums, row `r` (`src`): a port's through
    /// `SSC_ROW`, clamped; a local's from its rows.
    pub src: String,
    /// Rows of the window, and of them before and after the centre.
    pub rows: i64,
    pub before: i64,
    pub after: i64,
    /// Columns of the window before and after the centre: the sums of
    /// columns nearer the border clamp theirs.
    pub left: i64,
    pub right: i64,
    /// The sum at column x of the input row `src`, inside and on the border.
    pub inner: String,
    pub edge: String,
    /// `(name, slot)` of the rows of sums an output row reads: `("h0_m1",
    /// "(y - y0) % 3")`, input row r in slot `(r - y0 + before) % rows`.
    pub at: Vec<(String, String)>,
    pub comment: String,
}

/// A 3 × 3 median computed a row at a time (`ssc_median9_row_T`, each
/// column's triple sorted once): the output element at x reads the
/// median of columns x − 1, x, x + 1 from the row.
pub struct MedianView {
    /// `m0`: its row `m0_med`, column x at x − c0.
    pub name: String,
    pub ctype: &'static str,
    /// The type's keyword, of the helpers' names.
    pub keyword: String,
    /// The input's rows y − 1, y, y + 1 (`in_m1`, `in_0`, `in_p1`).
    pub rows: [String; 3],
    pub comment: String,
}

pub struct OutputView {
    pub index: usize,
    pub name: String,
    pub ctype: &'static str,
    pub inner: String,
    pub edge: String,
}

pub struct RowView {
    pub name: String,
    pub ctype: &'static str,
    /// The pointer: a port's row through `SSC_ROW`, or a local's row.
    pub expr: String,
}

/// A local ([`crate::ir::kernel::Local`]) of a chunked kernel: its value
/// computed once per row of its window into `rows` rows of
/// `CHUNK + left + right` elements (columns c0 − left .. c1 + right − 1,
/// those inside the grid), which slide down with the output rows like the
/// sums of an x pass; the window operators read those rows as they read a
/// port's.
pub struct LocalView {
    /// `v0`: the array of its rows.
    pub name: String,
    pub ctype: &'static str,
    pub rows: i64,
    pub before: i64,
    pub after: i64,
    pub left: i64,
    pub right: i64,
    /// Elements of a row: `CHUNK + left + right`.
    pub columns: i64,
    /// Row r of each input its expression reads (`raw_0`).
    pub reads: Vec<RowView>,
    /// Its value at column x of those rows.
    pub value: String,
    pub comment: String,
}

/// A bound of `min` or `max` held in a variable: `float lim0 = 0.0f;`.
pub struct BoundView {
    pub name: String,
    pub ctype: &'static str,
    pub value: String,
}

pub struct TableView {
    pub ctype: &'static str,
    pub len: usize,
    pub values: String,
}

pub struct SatView {
    pub name: String,
    pub to: &'static str,
    pub from: &'static str,
    /// Compared in this type (exact for both).
    pub wide: &'static str,
    pub nan: bool,
    pub lo: String,
    pub hi: String,
    pub lo_to: String,
    pub hi_to: String,
    /// Whether a value of `from` can reach `lo` (or `hi`): a comparison no
    /// value can make true is left out (gcc warns on it, -Wtype-limits).
    pub lo_check: bool,
    pub hi_check: bool,
}
