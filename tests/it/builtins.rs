//! The built-in functions, type by type: what they compute is pinned.
//!
//! Two chains per element type, each built from the built-ins alone and
//! run for 3 iterations of the source's test pattern:
//! - the pointwise chain: gain, dup, plus, mul, avg, copy, down and up, at
//!   34 × 18 (the integer types saturate on the way);
//! - the convolution chain: `func_conv` over windows of 1 × 1 to 9 × 9
//!   (even, odd, one-row and one-column), at 33 × 17, and the same on
//!   grids narrower than its windows (3 × 5, and one column of 4).
//!
//! Each prints the checksum pinned in [`PINNED`] under one thread
//! (`-ts simple`), fused strips (`-ts fused 2`) and split sub-boxes
//! (`-ts reduced 2`). The built-ins are kernels of the kernel IR, generated
//! like the defined functions (docs/language.md, "Built-in functions");
//! the pins were taken from the C kernels they replace, and are the same
//! bits except `func_conv` on `float` and `double`, which now sums each
//! window x first, then y (separable's order), where the C kernel summed
//! columns first. In the floating types every built-in is checked against
//! the same chain written with definitions of its documented meaning
//! ([`floating_builtins_are_their_definitions`]: `separable` of ones over
//! the window's size for `func_conv`).

use crate::support::*;

/// The element types, as the language spells them.
const TYPES: [&str; 8] = [
    "char", "uchar", "short", "ushort", "int", "uint", "float", "double",
];

/// The windows of the convolution chain: `(x, y)`.
const WINDOWS: [(u64, u64); 7] = [(3, 3), (1, 1), (4, 4), (5, 5), (2, 3), (7, 1), (9, 9)];

/// The checksum of each chain and type, 3 iterations.
const PINNED: &[(&str, &str, &str)] = &[
    ("pointwise", "char", "0x780b7839a0485eaa"),
    ("conv", "char", "0x092a2dd9ed38d4b5"),
    ("narrow", "char", "0x89ce600c12c211a3"),
    ("column", "char", "0x3fcd7dff655ca9cc"),
    ("pointwise", "uchar", "0x68909c65b42e86d4"),
    ("conv", "uchar", "0x7788ba04d4608910"),
    ("narrow", "uchar", "0x3190a4c0445b6aa5"),
    ("column", "uchar", "0x4c9fab3dede37bf1"),
    ("pointwise", "short", "0x354bb62d3f1bb4d0"),
    ("conv", "short", "0x0768d4df9359974e"),
    ("narrow", "short", "0xa97242147fd6d0a7"),
    ("column", "short", "0xe1bf23786515df8a"),
    ("pointwise", "ushort", "0xdf28d550f7f265cd"),
    ("conv", "ushort", "0x2e8e74787d9a59ae"),
    ("narrow", "ushort", "0xc19b6acfea952ef1"),
    ("column", "ushort", "0x75535258324be28e"),
    ("pointwise", "int", "0x257c41dee80e2168"),
    ("conv", "int", "0xd94e39cdcd6ca883"),
    ("narrow", "int", "0xcb5c11030c6ded91"),
    ("column", "int", "0x25da465a35481753"),
    ("pointwise", "uint", "0xe90f49c6e9f936ad"),
    ("conv", "uint", "0x5901600f3c42f960"),
    ("narrow", "uint", "0x43a61953f5a6873f"),
    ("column", "uint", "0x3b655c4b15b8968a"),
    ("pointwise", "float", "0xc992dc6d8438dbb9"),
    // The C kernel's column-first sums gave 0x3a866b534f16e0ab and
    // 0x9356b4dd1cb0780e.
    ("conv", "float", "0x0f0bfac7075c1230"),
    ("narrow", "float", "0xa996120b27f5c872"),
    ("column", "float", "0x7f8547f1cfd97f9d"),
    ("pointwise", "double", "0x09805def37e5ffb3"),
    ("conv", "double", "0x2f7b568258bf4bf0"),
    ("narrow", "double", "0x2843d98243b90023"),
    ("column", "double", "0xb55590979036847a"),
];

