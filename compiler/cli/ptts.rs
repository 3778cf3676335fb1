//! `ssc ptts FILE`: the exact end-to-end latency distribution of a chain of
//! time-triggered components (docs/ptts.md, `docs/ptts.md`).

use super::exit;
use super::source::{self, ReadError};
use crate::diagnostics::Diagnostic;
use crate::ptts::{self, report, Decimal, Options};
use clap::Args;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The default of `--max-trees`.
pub(crate) const DEFAULT_MAX_TREES: u128 = 10_000_000;

#[derive(Debug, Args)]
pub(crate) struct PttsArgs {
    /// The chain (`.ptts`, `-` for standard input).
    pub file: PathBuf,
    /// Print the report as JSON (PMF, CDF, statistics, loss, trees).
    #[arg(long)]
    pub json: bool,
    /// Also write the PMF and CDF plots to this SVG file.
    #[arg(long, value_name = "F")]
    pub svg: Option<PathBuf>,
    /// Also simulate N containers and print the total-variation distance.
    #[arg(long, value_name = "N")]
    pub simulate: Option<u64>,
    /// The seed of the simulation.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Refuse chains with more latency trees than this.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TREES)]
    pub max_trees: u128,
    /// Round every period to a multiple of STEP (Sec. 5.7).
    #[arg(long, value_name = "STEP", value_parser = parse_step)]
    pub round: Option<Decimal>,
    /// Show the first latency trees.
    #[arg(short, long)]
    pub verbose: bool,
    /// The unit of the file's times, for the report and the axes (`ms`)
    /// [default: the `unit` of its ETP files when they agree].
    #[arg(long, value_name = "UNIT")]
    pub unit: Option<String>,
}

fn parse_step(s: &str) -> Result<Decimal, String> {
    match Decimal::parse(s) {
        Some(d) if d.mantissa > 0 => Ok(d),
        _ => Err(format!("`{s}` is not a positive decimal such as 0.1")),
    }
}

/// Latency trees shown with `-v` and given in the JSON.
const TREES_TEXT: usize = 3;
const TREES_JSON: usize = 100;

pub(crate) fn run(args: &PttsArgs) -> i32 {
    let file = match source::read(&args.file) {
        Ok(f) => f,
        Err(ReadError::Io(msg)) => {
            eprintln!("error: {msg}");
            return exit::USAGE;
        }
        Err(ReadError::NotText(bad)) => {
            let (file, diag) = *bad;
            super::diag::emit(&[diag], &file);
            return exit::INPUT;
        }
    };
    let base = match args.file.parent() {
        Some(p) if file.name != "<stdin>" => p.to_path_buf(),
        _ => Path::new(".").to_path_buf(),
    };
    let mut model = match ptts::load(&file, &base, args.round) {
        Ok(m) => m,
        Err(diags) => {
            super::diag::emit(&diags, &file);
            return exit::INPUT;
        }
    };
    if let Some(u) = &args.unit {
        model.unit = Some(u.clone());
    }
    let plan = match ptts::exact::plan(&model) {
        Ok(p) => p,
        Err(_) => {
            let d = Diagnostic::error("E411", "the hyper-period does not fit 128 bits")
                .label(model.components[0].span, "this chain")
                .hint("round the periods with `--round STEP` (e.g. `--round 0.1`)");
            super::diag::emit(&[d], &file);
            return exit::INPUT;
        }
    };
    // The plan comes before the work (docs/ptts.md).
    let header = report::header(&model, &file.name, &plan);
    if args.json {
        eprint!("{header}");
    } else {
        print!("{header}");
        let _ = std::io::stdout().flush();
    }
    if plan.trees > args.max_trees {
        let d = Diagnostic::error(
            "E411",
            format!(
                "{} latency trees, more than --max-trees {}",
                plan.trees, args.max_trees
            ),
        )
        .label(
            model.components[0].span,
            "the first component triggers this often in a hyper-period",
        )
        .hint(round_hint(&file, &base, &model, args.max_trees));
        super::diag::emit(&[d], &file);
        return exit::INPUT;
    }
    let opts = Options {
        keep_trees: if args.json {
            TREES_JSON
        } else if args.verbose {
            TREES_TEXT
        } else {
            0
        },
        loss: true,
        ..Options::default()
    };
    let analysis = match ptts::analyse(&model, &opts) {
        Ok(a) => a,
        Err(_) => {
            eprintln!("error: the hyper-period does not fit 128 bits");
            return exit::INPUT;
        }
    };
    let summary = report::Summary::new(&analysis, model.scale);
    let sim = args.simulate.map(|n| {
        ptts::simulate::simulate(&model, plan.trees, n, args.seed, &ptts::pmf_f64(&analysis))
    });
    if let Some(path) = &args.svg {
        let title = Path::new(&file.name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match ptts::svg::render(&model, &summary, &title) {
            Ok(svg) => {
                if let Err(e) = std::fs::write(path, svg) {
                    eprintln!("error: cannot write `{}`: {e}", path.display());
                    return exit::USAGE;
                }
            }
            Err(e) => {
                eprintln!("error: cannot draw the plots: {e}");
                return exit::EXTERNAL;
            }
        }
    }
    if args.json {
        let v = ptts::json::report(
            &model,
            &file.name,
            &analysis,
            &summary,
            sim.as_ref().map(|s| (s, args.seed)),
        );
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        print!(
            "{}",
            report::body(&model, &analysis, &summary, sim.as_ref(), args.verbose)
        );
    }
    exit::OK
}

/// "`--round 0.1` gives N trees": the coarsest decimal steps that fit.
fn round_hint(
    file: &crate::diagnostics::SourceFile,
    base: &Path,
    model: &crate::ptts::Model,
    max: u128,
) -> String {
    for scale in (0..=model.scale).rev() {
        let step = Decimal { mantissa: 1, scale };
        if let Ok(m) = ptts::load(file, base, Some(step)) {
            if let Ok(p) = ptts::exact::plan(&m) {
                if p.trees <= max {
                    return format!(
                        "round the periods to a coarser step (Sec. 5.7): `--round {step}` gives {} trees",
                        p.trees
                    );
                }
            }
        }
    }
    "round the periods to a coarser step with `--round STEP` (Sec. 5.7)".into()
}
