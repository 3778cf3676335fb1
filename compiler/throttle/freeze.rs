//! The freeze actuator: cgroup v2 `cgroup.freeze` of `--be-cgroup PATH`.
//!
//! One cgroup holds all best-effort work, so it is frozen while at least
//! one best-effort core is suspended and thawed when the last one resumes
//! (for per-core control, run one `ssc throttle` per core with one cgroup
//! each, pinned with `cpuset.cpus`). A removed cgroup stops the monitor.

use super::actuator::{ActError, Actuator, OpenError, Rescue};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub struct Freeze {
    file: PathBuf,
    holders: BTreeSet<usize>,
}

fn write(file: &Path, v: &str) -> Result<(), ActError> {
    std::fs::write(file, v).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            ActError::Gone(format!("{} was removed", file.display()))
        } else {
            ActError::Failed(format!("cannot write {}: {e}", file.display()))
        }
    })
}

impl Freeze {
    /// Checks that `dir` is a cgroup v2 directory with a writable `cgroup.freeze`.
    pub fn open(dir: &Path) -> Result<Freeze, OpenError> {
        let file = dir.join("cgroup.freeze");
        if !dir.is_dir() {
            return Err(OpenError::NoCgroup {
                dir: dir.to_path_buf(),
            });
        }
        if !file.exists() {
            return Err(OpenError::NoFreezeFile {
                dir: dir.to_path_buf(),
            });
        }
        if let Err(source) = std::fs::OpenOptions::new().write(true).open(&file) {
            return Err(OpenError::FreezeFile { file, source });
        }
        Ok(Freeze {
            file,
            holders: BTreeSet::new(),
        })
    }
}

impl Actuator for Freeze {
    fn name(&self) -> String {
        format!("cgroup freeze of {}", self.file.display())
    }

    fn suspend(&mut self, core: usize) -> Result<(), ActError> {
        if self.holders.is_empty() {
            write(&self.file, "1")?;
        }
        self.holders.insert(core);
        Ok(())
    }

    fn resume(&mut self, core: usize) -> Result<(), ActError> {
        if self.holders.remove(&core) && self.holders.is_empty() {
            write(&self.file, "0")?;
        }
        Ok(())
    }

    fn resume_all(&mut self) {
        let _ = std::fs::write(&self.file, "0");
        self.holders.clear();
    }

    fn rescue(&self) -> Rescue {
        Rescue {
            freeze_files: vec![self.file.clone()],
            ..Default::default()
        }
    }
}