/// The pointwise chain of type `t`: the point built-ins and the 2:1
/// scalings, three sinks.
fn pointwise(t: &str) -> String {
    format!(
        "composition {{
  container_declaration source {{ out OUT {t} mul [1, 1]; }};
  container_declaration sink {{ in IN {t} mul [1, 1]; }};
  container_declaration gain {{ in IN {t} mul [1, 1]; out OUT {t} mul [1, 1]; }};
  container_declaration copy {{ in IN {t} mul [1, 1]; out OUT {t} mul [1, 1]; }};
  container_declaration dup {{ in IN {t} mul [1, 1]; o1 OUT {t} mul [1, 1]; o2 OUT {t} mul [1, 1]; }};
  container_declaration plus {{ a IN {t} mul [1, 1]; b IN {t} mul [1, 1]; out OUT {t} mul [1, 1]; }};
  container_declaration times {{ a IN {t} mul [1, 1]; b IN {t} mul [1, 1]; out OUT {t} mul [1, 1]; }};
  container_declaration avg {{ a IN {t} mul [1, 1]; b IN {t} mul [1, 1]; out OUT {t} mul [1, 1]; }};
  container_declaration down {{ in IN {t} mul [2, 2]; out OUT {t} mul [1, 1]; }};
  container_declaration up {{ in IN {t} mul [1, 1]; out OUT {t} mul [2, 2]; }};
  container_declaration app {{ }};
  container_bind source func_source NONE, sink func_sink NONE, gain func_gain FULL,
    copy func_copy FULL, dup func_dup FULL, plus func_plus FULL, times func_mul FULL,
    avg func_avg FULL, down func_down FULL, up func_up FULL;
  container_composition app {{
    container src source index, g gain index, d dup index, p plus index, m times index,
      a avg index, c copy index, h down [17, 9], u up [17, 9],
      s1 sink index, s2 sink index, s3 sink index;
    src.out -> g.in;
    src.out -> d.in;
    g.out -> p.a;
    d.o1 -> p.b;
    p.out -> m.a;
    d.o2 -> m.b;
    m.out -> a.a;
    g.out -> a.b;
    a.out -> c.in;
    c.out -> h.in;
    h.out -> u.in;
    u.out -> s1.in;
    m.out -> s2.in;
    a.out -> s3.in;
  }};
  compose app [34, 18];
}}
"
    )
}

/// The convolution chain of type `t`: the source, its gain and the gain's
/// fourth power (saturated in the integer types, near 2³¹ in int) through
/// every window of [`WINDOWS`], one sink each.
fn convolutions(t: &str) -> String {
    let mut decls = String::new();
    let mut binds = String::new();
    let mut instances = String::new();
    let mut edges = String::new();
    for (k, (x, y)) in WINDOWS.iter().enumerate() {
        let name = if k == 0 {
            "func_conv".to_string()
        } else {
            format!("func_conv_{x}x{y}")
        };
        decls.push_str(&format!(
            "  container_declaration conv{k} {{ in IN {t} mul [1, 1] [{x}, {y}]; out OUT {t} mul [1, 1]; }};\n"
        ));
        binds.push_str(&format!(", conv{k} {name} FULL"));
        instances.push_str(&format!(", f{k} conv{k} index, s{k} sink index"));
        let from = ["src", "g", "q"][k % 3];
        edges.push_str(&format!(
            "    {from}.out -> f{k}.in;\n    f{k}.out -> s{k}.in;\n"
        ));
    }
    format!(
        "composition {{
  container_declaration source {{ out OUT {t} mul [1, 1]; }};
  container_declaration sink {{ in IN {t} mul [1, 1]; }};
  container_declaration gain {{ in IN {t} mul [1, 1]; out OUT {t} mul [1, 1]; }};
  container_declaration times {{ a IN {t} mul [1, 1]; b IN {t} mul [1, 1]; out OUT {t} mul [1, 1]; }};
{decls}  container_declaration app {{ }};
  container_bind source func_source NONE, sink func_sink NONE, gain func_gain FULL,
    times func_mul FULL{binds};
  container_composition app {{
    container src source index, g gain index, sq times index, q times index{instances};
    src.out -> g.in;
    g.out -> sq.a;
    g.out -> sq.b;
    sq.out -> q.a;
    sq.out -> q.b;
{edges}  }};
  compose app [33, 17];
}}
"
    )
}

/// The convolution chain on a grid smaller than its windows: every read
/// of a 7 × 7 window on 3 × 5 elements, and of any window on one column,
/// clamped.
fn narrow(t: &str, w: u64, h: u64) -> String {
    convolutions(t).replace("compose app [33, 17];", &format!("compose app [{w}, {h}];"))
}

/// Every chain of every type, with its label.
fn chains() -> Vec<(String, &'static str, String)> {
    let mut v = Vec::new();
    for t in TYPES {
        v.push(("pointwise".to_string(), t, pointwise(t)));
        v.push(("conv".to_string(), t, convolutions(t)));
        v.push(("narrow".to_string(), t, narrow(t, 3, 5)));
        v.push(("column".to_string(), t, narrow(t, 1, 4)));
    }
    v
}

