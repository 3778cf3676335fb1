//! Validate: user-written sections against the sections above them
//! (docs/language.md).
//!
//! [`validate_declaration`] takes the declaration composed from the
//! composition and the one the user wrote; it matches the two flat graphs up
//! to renaming of function instances (same function declarations, and an
//! isomorphism of instances labelled by function and resolution, with
//! connections labelled by their ports). It gives the renaming (user name →
//! composed name) or diagnostics naming what is missing or extra.
//! [`validate_instantiation`] takes a declaration and a user-written
//! instantiation; it checks that every function's sub-boxes tile its space
//! exactly, that `NONE` functions run whole, and that no geometric
//! dependency is missing (an error naming it); an extra dependency is a
//! warning. Codes E120–E134.
//!
//! Guarantees: deterministic diagnostics (sorted, no hash order); the
//! matcher is exact: colour refinement (Weisfeiler–Lehman) prunes the
//! candidates, backtracking decides, bounded by a step budget (E124 when
//! exhausted, which needs pathological symmetric graphs of hundreds of
//! boxes).

use super::deps::dependencies;
use crate::diagnostics::Diagnostic;
use crate::ir::{Declaration, Function, Instantiation, Parallelism, Region, Span};
use std::collections::{BTreeMap, BTreeSet};

/// The labelled flat graph of a declaration.
struct Graph {
    names: Vec<String>,
    labels: Vec<String>,
    /// `(from, to)` → sorted port pairs.
    edges: BTreeMap<(usize, usize), Vec<(String, String)>>,
    /// Edge labels `func [w, h].port -> func [w, h].port`.
    edge_labels: Vec<String>,
}

fn graph(d: &Declaration) -> Graph {
    let index: BTreeMap<&str, usize> = d
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    let labels: Vec<String> = d
        .functions
        .iter()
        .map(|f| format!("{} {}", f.function, f.resolution.value))
        .collect();
    let mut edges: BTreeMap<(usize, usize), Vec<(String, String)>> = BTreeMap::new();
    let mut edge_labels = Vec::new();
    for c in &d.connections {
        let (Some(&a), Some(&b)) = (index.get(c.from.owner_name()), index.get(c.to.owner_name()))
        else {
            edge_labels.push(format!("{} -> {}", c.from, c.to));
            continue;
        };
        edges
            .entry((a, b))
            .or_default()
            .push((c.from.port.name.clone(), c.to.port.name.clone()));
        edge_labels.push(format!(
            "({}).{} -> ({}).{}",
            labels[a], c.from.port, labels[b], c.to.port
        ));
    }
    for v in edges.values_mut() {
        v.sort();
    }
    Graph {
        names: d.functions.iter().map(|f| f.name.name.clone()).collect(),
        labels,
        edges,
        edge_labels,
    }
}

/// The message that the declaration's `what` (its labels `user`) differ
/// from the composition's (`composed`): what it misses, then what it has
/// beyond them; `None` when they are the same multiset.
fn difference(what: &str, composed: &[String], user: &[String]) -> Option<String> {
    let missing = minus(composed, user);
    let extra = minus(user, composed);
    if missing.is_empty() && extra.is_empty() {
        return None;
    }
    let mut msg = format!("the declaration's {what} differ from the composition's:");
    if !missing.is_empty() {
        msg += &format!(" missing {}", missing.join(", "));
    }
    if !extra.is_empty() {
        msg += &format!(
            "{} extra {}",
            if missing.is_empty() { "" } else { ";" },
            extra.join(", ")
        );
    }
    Some(msg)
}

/// Multiset difference `a − b`, sorted.
fn minus(a: &[String], b: &[String]) -> Vec<String> {
    let mut count: BTreeMap<&str, i64> = BTreeMap::new();
    for x in a {
        *count.entry(x).or_default() += 1;
    }
    for x in b {
        *count.entry(x).or_default() -= 1;
    }
    let mut out = Vec::new();
    for (k, n) in count {
        for _ in 0..n.max(0) {
            out.push(k.to_string());
        }
    }
    out
}

