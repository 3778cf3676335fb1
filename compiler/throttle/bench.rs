//! `ssc throttle bench`: the thesis' Tables 4.1–4.3 on this machine. One
//! measured core reads, writes or mixes (half read, half written) a buffer
//! while hammer processes on the other cores do the same, with buffers
//! that fit in the cache or do not; alone, hammered, and hammered while
//! `ssc throttle` duty-cycles the hammers. It reports the measured core's
//! bandwidth and the degradation reduction (Table 4.3).
//!
//! The hammers are the ssc binary itself re-executed as the hidden
//! `ssc throttle hammer` (`hammer`); the throttled runs start a real
//! `ssc throttle` monitor on them (SIGSTOP/SIGCONT). The measured core's
//! bandwidth is bytes moved by the program over the measured thread's CPU
//! time: it needs no hardware counter, and time taken from the measured
//! thread by other load on a shared machine does not count.
//!
//! What needs counters: the throttle's *decision*. Without `--sensor perf`
//! (or resctrl) the monitor reads a replayed trace recorded from the
//! hammers' own byte counts in the hammered run; the trace is constant, so
//! every interval is above the threshold and the hammers run
//! `interval/(interval+suspend)` of the time (fixed duty). A hammer that is
//! always over the threshold gets the same from a hardware sensor; a
//! bursty real program would not.

use super::cpu;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How a core touches its buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    /// Half the buffer read and copied into the other half (50 % / 50 %).
    Mixed,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Mixed => "mixed",
        }
    }
    pub fn parse(s: &str) -> Result<Kind, String> {
        match s {
            "read" => Ok(Kind::Read),
            "write" => Ok(Kind::Write),
            "mixed" => Ok(Kind::Mixed),
            _ => Err(format!("`{s}` is not read, write or mixed")),
        }
    }
}

/// One pass over `buf`; returns the bytes the program read plus wrote.
#[inline(never)]
pub fn pass(kind: Kind, buf: &mut [u64], k: u64) -> u64 {
    let n = buf.len();
    match kind {
        Kind::Read => {
            // Eight independent sums so that the loop is bandwidth-bound.
            let mut acc = [0u64; 8];
            for c in buf.chunks_exact(8) {
                for (a, x) in acc.iter_mut().zip(c) {
                    *a = a.wrapping_add(*x);
                }
            }
            std::hint::black_box(acc);
        }
        Kind::Write => buf.fill(k),
        Kind::Mixed => {
            let (a, b) = buf.split_at_mut(n / 2);
            for (d, s) in b.iter_mut().zip(a.iter()) {
                *d = s.wrapping_add(k);
            }
        }
    }
    std::hint::black_box(&buf);
    (n as u64 / 2 * 2) * 8
}

/// A buffer of `bytes` (rounded down to 64), every page touched.
pub fn buffer(bytes: usize) -> Vec<u64> {
    (0..(bytes / 64 * 8).max(16) as u64).collect()
}

/// CPU time of the calling thread, seconds.
fn thread_cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: t is a valid timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// The measured core: `kind` over a `bytes` buffer for `seconds` of wall
/// time on `core`; bytes per second of the thread's CPU time.
pub fn measure(kind: Kind, bytes: usize, core: usize, seconds: f64, fifo: bool) -> f64 {
    std::thread::spawn(move || {
        if fifo {
            let _ = cpu::fifo(1);
        }
        let _ = cpu::pin(core);
        let mut buf = buffer(bytes);
        pass(kind, &mut buf, 1);
        let (w0, c0) = (Instant::now(), thread_cpu());
        let mut moved = 0u64;
        let mut k = 2;
        while w0.elapsed().as_secs_f64() < seconds {
            moved += pass(kind, &mut buf, k);
            k += 1;
        }
        moved as f64 / (thread_cpu() - c0).max(1e-9)
    })
    .join()
    .unwrap_or(0.0)
}

