//! One function per subcommand.

use super::args::{Command, ExplainArgs, FmtArgs, GenerateArgs};
use super::exit;
use super::source::{load, report};
use std::path::Path;

/// Runs a command; `argv` is ssc's command line as given (a program
/// records it).
pub(crate) fn dispatch(command: Command, argv: &[String]) -> i32 {
    match command {
        Command::Check(a) => check(&a.file, &a.kernels, &a.defines),
        Command::Fmt(a) => fmt(&a),
        Command::Build(a) => match super::build::build(&a, argv) {
            Ok(_) => exit::OK,
            Err(code) => code,
        },
        Command::Run(r) => super::build::run(&r.build, &r.program_args, argv),
        Command::Generate(a) => generate(&a),
        Command::Bench(a) => super::bench::bench(&a, argv),
        Command::Throttle(a) => super::throttle::run(&a),
        Command::Ptts(a) => super::ptts::run(&a),
        Command::Calibrate(a) => calibrate(a.show),
        Command::Tune(a) => super::tune::tune(&a),
        Command::Doctor(a) => super::doctor::doctor(&a),
        Command::Explain(a) => explain(&a),
        Command::Completions(a) => {
            let mut cmd = <super::args::Cli as clap::CommandFactory>::command();
            // Into a buffer, then print!: a closed pipe ends ssc quietly.
            let mut script = Vec::new();
            clap_complete::generate(a.shell, &mut cmd, "ssc", &mut script);
            print!("{}", String::from_utf8_lossy(&script));
            exit::OK
        }
        Command::Man(a) => man(a.out.as_deref()),
    }
}