/// Colour refinement over the disjoint union of two graphs.
fn refine(g1: &Graph, g2: &Graph) -> (Vec<usize>, Vec<usize>) {
    let mut ids: BTreeMap<String, usize> = BTreeMap::new();
    let mut c1: Vec<usize> = Vec::new();
    let mut c2: Vec<usize> = Vec::new();
    for l in &g1.labels {
        let n = ids.len();
        c1.push(*ids.entry(l.clone()).or_insert(n));
    }
    for l in &g2.labels {
        let n = ids.len();
        c2.push(*ids.entry(l.clone()).or_insert(n));
    }
    let classes = |a: &[usize], b: &[usize]| a.iter().chain(b).collect::<BTreeSet<_>>().len();
    let rounds = g1.labels.len() + g2.labels.len() + 1;
    for _ in 0..rounds {
        let sig = |g: &Graph, c: &[usize]| -> Vec<String> {
            let mut s: Vec<Vec<String>> = c.iter().map(|x| vec![format!("{x}")]).collect();
            for (&(a, b), ports) in &g.edges {
                for (pa, pb) in ports {
                    s[a].push(format!("o{pa}>{pb}:{}", c[b]));
                    s[b].push(format!("i{pa}>{pb}:{}", c[a]));
                }
            }
            s.into_iter()
                .map(|mut v| {
                    v[1..].sort();
                    v.join(",")
                })
                .collect()
        };
        let (s1, s2) = (sig(g1, &c1), sig(g2, &c2));
        let mut ids: BTreeMap<String, usize> = BTreeMap::new();
        let mut n1 = Vec::new();
        let mut n2 = Vec::new();
        for s in s1 {
            let n = ids.len();
            n1.push(*ids.entry(s).or_insert(n));
        }
        for s in s2 {
            let n = ids.len();
            n2.push(*ids.entry(s).or_insert(n));
        }
        let stable = classes(&n1, &n2) == classes(&c1, &c2);
        c1 = n1;
        c2 = n2;
        if stable {
            break;
        }
    }
    (c1, c2)
}

const BUDGET: u64 = 1_000_000;

/// Backtracking search for an isomorphism `user → composed`.
fn isomorphism(u: &Graph, c: &Graph) -> Result<Option<Vec<usize>>, ()> {
    let n = u.labels.len();
    if n != c.labels.len() {
        return Ok(None);
    }
    let (cu, cc) = refine(u, c);
    let empty: Vec<(String, String)> = Vec::new();
    let e = |g: &Graph, a: usize, b: usize| -> Vec<(String, String)> {
        g.edges
            .get(&(a, b))
            .cloned()
            .unwrap_or_else(|| empty.clone())
    };
    let ok = |k: usize, cand: usize, map: &[usize]| -> bool {
        if e(u, k, k) != e(c, cand, cand) {
            return false;
        }
        (0..k).all(|v| e(u, k, v) == e(c, cand, map[v]) && e(u, v, k) == e(c, map[v], cand))
    };
    let mut s = Search {
        n,
        cu: &cu,
        cc: &cc,
        map: vec![usize::MAX; n],
        used: vec![false; n],
        steps: 0,
        ok: &ok,
    };
    if s.go(0)? {
        Ok(Some(s.map))
    } else {
        Ok(None)
    }
}

/// The state of the backtracking search.
struct Search<'a> {
    n: usize,
    cu: &'a [usize],
    cc: &'a [usize],
    map: Vec<usize>,
    used: Vec<bool>,
    steps: u64,
    ok: &'a dyn Fn(usize, usize, &[usize]) -> bool,
}

impl Search<'_> {
    fn go(&mut self, k: usize) -> Result<bool, ()> {
        if k == self.n {
            return Ok(true);
        }
        for cand in 0..self.n {
            if self.used[cand] || self.cc[cand] != self.cu[k] {
                continue;
            }
            self.steps += 1;
            if self.steps > BUDGET {
                return Err(());
            }
            self.map[k] = cand;
            if (self.ok)(k, cand, &self.map) {
                self.used[cand] = true;
                if self.go(k + 1)? {
                    return Ok(true);
                }
                self.used[cand] = false;
            }
            self.map[k] = usize::MAX;
        }
        Ok(false)
    }
}

