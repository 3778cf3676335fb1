//! Mutation tests of the runtime checker against an independent oracle.
//!
//! The oracle unrolls the programs over `K` iterations into an explicit graph
//! of operation instances (program order, the j-th `W s` after the
//! (j − tokens)-th `S s`, barrier instances), decides deadlock by a
//! topological sort of it, and happens-before by plain reachability, then
//! checks every conflicting pair of `E` instances at every iteration distance
//! in the window and every HSDFG edge. It shares nothing with
//! `ssc::verify` but the HSDFG. Every mutant's verdict must agree.

use crate::testgen;
use ssc::ir::hsdfg::Hsdfg;
use ssc::ir::{Op, Runtime};
use ssc::memory::Placement;
use ssc::schedule::{schedule, ScheduleOptions, SchedulerKind};
use ssc::sync::{synchronise_plan, SyncOptions};
use ssc::verify::verify_with;
use std::collections::HashMap;
use testgen::{random_hsdfg_with, trivial_plan, GenParams};

const K: usize = 3;

/// True when the runtime is correct (no deadlock, no race, all edges).
fn oracle(h: &Hsdfg, r: &Runtime, pl: &[Placement], tokens: &HashMap<String, u32>) -> bool {
    let lens: Vec<usize> = r.thread_executions.iter().map(|t| t.ops.len()).collect();
    let mut base = Vec::new();
    let mut n = 0;
    for &l in &lens {
        base.push(n);
        n += l * K;
    }
    let bar_base = n;
    n += r.barriers.len() * K;
    let id = |t: usize, k: usize, it: usize| base[t] + it * lens[t] + k;
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut sends: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    let mut waits: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    let mut meets: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    let mut exec: HashMap<usize, (usize, usize)> = HashMap::new();
    for (t, te) in r.thread_executions.iter().enumerate() {
        for it in 0..K {
            for k in 0..lens[t] {
                if k + 1 < lens[t] {
                    edges[id(t, k, it)].push(id(t, k + 1, it));
                } else if it + 1 < K {
                    edges[id(t, k, it)].push(id(t, 0, it + 1));
                }
            }
        }
        for (k, op) in te.ops.iter().enumerate() {
            match &op.value {
                Op::Signal(s) => sends.entry(s.as_str()).or_default().push((t, k)),
                Op::Wait(s) => waits.entry(s.as_str()).or_default().push((t, k)),
                Op::Barrier(b) => meets.entry(b.as_str()).or_default().push((t, k)),
                Op::Exec(sb) => {
                    let a = h.find(sb).unwrap();
                    if exec.insert(a.index(), (t, k)).is_some() {
                        return false;
                    }
                }
            }
        }
    }
    if exec.len() != h.graph.node_count() {
        return false;
    }
    for s in &r.signals {
        let tok = tokens
            .get(s.name.as_str())
            .copied()
            .unwrap_or(u32::from(s.initial_token)) as usize;
        let ws = waits.get(s.name.as_str()).cloned().unwrap_or_default();
        let ss = sends.get(s.name.as_str()).cloned().unwrap_or_default();
        for &(wt, wk) in &ws {
            for j in tok..K {
                match ss.first() {
                    Some(&(st, sk)) => edges[id(st, sk, j - tok)].push(id(wt, wk, j)),
                    None => return false, // blocks forever
                }
            }
        }
    }
    for (bi, b) in r.barriers.iter().enumerate() {
        let ms = meets.get(b.name.as_str()).cloned().unwrap_or_default();
        for it in 0..K {
            let x = bar_base + bi * K + it;
            for &(t, k) in &ms {
                edges[id(t, k, it)].push(x);
                if k + 1 < lens[t] {
                    edges[x].push(id(t, k + 1, it));
                } else if it + 1 < K {
                    edges[x].push(id(t, 0, it + 1));
                }
            }
        }
    }
    // Topological order (a cycle: deadlock).
    let Some(order) = topological_order(&edges) else {
        return false;
    };
    let reach = reachability(&edges, &order);
    let hb = |x: usize, y: usize| reach[x][y / 64] >> (y % 64) & 1 == 1;
    let e_at = |a: usize, it: usize| {
        let (t, k) = exec[&a];
        id(t, k, it)
    };
    for (_, u, v, e) in h.edges() {
        for i in 0..K {
            let j = i + e.tokens as usize;
            if j < K && !hb(e_at(u.index(), i), e_at(v.index(), j)) {
                return false;
            }
        }
    }
    conflicts_are_ordered(h, pl, e_at, hb)
}

