//! The C of the defined functions: one loop nest per typed kernel
//! (`crate::ir::kernel`), rendered by `runtime-c/templates/kernels.c`
//! into the program, the library and the `-t wcet` harness alike.
//!
//! Takes the HSDFG's kernels; gives their views: for each kernel the C
//! function `def_NAME(const ssc_call *)` with its row pointers (every row
//! through `SSC_ROW`, so a defined function's buffers may be folded into
//! rings like a built-in's), its output expressions inside and on the
//! border of its windows, and the helpers they call (saturating
//! conversions, medians). Guarantees: the loops compute exactly the
//! kernel's value for every output element of the sub-box's region, in
//! any split, so every schedule gives the same bits.

use super::expr::{
    bounds, c_name, literal, row_var, sat_name, tables, Emit, XPass, MEDIAN9, UNROLLED_TERMS,
};
use super::median::RowMedianView;
use crate::ir::hsdfg::Hsdfg;
use crate::ir::kernel::{table_type, Kernel, KernelPort, Node, Op, Ty};
use crate::ir::{ElemType, Pair};
use std::collections::BTreeSet;

mod views;
pub use views::*;

/// The views of the kernels `h` runs, by function name: every kernel a
/// function instance uses, but a built-in's that a kernel of one's own
/// (`own`, `--kernels`) replaces.
pub fn view(h: &Hsdfg, rules: FloatRules, own: &[String]) -> KernelsView {
    let used: BTreeSet<&str> = h.functions.iter().map(|f| f.function.as_str()).collect();
    let kernels: Vec<&Kernel> = h
        .kernels
        .values()
        .filter(|k| used.contains(k.name.as_str()))
        .filter(|k| !crate::ir::builtins::replaced_by_own(&k.name, own))
        .collect();
    let mut sats = BTreeSet::new();
    let (mut wsums, mut bsums) = (BTreeSet::new(), BTreeSet::new());
    let nonzero = |v: &[f64]| v.iter().filter(|w| **w != 0.0).count();
    let mut medians9_direct = BTreeSet::new();
    let mut medians9_rows = BTreeSet::new();
    let (mut mins, mut maxs, mut abss, mut medians, mut medians9) = (
        BTreeSet::new(),
        BTreeSet::new(),
        BTreeSet::new(),
        BTreeSet::new(),
        BTreeSet::new(),
    );
    for k in &kernels {
        let rowwise = chunked(k);
        for v in k.trees() {
            v.walk(&mut |n| match &n.op {
                Op::Convert {
                    saturate: true,
                    arg,
                } => {
                    sats.insert((n.elem(), arg.elem()));
                }
                Op::Min(..) => {
                    mins.insert(n.elem());
                }
                Op::Max(..) => {
                    maxs.insert(n.elem());
                }
                Op::Abs(..) if !matches!(n.elem(), ElemType::Float | ElemType::Double) => {
                    abss.insert(n.elem());
                }
                // (A separable sum kept in rows of x passes calls no
                // loop; its helper is defined all the same.)
                Op::Stencil { port, weights } if nonzero(weights) > UNROLLED_TERMS => {
                    wsums.insert((n.elem(), k.source(*port).ty));
                }
                Op::Separable { port, wx, wy } if nonzero(wx) * nonzero(wy) > UNROLLED_TERMS => {
                    wsums.insert((n.elem(), k.source(*port).ty));
                }
                Op::BlockSum { port } => {
                    let m = k.source(*port).mul;
                    if (m.x * m.y) as usize > UNROLLED_TERMS {
                        bsums.insert((n.elem(), k.source(*port).ty));
                    }
                }
                Op::Median { port } => {
                    let w = k.source(*port).window;
                    if w.x * w.y == MEDIAN9 {
                        medians9.insert(n.elem());
                        if rowwise.medians.contains(port) {
                            medians9_rows.insert(n.elem());
                        } else {
                            medians9_direct.insert(n.elem());
                        }
                    } else {
                        medians.insert(n.elem());
                    }
                }
                _ => {}
            });
        }
    }
    let named = |set: BTreeSet<ElemType>| {
        set.into_iter()
            .map(|t| (t.keyword().to_string(), c_name(t)))
            .collect()
    };
    KernelsView {
        kernels: kernels.into_iter().map(|k| kernel_view(k, rules)).collect(),
        sats: sats
            .into_iter()
            .map(|(to, from)| sat_view(to, from))
            .collect(),
        mins: named(mins),
        maxs: named(maxs),
        abss: named(abss),
        medians: named(medians),
        medians9: named(medians9),
        medians9_direct: named(medians9_direct),
        medians9_rows: medians9_rows.into_iter().map(RowMedianView::of).collect(),
        wsums: wsums.into_iter().map(|p| SumView::of("wsum", p)).collect(),
        bsums: bsums.into_iter().map(|p| SumView::of("bsum", p)).collect(),
    }
}

