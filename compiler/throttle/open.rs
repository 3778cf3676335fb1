//! Choosing and opening what the throttler works with: the bandwidth
//! sensor (`--sensor`: perf, resctrl, a replayed trace) and the actuator
//! (`--actuator`: freeze, signal, msr). Takes the command line's choice;
//! gives the opened implementations of the `sensor` and `actuator` traits,
//! or every attempt and why it failed.

use super::actuator::{Actuator, ActuatorKind, OpenError, Target};
use super::replay::{ReplaySensor, Trace};
use super::sensor::{BoxedSensor, SensorError, SensorSpec};
use super::{freeze::Freeze, msr::Msr, signal::Signal};
use std::sync::Arc;
use std::time::Instant;

/// The opened sensor: one counter per core, plus what it is.
pub struct Opened {
    pub name: String,
    pub sensors: Vec<BoxedSensor>,
    /// The replayed trace, when replaying (its maximum is the `N%` base).
    pub trace: Option<Arc<Trace>>,
}

/// Opens the sensor for these cores. `event` is `--event` (perf only).
pub fn sensor(
    spec: &SensorSpec,
    cores: &[usize],
    event: Option<&str>,
    start: Instant,
) -> Result<Opened, SensorError> {
    let mut attempts = Vec::new();
    let try_perf = matches!(spec, SensorSpec::Auto | SensorSpec::Perf);
    let try_resctrl = matches!(spec, SensorSpec::Auto | SensorSpec::Resctrl);
    if let SensorSpec::Replay(path) = spec {
        return match Trace::load(path) {
            Ok(trace) => {
                let trace = Arc::new(trace);
                Ok(Opened {
                    name: format!("replay:{}", path.display()),
                    sensors: cores
                        .iter()
                        .map(|&c| {
                            Box::new(ReplaySensor::new(trace.clone(), c, start)) as BoxedSensor
                        })
                        .collect(),
                    trace: Some(trace),
                })
            }
            Err(e) => Err(SensorError {
                attempts: vec![(format!("replay:{}", path.display()), e.into())],
            }),
        };
    }
    if try_perf {
        match super::perf::open(cores, event) {
            Ok((name, sensors)) => {
                return Ok(Opened {
                    name,
                    sensors,
                    trace: None,
                })
            }
            Err(e) => attempts.push(("perf hardware events".to_string(), e.into())),
        }
    }
    if try_resctrl {
        match super::resctrl::open(cores) {
            Ok(sensors) => {
                return Ok(Opened {
                    name: "resctrl MBM".into(),
                    sensors,
                    trace: None,
                })
            }
            Err(e) => attempts.push(("resctrl memory-bandwidth monitoring".to_string(), e.into())),
        }
    }
    Err(SensorError { attempts })
}

/// Builds the actuator; `duty` is the MSR level (1..=7 eighths).
pub fn actuator(
    kind: ActuatorKind,
    target: &Target,
    be_cores: &[usize],
    duty: u8,
) -> Result<Box<dyn Actuator>, OpenError> {
    match (kind, target) {
        (ActuatorKind::Freeze, Target::Cgroup(p)) => Ok(Box::new(Freeze::open(p)?)),
        (ActuatorKind::Signal, Target::Pids(p)) => Ok(Box::new(Signal::new(p.clone())?)),
        (ActuatorKind::Msr, _) => Ok(Box::new(Msr::open(be_cores, duty)?)),
        (ActuatorKind::Freeze, _) => Err(OpenError::FreezeNeedsCgroup),
        (ActuatorKind::Signal, _) => Err(OpenError::SignalNeedsPids),
    }
}
