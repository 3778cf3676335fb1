//! The perf sensor: one hardware counter (or two: read and write) per
//! best-effort CPU through `perf_event_open(2)`, counting cache lines moved
//! between the private and the shared cache; lines × the line size
//! (`/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size`,
//! default 64) are bytes.
//!
//! The events depend on the CPU vendor (`/proc/cpuinfo`), as in the thesis
//! (§4.6.1, which used Nehalem's L2 transactions and L2 lines out):
//! - GenuineIntel: read `r07f1` (L2_LINES_IN.ALL), write `r0ff2`
//!   (L2_LINES_OUT, write-backs). Encodings vary between generations;
//!   check `perf list` and override.
//! - AuthenticAMD (Zen): read `r0964` (L2 misses of the core's demand and
//!   instruction fetches, i.e. fills from L3/memory); no write event.
//! - others: the kernel's generic `llc-load-misses` / `llc-store-misses`.
//!
//! `--event SPEC` (read only) or `--event read=SPEC,write=SPEC` overrides;
//! a SPEC is `rHEX` (raw), `llc-load-misses`, `llc-store-misses`,
//! `cache-misses` or `none`.

use super::sensor::{BoxedSensor, CoreSensor, Traffic};

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_TYPE_HW_CACHE: u32 = 3;
const PERF_TYPE_RAW: u32 = 4;

/// `struct perf_event_attr`, PERF_ATTR_SIZE_VER1 (72 bytes): the fields
/// this sensor sets; the kernel accepts the older, shorter layout.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    /// Bit 0 `disabled`, bit 6 `exclude_hv`, …
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
    config2: u64,
}

/// One event: perf type and config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: u32,
    pub config: u64,
}

/// Why the perf sensor cannot be used: a bad `--event`, or a counter the
/// kernel would not open (which event, on which CPU, and why).
#[derive(Debug, thiserror::Error)]
pub enum PerfError {
    #[error("bad raw event `{spec}`: expected rHEX")]
    BadRaw { spec: String },
    #[error("unknown event `{spec}`: expected rHEX, llc-load-misses, llc-store-misses, cache-misses or none")]
    UnknownEvent { spec: String },
    #[error("--event: unknown key `{key}` (read or write)")]
    UnknownKey { key: String },
    #[error("--event names no event (both none)")]
    NoEvent,
    #[error("perf_event_open({spec}, cpu {cpu}) on {vendor}: {source};{}", why(.source))]
    Open {
        spec: String,
        cpu: usize,
        vendor: String,
        source: std::io::Error,
    },
}

/// The likely reason of a failed `perf_event_open` (with its leading
/// space), or nothing.
fn why(err: &std::io::Error) -> &'static str {
    match err.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) => {
            " the CPU/kernel does not expose this hardware event (virtual machine?)"
        }
        Some(libc::EACCES) | Some(libc::EPERM) => {
            " not permitted (needs root or kernel.perf_event_paranoid <= 0)"
        }
        Some(libc::ENODEV) => " no such CPU",
        _ => "",
    }
}

/// Parses one event SPEC; `none` gives `None`.
pub fn parse_event(s: &str) -> Result<Option<Event>, PerfError> {
    let ll = |op: u64| Event {
        kind: PERF_TYPE_HW_CACHE,
        config: 2 | (op << 8) | (1 << 16),
    };
    match s {
        "none" => Ok(None),
        "llc-load-misses" => Ok(Some(ll(0))),
        "llc-store-misses" => Ok(Some(ll(1))),
        "cache-misses" => Ok(Some(Event {
            kind: PERF_TYPE_HARDWARE,
            config: 3,
        })),
        _ => match s.strip_prefix('r') {
            Some(hex) if !hex.is_empty() => u64::from_str_radix(hex, 16)
                .map(|config| {
                    Some(Event {
                        kind: PERF_TYPE_RAW,
                        config,
                    })
                })
                .map_err(|_| PerfError::BadRaw {
                    spec: s.to_string(),
                }),
            _ => Err(PerfError::UnknownEvent {
                spec: s.to_string(),
            }),
        },
    }
}