/// What a kernel computes once per row in chunks of [`CHUNK`] columns:
/// the x passes of its separable sums ([`XPass`]: every distinct `(port,
/// wx)`) and the sorted column triples of its 3 × 3 medians (by port).
/// Only when its outputs have `mul [1, 1]` and nothing else it reads has
/// a column offset (the output loop then needs no border of its own);
/// empty otherwise: every element reads its window.
#[derive(Default)]
struct Chunked {
    passes: Vec<XPass>,
    medians: Vec<usize>,
}

impl Chunked {
    /// Whether anything is computed per row: the kernel then loops over
    /// chunks of columns, its element being `x`.
    fn any(&self) -> bool {
        !self.passes.is_empty() || !self.medians.is_empty()
    }
}

fn chunked(k: &Kernel) -> Chunked {
    let mut c = Chunked::default();
    let mut other_columns = false;
    for v in &k.values {
        v.walk(&mut |n| match &n.op {
            Op::Separable { port, wx, .. } => {
                let p = XPass {
                    port: *port,
                    wx: wx.clone(),
                    ty: n.elem(),
                };
                if !c.passes.contains(&p) {
                    c.passes.push(p);
                }
            }
            Op::Median { port } if k.source(*port).window == Pair::new(3, 3) => {
                c.medians.push(*port)
            }
            Op::Read { dx, .. } => other_columns |= *dx != 0,
            Op::Stencil { .. } | Op::Median { .. } | Op::Linear { .. } => other_columns = true,
            _ => {}
        });
    }
    c.medians.sort_unstable();
    c.medians.dedup();
    if other_columns || k.out_mul != Pair::ONE {
        c = Chunked::default();
    }
    c
}

/// Whether a separable sum over pass `p` weighs its row `dy` (a row of
/// weight 0 is not read).
fn reads_row(k: &Kernel, p: &XPass, before: i64, dy: i64) -> bool {
    let mut read = false;
    for v in &k.values {
        v.walk(&mut |n| {
            if let Op::Separable { port, wx, wy } = &n.op {
                if *port == p.port && *wx == p.wx {
                    read |= wy.get((dy + before) as usize).is_some_and(|w| *w != 0.0);
                }
            }
        });
    }
    read
}

/// The rows a kernel's element loop reads, whether it reads columns, and
/// the columns of its windows before and after the element when some read
/// has a column offset.
struct Reads {
    rows: BTreeSet<(usize, Row)>,
    uses_x: bool,
    border: Option<(i64, i64)>,
}

