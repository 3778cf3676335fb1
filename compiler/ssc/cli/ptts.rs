//! `ssc ptts FILE`: the exact end-to-end latency distribution of a chain of
//! time-triggered components (docs/ptts.md, `docs/ptts.md`).

use super::exit;
use super::source::{self, ReadError};
use clap::Args;
use ssc::diagnostics::{Diagnostic, SourceFile};
use ssc_ptts::cost::{self, Exceeded, Limits};
use ssc_ptts::{report, Decimal, Model, Options, Plan};
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
    /// Refuse analyses that may take more operations than this (the bound
    /// printed before the analysis; about 1–5 ns each in a release build).
    #[arg(long, value_name = "N", default_value_t = cost::DEFAULT_MAX_OPERATIONS)]
    pub max_operations: u128,
    /// Refuse analyses that may hold more memory than this many MiB.
    #[arg(long, value_name = "MIB", default_value_t = cost::DEFAULT_MAX_MEMORY_MIB)]
    pub max_memory: u128,
    /// Skip the loss analysis (Sec. 5.5): the distribution alone.
    #[arg(long)]
    pub no_loss: bool,
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
    let mut model = match ssc_ptts::load(&file, &base, args.round) {
        Ok(m) => m,
        Err(diags) => {
            super::diag::emit(&diags, &file);
            return exit::INPUT;
        }
    };
    if let Some(u) = &args.unit {
        model.unit = Some(u.clone());
    }
    let opts = Options {
        keep_trees: if args.json {
            TREES_JSON
        } else if args.verbose {
            TREES_TEXT
        } else {
            0
        },
        loss: !args.no_loss,
        ..Options::default()
    };
    let first = match ssc_ptts::exact::plan(&model, &opts) {
        Ok(p) => p,
        Err(_) => {
            let d = Diagnostic::error("E411", "the hyper-period does not fit 128 bits")
                .label(model.components[0].span, "this chain")
                .hint("round the periods with `--round STEP` (e.g. `--round 0.1`)");
            super::diag::emit(&[d], &file);
            return exit::INPUT;
        }
    };
    let guard = Guard {
        file: &file,
        base: &base,
        args,
        opts: &opts,
    };
    let (plan, refusal) = guard.check(&model, first);
    // The plan comes before the work (docs/ptts.md).
    let header = report::header(&model, &file.name, &plan);
    if args.json {
        eprint!("{header}");
    } else {
        print!("{header}");
        let _ = std::io::stdout().flush();
    }
    if let Some(d) = refusal {
        super::diag::emit(&[d], &file);
        return exit::INPUT;
    }
    let analysis = match ssc_ptts::analyse(&model, &opts) {
        Ok(a) => a,
        Err(_) => {
            eprintln!("error: the hyper-period does not fit 128 bits");
            return exit::INPUT;
        }
    };
    let summary = report::Summary::new(&analysis, model.scale);
    let sim = args.simulate.map(|n| {
        ssc_ptts::simulate::simulate(
            &model,
            plan.trees,
            n,
            args.seed,
            &ssc_ptts::pmf_f64(&analysis),
        )
    });
    if let Some(path) = &args.svg {
        let title = Path::new(&file.name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match ssc_ptts::svg::render(&model, &summary, &title) {
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
        let v = ssc_ptts::json::report(
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

/// The checks between the plan and the analysis: trees (E411), then
/// operations and memory (E414), each refusal with a way out.
struct Guard<'a> {
    file: &'a SourceFile,
    base: &'a Path,
    args: &'a PttsArgs,
    opts: &'a Options,
}

impl Guard<'_> {
    fn limits(&self) -> Limits {
        Limits {
            operations: self.args.max_operations,
            memory: self.args.max_memory.saturating_mul(1 << 20),
        }
    }

    /// Operations and bytes besides the analysis: the simulation, the
    /// JSON report.
    fn extra(&self, model: &Model, plan: &Plan) -> (u128, u128) {
        let sim = match self.args.simulate {
            Some(n) => ssc_ptts::simulate::cost(model, n),
            None => (0, 0),
        };
        let json = if self.args.json {
            cost::json(plan)
        } else {
            (0, 0)
        };
        (sim.0.saturating_add(json.0), sim.1.saturating_add(json.1))
    }

    /// The plan of `model` with `opts` when it stays within the limits.
    fn fits(&self, model: &Model, opts: &Options) -> Option<Plan> {
        let plan = ssc_ptts::exact::plan(model, opts).ok()?;
        if plan.trees > self.args.max_trees {
            return None;
        }
        let extra = self.extra(model, &plan);
        let verdict = ssc_ptts::refine::guard(model, opts, plan, extra, &self.limits());
        match verdict.exceeded {
            None => Some(verdict.plan),
            Some(_) => None,
        }
    }

    /// The plan to print (refined when the first bound is over the limit)
    /// and the refusal, if any.
    fn check(&self, model: &Model, plan: Plan) -> (Plan, Option<Diagnostic>) {
        let args = self.args;
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
            .hint(round_hint(self.file, self.base, model, args.max_trees));
            return (plan, Some(d));
        }
        let extra = self.extra(model, &plan);
        let verdict = ssc_ptts::refine::guard(model, self.opts, plan, extra, &self.limits());
        let (plan, exceeded) = match verdict.exceeded {
            None => return (verdict.plan, None),
            Some(e) => (verdict.plan, e),
        };
        let message = match exceeded {
            Exceeded::Operations => format!(
                "the analysis may take up to {} operations, more than --max-operations {}",
                plan.operations.saturating_add(extra.0),
                args.max_operations
            ),
            Exceeded::Memory => format!(
                "the analysis may hold up to {} MiB, more than --max-memory {}",
                mib(plan.memory.saturating_add(extra.1)),
                args.max_memory
            ),
        };
        let label = format!(
            "{} latency trees; each may meet the next {} (the loss analysis: up to {} operations)",
            plan.trees,
            ssc_ptts::loss::lookahead(model),
            plan.loss_operations
        );
        let hint = self.ways_out(model, &plan, extra, exceeded);
        let d = Diagnostic::error("E414", message)
            .label(model.components[0].span, label)
            .hint(hint);
        (plan, Some(d))
    }

    /// What would fit: a coarser `--round`, `--no-loss`, a larger limit.
    fn ways_out(
        &self,
        model: &Model,
        plan: &Plan,
        extra: (u128, u128),
        exceeded: Exceeded,
    ) -> String {
        let mut ways = Vec::new();
        for scale in (0..=model.scale).rev() {
            let step = Decimal { mantissa: 1, scale };
            let Ok(m) = ssc_ptts::load(self.file, self.base, Some(step)) else {
                continue;
            };
            if m.components.iter().all(|c| c.rounded_from.is_none()) {
                continue;
            }
            if let Some(p) = self.fits(&m, self.opts) {
                ways.push(format!(
                    "`--round {step}` (Sec. 5.7: an approximation) needs at most {} operations",
                    p.operations
                ));
                break;
            }
        }
        if self.opts.loss {
            let opts = Options {
                loss: false,
                ..self.opts.clone()
            };
            if let Some(p) = self.fits(model, &opts) {
                ways.push(format!(
                    "`--no-loss` gives the distribution alone in at most {} operations",
                    p.operations
                ));
            }
        }
        ways.push(match exceeded {
            Exceeded::Operations => format!(
                "raise the limit with `--max-operations {}`",
                plan.operations.saturating_add(extra.0)
            ),
            Exceeded::Memory => format!(
                "raise the limit with `--max-memory {}`",
                mib(plan.memory.saturating_add(extra.1))
            ),
        });
        ways.join("; or ")
    }
}

/// Bytes in MiB, rounded up.
pub(crate) fn mib(bytes: u128) -> u128 {
    bytes.div_ceil(1 << 20)
}

/// "`--round 0.1` gives N trees": the coarsest decimal steps that fit.
fn round_hint(
    file: &ssc::diagnostics::SourceFile,
    base: &Path,
    model: &ssc_ptts::Model,
    max: u128,
) -> String {
    for scale in (0..=model.scale).rev() {
        let step = Decimal { mantissa: 1, scale };
        if let Ok(m) = ssc_ptts::load(file, base, Some(step)) {
            if let Ok((_, trees)) = ssc_ptts::exact::hyper_period(&m) {
                if trees <= max {
                    return format!(
                        "round the periods to a coarser step (Sec. 5.7): `--round {step}` gives {trees} trees"
                    );
                }
            }
        }
    }
    "round the periods to a coarser step with `--round STEP` (Sec. 5.7)".into()
}
