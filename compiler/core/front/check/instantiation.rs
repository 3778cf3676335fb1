//! The `instantiation` section, against the declaration.
//!
//! Takes the [`Declaration`] and the [`Instantiation`]; gives E004 (a
//! sub-box `F.k` defined twice), E005 (a sub-box of an unknown function, a
//! dependency naming an unknown sub-box), E016 (a function without
//! sub-boxes), E017 (an empty region or one outside the function's space),
//! E018 (a gap, showing one missing region), E019 (an overlap, showing the
//! overlapping region and both sub-boxes), E021 (a `NONE` function split in
//! several sub-boxes) and the warning E020 (indices of a function not
//! exactly 0..n-1: allowed, since `F.k` is only a name, but the lowering
//! numbers them that way). Guarantees: when no error is reported, the
//! sub-boxes of every function tile its iteration space exactly.

use super::{codes, names};
use crate::diagnostics::Diagnostic;
use crate::ir::{Declaration, Function, Instantiation, Parallelism, Region, SubBox};
use std::collections::HashMap;

/// Above this many sub-boxes of one function, overlaps are not searched
/// pairwise and a gap is reported without a region.
const MAX_PAIRWISE: usize = 1024;

pub(super) fn check(d: &Declaration, inst: &Instantiation, out: &mut Vec<Diagnostic>) {
    let mut funcs: HashMap<&str, &Function> = HashMap::new();
    for f in &d.functions {
        funcs.entry(&f.name.name).or_insert(f);
    }
    let mut seen: HashMap<(&str, u64), &SubBox> = HashMap::new();
    let mut groups: HashMap<&str, Vec<&SubBox>> = HashMap::new();
    for sb in &inst.subboxes {
        let key = (sb.id.function.name.as_str(), sb.id.index);
        if let Some(first) = seen.get(&key) {
            out.push(names::duplicate(
                "sub-box",
                &sb.id.to_string(),
                sb.id.span,
                first.id.span,
            ));
            continue;
        }
        seen.insert(key, sb);
        if funcs.contains_key(key.0) {
            groups.entry(key.0).or_default().push(sb);
        } else {
            out.push(names::undefined(
                format!(
                    "sub-box `{}` of unknown function `{}`",
                    sb.id, sb.id.function
                ),
                key.0,
                sb.id.function.span,
                d.functions.iter().map(|f| f.name.name.as_str()),
            ));
        }
    }

    for f in &d.functions {
        if !std::ptr::eq(funcs[f.name.name.as_str()], f) {
            continue;
        }
        let list = groups
            .get(f.name.name.as_str())
            .map(|v| v.as_slice())
            .unwrap_or(&[]);
        check_function(d, f, list, out);
    }

    let all: Vec<String> = inst.subboxes.iter().map(|s| s.id.to_string()).collect();
    for dep in &inst.dependencies {
        for r in [&dep.from, &dep.to] {
            if !seen.contains_key(&(r.function.name.as_str(), r.index)) {
                let name = r.to_string();
                out.push(names::undefined(
                    format!("dependency names unknown sub-box `{name}`"),
                    &name,
                    r.span,
                    all.iter().map(|s| s.as_str()),
                ));
            }
        }
    }
}

fn check_function(d: &Declaration, f: &Function, list: &[&SubBox], out: &mut Vec<Diagnostic>) {
    let res = f.resolution.value;
    let space = Region::whole(res);
    if list.is_empty() {
        out.push(
            Diagnostic::error(
                codes::NO_SUBBOXES,
                format!("function `{}` has no sub-boxes", f.name),
            )
            .label(f.name.span, "declared here, never instantiated")
            .hint(format!(
                "add `{}.0 {space}` to `function_instantiation` to run it whole",
                f.name
            )),
        );
        return;
    }
    check_split_none(d, f, list, out);
    check_numbering(f, list, out);
    let valid = regions_inside(f, list, space, out);
    let overlap = check_overlaps(&valid, out);
    if valid.len() != list.len() || overlap {
        return;
    }
    let area: u128 = valid.iter().map(|s| s.region.value.area()).sum();
    if area >= space.area() {
        return;
    }
    let missing = if valid.len() <= MAX_PAIRWISE {
        first_gap(space, &valid)
    } else {
        None
    };
    let what = missing.map_or("part of".to_string(), |m| format!("{m} of"));
    out.push(
        Diagnostic::error(
            codes::TILING_GAP,
            format!(
                "the sub-boxes of `{}` leave {what} its space {space} uncovered",
                f.name
            ),
        )
        .label(list[0].id.span, format!("sub-boxes of `{}`", f.name))
        .label(f.resolution.span, format!("resolution {res}"))
        .hint(match missing {
            Some(m) => format!("add a sub-box covering {m}, or widen a neighbour"),
            None => "the sub-boxes of a function tile its space exactly".to_string(),
        }),
    );
}