fn reads(k: &Kernel, passes: &[XPass], medians: &[usize], chunked_loop: bool) -> Reads {
    let (mut rows, mut uses_x, mut border) = (BTreeSet::new(), false, (0i64, 0i64));
    let mut offsets_x = false;
    for v in &k.values {
        v.walk(&mut |n| {
            let mut window = |port: usize, dxs: (i64, i64), dys: Vec<i64>| {
                uses_x = true;
                // A local computed at each element of the window reads
                // its ports there; one computed into rows is read by row.
                let sources = match k.local(port).filter(|_| !chunked_loop) {
                    Some(l) => l.reads(),
                    None => vec![port],
                };
                for dy in dys {
                    for &s in &sources {
                        rows.insert((s, Row::Offset(dy)));
                    }
                }
                if dxs != (0, 0) {
                    offsets_x = true;
                    border = (border.0.max(dxs.0), border.1.max(dxs.1));
                }
            };
            match &n.op {
                Op::Read { port, dx, dy } if k.source(*port).mul == Pair::ONE => {
                    window(*port, ((-dx).max(0), (*dx).max(0)), vec![*dy])
                }
                Op::Read { port, .. } => {
                    rows.insert((*port, Row::Element));
                }
                Op::Separable { .. } if !passes.is_empty() => uses_x = true,
                Op::Median { port } if medians.contains(port) => {
                    uses_x = true;
                    for dy in -1..=1 {
                        rows.insert((*port, Row::Offset(dy)));
                    }
                }
                Op::Stencil { port, .. }
                | Op::Separable { port, .. }
                | Op::Median { port }
                | Op::Linear { port } => {
                    let ((bx, ax), (by, ay)) = k.source(*port).margins();
                    let (bx, ax, by, ay) = if matches!(n.op, Op::Linear { .. }) {
                        (1, 1, 1, 1)
                    } else {
                        (bx, ax, by, ay)
                    };
                    // Only the rows a weight other than 0 reads (a row
                    // pointer nothing reads is an unused variable).
                    let w = k.source(*port).window.x as usize;
                    let weighed = |dy: i64| match &n.op {
                        Op::Stencil { weights, .. } => weights
                            .iter()
                            .skip((dy + by) as usize * w)
                            .take(w)
                            .any(|v| *v != 0.0),
                        Op::Separable { wx, wy, .. } => {
                            wy[(dy + by) as usize] != 0.0 && wx.iter().any(|v| *v != 0.0)
                        }
                        _ => true,
                    };
                    window(
                        *port,
                        (bx, ax),
                        (-by..=ay).filter(|dy| weighed(*dy)).collect(),
                    )
                }
                Op::BlockSum { port } => {
                    uses_x = true;
                    for j in 0..k.inputs[*port].mul.y {
                        rows.insert((*port, Row::Block(j)));
                    }
                }
                _ => {}
            }
        });
    }
    Reads {
        rows,
        uses_x,
        border: offsets_x.then_some(border),
    }
}

