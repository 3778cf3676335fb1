//! `ssc tune FILE [--budget S] [--iterations N] [--input NAME=PATH …]
//! [--out PATH] [-- BUILD FLAGS]`: measure the schedules of a chain on
//! this machine and keep the fastest (docs/commands.md, "ssc tune").
//!
//! Takes a description and the build flags it is built with (after `--`:
//! `-D W=1760`, `--contract`, … but not the choices tune makes: `-ts`,
//! `--strip-rows`, `--inline`); builds every candidate (reduced,
//! predictable, fused with its own strips and 8 to 64 rows, each fused
//! one with and without `--inline`, all on the cores this process may
//! use), runs them in turns, round after round, while the budget lasts
//! (at least one round), and writes the winner to `FILE.tune`: the source's
//! hash, the base flags, the machine (CPU model, cores), and every
//! candidate's mean (the median of its rounds' means) with its spread.
//! Guarantees: the same measurements write the same bytes; the budget
//! bounds the measuring (a round is started only while the budget
//! holds, after the builds); `ssc build FILE` (no `-ts`) uses the file when
//! the source, the base flags and the machine are the ones it names, and
//! says so, or says why not ([`lookup`]).

use super::args::{BuildArgs, ThreadSchedule, TuneArgs};
use super::config::online_cpus;
use super::exit;
use ssc::schedule::SchedulerKind;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The flags tune chooses, refused among the base flags.
const CHOICES: &[&str] = &["-ts", "--threadschedule", "--strip-rows", "--inline"];

/// At most this many rounds: a sixth changes no median of five.
const MAX_ROUNDS: usize = 5;

/// One candidate: its flags and the mean latency of each round (µs).
struct Candidate {
    flags: Vec<String>,
    exe: PathBuf,
    means: Vec<f64>,
}

impl Candidate {
    fn median(&self) -> f64 {
        let mut m = self.means.clone();
        m.sort_by(f64::total_cmp);
        m[m.len() / 2]
    }
}

