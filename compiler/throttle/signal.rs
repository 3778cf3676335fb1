//! The signal actuator: SIGSTOP / SIGCONT of the `--be-pid` processes.
//!
//! A core's suspension stops the processes that have a thread whose last
//! CPU (`/proc/PID/task/TID/stat`, field 39) is that core, and remembers
//! them; its resume continues exactly those. A process held by two cores
//! is continued when the last one resumes. A process that vanished is
//! dropped (one note on stderr); when none is left the monitor stops.

use super::actuator::{ActError, Actuator, OpenError, Rescue};
use std::collections::BTreeMap;

pub struct Signal {
    pids: Vec<i32>,
    /// Per core, the pids it stopped.
    held: BTreeMap<usize, Vec<i32>>,
    /// Per pid, how many cores hold it stopped.
    count: BTreeMap<i32, u32>,
    all: Vec<i32>,
}

/// The last CPU of every thread of `pid`; `None` when it vanished.
pub fn cpus_of(pid: i32) -> Option<Vec<usize>> {
    let dir = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut cpus = Vec::new();
    for t in dir.flatten() {
        if let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) {
            if let Some(cpu) = stat_field(&stat, 39).and_then(|f| f.parse().ok()) {
                cpus.push(cpu);
            }
        }
    }
    Some(cpus)
}

/// Field `n` (1-based, as in proc(5)) of a stat line; the command name may
/// contain spaces, so fields after it are counted from its closing `)`.
pub fn stat_field(stat: &str, n: usize) -> Option<&str> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(n.checked_sub(3)?)
}

fn kill(pid: i32, sig: i32) -> std::io::Result<()> {
    // SAFETY: kill(2) with a pid the user named; no memory involved.
    if unsafe { libc::kill(pid, sig) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

impl Signal {
    pub fn new(pids: Vec<i32>) -> Result<Signal, OpenError> {
        for &pid in &pids {
            if pid <= 0 {
                return Err(OpenError::NotAPid { pid });
            }
            if let Err(source) = kill(pid, 0) {
                return Err(OpenError::Pid { pid, source });
            }
        }
        Ok(Signal {
            all: pids.clone(),
            pids,
            held: BTreeMap::new(),
            count: BTreeMap::new(),
        })
    }

    fn vanished(&mut self, pid: i32) {
        eprintln!("ssc throttle: process {pid} vanished; no longer controlled");
        self.pids.retain(|&p| p != pid);
        self.count.remove(&pid);
        for v in self.held.values_mut() {
            v.retain(|&p| p != pid);
        }
    }

    fn gone(&self) -> Result<(), ActError> {
        if self.pids.is_empty() {
            Err(ActError::Gone("every --be-pid process has exited".into()))
        } else {
            Ok(())
        }
    }
}

impl Actuator for Signal {
    fn name(&self) -> String {
        format!("SIGSTOP/SIGCONT of {:?}", self.all)
    }

    fn suspend(&mut self, core: usize) -> Result<(), ActError> {
        let mut stopped = Vec::new();
        for pid in self.pids.clone() {
            match cpus_of(pid) {
                None => self.vanished(pid),
                Some(cpus) if cpus.contains(&core) => {
                    let n = self.count.entry(pid).or_insert(0);
                    if *n == 0 {
                        if let Err(e) = kill(pid, libc::SIGSTOP) {
                            if e.raw_os_error() == Some(libc::ESRCH) {
                                self.vanished(pid);
                                continue;
                            }
                            return Err(ActError::Failed(format!("SIGSTOP {pid}: {e}")));
                        }
                    }
                    *self.count.entry(pid).or_insert(0) += 1;
                    stopped.push(pid);
                }
                Some(_) => {}
            }
        }
        self.held.entry(core).or_default().extend(stopped);
        self.gone()
    }

    fn resume(&mut self, core: usize) -> Result<(), ActError> {
        for pid in self.held.remove(&core).unwrap_or_default() {
            let n = self.count.entry(pid).or_insert(1);
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.count.remove(&pid);
                if let Err(e) = kill(pid, libc::SIGCONT) {
                    if e.raw_os_error() == Some(libc::ESRCH) {
                        self.vanished(pid);
                        continue;
                    }
                    return Err(ActError::Failed(format!("SIGCONT {pid}: {e}")));
                }
            }
        }
        self.gone()
    }

    fn resume_all(&mut self) {
        for &pid in &self.all {
            let _ = kill(pid, libc::SIGCONT);
        }
        self.held.clear();
        self.count.clear();
    }

    fn rescue(&self) -> Rescue {
        Rescue {
            pids: self.all.clone(),
            ..Default::default()
        }
    }
}