fn kernel_view(k: &Kernel, rules: FloatRules) -> KernelView {
    let tables = tables(k);
    let bounds = bounds(k);
    let rowwise = chunked(k);
    let chunked_loop = rowwise.any();
    let Chunked { passes, medians } = rowwise;
    let slide = slide_view(k, rules.contract);
    let Reads {
        rows,
        uses_x,
        border,
    } = reads(k, &passes, &medians, chunked_loop);
    let emitter = |edge: bool, parity: Option<(u64, u64)>| Emit {
        kernel: k,
        border: edge,
        tables: &tables,
        parity,
        passes: &passes,
        medians: &medians,
        bounds: &bounds,
        stored: &[],
        local_rows: chunked_loop,
        shift: (0, 0),
        contract: rules.contract,
        reciprocal: rules.reciprocal,
    };
    let emit_at = |edge: bool, parity: Option<(u64, u64)>, n| emitter(edge, parity).expr(n);
    let emit = |edge: bool, n| emit_at(edge, None, n);
    // Only `linear` reads the parities, and it needs `mul [2, 2]` outputs.
    let mut interpolates = false;
    for v in &k.values {
        v.walk(&mut |n| interpolates |= matches!(n.op, Op::Linear { .. }));
    }
    // An input of the outputs' `mul` is read at `ex`, which these
    // statements do not declare: such a kernel keeps the select.
    let element_reads = rows.iter().any(|(_, r)| matches!(r, Row::Element));
    // (A kernel that slides has a loop of its own.)
    let by_parity: Vec<Vec<String>> = if interpolates && !element_reads && slide.is_none() {
        (0..k.out_mul.y)
            .map(|py| {
                let mut stmts = Vec::new();
                for px in 0..k.out_mul.x {
                    let at = match px {
                        0 => format!("{} * x", k.out_mul.x),
                        _ => format!("{} * x + {px}", k.out_mul.x),
                    };
                    for (o, v) in k.outputs.iter().zip(&k.values) {
                        let e = emit_at(false, Some((px, py)), v);
                        stmts.push(format!("{}_row[{at}] = {e};", o.name));
                    }
                }
                stmts
            })
            .collect()
    } else {
        Vec::new()
    };
    let read = read_inputs(k);
    let uses_y = !passes.is_empty() || rows.iter().any(|(_, r)| !matches!(r, Row::Element));
    let median_views = median_views(k, &medians);
    let pass_views = pass_views(k, &passes, &emitter);
    let local_views = if chunked_loop {
        local_views(k, &emitter(false, None))
    } else {
        Vec::new()
    };
    KernelView {
        fn_name: function_name(&k.name),
        comment: k.text.clone(),
        // Only the inputs the expressions read: a port the definition
        // leaves unread has no variable (an unused one is a warning).
        inputs: k
            .inputs
            .iter()
            .enumerate()
            .filter(|(i, _)| read.contains(i))
            .map(|(i, p)| (i, p.name.clone()))
            .collect(),
        outputs: k
            .outputs
            .iter()
            .zip(&k.values)
            .enumerate()
            .map(|(i, (o, v))| OutputView {
                index: i,
                name: o.name.clone(),
                ctype: c_name(o.ty),
                inner: Emit {
                    stored: &stored_before(k, i, chunked_loop),
                    ..emitter(false, None)
                }
                .expr(v),
                edge: emit(true, v),
            })
            .collect(),
        mx: k.out_mul.x,
        my: k.out_mul.y,
        rows: row_views(k, rows),
        tables: table_views(&tables),
        bounds: bounds
            .iter()
            .enumerate()
            .map(|(i, &(t, v))| BoundView {
                name: format!("lim{i}"),
                ctype: c_name(t),
                value: literal(v, t),
            })
            .collect(),
        uses_x,
        uses_y,
        border,
        by_parity,
        passes: pass_views,
        medians: median_views,
        locals: local_views,
        slide,
        chunked: chunked_loop,
    }
}

/// The inputs some output's expression of `k` reads: directly, through a
/// window operator, or through a local that it reads (a local that no
/// output reads any more, its `select` decided by the ranges, reads
/// nothing).
fn read_inputs(k: &Kernel) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    let mut sources = BTreeSet::new();
    for v in &k.values {
        v.walk(&mut |n| match &n.op {
            Op::Read { port, .. }
            | Op::Stencil { port, .. }
            | Op::Separable { port, .. }
            | Op::Median { port }
            | Op::BlockSum { port }
            | Op::Linear { port } => {
                sources.insert(*port);
            }
            _ => {}
        });
    }
    for s in sources {
        match k.local(s) {
            Some(l) => out.extend(l.reads()),
            None => {
                out.insert(s);
            }
        }
    }
    out
}

/// The sliding x interpolation of a kernel that is one `linear` of a
/// floating input into an output of its type, and nothing else.
fn slide_view(k: &Kernel, contract: bool) -> Option<SlideView> {
    let ([v], [o]) = (&k.values[..], &k.outputs[..]) else {
        return None;
    };
    let Op::Linear { port } = v.op else {
        return None;
    };
    if k.local(port).is_some() {
        return None;
    }
    let t = o.ty;
    let floating = matches!(t, ElemType::Float | ElemType::Double);
    (floating && k.inputs[port].ty == t && v.ty == Ty::Elem(t)).then(|| SlideView {
        ty: t,
        quarter: literal(0.25, t),
        three_quarters: literal(0.75, t),
        contract,
        input: k.inputs[port].name.clone(),
        output: o.name.clone(),
    })
}

