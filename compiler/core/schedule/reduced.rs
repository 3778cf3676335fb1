//! `-ts reduced N`: a static order of the structural graph (the DAG of
//! function instances, an edge where one reads a buffer the other writes)
//! that minimises the peak of live bytes, then mapped as predictable with
//! that order as the priority (the thesis' Many-to-One cache aware reduced).
//!
//! A buffer is live from the start of its producer until the end of its last
//! reader (a buffer nobody reads: during its producer only). The live bytes
//! while function `f` runs are the buffers live before it plus its outputs.
//! The search starts from the greedy order (always run the ready function
//! that leaves the least live data, ties by smaller peak then index), then
//! explores the other topological orders depth first (children in greedy
//! order) with branch and bound: a prefix whose peak already reaches the best
//! is cut, and so is a prefix whose set of run functions was reached before
//! with a peak no larger (the live set depends only on that set, so the
//! suffixes are the same). It stops at the state budget (deterministic) or
//! the time budget (a safety net); the result is optimal when neither hit.
//!
//! Priority of sub-box `a` of function `f` at rank `r` in the order:
//! `(F − r)·(cp + 1) + bottom_level(a)`: the order first, the critical path
//! among sub-boxes of one function.

use super::{finish, list, Schedule, ScheduleOptions, SchedulerKind};
use crate::ir::hsdfg::Hsdfg;
use std::collections::HashMap;
use std::time::Instant;

/// The outcome of the order search.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderSearch {
    /// Function indices, in order.
    pub order: Vec<usize>,
    pub peak: u64,
    pub greedy_peak: u64,
    pub states: usize,
    pub optimal: bool,
}

struct Problem {
    preds: Vec<Vec<usize>>,
    succs: Vec<Vec<usize>>,
    /// Buffers each function writes / reads (distinct).
    outs: Vec<Vec<usize>>,
    ins: Vec<Vec<usize>>,
    bytes: Vec<u64>,
    /// Distinct reader functions per buffer.
    readers: Vec<usize>,
}

struct State {
    done: Vec<u64>,
    indeg: Vec<usize>,
    /// The functions not run whose predecessors all ran (any order), and
    /// the position of each there (`usize::MAX`: not ready).
    ready: Vec<usize>,
    slot: Vec<usize>,
    rem: Vec<usize>,
    live: u64,
    peak: u64,
    order: Vec<usize>,
}

impl State {
    fn make_ready(&mut self, f: usize) {
        self.slot[f] = self.ready.len();
        self.ready.push(f);
    }

    fn unready(&mut self, f: usize) {
        let i = std::mem::replace(&mut self.slot[f], usize::MAX);
        self.ready.swap_remove(i);
        if let Some(&g) = self.ready.get(i) {
            self.slot[g] = i;
        }
    }
}

impl Problem {
    fn new(h: &Hsdfg) -> Problem {
        let nf = h.functions.len();
        let mut preds = vec![Vec::new(); nf];
        let mut succs = vec![Vec::new(); nf];
        let mut outs = vec![Vec::new(); nf];
        let mut ins = vec![Vec::new(); nf];
        let mut readers = vec![0; h.buffers.len()];
        let mut edge = |a: usize, b: usize| {
            if a != b && !preds[b].contains(&a) {
                preds[b].push(a);
                succs[a].push(b);
            }
        };
        for (b, buf) in h.buffers.iter().enumerate() {
            let p = buf.producer.0 .0;
            outs[p].push(b);
            // A delayed reader reads the previous iteration's value before
            // this iteration's producer overwrites it (with one copy; two
            // copies order nothing within an iteration).
            let delayed =
                |r: &(crate::ir::hsdfg::FunctionId, usize)| h.function(r.0).ports[r.1].delayed;
            for r in buf.readers.iter().filter(|r| delayed(r) && buf.copies == 1) {
                edge(r.0 .0, p);
            }
            let mut rs: Vec<usize> = buf
                .readers
                .iter()
                .filter(|r| !delayed(r))
                .map(|r| r.0 .0)
                .collect();
            rs.sort();
            rs.dedup();
            readers[b] = rs.len();
            for r in rs {
                ins[r].push(b);
                edge(p, r);
            }
        }
        Problem {
            preds,
            succs,
            outs,
            ins,
            // A state buffer is live all the time: no order changes it.
            bytes: h
                .buffers
                .iter()
                .map(|b| if b.initial.is_some() { 0 } else { b.bytes })
                .collect(),
            readers,
        }
    }

    fn start(&self) -> State {
        let nf = self.preds.len();
        let mut st = State {
            done: vec![0; nf.div_ceil(64)],
            indeg: self.preds.iter().map(|p| p.len()).collect(),
            ready: Vec::new(),
            slot: vec![usize::MAX; nf],
            rem: self.readers.clone(),
            live: 0,
            peak: 0,
            order: Vec::new(),
        };
        for f in 0..nf {
            if st.indeg[f] == 0 {
                st.make_ready(f);
            }
        }
        st
    }

    /// (live after, live during) if `f` runs next.
    fn effect(&self, s: &State, f: usize) -> (u64, u64) {
        let out: u64 = self.outs[f].iter().map(|&b| self.bytes[b]).sum();
        let during = s.live + out;
        let mut after = during;
        for &b in &self.ins[f] {
            if s.rem[b] == 1 {
                after -= self.bytes[b];
            }
        }
        for &b in &self.outs[f] {
            if self.readers[b] == 0 {
                after -= self.bytes[b];
            }
        }
        (after, during)
    }

