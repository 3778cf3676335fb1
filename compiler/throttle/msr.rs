//! The MSR actuator: duty-cycle modulation through `IA32_CLOCK_MODULATION`
//! (MSR 0x19A) of each best-effort CPU, written through `/dev/cpu/N/msr`
//! (seed 001's mechanism: slow a core down instead of stopping it).
//!
//! Suspending a core writes `enable (bit 4) | level << 1` (the core runs
//! `level`/8 of its cycles; `--duty`, default 1 = 12.5 %); resuming writes 0
//! (modulation off). It needs root, the `msr` kernel module and an Intel
//! CPU that is not virtualised; otherwise opening fails with the reason.

use super::actuator::{ActError, Actuator, OpenError, Rescue};
use std::os::unix::fs::FileExt;

/// IA32_CLOCK_MODULATION.
pub const MSR_CLOCK_MODULATION: u64 = 0x19a;

pub struct Msr {
    files: Vec<(usize, std::fs::File)>,
    level: u8,
}

/// The register value for `level` eighths (0 = modulation off).
pub fn value(level: u8) -> u64 {
    if level == 0 || level >= 8 {
        0
    } else {
        (1 << 4) | ((level as u64) << 1)
    }
}

/// Writes IA32_CLOCK_MODULATION of one CPU.
pub fn write(file: &std::fs::File, v: u64) -> std::io::Result<()> {
    file.write_all_at(&v.to_le_bytes(), MSR_CLOCK_MODULATION)
}

impl Msr {
    pub fn open(cpus: &[usize], level: u8) -> Result<Msr, OpenError> {
        if !(1..=7).contains(&level) {
            return Err(OpenError::Duty { level });
        }
        let mut files = Vec::new();
        for &cpu in cpus {
            let path = std::path::PathBuf::from(format!("/dev/cpu/{cpu}/msr"));
            let f = match std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
            {
                Ok(f) => f,
                Err(source) => return Err(OpenError::MsrFile { path, source }),
            };
            let mut buf = [0u8; 8];
            f.read_exact_at(&mut buf, MSR_CLOCK_MODULATION)
                .map_err(|source| OpenError::MsrRead { cpu, source })?;
            files.push((cpu, f));
        }
        Ok(Msr { files, level })
    }

    fn set(&self, core: usize, v: u64) -> Result<(), ActError> {
        let Some((_, f)) = self.files.iter().find(|(c, _)| *c == core) else {
            return Ok(());
        };
        write(f, v)
            .map_err(|e| ActError::Failed(format!("cannot write MSR 0x19a of cpu {core}: {e}")))
    }
}

impl Actuator for Msr {
    fn name(&self) -> String {
        format!("IA32_CLOCK_MODULATION at {}/8", self.level)
    }
    fn suspend(&mut self, core: usize) -> Result<(), ActError> {
        self.set(core, value(self.level))
    }
    fn resume(&mut self, core: usize) -> Result<(), ActError> {
        self.set(core, 0)
    }
    fn resume_all(&mut self) {
        for (_, f) in &self.files {
            let _ = write(f, 0);
        }
    }
    fn rescue(&self) -> Rescue {
        Rescue {
            msr_cpus: self.files.iter().map(|(c, _)| *c).collect(),
            ..Default::default()
        }
    }
}