/// Checks a user-written declaration against the composed one, up to
/// renaming of function instances. Gives user name → composed name.
pub fn validate_declaration(
    composed: &Declaration,
    user: &Declaration,
) -> Result<BTreeMap<String, String>, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    for fd in &composed.function_decls {
        match user.function_decl(fd.name.as_str()) {
            None => errors.push(
                Diagnostic::error(
                    "E120",
                    format!(
                        "the declaration lacks `function_declaration {}`, which the composition binds",
                        fd.name
                    ),
                )
                .label(user.span, "in this declaration"),
            ),
            Some(ud) if ud.parallelism != fd.parallelism || ud.rows != fd.rows || ud.ports != fd.ports => errors.push(
                Diagnostic::error(
                    "E121",
                    format!(
                        "`function_declaration {}` differs from its container in the composition (parallelism, `ROWS` or ports)",
                        fd.name
                    ),
                )
                .label(ud.name.span, "declared here"),
            ),
            _ => {}
        }
        if let Some(def) = composed.definition(fd.name.as_str()) {
            if user.definition(fd.name.as_str()) != Some(def) {
                errors.push(
                    Diagnostic::error(
                        "E121",
                        format!(
                            "the declaration's `function_definition {}` differs from the composition's",
                            fd.name
                        ),
                    )
                    .label(
                        user.definition(fd.name.as_str()).map_or(user.span, |d| d.name.span),
                        "not the composition's definition",
                    )
                    .hint("a function has one definition: write it once in the composition, or the same in both"),
                );
            }
        }
    }
    let (gc, gu) = (graph(composed), graph(user));
    if let Some(msg) = difference("functions", &gc.labels, &gu.labels) {
        errors.push(
            Diagnostic::error("E122", msg)
                .label(user.span, "this declaration")
                .hint("function instances are matched by function and resolution, up to renaming"),
        );
    }
    if let Some(msg) = difference("connections", &gc.edge_labels, &gu.edge_labels) {
        errors.push(Diagnostic::error("E123", msg).label(user.span, "this declaration"));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    match isomorphism(&gu, &gc) {
        Ok(Some(map)) => Ok(map
            .iter()
            .enumerate()
            .map(|(i, &j)| (gu.names[i].clone(), gc.names[j].clone()))
            .collect()),
        Ok(None) => Err(vec![Diagnostic::error(
            "E123",
            "the declaration has the composition's functions and connections, but wired differently",
        )
        .label(user.span, "this declaration")
        .hint("compare with the declaration `-gd` prints")]),
        Err(()) => Err(vec![Diagnostic::error(
            "E124",
            "could not decide whether the declaration matches the composition (search budget exhausted)",
        )
        .label(user.span, "this declaration")
        .hint("drop the declaration and let the compiler generate it")]),
    }
}

/// Checks a user-written instantiation against its declaration: errors and
/// warnings (an extra dependency), in a deterministic order.
pub fn validate_instantiation(d: &Declaration, i: &Instantiation) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let (per, seen) = subboxes_per_function(d, i, &mut out);
    for f in &d.functions {
        let boxes = per.get(f.name.as_str()).cloned().unwrap_or_default();
        check_tiling(d, i, f, &boxes, &mut out);
    }
    if out.iter().any(|d| d.is_error()) {
        return out;
    }
    check_dependencies(d, i, &seen, &mut out);
    out
}

/// A sub-box of a function: (index, region, where it is given).
type GivenBox = (u64, Region, Span);

/// The sub-boxes of every function, in the order given, and every
/// (function, index) given; E125 for a sub-box of no function, E126 for
/// one given twice.
#[allow(clippy::type_complexity)]
fn subboxes_per_function<'a>(
    d: &Declaration,
    i: &'a Instantiation,
    out: &mut Vec<Diagnostic>,
) -> (BTreeMap<&'a str, Vec<GivenBox>>, BTreeSet<(&'a str, u64)>) {
    let mut per: BTreeMap<&str, Vec<GivenBox>> = BTreeMap::new();
    let mut seen: BTreeSet<(&str, u64)> = BTreeSet::new();
    for sb in &i.subboxes {
        let name = sb.id.function.as_str();
        if d.function(name).is_none() {
            out.push(
                Diagnostic::error(
                    "E125",
                    format!("sub-box `{}` names no function instance", sb.id),
                )
                .label(sb.id.span, "unknown function"),
            );
            continue;
        }
        if !seen.insert((name, sb.id.index)) {
            out.push(
                Diagnostic::error("E126", format!("sub-box `{}` is given twice", sb.id))
                    .label(sb.id.span, "again here"),
            );
            continue;
        }
        per.entry(name)
            .or_default()
            .push((sb.id.index, sb.region.value, sb.span));
    }
    (per, seen)
}

