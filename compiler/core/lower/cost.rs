//! The cost model of the built-in kernels: what a function instance with
//! no `timing` entry costs (docs/language.md, "runtime").
//!
//! Takes a built-in (or a variant of one), the element type of its ports,
//! its resolution (the iteration space) and its input window; gives µs of
//! one whole run:
//!
//! ```text
//! t = (call + points · type(T) · (point(K) + taps · tap)) / 1000
//! ```
//!
//! with `points = w · h`, `taps = wx · wy` the window (`func_conv` only; its
//! `point` is the cost of a 0-tap window) and the coefficients in ns: a
//! fixed cost per call, a cost per point per built-in for `float` (what
//! `mul` and the port count of a built-in make it read and write is part
//! of it: a built-in's shape is fixed, E031), a cost per window tap, and a
//! factor per element type (`float` = 1). The coefficients are per machine:
//! measured by `ssc calibrate` (`ssc_cli::calibrate`) and cached per CPU
//! model, else [`Coefficients::shipped`]. Guarantees: every coefficient is
//! finite and positive ([`Coefficients::validate`]), so the cost grows
//! strictly with the points and with the window; user kernels (not
//! built-ins) have no model ([`Coefficients::cost`] gives `None`).
//!
//! A defined function (`function_definition`) is priced by what a point
//! of it writes and computes ([`Work`]):
//!
//! ```text
//! t = (call + points · (writes · write + elements · Σ_k count_k · cost_k)) / 1000
//! ```
//!
//! over the kinds k of [`Operations`] (arithmetic, conversions, window
//! taps, a median's compare-exchanges, a mean's block elements, `linear`),
//! each cost fitted on a defined function that uses that kind
//! (`ssc_cli::calibrate::DEFINED`).
//!
//! The same calibration measures the run-time synchronisation: `signal`,
//! a post nobody waits for, and `wait`, the rest of the one-way latency of
//! a wait/signal pair between two cores (post until the waiter returns,
//! the runtime's default spin bound), both in whole ns, and `transfer`,
//! what reading a KiB another core just wrote costs more than reading one
//! this core wrote (ns per KiB, tenths). They are what a description
//! without `timing_system` costs ([`Coefficients::system`]): the list
//! schedulers' price of reading another thread's output and `-pr`'s wait,
//! signal and transfer costs.

use crate::ir::builtins::{builtin_of, BUILTINS};
use crate::ir::hsdfg::SystemTiming;
use crate::ir::{Definition, Direction, ElemType, Operations, Pair, Port};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The element types, in the order of [`Coefficients::types`].
pub const TYPES: [ElemType; 8] = ElemType::ALL;

/// The per-machine coefficients of the model, ns (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefficients {
    /// Fixed cost of one call.
    pub call: f64,
    /// Per point of the iteration space, per built-in (order of
    /// [`BUILTINS`]), for `float`.
    pub point: [f64; 11],
    /// `func_conv`: per window element per point, for `float`.
    pub tap: f64,
    /// Factor per element type (order of [`TYPES`]), `float` = 1.
    pub types: [f64; 8],
    /// A defined function: per output element written, for a 4-byte
    /// element (others in proportion to their size).
    pub write: f64,
    /// A defined function, per use in an output element of each kind of
    /// [`Operations`]: arithmetic, a conversion, a window tap, a median's
    /// compare-exchange, a mean's block element, a `linear`.
    pub arith: f64,
    pub convert: f64,
    pub stencil_tap: f64,
    pub exchange: f64,
    pub block: f64,
    pub linear: f64,
    /// One wait on a signal another core posts, whole ns.
    pub wait: f64,
    /// One post of a signal, whole ns.
    pub signal: f64,
    /// Per KiB read of another core's output, ns (tenths; may be 0).
    pub transfer: f64,
}

/// The serialised form: names instead of positions, so a file from
/// another version (a built-in more or less) is refused, never misread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    pub call_ns: f64,
    pub point_ns: BTreeMap<String, f64>,
    pub tap_ns: f64,
    pub type_factor: BTreeMap<String, f64>,
    pub write_ns: f64,
    pub arith_ns: f64,
    pub convert_ns: f64,
    pub stencil_tap_ns: f64,
    pub exchange_ns: f64,
    pub block_ns: f64,
    pub linear_ns: f64,
    pub wait_ns: f64,
    pub signal_ns: f64,
    pub transfer_ns_per_kib: f64,
}

/// What one point of a defined function writes and computes: the measure
/// [`Coefficients::defined_cost`] prices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    /// Output elements a point writes, each weighted by its size over a
    /// `float`'s.
    pub writes: f64,
    /// Output elements of each output port a point computes (`mul`).
    pub elements: f64,
    /// What each output element computes ([`Definition::operations`]).
    pub ops: Operations,
}

