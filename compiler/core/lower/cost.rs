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
//! factor per element type (`float` = 1). Two built-ins differ:
//!
//! - the source computes the first 251 elements of a row (the pattern's
//!   period) and copies the rest: `points · point` becomes
//!   `computed · point + (points − computed) · source_copy` with
//!   `computed = min(w, 251) · h`;
//! - the source and the sink have type factors of their own
//!   (`source_types`, `sink_types`): the sink's checksum costs the same
//!   per element whatever its type, the gain's conversions do not.
//!
//! The coefficients are per machine: measured by `ssc calibrate` (`ssc_cli::calibrate`) and cached per CPU
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
//! **Beyond the cache.** Both formulas price an instance whose data stays
//! in the core's own cache: the calibration measures them on frames of 1
//! MiB. An instance with a port whose whole frame is more than half the
//! per-core cache (`cache`, bytes) streams its data from further out; it
//! costs at least what its bytes take at the streaming cost (`stream`, ns
//! per byte read or written, measured on frames twice the cache):
//!
//! ```text
//! t' = max(t, (call + points · bytes · stream) / 1000)   when frame > cache / 2
//! ```
//!
//! with `bytes` what a point reads and writes over all its ports
//! ([`Traffic`]). A maximum, not a sum: a stage that computes much per
//! byte (a 5×5 filter) hides the memory behind its arithmetic, a cheap one
//! (a subtraction, a 2×2 mean) waits for it ([`Coefficients::streamed`]).
//!
//! **In strips.** Under `-ts fused` streaming every buffer between two
//! instances is a ring of a few rows that stays in the core's cache, so
//! the streaming bound does not apply: an instance costs its `t`, and
//! each of its sub-boxes [`STRIP_NS`] more, what a strip costs a program
//! besides its work ([`super::timing::Timing::strips`]). This is what
//! makes strips cheaper than whole frames in the model where frames
//! exceed the cache, and tall strips cheaper than short ones.
//!
//! **Inside a program.** The harness times each instance alone, again and
//! again, with its code and data warm; inside a running program each
//! sub-box runs once an iteration between others, and a thread that waits
//! for another's sub-box waits for that one's slow runs too. `program`,
//! measured by running a reference chain (`ssc_cli::calibrate::reference`)
//! on whole frames against its own prediction, multiplies every modelled
//! time: [`Timing::cost`](super::timing::Timing::cost) gives
//! `program · t'`; in strips `strip_program`, measured on the same chain
//! in strips, gives `strip_program · t`. Both are held to
//! [`PROGRAM_FACTORS`], bounds a measurement on a busy host cannot move.
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
//!
//! Why a cost per kind of operation rather than one per operation: the
//! kinds vectorise differently (a median's compare-exchanges, a mean's
//! strided reads and `linear`'s interleaved writes cost several times an
//! add), and a single cost per operation, fitted on the same functions, was
//! off by 0.3–2.6× on them; with a cost per kind each calibration function
//! is priced by its own measurement. Why a program factor measured on a
//! reference chain rather than a model of each effect: per box, the model
//! is within a few per cent of the program's medians once streaming is
//! priced; what is left (warm harness times against once-an-iteration
//! sub-boxes, the stalls of waiting for another thread's slow runs) is
//! spread over every sub-box and every wait, which a deterministic model
//! does not see one by one. The model is a stage option
//! (`LowerOptions::cost`): `None` in the library's default, so library
//! results do not depend on the machine; the CLI fills in this CPU's
//! coefficients or the shipped ones, read once per process.

use crate::ir::builtins::{builtin_of, BUILTINS};
use crate::ir::hsdfg::SystemTiming;
use crate::ir::{Definition, Direction, ElemType, Operations, Pair, Port};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The element types, in the order of [`Coefficients::types`].
pub const TYPES: [ElemType; 8] = ElemType::ALL;

/// The program factors [`Coefficients::validate`] accepts, and the bounds
/// `ssc calibrate` holds a measured one to (module docs, "Inside a
/// program"): no instance runs faster inside a program than warm and alone,
/// and none slower than four times that.
pub const PROGRAM_FACTORS: std::ops::RangeInclusive<f64> = 1.0..=4.0;

/// ns a sub-box of a strip costs besides its share of its instance's
/// work: its call, signals and waits, and the loop prologues of its
/// stencils over a strip's few rows. Measured inside programs, not by the
/// calibration's harness: `benches/fused/subbox_cost.py` on
/// `benches/xray1024.ssc` gave 174–315 ns a sub-box (docs/fused.md, "What
/// a sub-box costs"). Not multiplied by the program factor (it is a
/// program's measurement already).
pub const STRIP_NS: f64 = 200.0;