/// One function's sub-boxes tile its space exactly (E127 outside or empty,
/// E128 overlapping, E129 a gap), and a `NONE` function runs whole (E130).
fn check_tiling(
    d: &Declaration,
    i: &Instantiation,
    f: &Function,
    boxes: &[GivenBox],
    out: &mut Vec<Diagnostic>,
) {
    let whole = Region::whole(f.resolution.value);
    let mut bad = check_regions(f, whole, boxes, out);
    let area: u128 = boxes.iter().map(|b| b.1.area()).sum();
    if !bad && area != whole.area() {
        out.push(
            Diagnostic::error(
                "E129",
                format!(
                    "the sub-boxes of `{}` leave a gap: they cover {area} of its {} points",
                    f.name,
                    whole.area()
                ),
            )
            .label(i.span, "in this instantiation")
            .hint(format!("sub-boxes must tile {} exactly", whole)),
        );
        bad = true;
    }
    let none = d
        .function_decl(f.function.as_str())
        .map(|fd| fd.parallelism == Parallelism::None)
        .unwrap_or(false);
    if none && !bad && boxes.len() > 1 {
        out.push(
            Diagnostic::error(
                "E130",
                format!(
                    "`{}` runs `{}`, which is NONE (must run whole), but is split into {} sub-boxes",
                    f.name,
                    f.function,
                    boxes.len()
                ),
            )
            .label(boxes[1].2, "second sub-box"),
        );
    }
}

/// E127 for an empty region or one outside the function's space, E128 for
/// two that overlap; whether there was any.
fn check_regions(
    f: &Function,
    whole: Region,
    boxes: &[GivenBox],
    out: &mut Vec<Diagnostic>,
) -> bool {
    let mut bad = false;
    for &(k, r, span) in boxes {
        if r.is_empty() || r.intersect(&whole) != r {
            out.push(
                Diagnostic::error(
                    "E127",
                    format!(
                        "sub-box `{}.{k}` {r} is empty or outside `{}`'s space {}",
                        f.name, f.name, whole
                    ),
                )
                .label(span, "this region"),
            );
            bad = true;
        }
    }
    for (a, &(ka, ra, sa)) in boxes.iter().enumerate() {
        for &(kb, rb, _) in &boxes[a + 1..] {
            if ra.intersects(&rb) {
                out.push(
                    Diagnostic::error(
                        "E128",
                        format!(
                            "sub-boxes `{n}.{ka}` {ra} and `{n}.{kb}` {rb} overlap in {}",
                            ra.intersect(&rb),
                            n = f.name
                        ),
                    )
                    .label(sa, "overlaps"),
                );
                bad = true;
            }
        }
    }
    bad
}

/// The dependencies against the ones the data implies: E131 for an unknown
/// sub-box, E132 for a missing dependency, the warning E133 for an extra
/// one.
fn check_dependencies(
    d: &Declaration,
    i: &Instantiation,
    seen: &BTreeSet<(&str, u64)>,
    out: &mut Vec<Diagnostic>,
) {
    for dep in &i.dependencies {
        for r in [&dep.from, &dep.to] {
            if !seen.contains(&(r.function.as_str(), r.index)) {
                out.push(
                    Diagnostic::error("E131", format!("dependency names unknown sub-box `{r}`"))
                        .label(r.span, "unknown sub-box"),
                );
            }
        }
    }
    let key = |f: &crate::ir::SubBoxRef| (f.function.name.clone(), f.index);
    let given: BTreeSet<_> = i
        .dependencies
        .iter()
        .map(|d| (key(&d.from), key(&d.to), d.delay))
        .collect();
    let needed = dependencies(d, &i.subboxes, false);
    let needed_set: BTreeSet<_> = needed
        .iter()
        .map(|d| (key(&d.from), key(&d.to), d.delay))
        .collect();
    for n in &needed {
        if !given.contains(&(key(&n.from), key(&n.to), n.delay)) {
            let delay = if n.delay { " delay" } else { "" };
            out.push(
                Diagnostic::error(
                    "E132",
                    format!(
                        "the instantiation misses the dependency `{} => {}{delay}`",
                        n.from, n.to
                    ),
                )
                .label(i.span, "in this instantiation")
                .hint(format!(
                    "`{}` reads what `{}` writes{}; add `{} => {}{delay};`",
                    n.to,
                    n.from,
                    if n.delay {
                        " in the previous iteration"
                    } else {
                        ""
                    },
                    n.from,
                    n.to
                )),
            );
        }
    }
    for dep in &i.dependencies {
        if !needed_set.contains(&(key(&dep.from), key(&dep.to), dep.delay)) {
            out.push(
                Diagnostic::warning(
                    "E133",
                    format!(
                        "dependency `{} => {}` is not implied by the data (it only adds synchronisation)",
                        dep.from, dep.to
                    ),
                )
                .label(dep.span, "extra dependency"),
            );
        }
    }
}
