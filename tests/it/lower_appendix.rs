use ssc::ir::Pair;
use ssc::lower::{compose::compose, split::*, timing::Timing};

fn appendix() -> ssc::ir::Description {
    ssc::front::syntax::parse(include_str!("../../examples/appendix.ssc")).unwrap()
}

#[test]
fn appendix_window_4_gives_cross_dependencies() {
    let desc = appendix();
    let d = compose(desc.composition.as_ref().unwrap(), None).unwrap();
    let names: Vec<_> = d.functions.iter().map(|f| f.name.name.clone()).collect();
    assert_eq!(names, ["tgain", "tconv", "tsource", "tsink"]);
    let opts = SplitOptions {
        max_parts: 2,
        ..SplitOptions::default()
    };
    let i = split(&d, &Timing::default(), &opts).unwrap();
    let deps: Vec<String> = i
        .dependencies
        .iter()
        .map(|d| format!("{} => {}", d.from, d.to))
        .collect();
    assert_eq!(
        deps,
        [
            "tgain.0 => tconv.0",
            "tgain.0 => tconv.1",
            "tgain.1 => tconv.0",
            "tgain.1 => tconv.1",
            "tconv.0 => tsink.0",
            "tconv.1 => tsink.0",
            "tsource.0 => tgain.0",
            "tsource.0 => tgain.1",
        ]
    );
    let _ = Pair::ONE;
}

#[test]
fn appendix_window_1_gives_straight_dependencies() {
    let text = include_str!("../../examples/appendix.ssc").replace("[1, 1] [4, 4]", "[1, 1]");
    let desc = ssc::front::syntax::parse(&text).unwrap();
    let d = compose(desc.composition.as_ref().unwrap(), None).unwrap();
    let i = split(&d, &Timing::default(), &SplitOptions::default()).unwrap();
    let gc: Vec<String> = i
        .dependencies
        .iter()
        .filter(|d| d.from.function.name == "tgain")
        .map(|d| format!("{} => {}", d.from, d.to))
        .collect();
    assert_eq!(gc, ["tgain.0 => tconv.0", "tgain.1 => tconv.1"]);
}

#[test]
fn appendix_declaration_and_instantiation_validate() {
    let desc = appendix();
    let l = ssc::lower::lower(&desc, &ssc::lower::LowerOptions::default()).unwrap();
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    let composed = compose(desc.composition.as_ref().unwrap(), None).unwrap();
    let map =
        ssc::lower::validate::validate_declaration(&composed, desc.declaration.as_ref().unwrap())
            .unwrap();
    assert_eq!(map["f6"], "tgain");
    assert_eq!(map["f7"], "tconv");
    assert_eq!(map["f8"], "tsource");
    assert_eq!(map["f9"], "tsink");
}

#[test]
fn missing_dependency_is_an_error_extra_is_a_warning() {
    let text =
        include_str!("../../examples/appendix.ssc").replace("f6.1 => f7.0;", "f9.0 => f6.0;");
    let desc = ssc::front::syntax::parse(&text).unwrap();
    let err = ssc::lower::lower(&desc, &ssc::lower::LowerOptions::default()).unwrap_err();
    let codes: Vec<_> = err.iter().map(|d| (d.code, d.is_error())).collect();
    assert_eq!(codes, [("E132", true), ("E133", false)]);
    assert!(err[0].message.contains("f6.1 => f7.0"));
}

#[test]
fn renamed_but_rewired_declaration_is_rejected() {
    let text = include_str!("../../examples/appendix.ssc")
        .replace("f7 func_conv [256, 256]", "f7 func_conv [256, 128]");
    let desc = ssc::front::syntax::parse(&text).unwrap();
    let err = ssc::lower::lower(&desc, &ssc::lower::LowerOptions::default()).unwrap_err();
    assert_eq!(err[0].code, "E122");
    assert!(
        err[0].message.contains("missing func_conv [256, 256]"),
        "{}",
        err[0].message
    );
}

#[test]
fn appendix_hsdfg() {
    let desc = appendix();
    let (_, g) = ssc::lower::lower_to_hsdfg(&desc, &ssc::lower::LowerOptions::default()).unwrap();
    assert_eq!(g.actors().count(), 6);
    assert_eq!(g.dependencies().count(), 8);
    assert_eq!(g.edges().count(), 16);
    let f6_0 = g.find(&ssc::ir::SubBoxRef::new("f6", 0)).unwrap();
    assert_eq!(g.actor(f6_0).time, 280.0);
    let f7_1 = g.find(&ssc::ir::SubBoxRef::new("f7", 1)).unwrap();
    assert_eq!(
        g.actor(f7_1).accesses[0].elements,
        ssc::ir::Region::new(0, 127, 256, 256)
    );
}
