//! The timing table of a description (docs/language.md, "runtime").
//!
//! Takes the runtime section's `timing` and `timing_system` statements (or
//! nothing); gives a [`Timing`]: the µs one run of a function instance
//! over its whole iteration space takes, keyed by C function (`FUNC T`), by
//! C function and resolution (`FUNC [w, h] T`) or by instance
//! (`INSTANCE FUNC T`), and the cost of one wait and one signal.
//! Guarantees: [`Timing::of`] takes the most specific entry that matches
//! an instance (instance, then resolution, then C function); an instance
//! no entry matches costs 1 µs, or with a cost model ([`Timing::model`],
//! `super::cost`) what the model gives a built-in ([`Timing::cost`]; a
//! user kernel still costs 1 µs); without `timing_system` the costs are
//! the cost model's measured ones ([`Coefficients::system`]), or without a
//! model [`SystemTiming::default`] (1 µs each); the table may name C functions and
//! resolutions no description uses (instances are checked by the front
//! end, E037). Iteration order is by key (`BTreeMap`s), so it is
//! deterministic.
//!
//! The syntax needs no keyword: an entry is `ident (ident | pair)? number`,
//! so `FUNC T` parses as it always did, and an instance entry names its C
//! function too, mirroring the declaration's `function INSTANCE FUNC [w, h]`
//! (E037 for an unknown instance, with "did you mean", or one that runs
//! another C function). In the IR the C function stays `TimingEntry::name`
//! and the kind is `TimingEntry::scope`.

use super::cost::{Coefficients, Traffic, Work};
use crate::ir::hsdfg::SystemTiming;
use crate::ir::{Direction, ElemType, FunctionDecl, Pair, Port, Runtime, TimingScope};
use std::collections::BTreeMap;

/// µs per function instance (whole iteration space) and the
/// synchronisation costs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timing {
    /// `FUNC T`: by C function.
    pub functions: BTreeMap<String, f64>,
    /// `FUNC [w, h] T`: by C function and resolution.
    pub resolutions: BTreeMap<(String, Pair), f64>,
    /// `INSTANCE FUNC T`: by function instance.
    pub instances: BTreeMap<String, f64>,
    pub system: SystemTiming,
    /// Which of `system`'s costs a `timing_system` statement gave,
    /// `(wt, sg, tr)`; the cost model's, when there is one, replace the
    /// others.
    pub system_given: (bool, bool, bool),
    /// The cost model of the built-ins, for instances no entry matches
    /// (`None`: they cost 1 µs).
    pub model: Option<Coefficients>,
    /// The split makes strips (`-ts fused` streaming): every buffer
    /// between two instances is a ring of a few rows in the core's cache,
    /// so the model prices no instance beyond the cache, and each sub-box
    /// costs [`super::cost::STRIP_NS`] more ([`Timing::subbox_overhead`]).
    pub strips: bool,
}

/// What the timing table and the cost model know of a function instance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Instance<'a> {
    pub name: &'a str,
    /// Its C function.
    pub function: &'a str,
    pub resolution: Pair,
    /// The type of its first port (a built-in's ports share one).
    pub ty: ElemType,
    /// Its widest input window (`[1, 1]` without one).
    pub window: Pair,
    /// A defined function (`function_definition`): what a point reads,
    /// writes and computes.
    pub defined: Option<Work>,
    /// What its ports read and write (the cost beyond the cache).
    pub traffic: Traffic,
}