/// Reports a `NONE` function split into more than one sub-box (E021).
fn check_split_none(d: &Declaration, f: &Function, list: &[&SubBox], out: &mut Vec<Diagnostic>) {
    if let Some(decl) = d.function_decl(&f.function.name) {
        if decl.parallelism == Parallelism::None && list.len() > 1 {
            out.push(
                Diagnostic::error(
                    codes::SPLIT_NONE,
                    format!(
                        "function `{}` is split into {} sub-boxes, but `{}` is `NONE`",
                        f.name,
                        list.len(),
                        f.function
                    ),
                )
                .label(list[1].id.span, "second sub-box")
                .label(decl.name.span, "declared `NONE` here")
                .hint("a `NONE` function runs whole: give it one sub-box covering its space, or declare it `FULL`"),
            );
        }
    }
}

/// Warns (E020) when the sub-boxes of `f` are not numbered 0..n-1.
fn check_numbering(f: &Function, list: &[&SubBox], out: &mut Vec<Diagnostic>) {
    let n = list.len() as u64;
    if let Some(bad) = list.iter().find(|s| s.id.index >= n) {
        out.push(
            Diagnostic::warning(
                codes::SUBBOX_NUMBERING,
                format!("sub-boxes of `{}` are not numbered 0..{}", f.name, n - 1),
            )
            .label(
                bad.id.span,
                format!("index {} is past {}", bad.id.index, n - 1),
            )
            .hint("number the sub-boxes of a function 0, 1, …, n-1 in order"),
        );
    }
}

/// The sub-boxes whose region is neither empty nor outside `space`; reports
/// the others (E017).
fn regions_inside<'a>(
    f: &Function,
    list: &[&'a SubBox],
    space: Region,
    out: &mut Vec<Diagnostic>,
) -> Vec<&'a SubBox> {
    let res = f.resolution.value;
    let mut valid: Vec<&SubBox> = Vec::new();
    for sb in list {
        let r = sb.region.value;
        if r.is_empty() {
            out.push(
                Diagnostic::error(
                    codes::REGION_OUTSIDE,
                    format!("sub-box `{}` has an empty region {r}", sb.id),
                )
                .label(sb.region.span, "empty: needs x0 < x1 and y0 < y1")
                .hint("a region is half-open `[x0, y0]:[x1, y1]`"),
            );
        } else if r.intersect(&space) != r {
            out.push(
                Diagnostic::error(
                    codes::REGION_OUTSIDE,
                    format!(
                        "sub-box `{}` region {r} is outside the space {space} of `{}`",
                        sb.id, f.name
                    ),
                )
                .label(sb.region.span, "leaves the iteration space")
                .label(
                    f.resolution.span,
                    format!("`{}` has resolution {res}", f.name),
                )
                .hint(format!("regions of `{}` lie within {space}", f.name)),
            );
        } else {
            valid.push(sb);
        }
    }
    valid
}

/// Reports each pair of overlapping sub-boxes (E019), when
/// there are few enough to compare pairwise; whether any overlap.
fn check_overlaps(valid: &[&SubBox], out: &mut Vec<Diagnostic>) -> bool {
    let mut overlap = false;
    if valid.len() <= MAX_PAIRWISE {
        for (j, b) in valid.iter().enumerate() {
            for a in &valid[..j] {
                let common = a.region.value.intersect(&b.region.value);
                if !common.is_empty() {
                    overlap = true;
                    out.push(
                        Diagnostic::error(
                            codes::TILING_OVERLAP,
                            format!("sub-boxes `{}` and `{}` overlap in {common}", a.id, b.id),
                        )
                        .label(b.region.span, format!("`{}` covers {}", b.id, b.region.value))
                        .label(a.region.span, format!("`{}` covers {}", a.id, a.region.value))
                        .hint("the sub-boxes of a function tile its space exactly: no point in two of them"),
                    );
                }
            }
        }
    }
    overlap
}

/// The first uncovered cell (row-major) of the grid the region borders make.
fn first_gap(space: Region, list: &[&SubBox]) -> Option<Region> {
    let mut ys: Vec<u64> = vec![space.y0, space.y1];
    for s in list {
        ys.push(s.region.value.y0);
        ys.push(s.region.value.y1);
    }
    ys.sort_unstable();
    ys.dedup();
    for w in ys.windows(2) {
        let (y0, y1) = (w[0], w[1]);
        let mut xs: Vec<(u64, u64)> = list
            .iter()
            .map(|s| s.region.value)
            .filter(|r| r.y0 <= y0 && r.y1 >= y1)
            .map(|r| (r.x0, r.x1))
            .collect();
        xs.sort_unstable();
        let mut x = space.x0;
        for (a, b) in xs {
            if a > x {
                return Some(Region::new(x, y0, a, y1));
            }
            x = x.max(b);
        }
        if x < space.x1 {
            return Some(Region::new(x, y0, space.x1, y1));
        }
    }
    None
}
