//! `ssc generate`: deterministic, well-formed, about the size asked for.

use ssc::back::description::print;
use ssc::front::syntax::parse;
use ssc::generate::{generate, GenerateOptions};
use ssc::ir::Pair;

#[test]
fn generated_chains_parse_check_and_are_deterministic() {
    for seed in 1..=20 {
        let o = GenerateOptions {
            seed,
            ..Default::default()
        };
        let text = print(&generate(&o));
        assert_eq!(
            text,
            print(&generate(&o)),
            "seed {seed} is not deterministic"
        );
        let desc = parse(&text).unwrap_or_else(|e| panic!("seed {seed}: {e:?}\n{text}"));
        let errors: Vec<_> = ssc::front::check(&desc)
            .into_iter()
            .filter(|d| d.is_error())
            .collect();
        assert!(errors.is_empty(), "seed {seed}: {errors:?}");
        // Checked is not enough: composing must succeed too (two windows of
        // one function name used to fail there with E108).
        if let Err(e) = ssc::lower::lower(&desc, &Default::default()) {
            panic!("seed {seed} does not lower: {e:?}");
        }
        let comp = desc.composition.unwrap();
        let n = comp.compositions[0].instances.len();
        assert!((70..=140).contains(&n), "seed {seed}: {n} boxes");
        let sources = comp.compositions[0]
            .instances
            .iter()
            .filter(|i| i.container.name == "source")
            .count();
        let sinks = comp.compositions[0]
            .instances
            .iter()
            .filter(|i| i.container.name == "sink")
            .count();
        assert_eq!((sources, sinks), (2, 2));
    }
}

#[test]
fn generated_chains_use_several_scales() {
    let scaled = (1..=20)
        .filter(|&seed| {
            let text = print(&generate(&GenerateOptions {
                seed,
                ..Default::default()
            }));
            text.contains(" down [") && text.contains(" up [")
        })
        .count();
    assert!(scaled >= 10, "only {scaled} of 20 chains are multi-scale");
}

#[test]
fn small_and_odd_resolutions_still_close_the_graph() {
    for (boxes, w, h) in [(1, 7, 5), (5, 16, 16), (12, 33, 64), (300, 64, 64)] {
        let o = GenerateOptions {
            boxes,
            seed: 9,
            sources: 3,
            sinks: 4,
            resolution: Pair::new(w, h),
        };
        let text = print(&generate(&o));
        let desc = parse(&text).unwrap();
        assert!(
            ssc::front::check(&desc).iter().all(|d| !d.is_error()),
            "{text}"
        );
    }
}
