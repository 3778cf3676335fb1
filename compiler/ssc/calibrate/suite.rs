//! The synthetic declaration `ssc calibrate` times (`super`'s docs,
//! "Measuring" and "Beyond the cache"), and the per-core cache it sizes
//! the streaming instances by.

use ssc::lower::cost::TYPES;
use std::path::{Path, PathBuf};

/// The side of the big instances (points = SIDE²), and of the small gain.
pub(super) const SIDE: u64 = 512;
pub(super) const SMALL: u64 = 64;

/// The two sources that give the source's costs per computed and per
/// copied element: `[w, h]`, the same points, a row of 251 elements (all
/// computed) and one of 1004 (three quarters copied).
pub(super) const SOURCE_NARROW: (u64, u64) = (251, 1024);
pub(super) const SOURCE_WIDE: (u64, u64) = (1004, 256);

/// The per-core cache without sysfs, bytes.
pub const FALLBACK_CACHE: u64 = 1 << 20;

/// The per-core cache of this machine, bytes (see the module docs).
pub fn private_cache() -> u64 {
    private_cache_under(Path::new("/sys/devices/system/cpu"))
}

/// The same, of a sysfs `cpu` directory: `cpu0`'s level-2 data or
/// unified cache (per core on the machines ssc targets), else the largest
/// one shared by fewer CPUs than are online, else [`FALLBACK_CACHE`]. A
/// level 3 that looks private (a guest that shows each vCPU as a socket)
/// is never taken over a level 2.
pub fn private_cache_under(cpu_dir: &Path) -> u64 {
    let read = |p: PathBuf| {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    let count = |list: &str| -> u64 {
        list.split(',')
            .filter(|r| !r.is_empty())
            .map(|r| match r.split_once('-') {
                Some((a, b)) => match (a.parse::<u64>(), b.parse::<u64>()) {
                    (Ok(a), Ok(b)) => b.checked_sub(a).map_or(0, |d| d + 1),
                    _ => 0,
                },
                None => 1,
            })
            .sum()
    };
    let online = count(&read(cpu_dir.join("online")));
    let size = |s: &str| -> Option<u64> {
        let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
        let n: u64 = digits.parse().ok()?;
        match unit {
            "" => Some(n),
            "K" => Some(n << 10),
            "M" => Some(n << 20),
            "G" => Some(n << 30),
            _ => None,
        }
    };
    let mut private = None;
    let mut level2 = None;
    for k in 0..16 {
        let dir = cpu_dir.join("cpu0").join("cache").join(format!("index{k}"));
        if !dir.exists() {
            break;
        }
        if read(dir.join("type")) == "Instruction" {
            continue;
        }
        let Some(bytes) = size(&read(dir.join("size"))) else {
            continue;
        };
        if read(dir.join("level")) == "2" {
            level2 = level2.max(Some(bytes));
        }
        if count(&read(dir.join("shared_cpu_list"))) < online {
            private = private.max(Some(bytes));
        }
    }
    level2.or(private).unwrap_or(FALLBACK_CACHE)
}

/// The side of the streaming instances for a per-core cache of `cache`
/// bytes: the smallest power of two, at least 1024, whose `float` frame is
/// at least twice the cache; at most 4096 (64 MiB frames: above a 32 MiB
/// cache they are less than twice it).
pub fn big_side(cache: u64) -> u64 {
    let mut side = 1024;
    while side < 4096 && side * side * 4 < 2 * cache {
        side *= 2;
    }
    side
}

/// The streaming instances: name, function, side divisor, bytes read and
/// written per point.
pub(super) const STREAMING: [(&str, &str, u64, f64); 3] = [
    ("copy_big", "func_copy", 1, 8.0),
    ("add_big", "def_add", 1, 8.0),
    ("mean_big", "def_mean", 2, 20.0),
];

/// The declaration measured, with the streaming instances at `big`: see
/// the module documentation.
pub fn suite(big: u64) -> String {
    let mut d = String::from("declaration {\n");
    d.push_str(&declarations());
    let (n, h, s) = (SIDE, SIDE / 2, SMALL);
    let mut inst = vec![
        format!("src func_source [{n}, {n}]"),
        format!("src_half func_source [{h}, {h}]"),
        format!("src_small func_source [{s}, {s}]"),
        // As many points each, one row computed whole, the other mostly
        // copied: the source's two costs (`fit`).
        format!(
            "src_narrow func_source [{}, {}]",
            SOURCE_NARROW.0, SOURCE_NARROW.1
        ),
        format!(
            "src_wide func_source [{}, {}]",
            SOURCE_WIDE.0, SOURCE_WIDE.1
        ),
        format!("sink func_sink [{n}, {n}]"),
        format!("gain func_gain [{n}, {n}]"),
        format!("gain_small func_gain [{s}, {s}]"),
        format!("copy func_copy [{n}, {n}]"),
        format!("dup func_dup [{n}, {n}]"),
        format!("plus func_plus [{n}, {n}]"),
        format!("product func_mul [{n}, {n}]"),
        format!("avg func_avg [{n}, {n}]"),
        format!("conv3 func_conv [{n}, {n}]"),
        format!("conv7 func_conv_7x7 [{n}, {n}]"),
        format!("down func_down [{h}, {h}]"),
        format!("up func_up [{h}, {h}]"),
    ];
    let mut conns = Vec::new();
    for (name, ports, _, div) in DEFINED {
        let side = SIDE / div;
        inst.push(format!("{name} {name} [{side}, {side}]"));
        for (p, _, ty, mul, _) in ports.iter().filter(|p| p.1 == "IN") {
            let from = match (*ty, side * mul) {
                ("float", g) if g == n => "src".to_string(),
                ("float", g) if g == h => "src_half".to_string(),
                (t, _) => format!("src_{t}"),
            };
            conns.push(format!("{from}.out -> {name}.{p};"));
        }
    }
    inst.push(format!("src_big func_source [{big}, {big}]"));
    for (name, function, div, _) in STREAMING {
        let side = big / div;
        inst.push(format!("{name} {function} [{side}, {side}]"));
        conns.push(format!("src_big.out -> {name}.in;"));
    }
    conns.extend([
        "src.out -> sink.in;".to_string(),
        "src_small.out -> gain_small.in;".to_string(),
        "src_half.out -> up.in;".to_string(),
        "src.out -> down.in;".to_string(),
    ]);
    for k in ["gain", "copy", "dup", "conv3", "conv7"] {
        conns.push(format!("src.out -> {k}.in;"));
    }
    for k in ["plus", "product", "avg"] {
        conns.push(format!("src.out -> {k}.in1;"));
        conns.push(format!("src.out -> {k}.in2;"));
    }
    for t in TYPES.iter().filter(|t| t.keyword() != "float") {
        let t = t.keyword();
        inst.push(format!("src_{t} func_source_{t} [{n}, {n}]"));
        inst.push(format!("gain_{t} func_gain_{t} [{n}, {n}]"));
        inst.push(format!("sink_{t} func_sink_{t} [{n}, {n}]"));
        conns.push(format!("src_{t}.out -> gain_{t}.in;"));
        conns.push(format!("src_{t}.out -> sink_{t}.in;"));
    }
    d.push_str(&format!("  function {};\n", inst.join(", ")));
    for c in conns {
        d.push_str(&format!("  {c}\n"));
    }
    d.push_str("}\n");
    d
}

/// The suite's function declarations and definitions.
fn declarations() -> String {
    let mut d = String::new();
    let f = "float";
    decl(&mut d, "func_source", &[port("out", "OUT", f, 1, 1)]);
    decl(&mut d, "func_sink", &[port("in", "IN", f, 1, 1)]);
    // One input, one output: the input's `mul` and window, the output's `mul`.
    for (name, in_mul, window, out_mul) in [
        ("func_gain", 1, 1, 1),
        ("func_copy", 1, 1, 1),
        ("func_conv", 1, 3, 1),
        ("func_conv_7x7", 1, 7, 1),
        ("func_down", 2, 1, 1),
        ("func_up", 1, 1, 2),
    ] {
        decl(
            &mut d,
            name,
            &[
                port("in", "IN", f, in_mul, window),
                port("out", "OUT", f, out_mul, 1),
            ],
        );
    }
    decl(
        &mut d,
        "func_dup",
        &[
            port("in", "IN", f, 1, 1),
            port("out1", "OUT", f, 1, 1),
            port("out2", "OUT", f, 1, 1),
        ],
    );
    for k in ["func_plus", "func_mul", "func_avg"] {
        decl(
            &mut d,
            k,
            &[
                port("in1", "IN", f, 1, 1),
                port("in2", "IN", f, 1, 1),
                port("out", "OUT", f, 1, 1),
            ],
        );
    }
    for t in TYPES.iter().filter(|t| t.keyword() != "float") {
        let t = t.keyword();
        decl(
            &mut d,
            &format!("func_source_{t}"),
            &[port("out", "OUT", t, 1, 1)],
        );
        decl(
            &mut d,
            &format!("func_gain_{t}"),
            &[port("in", "IN", t, 1, 1), port("out", "OUT", t, 1, 1)],
        );
        decl(
            &mut d,
            &format!("func_sink_{t}"),
            &[port("in", "IN", t, 1, 1)],
        );
    }
    // Defined functions, for the costs of reading, writing and computing.
    for (name, ports, value, _) in DEFINED {
        let ports: Vec<String> = ports
            .iter()
            .map(|(p, dir, ty, mul, window)| port(p, dir, ty, *mul, *window))
            .collect();
        decl(&mut d, name, &ports);
        d.push_str(&format!(
            "  function_definition {name} {{ out = {value}; }};\n"
        ));
    }
    d
}

/// A port of a declaration: `NAME DIR TYPE mul [m, m]` and its window.
fn port(name: &str, dir: &str, ty: &str, mul: u64, window: u64) -> String {
    let w = if window > 1 {
        format!(" [{window}, {window}]")
    } else {
        String::new()
    };
    format!("{name} {dir} {ty} mul [{mul}, {mul}]{w}; ")
}

/// Appends the declaration of `name` with `ports` to `d`.
fn decl(d: &mut String, name: &str, ports: &[String]) {
    d.push_str(&format!(
        "  function_declaration {name} FULL {{ {}}};\n",
        ports.concat()
    ));
}

/// A port of a defined function of the suite: name, direction, type,
/// `mul` (both axes), window (both axes).
type DefinedPort = (&'static str, &'static str, &'static str, u64, u64);

/// The defined functions of the suite, the operations imaging chains use
/// (`examples/xray.ssc`'s, `examples/fluoro.ssc`'s): name, ports, the value
/// of `out`, and the divisor of `SIDE` their instance runs at (2 for the
/// scalers, so every one reads and writes frames of about one size).
pub const DEFINED: [(&str, &[DefinedPort], &str, u64); 11] = [
    ("def_add", &[IN, OUT], "in + 1", 1),
    (
        "def_mul",
        &[IN, ("g", "IN", "float", 1, 1), OUT],
        "in * g",
        1,
    ),
    (
        "def_sub",
        &[("raw", "IN", "ushort", 1, 1), IN, OUT],
        "max(float(raw) - in, 0)",
        1,
    ),
    (
        "def_blend",
        &[IN, ("c", "IN", "float", 1, 1), OUT],
        "c + 1.5 * (in - c)",
        1,
    ),
    ("def_window", &[IN, OUT], "window_level(in, 16000, 8000)", 1),
    (
        "def_to16",
        &[IN, ("out", "OUT", "ushort", 1, 1)],
        "ushort(clamp(round(65535 * in), 0, 65535))",
        1,
    ),
    ("def_median", &[IN3, OUT], "median(in)", 1),
    (
        "def_gauss3",
        &[IN3, OUT],
        "separable(in, [1, 2, 1], [1, 2, 1]) / 16",
        1,
    ),
    (
        "def_gauss",
        &[("in", "IN", "float", 1, 5), OUT],
        "separable(in, [1, 4, 6, 4, 1], [1, 4, 6, 4, 1]) / 256",
        1,
    ),
    (
        "def_mean",
        &[("in", "IN", "float", 2, 1), OUT],
        "mean(in)",
        2,
    ),
    (
        "def_linear",
        &[IN3, ("out", "OUT", "float", 2, 1)],
        "linear(in)",
        2,
    ),
];
const IN: DefinedPort = ("in", "IN", "float", 1, 1);
const IN3: DefinedPort = ("in", "IN", "float", 1, 3);
const OUT: DefinedPort = ("out", "OUT", "float", 1, 1);

/// The defined functions whose cost is writes and arithmetic only.
pub(super) const POINTWISE: [&str; 4] = ["def_add", "def_mul", "def_blend", "def_window"];

#[cfg(test)]
mod tests {
    use super::*;
    use ssc::lower::LowerOptions;

    #[test]
    fn the_suite_lowers_with_one_instance_per_measurement() {
        let desc = ssc::front::syntax::parse(&suite(2048)).unwrap();
        let mut opts = LowerOptions::default();
        opts.split.dp = ssc::lower::split::DataParallelism::None;
        let (_, h) = ssc::lower::lower_to_hsdfg(&desc, &opts).unwrap();
        assert_eq!(
            h.functions.len(),
            17 + DEFINED.len() + 3 * 7 + 1 + STREAMING.len()
        );
    }

    #[test]
    fn the_streaming_frames_are_at_least_twice_the_cache() {
        for (cache, side) in [
            (256 << 10, 1024),
            (1 << 20, 1024),
            (2 << 20, 1024),
            (4 << 20, 2048),
            (8 << 20, 2048),
            (32 << 20, 4096),
            (1 << 30, 4096),
        ] {
            assert_eq!(big_side(cache), side, "{cache}");
        }
    }

    #[test]
    fn the_private_cache_is_the_largest_level_not_shared_by_all() {
        let root = std::env::temp_dir().join(format!("ssc-sysfs-{}", std::process::id()));
        let cache = |k: u32, level: &str, ty: &str, size: &str, shared: &str| {
            let d = root.join("cpu0/cache").join(format!("index{k}"));
            std::fs::create_dir_all(&d).unwrap();
            for (f, v) in [
                ("level", level),
                ("type", ty),
                ("size", size),
                ("shared_cpu_list", shared),
            ] {
                std::fs::write(d.join(f), format!("{v}\n")).unwrap();
            }
        };
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("online"), "0-3\n").unwrap();
        cache(0, "1", "Data", "48K", "0");
        cache(1, "1", "Instruction", "32K", "0");
        cache(2, "2", "Unified", "2048K", "0-1");
        cache(3, "3", "Unified", "32M", "0-3");
        assert_eq!(private_cache_under(&root), 2048 << 10);
        // One core: every level is shared by all; the level 2 counts.
        std::fs::write(root.join("online"), "0\n").unwrap();
        cache(2, "2", "Unified", "1024K", "0");
        cache(3, "3", "Unified", "32M", "0");
        assert_eq!(private_cache_under(&root), 1 << 20);
        // A guest that shows each vCPU as a socket: its level 3 looks
        // private, the level 2 is still the one.
        std::fs::write(root.join("online"), "0-1\n").unwrap();
        cache(3, "3", "Unified", "260M", "0");
        assert_eq!(private_cache_under(&root), 1 << 20);
        // No level 2: the largest private one. A malformed CPU list or an
        // unknown unit is skipped, never a panic.
        std::fs::remove_dir_all(root.join("cpu0/cache/index2")).unwrap();
        std::fs::remove_dir_all(root.join("cpu0/cache/index3")).unwrap();
        assert_eq!(private_cache_under(&root), 48 << 10);
        cache(0, "1", "Data", "48KiB", "3-1");
        assert_eq!(private_cache_under(&root), FALLBACK_CACHE);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(private_cache_under(&root), FALLBACK_CACHE);
    }
}
