//! Property tests of the lowering: strips tile the space; a dependency
//! exists iff the regions intersect (against a pixel-level oracle); compose
//! of hierarchical compositions equals the hand-flattened graph.

use proptest::prelude::*;
use ssc::ir::{Region, Span, Spanned, SubBox, SubBoxRef};
use ssc::lower::compose::compose;
use ssc::lower::deps::dependencies;
use ssc::lower::split::strips;
use std::collections::BTreeSet;

proptest! {
    #[test]
    fn strips_tile_the_space(w in 1u64..40, h in 1u64..40, n in 1u64..12) {
        let s = strips(w, h, n);
        prop_assert_eq!(s.len() as u64, n.min(h));
        let mut covered = vec![0u32; (w * h) as usize];
        for r in &s {
            prop_assert!(!r.is_empty());
            prop_assert_eq!((r.x0, r.x1), (0, w));
            for y in r.y0..r.y1 {
                for x in r.x0..r.x1 {
                    covered[(y * w + x) as usize] += 1;
                }
            }
        }
        prop_assert!(covered.iter().all(|&c| c == 1));
        let hs: Vec<u64> = s.iter().map(|r| r.y1 - r.y0).collect();
        prop_assert!(hs.iter().max().unwrap() - hs.iter().min().unwrap() <= 1);
        for pair in s.windows(2) {
            prop_assert_eq!(pair[0].y1, pair[1].y0);
        }
    }
}

fn divisors(n: u64) -> Vec<u64> {
    (1..=n).filter(|d| n.is_multiple_of(*d)).collect()
}

/// A random DAG on one grid: function i has resolution `grid / mul_i`; it
/// reads from 1–2 earlier functions, each through its own IN port with a
/// random window.
#[derive(Debug, Clone)]
struct Case {
    grid: (u64, u64),
    muls: Vec<(u64, u64)>,
    /// For each function i > 0: (producer, window) per IN port.
    inputs: Vec<Vec<(usize, (u64, u64))>>,
    parts: Vec<u64>,
}

fn case() -> impl Strategy<Value = Case> {
    (1u64..13, 1u64..13, 2usize..5).prop_flat_map(|(gx, gy, n)| {
        let dx = divisors(gx);
        let dy = divisors(gy);
        let muls = proptest::collection::vec(
            (proptest::sample::select(dx), proptest::sample::select(dy)),
            n,
        );
        let inputs = proptest::collection::vec(
            proptest::collection::vec((0usize..100, (1u64..6, 1u64..6)), 1..3),
            n,
        );
        let parts = proptest::collection::vec(1u64..6, n);
        (muls, inputs, parts).prop_map(move |(muls, inputs, parts)| {
            let inputs = inputs
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    if i == 0 {
                        Vec::new()
                    } else {
                        v.into_iter().map(|(p, w)| (p % i, w)).collect()
                    }
                })
                .collect();
            Case {
                grid: (gx, gy),
                muls,
                inputs,
                parts,
            }
        })
    })
}

fn text(c: &Case) -> String {
    let mut s = String::from("declaration {\n");
    for (i, m) in c.muls.iter().enumerate() {
        s += &format!("function_declaration fn{i} FULL {{\n");
        for (k, (_, w)) in c.inputs[i].iter().enumerate() {
            s += &format!("i{k} IN int mul [{}, {}] [{}, {}];\n", m.0, m.1, w.0, w.1);
        }
        s += &format!("out OUT int mul [{}, {}];\n}};\n", m.0, m.1);
    }
    let fs: Vec<String> = c
        .muls
        .iter()
        .enumerate()
        .map(|(i, m)| format!("f{i} fn{i} [{}, {}]", c.grid.0 / m.0, c.grid.1 / m.1))
        .collect();
    s += &format!("function {};\n", fs.join(", "));
    for (i, ins) in c.inputs.iter().enumerate() {
        for (k, (p, _)) in ins.iter().enumerate() {
            s += &format!("f{p}.out -> f{i}.i{k};\n");
        }
    }
    s + "}\n"
}