/// `ssc tune`.
pub(crate) fn tune(a: &TuneArgs) -> i32 {
    if let Some(f) = a
        .build
        .iter()
        .find(|f| CHOICES.contains(&f.split('=').next().unwrap_or("")))
    {
        eprintln!(
            "error: `{f}` is what ssc tune chooses: give the other flags of ssc build after `--`"
        );
        return exit::USAGE;
    }
    let text = match std::fs::read_to_string(&a.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read `{}`: {e}", a.file.display());
            return exit::USAGE;
        }
    };
    let start = Instant::now();
    let cores = online_cpus();
    let dir = std::env::temp_dir().join(format!("ssc-tune-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let ssc = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("ssc"));
    let mut candidates = Vec::new();
    for (k, flags) in candidate_flags(cores).into_iter().enumerate() {
        let d = dir.join(format!("c{k}"));
        let exe = d.join("program");
        let out = Command::new(&ssc)
            .arg("build")
            .arg(&a.file)
            .args(&a.build)
            .args(&flags)
            .arg("-od")
            .arg(&d)
            .arg("-o")
            .arg(&exe)
            .output();
        match out {
            Ok(o) if o.status.success() => candidates.push(Candidate {
                flags,
                exe,
                means: Vec::new(),
            }),
            Ok(o) if k == 0 => {
                // The first candidate is the plainest: its failure is the
                // description's or the flags', said as ssc build says it.
                eprint!("{}", String::from_utf8_lossy(&o.stderr));
                let _ = std::fs::remove_dir_all(&dir);
                return o.status.code().unwrap_or(exit::INPUT);
            }
            _ => eprintln!(
                "ssc tune: `{}` does not build here; left out",
                flags.join(" ")
            ),
        }
    }
    let built = start.elapsed().as_secs_f64();
    eprintln!(
        "ssc tune: {} candidates built in {built:.1} s",
        candidates.len()
    );
    let measuring = Instant::now();
    let mut round = 0;
    let mut last = 0.0;
    while round < MAX_ROUNDS && (round == 0 || measuring.elapsed().as_secs_f64() + last <= a.budget)
    {
        let t = Instant::now();
        for c in &mut candidates {
            match run_once(&c.exe, a.iterations, &a.inputs) {
                Ok(mean) => c.means.push(mean),
                Err(e) => {
                    eprintln!("error: `{}`: {e}", c.flags.join(" "));
                    let _ = std::fs::remove_dir_all(&dir);
                    return exit::EXTERNAL;
                }
            }
        }
        last = t.elapsed().as_secs_f64();
        round += 1;
        eprintln!("ssc tune: round {round} in {last:.1} s");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let text = tune_file(
        &a.file,
        &text,
        &a.build,
        cores,
        round,
        a.iterations,
        &mut candidates,
    );
    print!("{}", table(&text));
    let out = a.out.clone().unwrap_or_else(|| tune_path(&a.file));
    if let Err(e) = std::fs::write(&out, &text) {
        eprintln!("error: cannot write `{}`: {e}", out.display());
        return exit::USAGE;
    }
    println!("wrote {}", out.display());
    exit::OK
}

/// Every candidate on `cores` threads.
fn candidate_flags(cores: usize) -> Vec<Vec<String>> {
    let n = cores.to_string();
    let ts = |kind: &str| vec!["-ts".to_string(), kind.to_string(), n.clone()];
    let mut v = vec![ts("reduced"), ts("predictable")];
    for rows in [None, Some(8), Some(16), Some(32), Some(64)] {
        for inline in [false, true] {
            let mut f = ts("fused");
            if let Some(r) = rows {
                f.extend(["--strip-rows".to_string(), r.to_string()]);
            }
            if inline {
                f.push("--inline".to_string());
            }
            v.push(f);
        }
    }
    v
}

/// Why a candidate's run gave no figure.
#[derive(Debug, thiserror::Error)]
enum RunError {
    #[error("cannot run it: {0}")]
    Start(#[from] std::io::Error),
    #[error("it failed: {0}")]
    Failed(String),
    #[error("its report is not JSON with a mean latency: {0}")]
    Report(String),
}

/// The mean latency (µs) of one run of `exe`.
fn run_once(exe: &Path, iterations: u64, inputs: &[String]) -> Result<f64, RunError> {
    let mut cmd = Command::new(exe);
    cmd.args(["--iterations", &iterations.to_string(), "--json"]);
    for i in inputs {
        cmd.args(["--input", i]);
    }
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(RunError::Failed(
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| RunError::Report(e.to_string()))?;
    v["latency_us"]["mean"]
        .as_f64()
        .ok_or_else(|| RunError::Report("no latency_us.mean".into()))
}

/// `FILE.tune` beside FILE.
pub(crate) fn tune_path(file: &Path) -> PathBuf {
    let mut p = file.as_os_str().to_owned();
    p.push(".tune");
    PathBuf::from(p)
}

/// The machine as a tune file names it.
fn machine(cores: usize) -> String {
    format!("{}; {cores} cores", crate::calibrate::cpu_model())
}

/// The hash of a description's text a tune file names (FNV-1a, 64 bits:
/// it tells an edited source from the measured one, it is no seal).
fn source_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The text of the tune file: the fastest first, then every candidate.
fn tune_file(
    file: &Path,
    text: &str,
    base: &[String],
    cores: usize,
    rounds: usize,
    iterations: u64,
    candidates: &mut [Candidate],
) -> String {
    candidates.sort_by(|a, b| a.median().total_cmp(&b.median()));
    let best = candidates[0].median();
    let name = file
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let mut s = format!(
        "# ssc tune: the fastest build of {name} measured on this machine; `ssc build {name}`\n\
         # without -ts uses it while the source, the -D values and the machine are these.\n\
         source {name} {}\nbase {}\ndefines {}\nmachine {}\nbest {}\nmeasured {rounds} rounds of {iterations} frames\n\
         # mean µs (the median of the rounds' means), the least and the most round, / the best\n",
        source_hash(text),
        base.join(" "),
        defines_of(base).join(" "),
        machine(cores),
        candidates[0].flags.join(" "),
    );
    for c in candidates.iter() {
        let (lo, hi) = c
            .means
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), &m| (l.min(m), h.max(m)));
        s += &format!(
            "candidate {:.1} {lo:.1} {hi:.1} {:.3} {}\n",
            c.median(),
            c.median() / best,
            c.flags.join(" ")
        );
    }
    s
}

/// The `-D NAME=VALUE` of build flags, sorted.
fn defines_of(flags: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = flags.iter();
    while let Some(f) = it.next() {
        if f == "-D" || f == "--define" {
            out.extend(it.next().cloned());
        } else if let Some(d) = f.strip_prefix("--define=").or_else(|| f.strip_prefix("-D")) {
            out.push(d.to_string());
        }
    }
    out.sort();
    out
}

/// The candidates of a tune file as a table for the terminal.
fn table(text: &str) -> String {
    let mut s = String::from("mean µs   rounds' range      × best  flags\n");
    for l in text.lines().filter_map(|l| l.strip_prefix("candidate ")) {
        let w: Vec<&str> = l.splitn(5, ' ').collect();
        if let [mean, lo, hi, ratio, flags] = w[..] {
            s += &format!("{mean:>8}  {lo:>8}–{hi:<8}  {ratio:>6}  {flags}\n");
        }
    }
    s
}

/// What `ssc build` does with a tune file: the flags to build with (said
/// on standard error), or `None` (and why, when a file is there).
pub(crate) fn lookup(a: &BuildArgs) -> Option<BuildArgs> {
    if a.thread_schedule.is_some() || a.strip_rows.is_some() || a.inline {
        return None;
    }
    let path = tune_path(&a.file);
    let tune = std::fs::read_to_string(&path).ok()?;
    let text = std::fs::read_to_string(&a.file).ok()?;
    let field = |key: &str| {
        tune.lines().find_map(|l| {
            l.strip_prefix(key)
                .map(|v| v.strip_prefix(' ').unwrap_or(v).to_string())
        })
    };
    let name = a.file.file_name()?.to_string_lossy().into_owned();
    let mut defines = a.defines.clone();
    defines.sort();
    let why_not = if field("source") != Some(format!("{name} {}", source_hash(&text))) {
        Some("the source changed since it was measured")
    } else if field("machine") != Some(machine(online_cpus())) {
        Some("it was measured on another machine")
    } else if field("defines").unwrap_or_default() != defines.join(" ") {
        Some("it was measured with other -D values")
    } else {
        None
    };
    if let Some(why) = why_not {
        eprintln!(
            "ssc build: {} is not used: {why} (run `ssc tune {}` again)",
            path.display(),
            a.file.display()
        );
        return None;
    }
    let best = field("best")?;
    let words: Vec<&str> = best.split_whitespace().collect();
    let mut tuned = a.clone();
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            "-ts" => {
                let kind = format!("{} {}", words.get(i + 1)?, words.get(i + 2)?);
                tuned.thread_schedule = Some(ThreadSchedule::Kind(
                    SchedulerKind::parse_words(&kind).ok()?,
                ));
                i += 3;
            }
            "--strip-rows" => {
                tuned.strip_rows = Some(words.get(i + 1)?.parse().ok()?);
                i += 2;
            }
            "--inline" => {
                tuned.inline = true;
                i += 1;
            }
            _ => return None,
        }
    }
    let measured = tune
        .lines()
        .find_map(|l| l.strip_prefix("candidate "))
        .and_then(|l| l.split(' ').next())
        .unwrap_or("?");
    eprintln!(
        "ssc build: using {} ({best}: {measured} µs measured on this machine)",
        path.display()
    );
    Some(tuned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(flags: &str, means: &[f64]) -> Candidate {
        Candidate {
            flags: flags.split(' ').map(String::from).collect(),
            exe: PathBuf::new(),
            means: means.to_vec(),
        }
    }

    /// The same measurements write the same bytes, fastest first, each
    /// candidate's figure the median of its rounds.
    #[test]
    fn a_tune_file_is_a_function_of_its_measurements() {
        let write = || {
            let mut c = vec![
                candidate("-ts reduced 2", &[300.0, 160.0, 170.0]),
                candidate("-ts fused 2 --inline", &[150.0, 149.0, 400.0]),
            ];
            tune_file(
                Path::new("chain.ssc"),
                "chain c {}",
                &["-D".into(), "W=64".into()],
                2,
                3,
                200,
                &mut c,
            )
        };
        let text = write();
        assert_eq!(text, write());
        assert!(text.contains("\nbest -ts fused 2 --inline\n"), "{text}");
        assert!(
            text.contains("\ncandidate 150.0 149.0 400.0 1.000 -ts fused 2 --inline\n"),
            "{text}"
        );
        assert!(
            text.contains("\ncandidate 170.0 160.0 300.0 1.133 -ts reduced 2\n"),
            "{text}"
        );
        assert!(text.contains("\ndefines W=64\n"), "{text}");
    }
}