/// The source's pattern repeats along a row with this period: it computes
/// that many elements of a row and copies the rest
/// (`runtime-c/ssc_kernels_io.c`).
pub const SOURCE_PERIOD: u64 = 251;

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
    /// `func_source`: per element of a row beyond the pattern's period
    /// (copied, not computed), for `float`.
    pub source_copy: f64,
    /// `func_source`'s and `func_sink`'s own factors per element type.
    pub source_types: [f64; 8],
    pub sink_types: [f64; 8],
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
    /// Per byte read or written by an instance whose frames do not fit the
    /// per-core cache, ns.
    pub stream: f64,
    /// The per-core cache, bytes: an instance streams when one of its
    /// frames is more than half of it.
    pub cache: f64,
    /// What a modelled instance takes inside a running program over what
    /// it takes alone in the timing harness (see the module docs), on
    /// whole frames.
    pub program: f64,
    /// The same in strips (`-ts fused` streaming,
    /// [`super::timing::Timing::strips`]).
    pub strip_program: f64,
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
    pub source_copy_ns: f64,
    pub source_type_factor: BTreeMap<String, f64>,
    pub sink_type_factor: BTreeMap<String, f64>,
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
    pub stream_ns_per_byte: f64,
    pub cache_bytes: f64,
    pub program_factor: f64,
    pub strip_program_factor: f64,
}

/// What an instance moves, for the cost beyond the cache
/// ([`Coefficients::streamed`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Traffic {
    /// Bytes a point of the iteration space reads and writes, over all
    /// ports (`mul.x · mul.y · size` each).
    pub bytes: f64,
    /// The largest whole frame one port reads or writes, bytes
    /// (`resolution × mul · size`).
    pub frame: f64,
}

impl Traffic {
    /// The traffic of ports `(type, mul)` at `resolution`.
    pub fn of(ports: impl IntoIterator<Item = (ElemType, Pair)>, resolution: Pair) -> Traffic {
        let points = resolution.x as f64 * resolution.y as f64;
        ports.into_iter().fold(Traffic::default(), |t, (ty, mul)| {
            let per_point = (mul.x * mul.y * ty.size()) as f64;
            Traffic {
                bytes: t.bytes + per_point,
                frame: t.frame.max(points * per_point),
            }
        })
    }
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
    /// `ssc calibrate` on the development machine (an Intel Xeon KVM guest
    /// of 2 cores, 2 MiB of level-2 cache per core, `-O3 -march=native`),
    /// the median of five calibrations, rounded to three digits.
    pub fn shipped() -> Coefficients {
        Coefficients {
            call: 1.0,
            //      source  sink  gain  copy   dup  plus   mul   avg  conv  down    up
            point: [
                0.402, 0.35, 0.194, 0.259, 0.524, 0.193, 0.203, 0.2, 0.151, 0.257, 0.43,
            ],
            tap: 0.0238,
            //      char uchar short ushort  int  uint float double
            types: [2.27, 0.445, 1.19, 0.525, 2.2, 1.12, 1.0, 3.1],
            source_copy: 0.0759,
            source_types: [1.1, 1.12, 0.636, 0.624, 0.606, 0.565, 1.0, 1.33],
            sink_types: [0.959, 0.96, 0.979, 0.963, 0.994, 0.987, 1.0, 0.986],
            // Defined functions (`calibrate::DEFINED`).
            write: 0.187,
            arith: 0.00301,
            convert: 0.0585,
            stencil_tap: 0.0268,
            exchange: 0.0293,
            block: 0.0111,
            linear: 0.291,
            // A wait/signal pair's one-way latency there: 123–165 ns, a
            // post 9–10 ns.
            wait: 151.0,
            signal: 10.0,
            // Reading 128 KiB another core wrote: 36.7–60.8 ns a KiB more
            // than reading it from this core's cache.
            transfer: 44.8,
            stream: 0.0381,
            cache: 2097152.0,
            // The reference chain: 1.15–1.34.
            program: 1.29,
            // In strips: that host was not measured so; the factor in
            // strips over the one on whole frames was 0.85–1.07 (median
            // 0.97) in six calibrations of an AMD EPYC guest.
            strip_program: 1.25,
        }
    }