/// `ssc calibrate`: measures the cost model's coefficients and caches
/// them (`crate::calibrate`); with `--show`, prints those in use.
fn calibrate(show: bool) -> i32 {
    use crate::calibrate;
    let print = |c: &ssc::lower::cost::Coefficients| {
        let named = c.to_named();
        println!("call        {:>9.3} ns", named.call_ns);
        for (f, v) in &named.point_ns {
            println!("{f:<12}{v:>9.4} ns/point (float)");
        }
        println!("window tap  {:>9.4} ns/point (func_conv)", named.tap_ns);
        for (name, v) in c.defined() {
            let name = name.trim_end_matches("_ns").replace('_', " ");
            println!("{name:<12}{v:>9.4} ns/use (defined functions)");
        }
        for (t, v) in &named.type_factor {
            println!("{t:<12}{v:>9.3} × float");
        }
        println!("wait (wt)   {:>9.0} ns", named.wait_ns);
        println!("signal (sg) {:>9.0} ns", named.signal_ns);
        println!(
            "transfer(tr){:>9.1} ns/KiB read of another core's output",
            named.transfer_ns_per_kib
        );
        println!(
            "stream      {:>9.4} ns/byte read or written beyond the cache",
            named.stream_ns_per_byte
        );
        println!(
            "cache       {:>9.0} KiB per core (frames over half of it stream)",
            named.cache_bytes / 1024.0
        );
        println!(
            "program     {:>9.3} × in a running program against alone (whole frames)",
            named.program_factor
        );
        println!(
            "            {:>9.3} × in strips (-ts fused streaming)",
            named.strip_program_factor
        );
        println!(
            "source copy {:>9.4} ns/element a source copies rather than computes",
            named.source_copy_ns
        );
        for (what, factors) in [
            ("source", &named.source_type_factor),
            ("sink", &named.sink_type_factor),
        ] {
            let list: Vec<String> = factors.iter().map(|(t, v)| format!("{t} {v:.3}")).collect();
            println!("{what:<11} × float: {}", list.join(", "));
        }
    };
    if show {
        let loaded = calibrate::load();
        if let Some(why) = &loaded.ignored {
            eprintln!("warning: {why}");
        }
        eprintln!("{}", loaded.note());
        print(&loaded.coefficients);
        return exit::OK;
    }
    let started = std::time::Instant::now();
    let dir = std::env::temp_dir().join(format!("ssc-calibrate-{}", std::process::id()));
    let measured = calibrate::measure(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let m = match measured {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: calibration failed: {e}");
            return exit::EXTERNAL;
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let cpu = calibrate::cpu_model();
    match calibrate::store(&m, &cpu, seconds) {
        Ok(path) => {
            print(&m.coefficients);
            report_spread(&m);
            eprintln!(
                "calibrated {cpu} in {seconds:.1} s; wrote {} (`ssc build` uses it for functions without a timing entry, and for waits and signals without `timing_system`)",
                path.display()
            );
            exit::OK
        }
        Err(e) => {
            eprintln!("error: {e}");
            exit::EXTERNAL
        }
    }
}

/// The spread of `ssc calibrate`'s passes: the median and the largest,
/// and a warning for a program factor whose passes were far apart or that
/// was held to its bounds (the host was busy: calibrate again).
fn report_spread(m: &crate::calibrate::Measured) {
    use crate::calibrate::{Regime, FACTOR_SPREAD, PASSES};
    use ssc::lower::cost::PROGRAM_FACTORS;
    // Left out: a coefficient the fit held at its floor (noise made it 0
    // or less), whose spread is that noise, and one the same in every pass
    // (not measured: the cache's size, `float`'s factor 1).
    let values = crate::calibrate::values_of(&m.coefficients);
    let mut all: Vec<(&String, f64)> = m
        .spread
        .iter()
        .filter(|(k, s)| {
            **s > 0.0
                && !values
                    .get(*k)
                    .is_some_and(|v| crate::calibrate::at_floor(*v))
        })
        .map(|(k, v)| (k, *v))
        .collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let mut values: Vec<f64> = all.iter().map(|(_, v)| *v).collect();
    values.sort_by(f64::total_cmp);
    let median = values.get(values.len() / 2).copied().unwrap_or(0.0);
    if let Some((name, largest)) = all.first() {
        println!(
            "spread over {PASSES} passes (largest − smallest over the median): median {:.0} %, largest {:.0} % ({name})",
            median * 100.0,
            largest * 100.0
        );
    }
    for (r, f) in Regime::ALL.iter().zip(&m.factors) {
        if f.spread > FACTOR_SPREAD {
            eprintln!(
                "warning: the reference program's {} runs in {} were {:.0} % apart (the host was busy); the factor is the fastest's, {:.3}: run `ssc calibrate` again on a quiet machine",
                f.runs,
                r.name(),
                f.spread * 100.0,
                f.value
            );
        }
        if f.value != f.measured {
            eprintln!(
                "warning: the program factor in {} measured {:.3}, outside {}–{} (a kernel runs no faster in a program than alone, and no slower than four times that): {:.3} is kept; run `ssc calibrate` again on a quiet machine",
                r.name(),
                f.measured,
                PROGRAM_FACTORS.start(),
                PROGRAM_FACTORS.end(),
                f.value
            );
        }
    }
}

/// `ssc man`: the man pages, from the clap definitions.
fn man(out: Option<&Path>) -> i32 {
    let cmd = <super::args::Cli as clap::CommandFactory>::command();
    let Some(dir) = out else {
        let mut page = Vec::new();
        if let Err(e) = clap_mangen::Man::new(cmd).render(&mut page) {
            eprintln!("error: cannot render the man page: {e}");
            return exit::EXTERNAL;
        }
        print!("{}", String::from_utf8_lossy(&page));
        return exit::OK;
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("error: cannot create `{}`: {e}", dir.display());
        return exit::USAGE;
    }
    match clap_mangen::generate_to(cmd, dir) {
        Ok(()) => {
            eprintln!("wrote the man pages into {}", dir.display());
            exit::OK
        }
        Err(e) => {
            eprintln!(
                "error: cannot write the man pages into `{}`: {e}",
                dir.display()
            );
            exit::USAGE
        }
    }
}

fn explain(a: &ExplainArgs) -> i32 {
    if a.list {
        print!("{}", super::explain::list());
        return exit::OK;
    }
    let Some(code) = a.code.as_deref() else {
        eprintln!(
            "error: name a code (`ssc explain E108`), or list them all with `ssc explain --list`"
        );
        return exit::USAGE;
    };
    match super::explain::explanation(code) {
        Some(text) => {
            print!("{text}");
            exit::OK
        }
        None => {
            eprintln!(
                "error: `{code}` is not a diagnostic code of ssc\n  help: codes look like `E108`; `ssc explain --list` lists every one"
            );
            exit::USAGE
        }
    }
}

fn check(path: &Path, kernels: &[std::path::PathBuf], defines: &[String]) -> i32 {
    let kernels = match super::build::user_kernel_names(kernels) {
        Ok(k) => k,
        Err(code) => return code,
    };
    let (file, desc) = match super::source::load_expanded(path, defines) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let diags = ssc::front::check::check_with_kernels(&desc, &kernels);
    if report(&diags, &file) {
        return exit::INPUT;
    }
    match ssc::pipeline::check(&desc) {
        Ok((proven, warnings)) => {
            report(&warnings, &file);
            println!("{}: ok", file.name);
            for p in proven {
                println!("  {p}");
            }
            exit::OK
        }
        Err(diags) => {
            report(&diags, &file);
            exit::INPUT
        }
    }
}

/// `ssc fmt`: the normal form, comments kept. Only the syntax must be
/// right: a description with checker errors is formatted too.
fn fmt(a: &FmtArgs) -> i32 {
    let path = a.file.as_path();
    if a.write && path == Path::new("-") {
        eprintln!("error: `--write` needs a file: standard input cannot be written back");
        return exit::USAGE;
    }
    let (file, desc) = match load(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let formatted = ssc::back::description::print_with_comments(&desc, &file.text);
    if a.check {
        if formatted == file.text {
            return exit::OK;
        }
        let diff = similar::TextDiff::from_lines(&file.text, &formatted);
        print!(
            "{}",
            diff.unified_diff()
                .header(&file.name, &format!("{} (formatted)", file.name))
        );
        return exit::INPUT;
    }
    if a.write {
        if formatted != file.text {
            if let Err(e) = std::fs::write(path, &formatted) {
                eprintln!("error: cannot write `{}`: {e}", file.name);
                return exit::USAGE;
            }
        }
        return exit::OK;
    }
    print!("{formatted}");
    exit::OK
}

fn generate(a: &GenerateArgs) -> i32 {
    let (w, h) = a.resolution.unwrap_or((256, 256));
    let opts = crate::generate::GenerateOptions {
        boxes: a.boxes,
        sources: a.sources,
        sinks: a.sinks,
        seed: a.seed,
        resolution: ssc::ir::Pair::new(w, h),
    };
    if a.boxes < opts.min_boxes() {
        eprintln!(
            "error: --boxes {} is too few for {} source(s) and {} sink(s): give --boxes {} or more (the sources, the sinks, the boxes that close the graph and one processing box)",
            a.boxes,
            a.sources.max(1),
            a.sinks.max(1),
            opts.min_boxes()
        );
        return exit::USAGE;
    }
    let desc = crate::generate::generate(&opts);
    println!(
        "// Generated by `ssc generate --boxes {} --sources {} --sinks {} --seed {} --resolution {w},{h}`",
        a.boxes, a.sources, a.sinks, a.seed
    );
    print!("{}", ssc::back::description::print(&desc));
    exit::OK
}