    /// The ready functions, the one leaving the least live data first (ties
    /// by smaller peak, then index).
    fn ready(&self, s: &State) -> Vec<usize> {
        let mut r: Vec<(u64, u64, usize)> = s
            .ready
            .iter()
            .map(|&f| {
                let (a, d) = self.effect(s, f);
                (a, d, f)
            })
            .collect();
        r.sort();
        r.into_iter().map(|x| x.2).collect()
    }

    /// Run `f`; returns the previous peak for [`Problem::undo`].
    fn run(&self, s: &mut State, f: usize) -> u64 {
        let (after, during) = self.effect(s, f);
        let old = s.peak;
        s.peak = s.peak.max(during);
        s.live = after;
        for &b in &self.ins[f] {
            s.rem[b] -= 1;
        }
        s.unready(f);
        for &g in &self.succs[f] {
            s.indeg[g] -= 1;
            if s.indeg[g] == 0 {
                s.make_ready(g);
            }
        }
        s.done[f / 64] |= 1 << (f % 64);
        s.order.push(f);
        old
    }

    fn undo(&self, s: &mut State, f: usize, old_peak: u64) {
        s.order.pop();
        s.done[f / 64] &= !(1 << (f % 64));
        for &g in &self.succs[f] {
            if s.indeg[g] == 0 {
                s.unready(g);
            }
            s.indeg[g] += 1;
        }
        s.make_ready(f);
        let mut live = s.live;
        for &b in &self.ins[f] {
            if s.rem[b] == 0 {
                live += self.bytes[b];
            }
            s.rem[b] += 1;
        }
        for &b in &self.outs[f] {
            if self.readers[b] != 0 {
                live -= self.bytes[b];
            }
        }
        s.live = live;
        s.peak = old_peak;
    }
}

struct Dfs<'a> {
    p: &'a Problem,
    best: Vec<usize>,
    best_peak: u64,
    seen: HashMap<Vec<u64>, u64>,
    states: usize,
    max_states: usize,
    deadline: Instant,
    stopped: bool,
}

impl Dfs<'_> {
    fn go(&mut self, s: &mut State) {
        if self.stopped {
            return;
        }
        self.states += 1;
        if self.states >= self.max_states
            || (self.states.is_multiple_of(1024) && Instant::now() >= self.deadline)
        {
            self.stopped = true;
            return;
        }
        if s.peak >= self.best_peak {
            return;
        }
        if s.order.len() == self.p.preds.len() {
            self.best_peak = s.peak;
            self.best = s.order.clone();
            return;
        }
        match self.seen.get(&s.done) {
            Some(&pk) if pk <= s.peak => return,
            _ => {
                self.seen.insert(s.done.clone(), s.peak);
            }
        }
        for f in self.p.ready(s) {
            let old = self.p.run(s, f);
            self.go(s);
            self.p.undo(s, f, old);
            if self.stopped {
                return;
            }
        }
    }
}

/// The order search on its own (also useful to report peaks).
pub fn search_order(h: &Hsdfg, max_states: usize, max_time: std::time::Duration) -> OrderSearch {
    let p = Problem::new(h);
    let mut s = p.start();
    while s.order.len() < p.preds.len() {
        let f = p.ready(&s)[0];
        p.run(&mut s, f);
    }
    let greedy = s.order.clone();
    let greedy_peak = s.peak;
    let mut dfs = Dfs {
        p: &p,
        best: greedy,
        best_peak: greedy_peak,
        seen: HashMap::new(),
        states: 0,
        max_states: max_states.max(1),
        deadline: Instant::now() + max_time,
        stopped: false,
    };
    let mut s = p.start();
    dfs.go(&mut s);
    OrderSearch {
        order: dfs.best,
        peak: dfs.best_peak,
        greedy_peak,
        states: dfs.states,
        optimal: !dfs.stopped,
    }
}

pub fn schedule(h: &Hsdfg, n: usize, opts: &ScheduleOptions) -> Schedule {
    let n = n.max(1);
    let (max_states, max_time) = opts.reduced_budget;
    let o = search_order(h, max_states, max_time);
    let nf = h.functions.len();
    let mut rank = vec![0usize; nf];
    for (r, &f) in o.order.iter().enumerate() {
        rank[f] = r;
    }
    let bl = list::bottom_levels(h);
    let cp = bl.iter().cloned().fold(0.0, f64::max);
    let prio: Vec<f64> = h
        .actors()
        .map(|a| (nf - rank[h.actor(a).function.0]) as f64 * (cp + 1.0) + bl[a.index()])
        .collect();
    let r = list::list_schedule(h, n, &prio, true);
    let names: Vec<&str> = o
        .order
        .iter()
        .map(|&f| h.functions[f].name.as_str())
        .collect();
    let notes = vec![format!(
        "reduced: order [{}], peak live {} bytes (greedy {}), {} states explored, {}",
        names.join(", "),
        o.peak,
        o.greedy_peak,
        o.states,
        if o.optimal {
            "optimal"
        } else {
            "budget reached, best found"
        }
    )];
    finish(
        SchedulerKind::Reduced(n),
        r,
        list::lower_bound(h, n),
        true,
        opts,
        notes,
    )
}