#[test]
fn every_builtin_of_every_type_computes_its_pinned_bits() {
    let tc = gcc();
    let dir = scratch("builtins-pinned");
    let mut cases = Vec::new();
    for (chain, t, text) in chains() {
        let file = write_input(&dir, &format!("{chain}_{t}.ssc"), &text);
        for args in ["-ts simple", "-ts fused 2", "-ts reduced 2 -ms reuse"] {
            cases.push((chain.clone(), t, Case::new(&file, args)));
        }
    }
    let results = parallel(&cases, |(_, _, c)| build_and_run(tc, c, 3, &dir));
    let mut wrong = Vec::new();
    let mut table = String::new();
    for ((chain, t, case), r) in cases.iter().zip(&results) {
        let sum = match r {
            Ok((sum, _)) => sum,
            Err(e) => {
                wrong.push(e.clone());
                continue;
            }
        };
        let row = format!("    (\"{chain}\", \"{t}\", \"{sum}\"),\n");
        if !table.contains(&row) {
            table.push_str(&row);
        }
        let pinned = PINNED
            .iter()
            .find(|(c, ty, _)| c == chain && ty == t)
            .map(|p| p.2);
        if pinned != Some(sum.as_str()) {
            wrong.push(format!("{}: checksum {sum}, pinned {pinned:?}", case.label));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} wrong:\n{}\nthis build's table:\n{table}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// `text` with every computing built-in bound to a defined function of
/// the meaning docs/language.md gives it in a floating type (`my_gain`:
/// `out = in * 3 / 2`, `my_conv_5x5`: `out = separable(in, [1, 1, 1, 1,
/// 1], [1, 1, 1, 1, 1]) / 25`, …).
fn as_definitions(text: &str) -> String {
    let bind_end = text.find("container_bind").unwrap();
    let bind_end = bind_end + text[bind_end..].find(';').unwrap() + 1;
    let mut binds = text[..bind_end].to_string();
    let mut defs = String::new();
    let names: Vec<String> = binds
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("func_") && *w != "func_source" && *w != "func_sink")
        .map(String::from)
        .collect();
    for name in names {
        let body = match name.as_str() {
            "func_gain" => "out = in * 3 / 2;".to_string(),
            "func_copy" | "func_up" => "out = in;".to_string(),
            "func_dup" => "o1 = in; o2 = in;".to_string(),
            "func_plus" => "out = a + b;".to_string(),
            "func_mul" => "out = a * b;".to_string(),
            "func_avg" => "out = (a + b) / 2;".to_string(),
            "func_down" => "out = mean(in);".to_string(),
            conv => {
                let (x, y) = match conv.strip_prefix("func_conv_") {
                    Some(wh) => {
                        let (x, y) = wh.split_once('x').unwrap();
                        (x.parse::<usize>().unwrap(), y.parse::<usize>().unwrap())
                    }
                    None => (3, 3),
                };
                let ones = |n: usize| vec!["1"; n].join(", ");
                format!(
                    "out = separable(in, [{}], [{}]) / {};",
                    ones(x),
                    ones(y),
                    x * y
                )
            }
        };
        let own = name.replacen("func_", "my_", 1);
        binds = binds.replace(&format!(" {name} FULL"), &format!(" {own} FULL"));
        defs.push_str(&format!("  function_definition {own} {{ {body} }};\n"));
    }
    format!("{binds}\n{defs}{}", &text[bind_end..])
}

/// In `float` and `double`, the built-ins compute what their definitions
/// compute: each chain written with `function_definition`s of the
/// documented meaning prints the built-ins' pinned checksum.
#[test]
fn floating_builtins_are_their_definitions() {
    let tc = gcc();
    let floating = chains()
        .into_iter()
        .filter(|(_, t, _)| matches!(*t, "float" | "double"))
        .map(|(chain, t, text)| (chain, t, as_definitions(&text)))
        .collect();
    assert_pinned(tc, "builtins-defined", floating, "-ts fused 2");
}

/// Builds each chain with `args`, runs 3 iterations and asserts the
/// checksum pinned for its chain and type.
fn assert_pinned(tc: &Toolchain, tag: &str, chains: Vec<(String, &str, String)>, args: &str) {
    let dir = scratch(tag);
    let cases: Vec<(String, &str, Case)> = chains
        .into_iter()
        .map(|(chain, t, text)| {
            let file = write_input(&dir, &format!("{chain}_{t}.ssc"), &text);
            (chain, t, Case::new(&file, args))
        })
        .collect();
    let results = parallel(&cases, |(_, _, c)| build_and_run(tc, c, 3, &dir));
    for ((chain, t, case), r) in cases.iter().zip(results) {
        let (sum, _) = r.unwrap_or_else(|e| panic!("{e}"));
        let pinned = PINNED
            .iter()
            .find(|(c, ty, _)| c == chain && ty == t)
            .unwrap()
            .2;
        assert_eq!(sum, pinned, "{}", case.label);
    }
}

/// A kernel of one's own named after a built-in's variant runs instead of
/// the generated one: the program calls the user's C function, generates
/// no loop nest for the name (no unused function under `-Werror`), and
/// prints the checksum of the user's arithmetic (here a copy: the chain's
/// `func_copy` twin).
#[test]
fn a_kernel_of_ones_own_replaces_a_generated_builtin() {
    let tc = gcc();
    let dir = scratch("builtins-own");
    let chain = |bound: &str| {
        format!(
            "composition {{
  container_declaration source {{ out OUT ushort mul [1, 1]; }};
  container_declaration sink {{ in IN ushort mul [1, 1]; }};
  container_declaration f {{ in IN ushort mul [1, 1]; out OUT ushort mul [1, 1]; }};
  container_declaration app {{ }};
  container_bind source func_source NONE, sink func_sink NONE, f {bound} FULL;
  container_composition app {{
    container src source index, g f index, snk sink index;
    src.out -> g.in;
    g.out -> snk.in;
  }};
  compose app [40, 12];
}}
"
        )
    };
    let own = dir.join("own.c");
    std::fs::write(
        &own,
        "#include \"ssc_kernel.h\"
void func_gain_mine(const ssc_call *c)
{
    for (int64_t y = c->region.y0; y < c->region.y1; y++) {
        const unsigned short *src = SSC_ROW(const unsigned short, &c->in[0], y);
        unsigned short *dst = SSC_ROW(unsigned short, &c->out[0], y);
        for (int64_t x = c->region.x0; x < c->region.x1; x++)
            dst[x] = src[x];
    }
}
",
    )
    .unwrap();
    let mine = write_input(&dir, "mine.ssc", &chain("func_gain_mine"));
    let copy = write_input(&dir, "copy.ssc", &chain("func_copy"));
    let args = format!("-ts reduced 2 --kernels {}", own.display());
    // Under --inline too: stage fusion leaves the user's kernel alone.
    let inlined = format!("--inline {args}");
    let cases = [
        Case::new(&mine, &args),
        Case::new(&copy, "-ts reduced 2"),
        Case::new(&mine, &inlined),
    ];
    let sums: Vec<String> = parallel(&cases, |c| build_and_run(tc, c, 3, &dir))
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")).0)
        .collect();
    assert_eq!(sums[0], sums[1], "the user's copy, the built-in copy");
    assert_eq!(sums[2], sums[1], "the user's copy under --inline");
    let program = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("mine_ssc__ts"))
        .filter(|e| e.path().is_dir())
        .map(|e| std::fs::read_to_string(e.path().join("mine.c")).unwrap())
        .next()
        .expect("the program's C");
    assert!(
        program.contains(", func_gain_mine, "),
        "the user's kernel is called"
    );
    assert!(!program.contains("def_func_gain_mine"), "no generated twin");
}

