//! The "measured maximum" of a `--threshold N%` with a hardware sensor: a
//! thread pinned to the first best-effort core streams through a 64 MiB
//! buffer (larger than any last-level cache this tool targets) for 300 ms,
//! writing and reading it, while that core's sensor is read before and
//! after; the higher of read and write bandwidth is the maximum. Under
//! `replay:FILE` the maximum is the trace's highest rate instead.

use super::sensor::CoreSensor;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The highest read or write bandwidth (bytes/s) one core reached.
pub fn measure(sensor: &mut dyn CoreSensor, core: usize) -> std::io::Result<f64> {
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let worker = std::thread::spawn(move || {
        let _ = super::cpu::pin(core);
        let mut buf = vec![0u8; 64 << 20];
        let mut sum = 0u64;
        let mut pass = 0u8;
        while !s2.load(Ordering::Relaxed) {
            pass = pass.wrapping_add(1);
            buf.fill(pass);
            sum = buf
                .iter()
                .step_by(64)
                .fold(sum, |a, &b| a.wrapping_add(b as u64));
        }
        std::hint::black_box(sum);
    });
    std::thread::sleep(Duration::from_millis(20));
    let t0 = Instant::now();
    let a = sensor.read()?;
    std::thread::sleep(Duration::from_millis(300));
    let b = sensor.read()?;
    let dt = t0.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let _ = worker.join();
    let r = b.read_bytes.saturating_sub(a.read_bytes) as f64 / dt;
    let w = b.write_bytes.saturating_sub(a.write_bytes) as f64 / dt;
    Ok(r.max(w))
}
