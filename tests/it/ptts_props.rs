//! Properties of the PTTS analysis: distributions sum to exactly
//! 1; the exact PMF equals brute-force enumeration of every execution-time
//! combination; Monte-Carlo converges to it; shifting every offset by its
//! period changes nothing; a one-component chain gives back its ETP; and
//! the `.ptts` front end never panics on random bytes or token soups; the
//! loss analysis finds the same pairs whether it walks every later tree or
//! looks the partners up, and large execution times cost no more than
//! small ones; the loss equals that of every pair of paths followed to
//! their first meeting (brute force).

use num_bigint::BigUint;
use num_traits::Zero;
use proptest::prelude::*;
use ssc::diagnostics::SourceFile;
use ssc_ptts::{simulate, Analysis, Model, Options};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Clone, Debug)]
struct Comp {
    period: u32,
    offset: u32,
    etp: Vec<(u32, u32)>, // value, weight (weights need not be reduced)
}

fn text(chain: &[Comp]) -> String {
    let mut s = String::from("ptts {\n");
    for (i, c) in chain.iter().enumerate() {
        let total: u32 = c.etp.iter().map(|e| e.1).sum();
        let entries: Vec<String> = c
            .etp
            .iter()
            .map(|(v, w)| format!("{v}: {w}/{total}"))
            .collect();
        s += &format!(
            "  component c{i} period {} offset {} etp table [{}];\n",
            c.period,
            c.offset,
            entries.join(", ")
        );
    }
    s + "}\n"
}

fn load(src: &str) -> Model {
    ssc_ptts::load(&SourceFile::new("t.ptts", src), Path::new("."), None)
        .unwrap_or_else(|d| panic!("{d:?}\n{src}"))
}

fn analyse(m: &Model) -> Analysis<BigUint> {
    ssc_ptts::analyse(m, &Options::default()).unwrap()
}

fn comp() -> impl Strategy<Value = Comp> {
    (
        1u32..25,
        0u32..40,
        prop::collection::btree_map(0u32..30, 1u32..5, 1..5),
    )
        .prop_map(|(period, offset, etp)| Comp {
            period,
            offset,
            etp: etp.into_iter().collect(),
        })
}

fn chain() -> impl Strategy<Value = Vec<Comp>> {
    prop::collection::vec(comp(), 1..4)
}