impl<'a> Instance<'a> {
    /// The instance `name` of `decl` at `resolution`.
    pub fn new(name: &'a str, decl: &'a FunctionDecl, resolution: Pair) -> Instance<'a> {
        Instance::of_ports(name, decl.name.as_str(), resolution, &decl.ports)
    }

    /// An instance of the HSDFG.
    pub fn of_info(f: &'a crate::ir::hsdfg::FunctionInfo) -> Instance<'a> {
        let window = f
            .ports
            .iter()
            .filter(|p| p.direction == Direction::In)
            .map(|p| p.window)
            .max_by_key(|w| w.x as u128 * w.y as u128)
            .unwrap_or(Pair::ONE);
        Instance {
            name: &f.name,
            function: &f.function,
            resolution: f.resolution,
            ty: f.ports.first().map_or(ElemType::Float, |p| p.ty),
            window,
            defined: None,
            traffic: Traffic::of(f.ports.iter().map(|p| (p.ty, p.mul)), f.resolution),
        }
    }

    /// The same, from the function's ports.
    pub fn of_ports(
        name: &'a str,
        function: &'a str,
        resolution: Pair,
        ports: &[Port],
    ) -> Instance<'a> {
        let window = ports
            .iter()
            .filter(|p| p.direction == Direction::In)
            .map(|p| p.window_or_one())
            .max_by_key(|w| w.x as u128 * w.y as u128)
            .unwrap_or(Pair::ONE);
        Instance {
            name,
            function,
            resolution,
            ty: ports.first().map_or(ElemType::Float, |p| p.ty),
            window,
            defined: None,
            traffic: Traffic::of(ports.iter().map(|p| (p.ty, p.mul.value)), resolution),
        }
    }

    /// The instance of a defined function: what a point of it reads,
    /// writes and computes ([`Work::of`]); the type its outputs hold.
    pub fn defined_by(
        mut self,
        def: Option<&crate::ir::Definition>,
        ports: &[Port],
    ) -> Instance<'a> {
        if let Some(d) = def {
            self.defined = Some(Work::of(d, ports));
            if let Some(p) = ports.iter().find(|p| p.direction == Direction::Out) {
                self.ty = p.ty;
            }
        }
        self
    }
}

/// Which entry gave an instance its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Instance,
    Resolution,
    Function,
    /// No entry: the cost model of the built-ins.
    Model,
    /// No entry and no model (or a user kernel): the default of 1 µs.
    Default,
}

impl Timing {
    /// The table of a runtime section, or the defaults when there is none.
    pub fn from_runtime(rt: Option<&Runtime>) -> Timing {
        let mut t = Timing::default();
        if let Some(rt) = rt {
            for e in &rt.timing {
                let v = e.time.value;
                match &e.scope {
                    TimingScope::Function => {
                        t.functions.insert(e.name.name.clone(), v);
                    }
                    TimingScope::Resolution(r) => {
                        t.resolutions.insert((e.name.name.clone(), r.value), v);
                    }
                    TimingScope::Instance(i) => {
                        t.instances.insert(i.name.clone(), v);
                    }
                }
            }
            for e in &rt.timing_system {
                match e.name.name.as_str() {
                    "wt" => (t.system.wait, t.system_given.0) = (e.time.value, true),
                    "sg" => (t.system.signal, t.system_given.1) = (e.time.value, true),
                    "tr" => (t.system.transfer, t.system_given.2) = (e.time.value, true),
                    _ => {}
                }
            }
        }
        t
    }

    /// µs of one whole run of function instance `instance` of C function
    /// `function` at `resolution`, and which entry gave it: the most
    /// specific entry (instance > resolution > C function), else 1.
    pub fn lookup(&self, instance: &str, function: &str, resolution: Pair) -> (f64, Source) {
        if let Some(&t) = self.instances.get(instance) {
            return (t, Source::Instance);
        }
        if let Some(&t) = self.resolutions.get(&(function.to_string(), resolution)) {
            return (t, Source::Resolution);
        }
        match self.functions.get(function) {
            Some(&t) => (t, Source::Function),
            None => (1.0, Source::Default),
        }
    }

    /// [`Timing::lookup`]'s time.
    pub fn of(&self, instance: &str, function: &str, resolution: Pair) -> f64 {
        self.lookup(instance, function, resolution).0
    }

    /// µs of one whole run of an instance, and where it comes from: its
    /// most specific entry ([`Timing::lookup`]), else the cost model for a
    /// built-in, else 1.
    pub fn cost(&self, i: &Instance) -> (f64, Source) {
        let (t, source) = self.lookup(i.name, i.function, i.resolution);
        if source != Source::Default {
            return (t, source);
        }
        let model = self.model.and_then(|m| {
            let compute = match i.defined {
                Some(work) => Some(m.defined_cost(work, i.resolution)),
                None => m.cost(i.function, i.ty, i.resolution, i.window),
            }?;
            Some(if self.strips {
                m.strip_program * compute
            } else {
                m.program * m.streamed(compute, i.traffic, i.resolution)
            })
        });
        match model {
            Some(t) => (t, Source::Model),
            None => (t, source),
        }
    }

