//! Unit tests of the lowering options and error paths.

use ssc::front::syntax::parse;
use ssc::ir::Pair;
use ssc::lower::compose::compose;
use ssc::lower::split::{part_counts, split, DataParallelism, SplitOptions};
use ssc::lower::timing::Timing;
use ssc::lower::{lower, lower_to_hsdfg, LowerOptions};

fn appendix() -> ssc::ir::Description {
    parse(include_str!("../../examples/appendix.ssc")).unwrap()
}

fn flat(text: &str) -> ssc::ir::Declaration {
    compose(parse(text).unwrap().composition.as_ref().unwrap(), None).unwrap()
}

fn errors(text: &str) -> Vec<&'static str> {
    let desc = parse(text).unwrap();
    match lower(&desc, &LowerOptions::default()) {
        Ok(_) => Vec::new(),
        Err(e) => e.iter().map(|d| d.code).collect(),
    }
}

const XRAY: &str = include_str!("../in/xray_levels.ssc");

#[test]
fn part_counts_by_mode() {
    let d = flat(include_str!("../../examples/appendix.ssc"));
    // tgain func_gain 560, tconv func_conv 100, tsource NONE, tsink NONE.
    let t = Timing::from_runtime(appendix().runtime.as_ref());
    let o = |dp, precise| SplitOptions {
        dp,
        max_parts: 4,
        precise,
        ..SplitOptions::default()
    };
    assert_eq!(
        part_counts(&d, &t, &o(DataParallelism::None, false)),
        [1, 1, 1, 1]
    );
    assert_eq!(
        part_counts(&d, &t, &o(DataParallelism::Full, false)),
        [4, 4, 1, 1]
    );
    // some: conv gets round(4·100/560) = 1.
    assert_eq!(
        part_counts(&d, &t, &o(DataParallelism::Some, false)),
        [4, 1, 1, 1]
    );
    // precise: W = 560+100+1300+1 = 1961, g = W/16 ≈ 122.6: gain 560/g ≈ 4.6 → 4 (cap), conv 0.8 → 1.
    assert_eq!(
        part_counts(&d, &t, &o(DataParallelism::Full, true)),
        [4, 1, 1, 1]
    );
    let t2 = Timing::default()
        .with("func_source", 10.0)
        .with("func_gain", 40.0);
    // W = 10+40+1+1 = 52, g = 52/16 = 3.25: gain 12.3 → 4, conv 1/3.25 → round 0 → 1.
    assert_eq!(
        part_counts(&d, &t2, &o(DataParallelism::Some, true)),
        [4, 1, 1, 1]
    );
    // precise never beats -dp none.
    assert_eq!(
        part_counts(&d, &t2, &o(DataParallelism::None, true)),
        [1, 1, 1, 1]
    );
}

#[test]
fn precise_grains_are_close_to_the_target() {
    let d = flat(XRAY);
    let t = Timing::default()
        .with("func_conv", 900.0)
        .with("func_plus", 300.0)
        .with("func_down", 200.0);
    let opts = SplitOptions {
        max_parts: 8,
        precise: true,
        ..SplitOptions::default()
    };
    let counts = part_counts(&d, &t, &opts);
    let w: f64 = d.functions.iter().map(|f| t.get(f.function.as_str())).sum();
    let g = w / 64.0;
    for (f, n) in d.functions.iter().zip(&counts) {
        let grain = t.get(f.function.as_str()) / *n as f64;
        let full =
            d.function_decl(f.function.as_str()).unwrap().parallelism == ssc::ir::Parallelism::Full;
        if full && *n > 1 && *n < 8 {
            assert!(
                (grain - g).abs() <= grain.max(g) / 2.0,
                "{}: {grain} vs {g}",
                f.name
            );
        }
    }
}

#[test]
fn coarse_dependencies_are_all_to_all() {
    let d = flat(include_str!("../../examples/appendix.ssc"));
    let opts = SplitOptions {
        max_parts: 3,
        coarse: true,
        ..SplitOptions::default()
    };
    let i = split(&d, &Timing::default(), &opts).unwrap();
    // source→gain 3, gain→conv 9, conv→sink 3.
    assert_eq!(i.dependencies.len(), 15);
}

#[test]
fn resolution_override_and_unweighted_times() {
    let desc = appendix();
    let mut desc2 = desc.clone();
    desc2.declaration = None;
    desc2.instantiation = None;
    desc2.runtime = None;
    let opts = LowerOptions {
        inline: false,
        contract: false,
        own_kernels: Vec::new(),
        resolution_override: Some(Pair::new(64, 32)),
        cost: None,
        split: SplitOptions {
            max_parts: 4,
            weighted: false,
            ..SplitOptions::default()
        },
    };
    let (d, g) = lower_to_hsdfg(&desc2, &opts).unwrap();
    assert!(d
        .declaration
        .unwrap()
        .functions
        .iter()
        .all(|f| f.resolution.value == Pair::new(64, 32)));
    // No timing table: every function costs 1, unweighted.
    assert!(g.actors().all(|a| g.actor(a).time == 1.0));
    // A user declaration at 256×256 does not match a -cr of 64×32.
    let e = lower(&desc, &opts).unwrap_err();
    assert_eq!(e[0].code, "E122");
}