/// The outputs before output `i` whose values a later output can read
/// back from its row, with the read: in the element loops of a kernel
/// whose outputs have `mul [1, 1]` (the chunked loop's element is `x`,
/// the others' `ex`), when the output's type is its value's and the value
/// is computed (not a constant or a read).
fn stored_before(k: &Kernel, i: usize, chunked: bool) -> Vec<(&Node, String)> {
    if k.out_mul != Pair::ONE {
        return Vec::new();
    }
    let at = if chunked { "x" } else { "ex" };
    k.outputs[..i]
        .iter()
        .zip(&k.values)
        .filter(|(o, v)| v.ty == Ty::Elem(o.ty) && !matches!(v.op, Op::Const(_) | Op::Read { .. }))
        .map(|(o, v)| (v, format!("{}_row[{at}]", o.name)))
        .collect()
}

/// The 3 × 3 medians of a chunked kernel, by input port.
fn median_views(k: &Kernel, medians: &[usize]) -> Vec<MedianView> {
    medians
        .iter()
        .enumerate()
        .map(|(i, port)| {
            let p = k.source(*port);
            MedianView {
                name: format!("m{i}"),
                ctype: c_name(p.ty),
                keyword: p.ty.keyword().to_string(),
                rows: [-1, 0, 1].map(|dy| row_var(&p.name, dy)),
                comment: format!(
                    "m{i}: the 3 x 3 medians of `{}` at columns c0 .. c1 - 1 of row y",
                    p.name
                ),
            }
        })
        .collect()
}