/// The (read, write) event specs: `--event`, else by vendor.
pub fn events_for(vendor: &str, event: Option<&str>) -> Result<(String, String), PerfError> {
    if let Some(e) = event {
        let mut read = None;
        let mut write = None;
        for part in e.split(',') {
            match part.split_once('=') {
                Some(("read", v)) => read = Some(v.to_string()),
                Some(("write", v)) => write = Some(v.to_string()),
                Some((k, _)) => return Err(PerfError::UnknownKey { key: k.to_string() }),
                None => read = Some(part.to_string()),
            }
        }
        return Ok((
            read.unwrap_or_else(|| "none".into()),
            write.unwrap_or_else(|| "none".into()),
        ));
    }
    Ok(match vendor {
        "GenuineIntel" => ("r07f1".into(), "r0ff2".into()),
        "AuthenticAMD" => ("r0964".into(), "none".into()),
        _ => ("llc-load-misses".into(), "llc-store-misses".into()),
    })
}

/// The `vendor_id` of /proc/cpuinfo ("unknown" when absent).
pub fn vendor() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("vendor_id"))
                .and_then(|l| l.split(':').nth(1))
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn line_size() -> u64 {
    std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(64)
}

/// An open counter; closed on drop.
struct Fd(i32);

impl Drop for Fd {
    fn drop(&mut self) {
        // SAFETY: the fd was returned by perf_event_open and is owned here.
        unsafe { libc::close(self.0) };
    }
}

fn open_counter(e: Event, cpu: usize) -> std::io::Result<Fd> {
    let attr = PerfEventAttr {
        kind: e.kind,
        size: std::mem::size_of::<PerfEventAttr>() as u32,
        config: e.config,
        flags: 1 << 6, // exclude_hv
        ..Default::default()
    };
    // SAFETY: attr is a valid perf_event_attr of the size it declares;
    // pid -1 + cpu N counts every task on that CPU.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const PerfEventAttr,
            -1 as libc::pid_t,
            cpu as libc::c_int,
            -1 as libc::c_int,
            0 as libc::c_ulong,
        )
    };
    if fd < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(Fd(fd as i32))
    }
}

fn read_counter(fd: &Fd) -> std::io::Result<u64> {
    let mut v: u64 = 0;
    // SAFETY: reads 8 bytes into v from a perf fd.
    let n = unsafe { libc::read(fd.0, &mut v as *mut u64 as *mut libc::c_void, 8) };
    if n != 8 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(v)
}

struct PerfCore {
    read: Option<Fd>,
    write: Option<Fd>,
    line: u64,
}

impl CoreSensor for PerfCore {
    fn read(&mut self) -> std::io::Result<Traffic> {
        let r = match &self.read {
            Some(fd) => read_counter(fd)?,
            None => 0,
        };
        let w = match &self.write {
            Some(fd) => read_counter(fd)?,
            None => 0,
        };
        Ok(Traffic {
            read_bytes: r * self.line,
            write_bytes: w * self.line,
        })
    }
}

/// Opens the counters on every core; the error says which event on which
/// CPU failed and why.
pub fn open(cores: &[usize], event: Option<&str>) -> Result<(String, Vec<BoxedSensor>), PerfError> {
    let vendor = vendor();
    let (rs, ws) = events_for(&vendor, event)?;
    let (re, we) = (parse_event(&rs)?, parse_event(&ws)?);
    if re.is_none() && we.is_none() {
        return Err(PerfError::NoEvent);
    }
    let line = line_size();
    let mut out: Vec<BoxedSensor> = Vec::new();
    for &cpu in cores {
        let open = |e: Option<Event>, s: &str| -> Result<Option<Fd>, PerfError> {
            e.map(|e| {
                open_counter(e, cpu).map_err(|source| PerfError::Open {
                    spec: s.to_string(),
                    cpu,
                    vendor: vendor.clone(),
                    source,
                })
            })
            .transpose()
        };
        out.push(Box::new(PerfCore {
            read: open(re, &rs)?,
            write: open(we, &ws)?,
            line,
        }));
    }
    Ok((
        format!("perf read={rs} write={ws} ({vendor}, {line}-byte lines)"),
        out,
    ))
}