#[test]
fn compose_errors() {
    let base = |body: &str| {
        format!(
            "composition {{
               container_declaration a {{ out OUT int mul [1, 1]; }};
               container_declaration b {{ in IN int mul [1, 1]; }};
               container_declaration b2 {{ in IN int mul [2, 2]; }};
               container_declaration app {{ }};
               container_bind a func_a NONE, b func_b NONE, b2 func_b NONE;
               {body}
             }}"
        )
    };
    assert_eq!(errors(&base("compose nothing [4, 4];")), ["E101"]);
    assert_eq!(
        errors(&base(
            "container_composition app { container x a index, y c index; x.out -> y.in; };
             compose app [4, 4];"
        )),
        ["E103"]
    );
    assert_eq!(
        errors(&base(
            "container_composition app { container x a index, y b index, z b2 [2, 2]; x.out -> y.in; };
             compose app [4, 4];"
        )),
        ["E108"]
    );
    assert_eq!(
        errors(&base(
            "container_composition app { container x app index; };
             compose app [4, 4];"
        )),
        ["E102"]
    );
    assert_eq!(
        errors(&base(
            "container_composition app { container x a index, y b index; x.nope -> y.in; };
             compose app [4, 4];"
        )),
        ["E106"]
    );
    assert_eq!(
        errors(
            &base(
                "container_composition app { container x a index, y b index; self.p -> self.q; };
             compose app [4, 4];"
            )
            .replace(
                "app { }",
                "app { p IN int mul [1, 1]; q OUT int mul [1, 1]; }"
            )
        ),
        ["E105"]
    );
    assert_eq!(errors(&base("")), ["E100"]);
}

#[test]
fn instantiation_errors() {
    let app = include_str!("../../examples/appendix.ssc");
    let bad = |from: &str, to: &str| errors(&app.replace(from, to));
    // Overlap.
    assert_eq!(
        bad("f6.1 [0, 128]:[256 , 256]", "f6.1 [0, 100]:[256 , 256]"),
        ["E128"]
    );
    // Gap.
    assert_eq!(
        bad("f6.1 [0, 128]:[256 , 256]", "f6.1 [0, 128]:[256 , 200]"),
        ["E129"]
    );
    // Outside.
    assert_eq!(
        bad("f6.1 [0, 128]:[256 , 256]", "f6.1 [0, 128]:[256 , 300]"),
        ["E127"]
    );
    // A NONE function split.
    assert_eq!(
        bad(
            "f8.0 [0, 0]:[256 , 256]",
            "f8.0 [0, 0]:[256 , 128], f8.1 [0, 128]:[256, 256]"
        ),
        ["E130"]
    );
    // Unknown function and duplicate sub-box.
    assert_eq!(
        bad(
            "f9.0 [0, 0]:[256 , 256]",
            "f9.0 [0, 0]:[256 , 256], g.0 [0, 0]:[1, 1]"
        ),
        ["E125"]
    );
    assert_eq!(
        bad(
            "f9.0 [0, 0]:[256 , 256]",
            "f9.0 [0, 0]:[256 , 256], f9.0 [0, 0]:[256 , 256]"
        ),
        ["E126"]
    );
}

#[test]
fn a_declaration_alone_lowers() {
    let desc = parse(include_str!("../in/chain.ssc")).unwrap();
    let l = lower(&desc, &LowerOptions::default()).unwrap();
    let i = l.description.instantiation.unwrap();
    assert_eq!(i.subboxes.len(), 4);
    assert!(lower(&ssc::ir::Description::default(), &LowerOptions::default()).is_err());
}

#[test]
fn outputs_are_deterministic() {
    let desc = parse(XRAY).unwrap();
    let opts = LowerOptions::default();
    let a = lower_to_hsdfg(&desc, &opts).unwrap().1;
    let b = lower_to_hsdfg(&desc, &opts).unwrap().1;
    assert_eq!(
        ssc::back::sdf3::sdf3(&a, "x"),
        ssc::back::sdf3::sdf3(&b, "x")
    );
    assert_eq!(ssc::back::gxl::gxl(&a, "x"), ssc::back::gxl::gxl(&b, "x"));
    assert_eq!(
        ssc::back::dot::instantiation_dot(&a),
        ssc::back::dot::instantiation_dot(&b)
    );
}

