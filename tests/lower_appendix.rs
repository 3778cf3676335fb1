use ssc::ir::Pair;
use ssc::lower::{compose::compose, split::*, timing::Timing};

fn appendix() -> ssc::ir::Description {
    ssc::front::syntax::parse(include_str!("../examples/appendix.ssc")).unwrap()
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
    let i = split(&d, &Timing::default(), &opts);
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
    let text = include_str!("../examples/appendix.ssc").replace("[1, 1] [4, 4]", "[1, 1]");
    let desc = ssc::front::syntax::parse(&text).unwrap();
    let d = compose(desc.composition.as_ref().unwrap(), None).unwrap();
    let i = split(&d, &Timing::default(), &SplitOptions::default());
    let gc: Vec<String> = i
        .dependencies
        .iter()
        .filter(|d| d.from.function.name == "tgain")
        .map(|d| format!("{} => {}", d.from, d.to))
        .collect();
    assert_eq!(gc, ["tgain.0 => tconv.0", "tgain.1 => tconv.1"]);
}