/// The nodes of the graph `edges` in a topological order; `None` when it
/// has a cycle.
fn topological_order(edges: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = edges.len();
    let mut indeg = vec![0; n];
    for e in edges {
        for &y in e {
            indeg[y] += 1;
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|&x| indeg[x] == 0).collect();
    let mut i = 0;
    while i < order.len() {
        let x = order[i];
        i += 1;
        for &y in &edges[x] {
            indeg[y] -= 1;
            if indeg[y] == 0 {
                order.push(y);
            }
        }
    }
    (order.len() == n).then_some(order)
}

/// Every node's reachable set, as a bitset, computed in reverse
/// topological order.
fn reachability(edges: &[Vec<usize>], order: &[usize]) -> Vec<Vec<u64>> {
    let n = edges.len();
    let words = n.div_ceil(64);
    let mut reach = vec![vec![0u64; words]; n];
    for &x in order.iter().rev() {
        let mut r = vec![0u64; words];
        for &y in &edges[x] {
            r[y / 64] |= 1 << (y % 64);
            for w in 0..words {
                r[w] |= reach[y][w];
            }
        }
        reach[x] = r;
    }
    reach
}

/// True when every two instances of actors whose accesses overlap in
/// memory (one of them a write) at any two iterations of the window are
/// ordered by happens-before (`hb`); `e_at` is an actor's `E` instance at
/// an iteration.
fn conflicts_are_ordered(
    h: &Hsdfg,
    pl: &[Placement],
    e_at: impl Fn(usize, usize) -> usize,
    hb: impl Fn(usize, usize) -> bool,
) -> bool {
    for a in h.actors() {
        for b in h.actors() {
            for x in &h.actor(a).accesses {
                for y in &h.actor(b).accesses {
                    if !(x.write || y.write) {
                        continue;
                    }
                    let (px, py) = (pl[x.buffer.0], pl[y.buffer.0]);
                    let (xl, xh) = x.byte_range(h.buffer(x.buffer));
                    let (yl, yh) = y.byte_range(h.buffer(y.buffer));
                    if px.arena != py.arena
                        || px.offset + xl >= py.offset + yh
                        || py.offset + yl >= px.offset + xh
                    {
                        continue;
                    }
                    for i in 0..K {
                        for j in 0..K {
                            if i == j && x.buffer == y.buffer {
                                continue;
                            }
                            let (ex, ey) = (e_at(a.index(), i), e_at(b.index(), j));
                            if ex == ey || !(hb(ex, ey) || hb(ey, ex)) {
                                return false;
                            }
                        }
                    }
                }
            }
        }
    }
    true
}

fn without_signal(r: &Runtime, s: &str) -> Runtime {
    let mut r = r.clone();
    r.signals.retain(|x| x.name.as_str() != s);
    for t in &mut r.thread_executions {
        t.ops.retain(|o| match &o.value {
            Op::Wait(x) | Op::Signal(x) => x.as_str() != s,
            _ => true,
        });
    }
    r
}

#[derive(Default, Debug)]
struct Counts {
    mutants: usize,
    wrong: usize,
    caught: usize,
}

fn run(seeds: std::ops::Range<u64>) -> (Counts, Counts, Counts) {
    let kinds = [
        SchedulerKind::Simple,
        SchedulerKind::Fixed(2),
        SchedulerKind::Predictable(3),
        SchedulerKind::Reduced(2),
    ];
    let opts = [
        SyncOptions::default(),
        SyncOptions {
            iteration_sync: true,
            sort_signals: true,
            sort_waits: true,
            ..Default::default()
        },
        SyncOptions {
            iteration_barrier: true,
            ..Default::default()
        },
    ];
    let (mut sig, mut tok, mut place) = (Counts::default(), Counts::default(), Counts::default());
    let tally = |c: &mut Counts, checker_ok: bool, oracle_ok: bool, what: &str| {
        assert_eq!(
            checker_ok, oracle_ok,
            "checker and oracle disagree on {what}"
        );
        c.mutants += 1;
        c.wrong += usize::from(!oracle_ok);
        c.caught += usize::from(!checker_ok);
    };
    for seed in seeds {
        let h = random_hsdfg_with(seed, &GenParams::tiny());
        let m = trivial_plan(&h);
        for k in kinds {
            let s = schedule(&h, k, &ScheduleOptions::default());
            for o in &opts {
                let plan = synchronise_plan(&h, &s, &m, o);
                let ex = plan.extras();
                let r = &plan.runtime;
                let toks = &ex.signal_tokens;
                assert!(verify_with(&h, r, &m.placements, &ex).is_ok());
                assert!(oracle(&h, r, &m.placements, toks), "seed {seed} {k:?}");
                for sg in &r.signals {
                    let mu = without_signal(r, sg.name.as_str());
                    let c = verify_with(&h, &mu, &m.placements, &ex).is_ok();
                    let w = oracle(&h, &mu, &m.placements, toks);
                    tally(&mut sig, c, w, &format!("seed {seed} {k:?} -{}", sg.name));
                    let mut mu = r.clone();
                    let x = mu.signals.iter_mut().find(|x| x.name == sg.name).unwrap();
                    x.initial_token = !x.initial_token;
                    let c = verify_with(&h, &mu, &m.placements, &ex).is_ok();
                    let w = oracle(&h, &mu, &m.placements, toks);
                    tally(&mut tok, c, w, &format!("seed {seed} {k:?} !{}", sg.name));
                }
                if o.iteration_sync {
                    continue; // placements: once per schedule is enough
                }
                for b in 0..h.buffers.len() {
                    for c in 0..h.buffers.len() {
                        if b == c {
                            continue;
                        }
                        let mut pl = m.placements.clone();
                        pl[b].offset = pl[c].offset;
                        let ck = verify_with(&h, r, &pl, &ex).is_ok();
                        let w = oracle(&h, r, &pl, toks);
                        tally(&mut place, ck, w, &format!("seed {seed} {k:?} b{b}@b{c}"));
                    }
                }
            }
        }
    }
    (sig, tok, place)
}

#[test]
fn mutants_agree_with_the_oracle() {
    let (sig, tok, place) = run(0..40);
    println!("signal deleted:      {sig:?}");
    println!("initial token flip:  {tok:?}");
    println!("placement collision: {place:?}");
    assert!(sig.mutants >= 200 && place.mutants >= 200);
    assert!(sig.wrong > 0 && place.wrong > 0 && tok.wrong > 0);
}