    /// The synchronisation costs of the model, µs (`timing_system`'s unit).
    pub fn system(&self) -> SystemTiming {
        SystemTiming {
            wait: self.wait / 1000.0,
            signal: self.signal / 1000.0,
            // From tenths of ns, so 40.6 ns prints as 0.0406 µs.
            transfer: (self.transfer * 10.0).round() / 10_000.0,
            // What streams is priced by `streamed`.
            transfer_limit: self.stream_limit(),
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
        let ns = match builtin {
            "func_source" => {
                let computed = (resolution.x.min(SOURCE_PERIOD) * resolution.y) as f64;
                let copied = points - computed;
                self.source_types[t] * (computed * self.point[k] + copied * self.source_copy)
            }
            "func_sink" => self.sink_types[t] * points * self.point[k],
            _ => points * self.types[t] * (self.point[k] + taps * self.tap),
        };
        Some((self.call + ns) / 1000.0)
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

    /// The largest frame, bytes, that stays in the per-core cache: half
    /// of it. A bigger one streams ([`Coefficients::streamed`]) and pays
    /// no transfer ([`Coefficients::system`]).
    pub fn stream_limit(&self) -> f64 {
        self.cache / 2.0
    }

    /// µs of an instance that takes `compute` µs with its data in the
    /// core's cache and moves `traffic` at `resolution`: `compute` while
    /// its largest frame fits half the per-core cache, else at least what
    /// its bytes take at the streaming cost (see the module docs).
    pub fn streamed(&self, compute: f64, traffic: Traffic, resolution: Pair) -> f64 {
        if traffic.frame <= self.stream_limit() {
            return compute;
        }
        let points = resolution.x as f64 * resolution.y as f64;
        compute.max((self.call + points * traffic.bytes * self.stream) / 1000.0)
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
        let others = [
            ("tap_ns", self.tap),
            ("source_copy_ns", self.source_copy),
            ("stream_ns_per_byte", self.stream),
        ];
        for (name, v) in others.into_iter().chain(self.defined()) {
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
        // At least a KiB, below a TiB.
        if !(self.cache.is_finite() && (1024.0..(1u64 << 40) as f64).contains(&self.cache)) {
            return Err(CoefficientError::Cache { value: self.cache });
        }
        // What a program adds to the harness' times: a measurement far
        // outside that went wrong.
        for (name, value) in [
            ("program_factor", self.program),
            ("strip_program_factor", self.strip_program),
        ] {
            if !(PROGRAM_FACTORS.contains(&value)) {
                return Err(CoefficientError::Factor { name, value });
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
        for (name, factors) in self.type_factors() {
            for (t, v) in TYPES.iter().zip(factors) {
                if !ok(v) {
                    return Err(CoefficientError::TypeFactor {
                        name,
                        ty: *t,
                        value: v,
                    });
                }
            }
        }
        Ok(())
    }

    /// The three sets of type factors by their serialised names.
    pub fn type_factors(&self) -> [(&'static str, [f64; 8]); 3] {
        [
            ("type_factor", self.types),
            ("source_type_factor", self.source_types),
            ("sink_type_factor", self.sink_types),
        ]
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
            type_factor: by_type(self.types),
            source_copy_ns: self.source_copy,
            source_type_factor: by_type(self.source_types),
            sink_type_factor: by_type(self.sink_types),
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
            stream_ns_per_byte: self.stream,
            cache_bytes: self.cache,
            program_factor: self.program,
            strip_program_factor: self.strip_program,
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
        c.stream = n.stream_ns_per_byte;
        c.cache = n.cache_bytes;
        c.program = n.program_factor;
        c.strip_program = n.strip_program_factor;
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
        c.source_copy = n.source_copy_ns;
        c.types = of_types("type_factor", &n.type_factor)?;
        c.source_types = of_types("source_type_factor", &n.source_type_factor)?;
        c.sink_types = of_types("sink_type_factor", &n.sink_type_factor)?;
        c.validate()?;
        Ok(c)
    }
}

/// Type factors by type keyword.
fn by_type(factors: [f64; 8]) -> BTreeMap<String, f64> {
    TYPES
        .iter()
        .zip(factors)
        .map(|(t, v)| (t.keyword().to_string(), v))
        .collect()
}

/// The type factors of a map that names every type exactly once.
fn of_types(name: &'static str, map: &BTreeMap<String, f64>) -> Result<[f64; 8], CoefficientError> {
    if map.len() != TYPES.len() {
        return Err(CoefficientError::TypeCount {
            name,
            found: map.len(),
        });
    }
    let mut factors = [0.0; 8];
    for (i, t) in TYPES.iter().enumerate() {
        factors[i] = *map
            .get(t.keyword())
            .ok_or(CoefficientError::TypeMissing { name, ty: *t })?;
    }
    Ok(factors)
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
    #[error("cache_bytes {value} is not a cache size (1 KiB to 1 TiB)")]
    Cache { value: f64 },
    #[error("{name} {value} is not a factor from 1 to 4")]
    Factor { name: &'static str, value: f64 },
    #[error("transfer_ns_per_kib {value} is not a time of at least 0")]
    Transfer { value: f64 },
    #[error("point_ns of {builtin}, {value}, is not a positive time")]
    Point { builtin: &'static str, value: f64 },
    #[error("{name} of {}, {value}, is not positive", .ty.keyword())]
    TypeFactor {
        name: &'static str,
        ty: ElemType,
        value: f64,
    },
    #[error("point_ns names {found} functions, not the {} built-ins", BUILTINS.len())]
    PointCount { found: usize },
    #[error("point_ns lacks {builtin}")]
    PointMissing { builtin: &'static str },
    #[error("{name} names {found} types, not {}", TYPES.len())]
    TypeCount { name: &'static str, found: usize },
    #[error("{name} lacks {}", .ty.keyword())]
    TypeMissing { name: &'static str, ty: ElemType },
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
