//! The timing table of a description (docs/language.md).
//!
//! Takes the runtime section's `timing` and `timing_system` statements (or
//! nothing); gives a [`Timing`]: the µs each C function takes for its full
//! resolution, and the cost of one wait and one signal. Guarantees: a
//! function with no entry costs 1 µs; without `timing_system` the costs are
//! [`SystemTiming::default`]; the table may name functions no description
//! uses. Iteration order is by name (a `BTreeMap`), so it is deterministic.

use super::hsdfg::SystemTiming;
use crate::ir::Runtime;
use std::collections::BTreeMap;

/// µs per C function (full resolution) and the synchronisation costs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timing {
    pub functions: BTreeMap<String, f64>,
    pub system: SystemTiming,
}

impl Timing {
    /// The table of a runtime section, or the defaults when there is none.
    pub fn from_runtime(rt: Option<&Runtime>) -> Timing {
        let mut t = Timing::default();
        if let Some(rt) = rt {
            for e in &rt.timing {
                t.functions.insert(e.name.name.clone(), e.time.value);
            }
            for e in &rt.timing_system {
                match e.name.name.as_str() {
                    "wt" => t.system.wait = e.time.value,
                    "sg" => t.system.signal = e.time.value,
                    _ => {}
                }
            }
        }
        t
    }

    /// µs of one full-resolution run of C function `func` (1 when unknown).
    pub fn get(&self, func: &str) -> f64 {
        self.functions.get(func).copied().unwrap_or(1.0)
    }

    /// Builder: sets the time of one function.
    pub fn with(mut self, func: &str, t: f64) -> Timing {
        self.functions.insert(func.to_string(), t);
        self
    }
}