/// Every combination of execution times for every tree, as exact weights
/// over trees × Π totals.
fn brute_force(m: &Model, trees: u128) -> BTreeMap<i128, BigUint> {
    fn walk(m: &Model, i: usize, t: i128, w: BigUint, a: i128, out: &mut BTreeMap<i128, BigUint>) {
        let c = &m.components[i];
        for (v, pw) in &c.etp.points {
            let produced = t + v;
            let w2 = &w * BigUint::from(*pw);
            match m.components.get(i + 1) {
                Some(n) => {
                    let next = simulate::next_trigger(n.period, n.offset, produced);
                    walk(m, i + 1, next, w2, a, out);
                }
                None => *out.entry(produced - a).or_insert_with(BigUint::zero) += w2,
            }
        }
    }
    let mut out = BTreeMap::new();
    let c0 = &m.components[0];
    for k in 0..trees {
        let a = c0.offset + k as i128 * c0.period;
        walk(m, 0, a, BigUint::from(1u32), a, &mut out);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sums_to_one_and_matches_brute_force(chain in chain()) {
        let m = load(&text(&chain));
        let plan = ssc_ptts::exact::plan(&m, &Options::default()).unwrap();
        prop_assume!(plan.trees <= 2000);
        let a = analyse(&m);
        let sum: BigUint = a.pmf.iter().map(|p| &p.1).sum();
        prop_assert_eq!(&sum, &a.den);
        let brute = brute_force(&m, plan.trees);
        let exact: BTreeMap<i128, BigUint> = a.pmf.iter().cloned().collect();
        prop_assert_eq!(exact, brute);
        if let Some(l) = &a.loss {
            prop_assert!(l.total <= &l.den * BigUint::from(64u32));
        }
    }

    #[test]
    fn shifting_offsets_by_a_period_changes_nothing(chain in chain(), which in 0usize..3) {
        let m = load(&text(&chain));
        prop_assume!(ssc_ptts::exact::plan(&m, &Options::default()).unwrap().trees <= 2000);
        let mut shifted = chain.clone();
        let i = which % shifted.len();
        shifted[i].offset += shifted[i].period;
        let all: Vec<Comp> = chain.iter().map(|c| Comp { offset: c.offset + c.period, ..c.clone() }).collect();
        let a = analyse(&m);
        for other in [shifted, all] {
            let b = analyse(&load(&text(&other)));
            prop_assert_eq!(&a.pmf, &b.pmf);
            prop_assert_eq!(&a.den, &b.den);
            match (&a.loss, &b.loss) {
                (Some(la), Some(lb)) => prop_assert_eq!(&la.total * &lb.den, &lb.total * &la.den),
                (la, lb) => prop_assert_eq!(la.is_none(), lb.is_none()),
            }
        }
    }

    #[test]
    fn one_component_returns_its_etp(c in comp()) {
        let m = load(&text(std::slice::from_ref(&c)));
        let a = analyse(&m);
        let total: u32 = c.etp.iter().map(|e| e.1).sum();
        prop_assert_eq!(a.pmf.len(), c.etp.len());
        for ((l, w), (v, cw)) in a.pmf.iter().zip(&c.etp) {
            prop_assert_eq!(*l, *v as i128);
            // w / den == cw / total
            prop_assert_eq!(w * BigUint::from(total), &a.den * BigUint::from(*cw));
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let s = String::from_utf8_lossy(&bytes);
        let _ = ssc_ptts::load(&SourceFile::new("x.ptts", s.as_ref()), Path::new("."), None);
    }

    #[test]
    fn token_soups_never_panic(tokens in prop::collection::vec(prop::sample::select(vec![
        "ptts", "{", "}", "component", "a", "b", "period", "offset", "etp", "uniform", "point",
        "table", "file", "[", "]", ",", ":", ";", "/", "0", "1", "3", "0.5", "66.66", "1/3",
        "\"x.json\"", "99999999999999999999999999999", "0.0000000000001", "//", "/*", "\n",
    ]), 0..40)) {
        let s = tokens.join(" ");
        let _ = ssc_ptts::load(&SourceFile::new("x.ptts", s.as_str()), Path::new("."), None);
        let s = format!("ptts {{ component a period {} }}", tokens.join(" "));
        let _ = ssc_ptts::load(&SourceFile::new("x.ptts", s.as_str()), Path::new("."), None);
    }
}

#[test]
fn monte_carlo_converges_to_the_exact_pmf() {
    for src in [
        std::fs::read_to_string("examples/ptts_section54.ptts").unwrap(),
        std::fs::read_to_string("examples/ptts_section54_f0prime.ptts").unwrap(),
    ] {
        let m = load(&src);
        let a = analyse(&m);
        let exact = ssc_ptts::pmf_f64(&a);
        let small = simulate::simulate(&m, a.plan.trees, 1_000, 3, &exact).tv;
        let large = simulate::simulate(&m, a.plan.trees, 400_000, 3, &exact).tv;
        assert!(large < 0.01, "tv {large}");
        assert!(large < small, "tv {large} ≥ {small}");
    }
}

#[test]
fn u128_and_big_integers_agree() {
    let m = load(&std::fs::read_to_string("examples/ptts_section54.ptts").unwrap());
    let small = ssc_ptts::exact::analyse::<u128>(&m, &Options::default()).unwrap();
    let big = ssc_ptts::exact::analyse::<BigUint>(&m, &Options::default()).unwrap();
    let widened: Vec<(i128, BigUint)> = small
        .pmf
        .iter()
        .map(|(l, w)| (*l, BigUint::from(*w)))
        .collect();
    assert_eq!(widened, big.pmf);
    let (ls, lb) = (small.loss.unwrap(), big.loss.unwrap());
    assert_eq!(
        BigUint::from(ls.total) * &lb.den,
        lb.total * BigUint::from(ls.den)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn looked_up_partners_give_the_window_s_loss(chain in prop::collection::vec(comp(), 2..4)) {
        let m = load(&text(&chain));
        let by = |partners| {
            let opts = Options { partners, ..Options::default() };
            ssc_ptts::analyse(&m, &opts).unwrap()
        };
        let (w, l) = (by(ssc_ptts::exact::Partners::Window), by(ssc_ptts::exact::Partners::LookUp));
        prop_assert_eq!(&w.pmf, &l.pmf);
        let (lw, ll) = (w.loss.unwrap(), l.loss.unwrap());
        prop_assert_eq!(&lw.total, &ll.total);
        prop_assert_eq!(&lw.den, &ll.den);
        prop_assert_eq!(lw.pairs, ll.pairs);
        prop_assert_eq!(&lw.top, &ll.top);
    }
}

/// 17 components whose execution times are 11 or 2^31 grid steps: the
/// analysis stays under 5 s, because the loss takes the partner search
/// with the smaller bound (`Partners::Auto`) instead of walking every
/// later tree in reach (365 million here, over 10 s).
#[test]
fn large_execution_times_cost_no_more_than_small_ones() {
    let mut src = String::from("ptts {\n");
    for i in 0..17 {
        src += &format!("  component c{i} period 100 etp table [11: 0.9, 2147483648: 0.1];\n");
    }
    src += "}\n";
    let m = load(&src);
    let start = std::time::Instant::now();
    let a = analyse(&m);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let sum = a.pmf.iter().fold(BigUint::zero(), |s, (_, w)| s + w);
    assert_eq!(sum, a.den);
    // The shortest: every time 11, each next component 100 steps later.
    assert_eq!(a.pmf[0].0, 11 + 16 * 100);
    let pow = |b: u32| BigUint::from(b).pow(17);
    assert_eq!(&a.pmf[0].1 * pow(10), &a.den * pow(9));
    assert!(a.loss.unwrap().pairs > 0);
}

/// Every path of a tree rooted at `a` through components 0…N−2: the
/// triggering reached on each level 1…N−1, with the product of the
/// execution times' weights.
fn paths(m: &Model, a: i128) -> Vec<(Vec<i128>, BigUint)> {
    let mut out = vec![(Vec::new(), BigUint::from(1u32))];
    let t_of = |path: &Vec<i128>| *path.last().unwrap_or(&a);
    for i in 0..m.components.len() - 1 {
        let next = &m.components[i + 1];
        let mut grown = Vec::new();
        for (path, w) in &out {
            for (v, pw) in &m.components[i].etp.points {
                let t = simulate::next_trigger(next.period, next.offset, t_of(path) + v);
                let mut p = path.clone();
                p.push(t);
                grown.push((p, w * BigUint::from(*pw)));
            }
        }
        out = grown;
    }
    out
}

/// The loss by brute force (docs/ptts.md, Sec. 5.5): for every pair of
/// trees (a in the hyper-period, b up to a few trees past the lookahead),
/// every pair of their paths, weighted by both probabilities, counted at
/// the first level where the two paths are at one triggering. As a weight
/// over (Π_{i<N−1} total_i)², and the pairs with a meeting.
fn brute_force_loss(m: &Model, trees: u128) -> (BigUint, u64) {
    let c0 = &m.components[0];
    let far = ssc_ptts::loss::lookahead(m) as i128 + 3;
    let root = |k: i128| c0.offset + k * c0.period;
    let (mut total, mut pairs) = (BigUint::zero(), 0);
    for j in 0..trees as i128 {
        let pa = paths(m, root(j));
        for k in j + 1..=j + far {
            let pb = paths(m, root(k));
            let mut met = false;
            for (x, wx) in &pa {
                for (y, wy) in &pb {
                    if x.iter().zip(y).any(|(s, t)| s == t) {
                        total += wx * wy;
                        met = true;
                    }
                }
            }
            pairs += u64::from(met);
        }
    }
    (total, pairs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// The loss of the first-meeting formula (loss::LossAcc::pair) is that
    /// of every pair of paths followed to where they first meet.
    #[test]
    fn loss_matches_brute_force_first_meetings(chain in prop::collection::vec(comp(), 2..4)) {
        let m = load(&text(&chain));
        let plan = ssc_ptts::exact::plan(&m, &Options::default()).unwrap();
        prop_assume!(plan.trees <= 60 && ssc_ptts::loss::lookahead(&m) <= 60);
        let l = analyse(&m).loss.unwrap();
        let (brute, pairs) = brute_force_loss(&m, plan.trees);
        let f: BigUint = m.components[..m.components.len() - 1]
            .iter()
            .map(|c| BigUint::from(c.etp.total))
            .product();
        // total / den == brute / (f² · trees)
        prop_assert_eq!(&l.total * &f * &f * BigUint::from(plan.trees), brute * &l.den);
        prop_assert_eq!(l.pairs, pairs);
    }
}