/// The x passes of a chunked kernel, their sums emitted by `emitter`.
fn pass_views<'a>(
    k: &Kernel,
    passes: &[XPass],
    emitter: &dyn Fn(bool, Option<(u64, u64)>) -> Emit<'a>,
) -> Vec<PassView> {
    passes
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let port = k.source(p.port);
            let ((left, right), (before, after)) = port.margins();
            let name = format!("h{i}");
            let sum = |edge: bool| emitter(edge, None).row_sum(p.port, &p.wx, "src", p.ty).0;
            PassView {
                ctype: c_name(p.ty),
                in_ctype: c_name(port.ty),
                src: match k.local(p.port) {
                    Some(_) => ring_row(&port.name, "r", 0, port),
                    None => clamped_row_r(port),
                },
                rows: before + after + 1,
                before,
                after,
                left,
                right,
                inner: sum(false),
                edge: sum(true),
                at: (-before..=after)
                    .filter(|dy| reads_row(k, p, before, *dy))
                    .map(|dy| {
                        let slot = match dy + before {
                            0 => format!("(y - y0) % {}", before + after + 1),
                            k => format!("(y - y0 + {k}) % {}", before + after + 1),
                        };
                        (XPass::row(i, dy), slot)
                    })
                    .collect(),
                comment: format!(
                    "{name}: each row of `{}` summed in x with [{}], once",
                    port.name,
                    p.wx.iter()
                        .map(|w| format!("{w}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                name,
            }
        })
        .collect()
}

/// The row pointers a kernel declares for every output row.
fn row_views(k: &Kernel, rows: BTreeSet<(usize, Row)>) -> Vec<RowView> {
    rows.into_iter()
        .map(|(port, r)| {
            let p = k.source(port);
            let n = &p.name;
            let (name, row) = match r {
                Row::Offset(dy) if k.local(port).is_some() => {
                    return RowView {
                        name: row_var(n, dy),
                        ctype: c_name(p.ty),
                        expr: ring_row(n, "y", dy, p),
                    }
                }
                Row::Offset(0) => (row_var(n, 0), "y".to_string()),
                Row::Offset(dy) => (
                    row_var(n, dy),
                    format!(
                        "ssc_clamp_row(y {} {}, {n}_port->height)",
                        if dy < 0 { "-" } else { "+" },
                        dy.abs()
                    ),
                ),
                Row::Element => (format!("{n}_e"), "ey".to_string()),
                Row::Block(j) => (
                    format!("{n}_b{j}"),
                    if j == 0 {
                        format!("{} * y", p.mul.y)
                    } else {
                        format!("{} * y + {j}", p.mul.y)
                    },
                ),
            };
            RowView {
                name,
                ctype: c_name(p.ty),
                expr: format!("SSC_ROW(const {}, {n}_port, {row})", c_name(p.ty)),
            }
        })
        .collect()
}

/// Row `at + dy` of local `name` (geometry `p`) in its rows: a pointer
/// that column x indexes (`v0[(y - y0 + 0) % 3] + 1 - c0`).
fn ring_row(name: &str, at: &str, dy: i64, p: &KernelPort) -> String {
    let ((left, _), (before, after)) = p.margins();
    format!(
        "{name}[({at} - y0 + {}) % {}] + {left} - c0",
        before + dy,
        before + after + 1
    )
}

/// Row `r` of input `q`, clamped to its grid: what an x pass sums and a
/// local is computed from.
fn clamped_row_r(q: &KernelPort) -> String {
    format!(
        "SSC_ROW(const {}, {1}_port, ssc_clamp_row(r, {1}_port->height))",
        c_name(q.ty),
        q.name
    )
}

/// The locals of a chunked kernel, each computed once per row of its
/// window into rows that slide down with the output rows.
fn local_views(k: &Kernel, emit: &Emit<'_>) -> Vec<LocalView> {
    k.locals
        .iter()
        .map(|l| {
            let p = &l.port;
            let ((left, right), (before, after)) = p.margins();
            let value = emit.expr(&l.value);
            LocalView {
                name: p.name.clone(),
                ctype: c_name(p.ty),
                rows: before + after + 1,
                before,
                after,
                left,
                right,
                columns: CHUNK as i64 + left + right,
                reads: l
                    .reads()
                    .into_iter()
                    .map(|i| {
                        let q = &k.inputs[i];
                        RowView {
                            name: row_var(&q.name, 0),
                            ctype: c_name(q.ty),
                            expr: clamped_row_r(q),
                        }
                    })
                    .collect(),
                comment: format!(
                    "{}: each row of `{}`, once, columns c0 - {left} .. {}",
                    p.name,
                    value,
                    match right - 1 {
                        0 => "c1".to_string(),
                        r if r < 0 => format!("c1 - {}", -r),
                        r => format!("c1 + {r}"),
                    }
                ),
                value,
            }
        })
        .collect()
}

/// The lookup tables of a kernel, whole numbers as `int`.
fn table_views(tables: &[Vec<f64>]) -> Vec<TableView> {
    tables
        .iter()
        .map(|t| {
            let ty = table_type(t);
            TableView {
                ctype: c_name(ty),
                len: t.len(),
                values: t
                    .iter()
                    .map(|v| literal(*v, ty))
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })
        .collect()
}

/// Rows a kernel reads of an input.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Row {
    /// The point's row + dy (a port with `mul [1, 1]`).
    Offset(i64),
    /// The output element's row (a port with the outputs' `mul`).
    Element,
    /// Row j of the point's block.
    Block(u64),
}

fn sat_view(to: ElemType, from: ElemType) -> SatView {
    let (lo, hi) = match to {
        ElemType::Float => (-(f32::MAX as f64), f32::MAX as f64),
        ElemType::Double => (f64::MIN, f64::MAX),
        t => crate::ir::kernel::Range::of_type(t).lo_hi(),
    };
    let float_from = matches!(from, ElemType::Float | ElemType::Double);
    let wide = if float_from || matches!(to, ElemType::Float | ElemType::Double) {
        "double"
    } else {
        "int64_t"
    };
    let as_wide = |v: f64| {
        if wide == "double" {
            format!("{v:?}")
        } else {
            format!("{}", v as i64)
        }
    };
    let (from_lo, from_hi) = crate::ir::kernel::Range::of_type(from).lo_hi();
    SatView {
        lo_check: from_lo <= lo,
        hi_check: from_hi >= hi,
        name: sat_name(to, from),
        to: c_name(to),
        from: c_name(from),
        wide,
        nan: float_from,
        lo: as_wide(lo),
        hi: as_wide(hi),
        lo_to: literal(lo, to),
        hi_to: literal(hi, to),
    }
}