impl Work {
    /// The work of `def`, a definition of the function with `ports`.
    pub fn of(def: &Definition, ports: &[Port]) -> Work {
        let outputs = ports.iter().filter(|p| p.direction == Direction::Out);
        Work {
            writes: outputs
                .clone()
                .map(|p| (p.mul.value.x * p.mul.value.y * p.ty.size()) as f64 / 4.0)
                .sum(),
            elements: outputs
                .map(|p| (p.mul.value.x * p.mul.value.y) as f64)
                .next()
                .unwrap_or(1.0),
            ops: def.operations(ports),
        }
    }
}

impl Coefficients {
    /// The defaults shipped with ssc, for a machine never calibrated:
    /// `ssc calibrate` on the development machine (an AMD EPYC server
    /// core, `-O3 -march=native`), the median of five runs, rounded.
    pub fn shipped() -> Coefficients {
        Coefficients {
            call: 58.0,
            //      source  sink  gain  copy   dup  plus   mul   avg  conv  down    up
            point: [
                0.428, 0.463, 0.182, 0.174, 0.334, 0.158, 0.154, 0.152, 0.255, 0.901, 0.472,
            ],
            tap: 0.0396,
            //      char uchar short ushort  int  uint float double
            types: [2.92, 0.61, 2.33, 0.92, 5.21, 2.11, 1.0, 1.85],
            // Defined functions (`calibrate::DEFINED`).
            write: 0.132,
            arith: 0.0052,
            convert: 0.084,
            stencil_tap: 0.0284,
            exchange: 0.0335,
            block: 0.188,
            linear: 0.508,
            // A wait/signal pair's one-way latency there: 55–60 ns, a
            // post 5–13 ns (`runtime-c/README.md`, "Measured costs").
            wait: 50.0,
            signal: 5.0,
            // Reading 64–256 KiB another core wrote: 2–5 ns a KiB more
            // than reading it from this core's cache.
            transfer: 3.0,
        }
    }

    /// The synchronisation costs of the model, µs (`timing_system`'s unit).
    pub fn system(&self) -> SystemTiming {
        SystemTiming {
            wait: self.wait / 1000.0,
            signal: self.signal / 1000.0,
            transfer: self.transfer / 1000.0,
        }
    }

    /// µs of one whole run of `function` (a built-in or a variant) at
    /// `resolution` with ports of type `ty` and an input window `window`;
    /// `None` for a function that is no built-in.
    pub fn cost(
        &self,
        function: &str,
        ty: ElemType,
        resolution: Pair,
        window: Pair,
    ) -> Option<f64> {
        let builtin = builtin_of(function)?;
        let k = BUILTINS.iter().position(|b| *b == builtin)?;
        let t = TYPES.iter().position(|x| *x == ty).unwrap_or(6);
        let points = resolution.x as f64 * resolution.y as f64;
        let taps = if builtin == "func_conv" {
            window.x as f64 * window.y as f64
        } else {
            0.0
        };
        let ns = self.call + points * self.types[t] * (self.point[k] + taps * self.tap);
        Some(ns / 1000.0)
    }

    /// µs of one whole run of a defined function (`function_definition`)
    /// doing `work` per point at `resolution`: a cost per element written
    /// and one per use of each kind of operation, measured on defined
    /// functions (the loops are generated and vectorised; E503 does not
    /// apply).
    pub fn defined_cost(&self, work: Work, resolution: Pair) -> f64 {
        let points = resolution.x as f64 * resolution.y as f64;
        let o = work.ops;
        let per_element = o.arith as f64 * self.arith
            + o.convert as f64 * self.convert
            + o.taps as f64 * self.stencil_tap
            + o.exchanges as f64 * self.exchange
            + o.block as f64 * self.block
            + o.linear as f64 * self.linear;
        let ns = self.call + points * (work.writes * self.write + work.elements * per_element);
        ns / 1000.0
    }