/// Elements of the grid a region touches, pixel by pixel.
fn touched(
    r: Region,
    mul: (u64, u64),
    win: Option<(u64, u64)>,
    grid: (u64, u64),
) -> BTreeSet<(u64, u64)> {
    let mut out = BTreeSet::new();
    for y in r.y0..r.y1 {
        for x in r.x0..r.x1 {
            for by in 0..mul.1 {
                for bx in 0..mul.0 {
                    let (ex, ey) = (x * mul.0 + bx, y * mul.1 + by);
                    match win {
                        None => {
                            out.insert((ex, ey));
                        }
                        Some((wx, wy)) => {
                            let (bx0, by0) = ((wx - 1) / 2, (wy - 1) / 2);
                            for dy in 0..wy {
                                for dx in 0..wx {
                                    let gx = ex as i64 + dx as i64 - bx0 as i64;
                                    let gy = ey as i64 + dy as i64 - by0 as i64;
                                    if gx >= 0
                                        && gy >= 0
                                        && (gx as u64) < grid.0
                                        && (gy as u64) < grid.1
                                    {
                                        out.insert((gx as u64, gy as u64));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn dependency_iff_pixels_intersect(c in case()) {
        let d = ssc::front::syntax::parse(&text(&c)).unwrap().declaration.unwrap();
        let mut subboxes = Vec::new();
        for (i, f) in d.functions.iter().enumerate() {
            let res = f.resolution.value;
            for (k, r) in strips(res.x, res.y, c.parts[i]).into_iter().enumerate() {
                subboxes.push(SubBox {
                    id: SubBoxRef::new(f.name.as_str(), k as u64),
                    region: Spanned::bare(r),
                    span: Span::NONE,
                });
            }
        }
        let got: BTreeSet<(String, String)> = dependencies(&d, &subboxes, false)
            .iter()
            .map(|x| (x.from.to_string(), x.to.to_string()))
            .collect();
        let mut want = BTreeSet::new();
        for (ci, ins) in c.inputs.iter().enumerate() {
            for &(pi, w) in ins {
                for cs in subboxes.iter().filter(|s| s.id.function.name == format!("f{ci}")) {
                    let read = touched(cs.region.value, c.muls[ci], Some(w), c.grid);
                    for ps in subboxes.iter().filter(|s| s.id.function.name == format!("f{pi}")) {
                        let written = touched(ps.region.value, c.muls[pi], None, c.grid);
                        if !read.is_disjoint(&written) {
                            want.insert((ps.id.to_string(), cs.id.to_string()));
                        }
                    }
                }
            }
        }
        prop_assert_eq!(got, want);
    }
}

/// A chain of gains, nested into composites: a leaf or a group of items.
#[derive(Debug, Clone)]
enum Item {
    Leaf,
    Group(Vec<Item>),
}

fn item() -> impl Strategy<Value = Item> {
    let leaf = Just(Item::Leaf);
    leaf.prop_recursive(3, 16, 4, |inner| {
        proptest::collection::vec(inner, 1..4).prop_map(Item::Group)
    })
}

/// Writes the composition of `items` as container `name`; returns the flat
/// leaf paths in order.
fn emit(
    items: &[Item],
    name: &str,
    prefix: &str,
    defs: &mut String,
    counter: &mut usize,
) -> Vec<String> {
    let mut insts = Vec::new();
    let mut leaves = Vec::new();
    let mut body = String::new();
    for (k, it) in items.iter().enumerate() {
        let inst = format!("i{k}");
        match it {
            Item::Leaf => {
                insts.push(format!("{inst} gain index"));
                leaves.push(format!("{prefix}{inst}"));
            }
            Item::Group(v) => {
                *counter += 1;
                let g = format!("grp{}", counter);
                defs.push_str(&format!(
                    "container_declaration {g} {{ in IN int mul [1, 1]; out OUT int mul [1, 1]; }};\n"
                ));
                leaves.extend(emit(v, &g, &format!("{prefix}{inst}_"), defs, counter));
                insts.push(format!("{inst} {g} index"));
            }
        }
        if k == 0 {
            body += &format!("self.in -> {inst}.in;\n");
        } else {
            body += &format!("i{}.out -> {inst}.in;\n", k - 1);
        }
    }
    body += &format!("i{}.out -> self.out;\n", items.len() - 1);
    defs.push_str(&format!(
        "container_composition {name} {{\ncontainer {};\n{body}}};\n",
        insts.join(", ")
    ));
    leaves
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn compose_flattens_nested_chains(items in proptest::collection::vec(item(), 1..4)) {
        let mut defs = String::new();
        let mut counter = 0;
        let leaves = emit(&items, "mid", "m_", &mut defs, &mut counter);
        let text = format!(
            "composition {{\n\
             container_declaration source {{ out OUT int mul [1, 1]; }};\n\
             container_declaration sink {{ in IN int mul [1, 1]; }};\n\
             container_declaration gain {{ in IN int mul [1, 1]; out OUT int mul [1, 1]; }};\n\
             container_declaration mid {{ in IN int mul [1, 1]; out OUT int mul [1, 1]; }};\n\
             container_declaration app {{ }};\n\
             container_bind source func_source NONE, sink func_sink NONE, gain func_gain FULL;\n\
             {defs}\
             container_composition app {{ container s source index, m mid index, k sink [4, 4];\n\
             s.out -> m.in; m.out -> k.in; }};\n\
             compose app [4, 4];\n}}\n"
        );
        let desc = ssc::front::syntax::parse(&text).unwrap();
        let d = compose(desc.composition.as_ref().unwrap(), None).unwrap();
        let mut names = vec!["s".to_string()];
        names.extend(leaves.iter().cloned());
        names.push("k".to_string());
        let got: Vec<String> = d.functions.iter().map(|f| f.name.name.clone()).collect();
        prop_assert_eq!(&got, &names);
        let conns: Vec<String> = d
            .connections
            .iter()
            .map(|c| format!("{} -> {}", c.from, c.to))
            .collect();
        let want: Vec<String> = names
            .windows(2)
            .map(|w| format!("{}.out -> {}.in", w[0], w[1]))
            .collect();
        prop_assert_eq!(conns, want);
    }
}

/// `examples/hierarchy.ssc` flattened by hand, with other names: compose
/// must match it up to renaming, and exactly by name with the path names.
#[test]
fn hierarchy_equals_hand_flattened() {
    let desc = ssc::front::syntax::parse(include_str!("../../examples/hierarchy.ssc")).unwrap();
    let composed = compose(desc.composition.as_ref().unwrap(), None).unwrap();
    let by_hand = "declaration {
      function_declaration func_source NONE { out OUT int mul [1, 1]; };
      function_declaration func_conv FULL { in IN int mul [1, 1] [3, 3]; out OUT int mul [1, 1]; };
      function_declaration func_gain FULL { in IN int mul [1, 1]; out OUT int mul [1, 1]; };
      function_declaration func_copy FULL { in IN int mul [1, 1]; out OUT int mul [1, 1]; };
      function_declaration func_avg FULL { in1 IN int mul [1, 1]; in2 IN int mul [1, 1]; out OUT int mul [1, 1]; };
      function_declaration func_sink NONE { in IN int mul [1, 1]; };
      function a func_source [256, 256], b func_conv [256, 256], c func_gain [256, 256],
        d func_gain [256, 256], e func_copy [256, 256], f func_avg [256, 256], g func_sink [256, 256];
      a.out -> b.in; b.out -> c.in; a.out -> d.in; d.out -> e.in;
      c.out -> f.in1; e.out -> f.in2; f.out -> g.in;
    }";
    let hand = ssc::front::syntax::parse(by_hand)
        .unwrap()
        .declaration
        .unwrap();
    let map = ssc::lower::validate::validate_declaration(&composed, &hand).unwrap();
    assert_eq!(map["b"], "st_dn_filter");
    assert_eq!(map["d"], "st_sh_boost");
    assert_eq!(map["f"], "st_mix");
    // Swapping the avg's inputs is a different graph.
    let swapped = by_hand.replace(
        "c.out -> f.in1; e.out -> f.in2;",
        "c.out -> f.in2; e.out -> f.in1;",
    );
    let hand = ssc::front::syntax::parse(&swapped)
        .unwrap()
        .declaration
        .unwrap();
    assert!(ssc::lower::validate::validate_declaration(&composed, &hand).is_err());
}

#[test]
fn fanout_of_a_composite_port_reaches_every_inner_port() {
    let desc = ssc::front::syntax::parse(include_str!("../in/fanout_self.ssc")).unwrap();
    let d = compose(desc.composition.as_ref().unwrap(), None).unwrap();
    let conns: Vec<String> = d
        .connections
        .iter()
        .map(|c| format!("{} -> {}", c.from, c.to))
        .collect();
    assert_eq!(
        conns,
        [
            "src.out -> o_a.in",
            "src.out -> o_b.in",
            "src.out -> o_n_g.in",
            "o_a.out -> k1.in",
            "o_b.out -> k2.in",
            "o_n_g.out -> k3.in",
        ]
    );
}