#[test]
fn self_ports_are_checked_against_the_container_declaration() {
    let text = include_str!("../../examples/hierarchy.ssc");
    let codes = |t: &str| errors(t);
    // The unknown port, and then `denoise.in` is never used inside.
    assert_eq!(
        codes(&text.replace("self.in -> filter.in;", "self.inn -> filter.in;")),
        ["E106", "E106"]
    );
    let e = lower(
        &parse(&text.replace("level.out -> self.out;", "level.out -> self.in;")).unwrap(),
        &LowerOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e[0].code, "E106");
    assert!(e[0].message.contains("is an IN port"), "{}", e[0].message);
}

/// The library refuses strips beyond `Strips::max_subboxes` (E141) before
/// splitting, labelled at `compose` for a composed chain, and a default
/// height is raised to stay within the limit instead.
#[test]
fn fused_splits_stay_within_their_sub_box_limit() {
    use ssc::lower::split::{most_strips, strip_count, strip_subboxes, Strips};
    let d = flat(XRAY);
    // 21 functions of 512, 256 and 128 rows.
    assert_eq!(strip_subboxes(&d, 1), 21);
    assert_eq!(strip_subboxes(&d, 512), 8064);
    assert_eq!(most_strips(&d, 1000), 47);
    assert_eq!(most_strips(&d, 1), 1);
    let strips = |rows, max_subboxes| SplitOptions {
        strips: Some(Strips {
            rows,
            max_subboxes,
            ..Strips::new(512 << 10)
        }),
        ..SplitOptions::default()
    };
    let e = split(&d, &Timing::default(), &strips(Some(10), 1000)).unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].code, "E141");
    let i = split(&d, &Timing::default(), &strips(Some(11), 1000)).unwrap();
    assert_eq!(i.subboxes.len(), 987);
    // By default the budget's 4 rows (128 strips) become 11 (47 strips).
    let st = strips(None, 1000).strips.unwrap();
    assert_eq!(strip_count(&d, &st), 47);
    assert_eq!(strip_count(&d, &Strips::new(512 << 10)), 128);
    // Through `lower`: the composed chain has no spans of its own, so the
    // error is labelled at `compose`.
    let desc = parse(XRAY).unwrap();
    let opts = LowerOptions {
        split: strips(Some(1), 1000),
        ..LowerOptions::default()
    };
    let e = lower(&desc, &opts).unwrap_err();
    assert_eq!(e.iter().map(|d| d.code).collect::<Vec<_>>(), ["E141"]);
    assert!(e[0].message.contains("512 strips: 8064 sub-boxes"));
    assert_eq!(e[0].labels.len(), 1);
}

/// `--inline` on xray: the offset correction is inlined into the gain
/// correction (not further into the median that reads it through a
/// window: docs/fused.md, "Stage fusion"); the contrast (with the soft
/// merge inlined and the archive conversion merged) merges into nr0's Gaussian, taking up1 as a new
/// input, so nr0's output is never stored; merge1 does not merge into nr1,
/// whose own output reaches up2 (that would be a cycle). No function is
/// left that no instance runs.
#[test]
fn a_pointwise_consumer_merges_into_a_stencil_with_its_other_inputs() {
    let mut d = flat(XRAY);
    ssc::lower::inline::fuse(&mut d, false, &[]);
    let runs = |inst: &str| d.function(inst).map(|f| f.function.name.clone());
    assert_eq!(runs("nr0").as_deref(), Some("fused_nr0"));
    assert_eq!(runs("flatfield").as_deref(), Some("fused_flatfield"));
    assert_eq!(runs("defect").as_deref(), Some("median3x3"));
    for gone in ["subtract", "merge0", "contrast", "archive"] {
        assert!(runs(gone).is_none(), "{gone} still runs");
    }
    assert_eq!(runs("merge1").as_deref(), Some("boost_detail"));
    let nr0_inputs: Vec<String> = d
        .connections
        .iter()
        .filter(|c| c.to.owner_name() == "nr0")
        .map(|c| format!("{} -> {}", c.from.owner_name(), c.to.port.name))
        .collect();
    assert_eq!(nr0_inputs.len(), 2, "{nr0_inputs:?}");
    assert!(
        nr0_inputs.contains(&"defect -> in".to_string()),
        "{nr0_inputs:?}"
    );
    assert!(
        nr0_inputs.iter().any(|c| c.starts_with("up1 -> ")),
        "{nr0_inputs:?}"
    );
    let used: std::collections::BTreeSet<String> = d
        .functions
        .iter()
        .map(|f| f.function.name.clone())
        .collect();
    for f in &d.definitions {
        assert!(
            used.contains(&f.name.name),
            "{} is defined but unused",
            f.name.name
        );
    }
    // Fusing again changes nothing.
    let again = {
        let mut e = d.clone();
        ssc::lower::inline::fuse(&mut e, false, &[]);
        e
    };
    assert_eq!(format!("{again:?}"), format!("{d:?}"));
}
