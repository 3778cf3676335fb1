//! The row median helper `ssc_median9_row_T` of the C back end: what the
//! template (`runtime-c/templates/kernels.c`) prints for each element
//! type whose 3 × 3 median a chunked kernel computes a row at a time.
//!
//! Takes an element type; gives its [`RowMedianView`]: the C type and the
//! vector paths the helper has besides plain C. Guarantees: every path
//! performs the plain C helper's min/max operand for operand (C's
//! `a > b ? b : a` is the intrinsics' `min(b, a)`, the same value for NaN
//! and −0), so a program prints the same checksum whichever path its
//! compiler flags select (`--portable` takes plain C).
//!
//! Why paths at all: each column's sorted triple is read by the three
//! medians that contain it, at x − 1, x and x + 1. Through arrays, the
//! reads at x ± 1 are unaligned loads, and with wide vectors those limit
//! the loop; in registers, a shift by one column costs one instruction
//! (AVX-512's `valign`) or two (AVX2's `vperm2i128` and `vpalignr`). On
//! xray's median the paths run 1.7× (AVX-512) and 1.3× (AVX2) faster than
//! the arrays (docs/fused.md, "The median in registers").

use super::expr::c_name;
use crate::ir::ElemType;

/// `ssc_median9_row_T` of one element type.
pub struct RowMedianView {
    /// The type's keyword, of the helpers' names (`float`).
    pub keyword: String,
    pub ctype: &'static str,
    /// The vector paths: the first whose guard holds is compiled, plain C
    /// without one.
    pub paths: Vec<SimdPath>,
}

impl RowMedianView {
    pub fn of(t: ElemType) -> RowMedianView {
        let paths = match t {
            ElemType::Float => vec![SimdPath::avx512(t), SimdPath::avx2_float()],
            ElemType::Double => vec![SimdPath::avx512(t)],
            _ => Vec::new(),
        };
        RowMedianView {
            keyword: t.keyword().to_string(),
            ctype: c_name(t),
            paths,
        }
    }
}

/// One instruction set's vector path of a row median.
pub struct SimdPath {
    /// The preprocessor condition it is compiled under.
    pub guard: &'static str,
    /// The helpers' name part (`v16`: `ssc_sort3_v16_float`).
    pub tag: String,
    pub lanes: usize,
    /// The vector type and its intrinsics' prefix and suffix (`__m512`,
    /// `_mm512`, `ps`).
    pub vector: &'static str,
    pub prefix: &'static str,
    pub suffix: &'static str,
    /// C expressions of the vector one column left of `at` (its first
    /// element the last of `before`) and one column right of `at` (its
    /// last element the first of `after`).
    pub left: String,
    pub right: String,
}

impl SimdPath {
    const AVX512: &'static str = "defined(__AVX512F__)";
    const AVX2: &'static str = "defined(__AVX2__) && !defined(__AVX512F__)";

    /// AVX-512: 16 floats or 8 doubles, shifted across the vector by one
    /// `valign`.
    fn avx512(t: ElemType) -> SimdPath {
        let (lanes, vector, suffix, shift) = match t {
            ElemType::Double => (8, "__m512d", "pd", "epi64"),
            _ => (16, "__m512", "ps", "epi32"),
        };
        let align = |hi: &str, lo: &str, n: usize| {
            format!(
                "_mm512_castsi512_{suffix}(_mm512_alignr_{shift}(_mm512_cast{suffix}_si512({hi}), \
                 _mm512_cast{suffix}_si512({lo}), {n}))"
            )
        };
        SimdPath {
            guard: Self::AVX512,
            tag: format!("v{lanes}"),
            lanes,
            vector,
            prefix: "_mm512",
            suffix,
            left: align("at", "before", lanes - 1),
            right: align("after", "at", 1),
        }
    }

    /// AVX2: 8 floats; a shift across the vector's two 128-bit halves is
    /// a `vperm2i128` (the halves next to each other) and a `vpalignr`.
    fn avx2_float() -> SimdPath {
        let halves = |a: &str, b: &str| {
            format!(
                "_mm256_permute2x128_si256(_mm256_castps_si256({a}), _mm256_castps_si256({b}), 0x21)"
            )
        };
        SimdPath {
            guard: Self::AVX2,
            tag: "v8".into(),
            lanes: 8,
            vector: "__m256",
            prefix: "_mm256",
            suffix: "ps",
            left: format!(
                "_mm256_castsi256_ps(_mm256_alignr_epi8(_mm256_castps_si256(at), {}, 12))",
                halves("before", "at")
            ),
            right: format!(
                "_mm256_castsi256_ps(_mm256_alignr_epi8({}, _mm256_castps_si256(at), 4))",
                halves("at", "after")
            ),
        }
    }
}
