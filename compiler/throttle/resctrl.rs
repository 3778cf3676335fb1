//! The resctrl sensor: Intel RDT / AMD PQoS memory-bandwidth monitoring
//! (MBM) through `/sys/fs/resctrl`.
//!
//! For each best-effort CPU N a monitoring group
//! `/sys/fs/resctrl/mon_groups/ssc-throttle-cpuN` with `cpus_list` = N
//! is created (removed again on drop); its
//! `mon_data/mon_L3_*/mbm_total_bytes`, summed over L3 domains, is the
//! traffic between that CPU's tasks and memory. MBM counts reads and
//! writes together, so the total is reported as read traffic (write 0):
//! the threshold then bounds the total.

use super::sensor::{BoxedSensor, CoreSensor, Traffic};
use std::path::{Path, PathBuf};

const ROOT: &str = "/sys/fs/resctrl";

struct MbmCore {
    group: PathBuf,
    files: Vec<PathBuf>,
}

impl Drop for MbmCore {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.group);
    }
}

impl CoreSensor for MbmCore {
    fn read(&mut self) -> std::io::Result<Traffic> {
        let mut total = 0u64;
        for f in &self.files {
            let s = std::fs::read_to_string(f)?;
            // "Unavailable" while the counter is not yet valid.
            total += s.trim().parse::<u64>().unwrap_or(0);
        }
        Ok(Traffic {
            read_bytes: total,
            write_bytes: 0,
        })
    }
}

/// Why the resctrl sensor cannot be used: what is missing, or which file
/// of a monitoring group could not be made, written or read.
#[derive(Debug, thiserror::Error)]
pub enum ResctrlError {
    #[error("{ROOT} is not mounted (mount -t resctrl resctrl {ROOT}; needs RDT/PQoS monitoring)", ROOT = ROOT)]
    NotMounted,
    #[error("{ROOT}/info/L3_MON/mon_features: {0} (no L3 monitoring)", ROOT = ROOT)]
    NoL3Monitoring(#[source] std::io::Error),
    #[error("the CPU does not support mbm_total_bytes")]
    NoMbmTotal,
    #[error("cannot create {}: {source}", .group.display())]
    CreateGroup {
        group: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}/cpus_list: {source}", .group.display())]
    WriteCpus {
        group: PathBuf,
        source: std::io::Error,
    },
    #[error("{}/mon_data: {source}", .group.display())]
    MonData {
        group: PathBuf,
        source: std::io::Error,
    },
    #[error("no mbm_total_bytes under {}/mon_data", .group.display())]
    NoCounter { group: PathBuf },
}

/// Opens one monitoring group per core; the error says what is missing.
pub fn open(cores: &[usize]) -> Result<Vec<BoxedSensor>, ResctrlError> {
    let root = Path::new(ROOT);
    if !root.join("info").exists() {
        return Err(ResctrlError::NotMounted);
    }
    let features = std::fs::read_to_string(root.join("info/L3_MON/mon_features"))
        .map_err(ResctrlError::NoL3Monitoring)?;
    if !features.lines().any(|l| l.trim() == "mbm_total_bytes") {
        return Err(ResctrlError::NoMbmTotal);
    }
    let mut out: Vec<BoxedSensor> = Vec::new();
    for &core in cores {
        let group = root.join(format!("mon_groups/ssc-throttle-cpu{core}"));
        if !group.exists() {
            std::fs::create_dir(&group).map_err(|source| ResctrlError::CreateGroup {
                group: group.clone(),
                source,
            })?;
        }
        let sensor = MbmCore {
            group: group.clone(),
            files: Vec::new(),
        };
        std::fs::write(group.join("cpus_list"), format!("{core}\n")).map_err(|source| {
            ResctrlError::WriteCpus {
                group: group.clone(),
                source,
            }
        })?;
        let mut files = Vec::new();
        let dir =
            std::fs::read_dir(group.join("mon_data")).map_err(|source| ResctrlError::MonData {
                group: group.clone(),
                source,
            })?;
        for d in dir.flatten() {
            let f = d.path().join("mbm_total_bytes");
            if f.exists() {
                files.push(f);
            }
        }
        if files.is_empty() {
            return Err(ResctrlError::NoCounter { group });
        }
        let mut sensor = sensor;
        sensor.files = files;
        out.push(Box::new(sensor));
    }
    Ok(out)
}