/// The generated built-ins compile warning-free with clang too (`-Wall
/// -Wextra -Werror`, which reports an unused static inline helper where
/// gcc does not), and print the pinned checksums.
#[test]
fn clang_builds_every_builtin_warning_free() {
    if !on_path("clang") {
        skip(
            "clang_builds_every_builtin_warning_free",
            "clang is not on PATH (`./test` installs it)",
        );
        return;
    }
    let tc = Toolchain::new("clang", "clang", "-O2 -Werror").unwrap_or_else(|e| panic!("{e}"));
    assert_pinned(&tc, "builtins-clang", chains(), "-ts reduced 2");
}

/// Stage fusion (`--inline`) fuses the built-ins the language says as
/// written like definitions (the pointwise chain's 12 functions become 7)
/// and keeps every pinned checksum; an integer conv stays a built-in.
#[test]
fn inline_fuses_builtins_and_keeps_their_bits() {
    let dir = scratch("builtins-inline-info");
    let functions = |text: &str, args: &[&str]| -> usize {
        let file = write_input(&dir, "chain.ssc", text);
        let out = ssc_ok(
            ["build", file.to_str().unwrap(), "-t", "info"]
                .into_iter()
                .chain(args.iter().copied()),
        );
        let line = out.lines().find(|l| l.starts_with("functions")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    // (An explicit -ts: without one, -ts auto may choose --inline.)
    for t in ["ushort", "float"] {
        assert_eq!(functions(&pointwise(t), &["-ts", "reduced", "2"]), 12);
        assert_eq!(
            functions(&pointwise(t), &["-ts", "reduced", "2", "--inline"]),
            7,
            "{t}"
        );
    }
    assert_pinned(gcc(), "builtins-inline", chains(), "--inline -ts fused 2");
}