    /// The defined functions' coefficients by name, in the order of the
    /// serialised form.
    pub fn defined(&self) -> [(&'static str, f64); 7] {
        [
            ("write_ns", self.write),
            ("arith_ns", self.arith),
            ("convert_ns", self.convert),
            ("stencil_tap_ns", self.stencil_tap),
            ("exchange_ns", self.exchange),
            ("block_ns", self.block),
            ("linear_ns", self.linear),
        ]
    }

    /// Every coefficient finite and positive, and no more than a second per
    /// point (a measurement that went wrong); the first bad one otherwise.
    pub fn validate(&self) -> Result<(), CoefficientError> {
        let ok = |v: f64| v.is_finite() && v > 0.0 && v < 1e9;
        let time = |name: &'static str, value: f64| CoefficientError::NotATime { name, value };
        if !ok(self.call) {
            return Err(time("call_ns", self.call));
        }
        for (name, v) in std::iter::once(("tap_ns", self.tap)).chain(self.defined()) {
            if !ok(v) {
                return Err(time(name, v));
            }
        }
        // Whole ns: the exports (`-xr`) and `-pr` count in whole ns.
        for (name, v) in [("wait_ns", self.wait), ("signal_ns", self.signal)] {
            if !ok(v) || v.fract() != 0.0 {
                return Err(CoefficientError::NotWholeNs { name, value: v });
            }
        }
        let t = self.transfer;
        if !(t.is_finite() && (0.0..1e9).contains(&t)) {
            return Err(CoefficientError::Transfer { value: t });
        }
        for (b, v) in BUILTINS.iter().zip(self.point) {
            if !ok(v) {
                return Err(CoefficientError::Point {
                    builtin: b,
                    value: v,
                });
            }
        }
        for (t, v) in TYPES.iter().zip(self.types) {
            if !ok(v) {
                return Err(CoefficientError::TypeFactor { ty: *t, value: v });
            }
        }
        Ok(())
    }

    pub fn to_named(&self) -> Named {
        Named {
            call_ns: self.call,
            point_ns: BUILTINS
                .iter()
                .zip(self.point)
                .map(|(b, v)| (b.to_string(), v))
                .collect(),
            tap_ns: self.tap,
            type_factor: TYPES
                .iter()
                .zip(self.types)
                .map(|(t, v)| (t.keyword().to_string(), v))
                .collect(),
            write_ns: self.write,
            arith_ns: self.arith,
            convert_ns: self.convert,
            stencil_tap_ns: self.stencil_tap,
            exchange_ns: self.exchange,
            block_ns: self.block,
            linear_ns: self.linear,
            wait_ns: self.wait,
            signal_ns: self.signal,
            transfer_ns_per_kib: self.transfer,
        }
    }

    /// The coefficients of a serialised form that names every built-in and
    /// type exactly once, each valid.
    pub fn from_named(n: &Named) -> Result<Coefficients, CoefficientError> {
        let mut c = Coefficients::shipped();
        c.call = n.call_ns;
        c.tap = n.tap_ns;
        c.write = n.write_ns;
        c.arith = n.arith_ns;
        c.convert = n.convert_ns;
        c.stencil_tap = n.stencil_tap_ns;
        c.exchange = n.exchange_ns;
        c.block = n.block_ns;
        c.linear = n.linear_ns;
        c.wait = n.wait_ns;
        c.signal = n.signal_ns;
        c.transfer = n.transfer_ns_per_kib;
        if n.point_ns.len() != BUILTINS.len() {
            return Err(CoefficientError::PointCount {
                found: n.point_ns.len(),
            });
        }
        for (i, b) in BUILTINS.iter().enumerate() {
            c.point[i] = *n
                .point_ns
                .get(*b)
                .ok_or(CoefficientError::PointMissing { builtin: b })?;
        }
        if n.type_factor.len() != TYPES.len() {
            return Err(CoefficientError::TypeCount {
                found: n.type_factor.len(),
            });
        }
        for (i, t) in TYPES.iter().enumerate() {
            c.types[i] = *n
                .type_factor
                .get(t.keyword())
                .ok_or(CoefficientError::TypeMissing { ty: *t })?;
        }
        c.validate()?;
        Ok(c)
    }
}

/// Why coefficients cannot be used ([`Coefficients::validate`],
/// [`Coefficients::from_named`]): the first bad or missing one, by its
/// serialised name.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CoefficientError {
    #[error("{name} {value} is not a positive time")]
    NotATime { name: &'static str, value: f64 },
    #[error("{name} {value} is not a positive whole number of ns")]
    NotWholeNs { name: &'static str, value: f64 },
    #[error("transfer_ns_per_kib {value} is not a time of at least 0")]
    Transfer { value: f64 },
    #[error("point_ns of {builtin}, {value}, is not a positive time")]
    Point { builtin: &'static str, value: f64 },
    #[error("type_factor of {}, {value}, is not positive", .ty.keyword())]
    TypeFactor { ty: ElemType, value: f64 },
    #[error("point_ns names {found} functions, not the {} built-ins", BUILTINS.len())]
    PointCount { found: usize },
    #[error("point_ns lacks {builtin}")]
    PointMissing { builtin: &'static str },
    #[error("type_factor names {found} types, not {}", TYPES.len())]
    TypeCount { found: usize },
    #[error("type_factor lacks {}", .ty.keyword())]
    TypeMissing { ty: ElemType },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_defaults_are_valid_and_round_trip() {
        let c = Coefficients::shipped();
        c.validate().unwrap();
        assert_eq!(Coefficients::from_named(&c.to_named()).unwrap(), c);
        assert_eq!(
            c.cost("my_kernel", ElemType::Float, Pair::new(8, 8), Pair::ONE),
            None
        );
        // A variant costs what its built-in does.
        assert_eq!(
            c.cost(
                "func_conv_5x5",
                ElemType::Float,
                Pair::new(64, 64),
                Pair::new(5, 5)
            ),
            c.cost(
                "func_conv",
                ElemType::Float,
                Pair::new(64, 64),
                Pair::new(5, 5)
            )
        );
    }
}