/// `ssc throttle hammer`: pinned to `core`, `kind` over a `bytes` buffer
/// until standard input closes (or 10 minutes pass); then prints
/// `bytes wall_seconds` on standard output. Prints `ready` once the buffer
/// is touched. `fifo`: SCHED_FIFO priority 1, below the monitor's sampling
/// threads, so that the hammer runs whenever it is not suspended whatever
/// else loads the machine (and a SIGSTOP takes effect at once).
pub fn hammer(kind: Kind, bytes: usize, core: usize, fifo: bool) -> i32 {
    if fifo {
        let _ = cpu::fifo(1);
    }
    let _ = cpu::pin(core);
    let mut buf = buffer(bytes);
    pass(kind, &mut buf, 1);
    let mut out = std::io::stdout();
    let _ = writeln!(out, "ready");
    let _ = out.flush();
    let t0 = Instant::now();
    let (mut moved, mut since, mut k) = (0u64, 0u64, 2u64);
    loop {
        let m = pass(kind, &mut buf, k);
        moved += m;
        since += m;
        k += 1;
        // Look at standard input every 4 MiB moved (a few µs of work).
        if since >= 4 << 20 {
            since = 0;
            if stdin_closed() || t0.elapsed() > Duration::from_secs(600) {
                break;
            }
        }
    }
    let _ = writeln!(out, "{moved} {}", t0.elapsed().as_secs_f64());
    let _ = out.flush();
    0
}

/// True when standard input is at end of file (or broken).
fn stdin_closed() -> bool {
    let mut p = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: p is one valid pollfd; timeout 0.
    let r = unsafe { libc::poll(&mut p, 1, 0) };
    if r <= 0 {
        return false;
    }
    if p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
        return true;
    }
    let mut b = [0u8; 64];
    matches!(std::io::stdin().read(&mut b), Ok(0) | Err(_))
}

/// The thesis' configurations that this machine can run (partitioned b and
/// d need cache allocation: Intel CAT through resctrl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// a) nothing fits in the cache.
    A,
    /// c) everyone's data fits in the cache.
    C,
    /// e) only the measured core's data fits; the hammers' does not.
    E,
}

