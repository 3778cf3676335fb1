//! Lower bounds on the bytes of a plan.
//!
//! * [`peak_live`]: the peak, over the positions of the global order (see
//!   [`super::lifetime`]), of the bytes of the buffers live there — a buffer
//!   is live from its first write to its last access, inclusive. Buffers
//!   live at one position pairwise interfere, so no plan that obeys the
//!   sharing rule uses fewer bytes.
//! * [`antichain`]: the heaviest set of pairwise interfering buffers (a
//!   maximum-weight antichain of the "before" order, by weighted Dilworth /
//!   a max flow). Every safe placement keeps such a set disjoint in bytes,
//!   so it is a lower bound too.
//!
//! The plan's `lower_bound` is [`lower_bound`], the larger of the two. On
//! one thread they coincide. With concurrent threads the peak over one
//! global order underestimates: buffers that are never live at one
//! position of that order may still be unordered across threads (so they
//! must not share bytes), and the antichain counts them. The antichain is
//! in theory never below the peak (the buffers live at one position form
//! such a set); the max keeps the bound valid whatever the order's
//! bookkeeping.

use super::lifetime::Lifetimes;

/// The plan's lower bound: `max(peak_live, antichain)` (module
/// documentation).
pub fn lower_bound(lt: &Lifetimes) -> u64 {
    peak_live(lt).max(antichain(lt))
}

/// Peak of simultaneously live bytes over the global order.
pub fn peak_live(lt: &Lifetimes) -> u64 {
    let n = lt.pos.len();
    let mut delta = vec![0i128; n + 1];
    for b in 0..lt.buffers() {
        if lt.accessors[b].is_empty() {
            continue;
        }
        let (s, e) = lt.live[b];
        delta[s] += lt.bytes[b] as i128;
        delta[e + 1] -= lt.bytes[b] as i128;
    }
    let mut cur = 0i128;
    let mut peak = 0i128;
    for d in delta {
        cur += d;
        peak = peak.max(cur);
    }
    peak as u64
}

/// Weight of a maximum-weight antichain of buffers under "before"
/// (= total weight − max flow of s → Aₗ (w) → Bᵣ (∞, A before B) → t (w)).
pub fn antichain(lt: &Lifetimes) -> u64 {
    let nb = lt.buffers();
    let bufs: Vec<usize> = (0..nb).filter(|&b| !lt.accessors[b].is_empty()).collect();
    let m = bufs.len();
    let total: u64 = bufs.iter().map(|&b| lt.bytes[b]).sum();
    let (s, t) = (2 * m, 2 * m + 1);
    let mut g = Dinic::new(2 * m + 2);
    for (i, &a) in bufs.iter().enumerate() {
        g.add(s, i, lt.bytes[a]);
        g.add(m + i, t, lt.bytes[a]);
        for (j, &b) in bufs.iter().enumerate() {
            if lt.before(a, b) {
                g.add(i, m + j, u64::MAX / 4);
            }
        }
    }
    total - g.max_flow(s, t)
}

struct Dinic {
    head: Vec<Vec<usize>>,
    to: Vec<usize>,
    cap: Vec<u64>,
    level: Vec<i32>,
    it: Vec<usize>,
}

impl Dinic {
    fn new(n: usize) -> Dinic {
        Dinic {
            head: vec![Vec::new(); n],
            to: Vec::new(),
            cap: Vec::new(),
            level: vec![0; n],
            it: vec![0; n],
        }
    }
    fn add(&mut self, a: usize, b: usize, c: u64) {
        self.head[a].push(self.to.len());
        self.to.push(b);
        self.cap.push(c);
        self.head[b].push(self.to.len());
        self.to.push(a);
        self.cap.push(0);
    }
    fn bfs(&mut self, s: usize, t: usize) -> bool {
        self.level.iter_mut().for_each(|l| *l = -1);
        self.level[s] = 0;
        let mut q = std::collections::VecDeque::from([s]);
        while let Some(v) = q.pop_front() {
            for &e in &self.head[v] {
                let u = self.to[e];
                if self.cap[e] > 0 && self.level[u] < 0 {
                    self.level[u] = self.level[v] + 1;
                    q.push_back(u);
                }
            }
        }
        self.level[t] >= 0
    }
    fn dfs(&mut self, v: usize, t: usize, f: u64) -> u64 {
        if v == t {
            return f;
        }
        while self.it[v] < self.head[v].len() {
            let e = self.head[v][self.it[v]];
            let u = self.to[e];
            if self.cap[e] > 0 && self.level[u] == self.level[v] + 1 {
                let d = self.dfs(u, t, f.min(self.cap[e]));
                if d > 0 {
                    self.cap[e] -= d;
                    self.cap[e ^ 1] += d;
                    return d;
                }
            }
            self.it[v] += 1;
        }
        0
    }
    fn max_flow(&mut self, s: usize, t: usize) -> u64 {
        let mut flow = 0;
        while self.bfs(s, t) {
            self.it.iter_mut().for_each(|i| *i = 0);
            loop {
                let f = self.dfs(s, t, u64::MAX);
                if f == 0 {
                    break;
                }
                flow += f;
            }
        }
        flow
    }
}