    /// Builder: the cost model for instances without an entry, and for
    /// the synchronisation costs when no `timing_system` gave them.
    pub fn with_model(mut self, model: Option<Coefficients>) -> Timing {
        self.model = model;
        if let Some(m) = model {
            if !self.system_given.0 {
                self.system.wait = m.system().wait;
            }
            if !self.system_given.1 {
                self.system.signal = m.system().signal;
            }
            if !self.system_given.2 {
                self.system.transfer = m.system().transfer;
            }
            self.system.transfer_limit = m.system().transfer_limit;
        }
        self
    }

    /// Builder: whether the split makes strips ([`Timing::strips`]).
    pub fn in_strips(mut self, strips: bool) -> Timing {
        self.strips = strips;
        self
    }

    /// µs one sub-box of an instance costs besides its share of the
    /// instance's time: [`super::cost::STRIP_NS`] for a modelled instance
    /// in strips, else nothing (a `timing` entry is a measurement and
    /// stands as given; without a model every instance costs 1 µs).
    pub fn subbox_overhead(&self, source: Source) -> f64 {
        if self.strips && source == Source::Model {
            super::cost::STRIP_NS / 1000.0
        } else {
            0.0
        }
    }

    /// µs of C function `func` by its own entry (1 when it has none).
    pub fn get(&self, func: &str) -> f64 {
        self.functions.get(func).copied().unwrap_or(1.0)
    }

    /// Builder: sets the time of one C function.
    pub fn with(mut self, func: &str, t: f64) -> Timing {
        self.functions.insert(func.to_string(), t);
        self
    }

    /// Builder: sets the time of a C function's instances at one resolution.
    pub fn with_resolution(mut self, func: &str, resolution: Pair, t: f64) -> Timing {
        self.resolutions.insert((func.to_string(), resolution), t);
        self
    }

    /// Builder: sets the time of one function instance.
    pub fn with_instance(mut self, instance: &str, t: f64) -> Timing {
        self.instances.insert(instance.to_string(), t);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_specific_entry_wins() {
        let half = Pair::new(256, 256);
        let full = Pair::new(512, 512);
        let t = Timing::default()
            .with("func_conv", 100.0)
            .with_resolution("func_conv", half, 30.0)
            .with_instance("nr1", 20.0);
        // instance > resolution > C function > default.
        assert_eq!(t.lookup("nr1", "func_conv", half), (20.0, Source::Instance));
        assert_eq!(
            t.lookup("nr9", "func_conv", half),
            (30.0, Source::Resolution)
        );
        assert_eq!(
            t.lookup("nr0", "func_conv", full),
            (100.0, Source::Function)
        );
        assert_eq!(t.lookup("g", "func_gain", full), (1.0, Source::Default));
        // An instance entry is for that instance only, whatever its function.
        assert_eq!(t.of("nr1", "func_gain", full), 20.0);
        // A resolution entry is for that C function only.
        assert_eq!(t.of("x", "func_gain", half), 1.0);
    }
}

#[cfg(test)]
mod system_tests {
    use super::*;

    fn runtime_with(system: &str) -> Runtime {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/appendix.ssc"
        ))
        .unwrap()
        .replace("timing_system wt 1, sg 1;", system);
        crate::front::syntax::parse(&text).unwrap().runtime.unwrap()
    }

    #[test]
    fn the_model_prices_what_timing_system_does_not() {
        let mut m = Coefficients::shipped();
        (m.wait, m.signal, m.transfer) = (70.0, 9.0, 2.5);
        let none = Timing::from_runtime(Some(&runtime_with(""))).with_model(Some(m));
        assert_eq!(
            none.system,
            SystemTiming {
                wait: 0.07,
                signal: 0.009,
                transfer: 0.0025,
                transfer_limit: m.cache / 2.0,
            }
        );
        let wt =
            Timing::from_runtime(Some(&runtime_with("timing_system wt 2;"))).with_model(Some(m));
        assert_eq!(
            wt.system,
            SystemTiming {
                wait: 2.0,
                signal: 0.009,
                transfer: 0.0025,
                transfer_limit: m.cache / 2.0,
            }
        );
        let all = Timing::from_runtime(Some(&runtime_with("timing_system wt 3, sg 4, tr 0;")))
            .with_model(Some(m));
        assert_eq!(
            all.system,
            SystemTiming {
                wait: 3.0,
                signal: 4.0,
                transfer: 0.0,
                transfer_limit: m.cache / 2.0,
            }
        );
        // Without a model: 1 µs each and free transfers, as before there
        // was one.
        let plain = Timing::from_runtime(Some(&runtime_with(""))).with_model(None);
        assert_eq!(plain.system, SystemTiming::default());
    }
}