impl Column {
    pub fn name(self) -> &'static str {
        match self {
            Column::A => "a",
            Column::C => "c",
            Column::E => "e",
        }
    }
    pub fn parse(s: &str) -> Result<Column, String> {
        match s {
            "a" => Ok(Column::A),
            "c" => Ok(Column::C),
            "e" => Ok(Column::E),
            "b" | "d" => Err(format!(
                "column {s} needs a partitioned cache (Intel CAT through resctrl), not available to ssc throttle bench"
            )),
            _ => Err(format!("`{s}` is not a column (a, c or e)")),
        }
    }
    /// (measured buffer, hammer buffer).
    fn sizes(self, fit: usize, nofit: usize) -> (usize, usize) {
        match self {
            Column::A => (nofit, nofit),
            Column::C => (fit, fit),
            Column::E => (fit, nofit),
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Plan {
    pub measured_core: usize,
    pub hammer_cores: Vec<usize>,
    pub kinds: Vec<Kind>,
    pub columns: Vec<Column>,
    pub fit: usize,
    pub nofit: usize,
    pub seconds: f64,
    pub reps: usize,
    pub interval_us: u64,
    pub suspend_us: u64,
    pub threshold: String,
    /// `None`: a replayed trace of the hammers' own byte counts.
    pub sensor: Option<String>,
    pub fifo: bool,
    /// The ssc executable (hammers and the monitor).
    pub exe: PathBuf,
    pub scratch: PathBuf,
}

/// One cell of the table: medians over the repetitions.
#[derive(Clone, Debug, Default)]
pub struct Cell {
    pub kind: &'static str,
    pub column: &'static str,
    pub alone: f64,
    pub hammered: f64,
    pub throttled: f64,
    /// The hammers' total bandwidth (their own byte counts over wall time).
    pub hammer_hammered: f64,
    pub hammer_throttled: f64,
    /// The fraction of the time the monitor kept the hammers suspended.
    pub suspended: f64,
}

impl Cell {
    /// Degradation of the measured core (fraction of its alone bandwidth).
    pub fn degradation(&self, bw: f64) -> f64 {
        if self.alone > 0.0 {
            (1.0 - bw / self.alone).max(0.0)
        } else {
            0.0
        }
    }
    /// The thesis' Table 4.3: how much of the degradation throttling removed.
    pub fn reduction(&self) -> Option<f64> {
        let (h, t) = (
            self.degradation(self.hammered),
            self.degradation(self.throttled),
        );
        (h > 0.02).then(|| (h - t) / h)
    }
}

/// Why the bench stopped: a process it starts (a hammer, the monitor)
/// could not be started or failed, or the replayed trace could not be
/// written.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("no hammer core: the machine needs at least two online cores")]
    NoHammerCore,
    #[error("cannot start a hammer ({}): {source}", .exe.display())]
    StartHammer {
        exe: PathBuf,
        source: std::io::Error,
    },
    /// A hammer's first line was not `ready`.
    #[error("a hammer did not start: {line:?}")]
    HammerNotReady { line: String },
    #[error("{}: {source}", .path.display())]
    WriteTrace {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start ssc throttle: {0}")]
    StartMonitor(#[source] std::io::Error),
    #[error("ssc throttle: {0}")]
    WaitMonitor(#[source] std::io::Error),
    /// The monitor's exit status, standard output and standard error.
    #[error("ssc throttle failed ({status}): {stdout}{stderr}")]
    MonitorFailed {
        status: ExitStatus,
        stdout: String,
        stderr: String,
    },
}

struct Hammers {
    kids: Vec<(Child, Option<ChildStdin>)>,
}

impl Hammers {
    fn start(p: &Plan, kind: Kind, bytes: usize) -> Result<Hammers, BenchError> {
        let mut h = Hammers { kids: Vec::new() };
        for &core in &p.hammer_cores {
            let mut c = Command::new(&p.exe)
                .args(["throttle", "hammer", "--kind", kind.name()])
                .args(["--bytes", &bytes.to_string(), "--core", &core.to_string()])
                .args(p.fifo.then_some("--fifo"))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .map_err(|source| BenchError::StartHammer {
                    exe: p.exe.clone(),
                    source,
                })?;
            let stdin = c.stdin.take();
            let mut line = String::new();
            let ok = c
                .stdout
                .as_mut()
                .map(|o| BufReader::new(o).read_line(&mut line).is_ok())
                .unwrap_or(false);
            h.kids.push((c, stdin));
            if !ok || line.trim() != "ready" {
                return Err(BenchError::HammerNotReady { line });
            }
        }
        Ok(h)
    }
    fn pids(&self) -> Vec<i32> {
        self.kids.iter().map(|(c, _)| c.id() as i32).collect()
    }
    /// Closes their standard input; their total bandwidth (bytes/s).
    fn finish(mut self) -> f64 {
        let mut total = 0.0;
        for (c, stdin) in &mut self.kids {
            // SAFETY: our own child; it may have been left stopped.
            unsafe { libc::kill(c.id() as i32, libc::SIGCONT) };
            drop(stdin.take());
            let mut s = String::new();
            if let Some(o) = c.stdout.as_mut() {
                let _ = o.read_to_string(&mut s);
            }
            let _ = c.wait();
            let f: Vec<f64> = s
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if let [b, t] = f[..] {
                total += b / t.max(1e-9);
            }
        }
        self.kids.clear();
        total
    }
}

impl Drop for Hammers {
    fn drop(&mut self) {
        for (c, _) in &mut self.kids {
            // SAFETY: our own child.
            unsafe { libc::kill(c.id() as i32, libc::SIGCONT) };
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A replay trace that keeps every hammer core at `rate` bytes/s (split
/// into read and write as the kind does).
fn trace(path: &Path, cores: &[usize], kind: Kind, rate: f64) -> Result<(), BenchError> {
    let per_ms = (rate / 1000.0 / cores.len().max(1) as f64).max(1.0) as u64;
    let (r, w) = match kind {
        Kind::Read => (per_ms, 0),
        Kind::Write => (0, per_ms),
        Kind::Mixed => (per_ms / 2, per_ms / 2),
    };
    let mut s = String::from(
        "# ssc throttle bench: the hammers' own byte counts in the hammered run\nt_us,core,read_bytes,write_bytes\n",
    );
    for c in cores {
        s += &format!("1000,{c},{r},{w}\n");
    }
    std::fs::write(path, s).map_err(|source| BenchError::WriteTrace {
        path: path.to_path_buf(),
        source,
    })
}

/// Runs one (kind, column) repetition: alone, hammered, throttled.
fn once(p: &Plan, kind: Kind, col: Column) -> Result<[f64; 6], BenchError> {
    let (mine, theirs) = col.sizes(p.fit, p.nofit);
    let alone = measure(kind, mine, p.measured_core, p.seconds, p.fifo);

    let h = Hammers::start(p, kind, theirs)?;
    let hammered = measure(kind, mine, p.measured_core, p.seconds, p.fifo);
    let hammer_rate = h.finish();

    let h = Hammers::start(p, kind, theirs)?;
    let trace_file = p
        .scratch
        .join(format!("ssc-throttle-bench-{}.csv", std::process::id()));
    let sensor = match &p.sensor {
        Some(s) => s.clone(),
        None => {
            trace(&trace_file, &p.hammer_cores, kind, hammer_rate.max(1e9))?;
            format!("replay:{}", trace_file.display())
        }
    };
    let cores = |v: &[usize]| {
        v.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let pids = h
        .pids()
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let mon = Command::new(&p.exe)
        .args(["throttle", "--sensor", &sensor, "--be-pid", &pids])
        .args(["--rt-cores", &p.measured_core.to_string()])
        .args(["--be-cores", &cores(&p.hammer_cores)])
        .args(["--threshold", &p.threshold])
        .args(["--interval-us", &p.interval_us.to_string()])
        .args(["--suspend-us", &p.suspend_us.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(BenchError::StartMonitor)?;
    // Let it open the sensor and start its threads.
    std::thread::sleep(Duration::from_millis(150));
    let throttled = measure(kind, mine, p.measured_core, p.seconds, p.fifo);
    // SAFETY: our own child.
    unsafe { libc::kill(mon.id() as i32, libc::SIGTERM) };
    let out = mon.wait_with_output().map_err(BenchError::WaitMonitor)?;
    let hammer_throttled = h.finish();
    let _ = std::fs::remove_file(&trace_file);
    let text = String::from_utf8_lossy(&out.stdout);
    if out.status.code() != Some(0) {
        return Err(BenchError::MonitorFailed {
            status: out.status,
            stdout: text.into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    // "core N: … suspended X % of …": the mean over the hammer cores.
    let sus: Vec<f64> = text
        .lines()
        .filter_map(|l| {
            l.split_once("suspended ")?
                .1
                .split_once(" %")?
                .0
                .parse()
                .ok()
        })
        .collect();
    let suspended = sus.iter().sum::<f64>() / sus.len().max(1) as f64 / 100.0;
    Ok([
        alone,
        hammered,
        throttled,
        hammer_rate,
        hammer_throttled,
        suspended,
    ])
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Runs the whole plan; `progress` sees each finished cell.
pub fn run(p: &Plan, mut progress: impl FnMut(&Cell)) -> Result<Vec<Cell>, BenchError> {
    if p.hammer_cores.is_empty() {
        return Err(BenchError::NoHammerCore);
    }
    let mut cells = Vec::new();
    for &kind in &p.kinds {
        for &col in &p.columns {
            let mut reps: Vec<[f64; 6]> = Vec::new();
            for _ in 0..p.reps.max(1) {
                reps.push(once(p, kind, col)?);
            }
            let m = |i: usize| median(reps.iter().map(|r| r[i]).collect());
            let cell = Cell {
                kind: kind.name(),
                column: col.name(),
                alone: m(0),
                hammered: m(1),
                throttled: m(2),
                hammer_hammered: m(3),
                hammer_throttled: m(4),
                suspended: m(5),
            };
            progress(&cell);
            cells.push(cell);
        }
    }
    Ok(cells)
}

/// The table as Markdown.
pub fn table(cells: &[Cell]) -> String {
    let mut s = String::from(
        "| access | col | alone GB/s | hammered GB/s | degr. | throttled GB/s | degr. | reduction | hammers GB/s (hammered → throttled) | hammers suspended |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for c in cells {
        let red = c
            .reduction()
            .map_or("–".to_string(), |r| format!("{:.0} %", 100.0 * r));
        s += &format!(
            "| {} | {} | {:.1} | {:.1} | {:.0} % | {:.1} | {:.0} % | {} | {:.1} → {:.1} | {:.0} % |\n",
            c.kind,
            c.column,
            c.alone / 1e9,
            c.hammered / 1e9,
            100.0 * c.degradation(c.hammered),
            c.throttled / 1e9,
            100.0 * c.degradation(c.throttled),
            red,
            c.hammer_hammered / 1e9,
            c.hammer_throttled / 1e9,
            100.0 * c.suspended
        );
    }
    s
}
