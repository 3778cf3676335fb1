//! `ssc generate`: synthetic chains like the thesis' generator (§3.5.2).
//!
//! Takes a size, source and sink counts, a seed and a resolution; gives a
//! composition-only [`Description`]: a few sources, noise reduction at
//! several scales (down-scale, convolve, up-scale, merge), branches that
//! split and merge, and a few sinks, with random built-in kernels and
//! realistic windows. Guarantees: deterministic per seed; every OUT port is
//! consumed and every IN port driven exactly once; ports agree in type and
//! grid; the box count is the requested one, give or take the few boxes
//! needed to close the graph; no source is wired straight to a sink, whatever
//! the count (a source the random steps left untouched gets a gain before
//! its sink; [`GenerateOptions::min_boxes`] is the least count the generator
//! plans for, which the CLI requires).

use ssc::ir::*;

/// Parameters of a generated chain.
#[derive(Clone, Debug, PartialEq)]
pub struct GenerateOptions {
    pub boxes: usize,
    pub sources: usize,
    pub sinks: usize,
    pub seed: u64,
    pub resolution: Pair,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            boxes: 100,
            sources: 2,
            sinks: 2,
            seed: 1,
            resolution: Pair::new(256, 256),
        }
    }
}

impl GenerateOptions {
    /// The least box count the generator plans for: the sources, the
    /// sinks, room to close the graph (up-scales and merges) and one
    /// processing box. [`generate`] honours fewer only roughly (every
    /// source still gets a box before its sink), so the CLI refuses them.
    pub fn min_boxes(&self) -> usize {
        // The budget below is `boxes - (sinks + 2 sources + 4)` and must
        // exceed the sources by one step.
        3 * self.sources.max(1) + self.sinks.max(1) + 5
    }
}

/// xorshift64*: small, deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// An OUT port not yet consumed, at a pyramid level (0 = full resolution).
#[derive(Clone, Debug)]
struct Stream {
    instance: String,
    port: &'static str,
    level: u32,
}

/// The kinds of box the generator uses: container name, function, ports.
struct Kind {
    name: &'static str,
    function: &'static str,
    parallelism: Parallelism,
    /// (port, direction, mul, window)
    ports: &'static [(&'static str, Direction, u64, u64)],
}

use Direction::{In, Out};

const KINDS: &[Kind] = &[
    Kind {
        name: "source",
        function: "func_source",
        parallelism: Parallelism::None,
        ports: &[("out", Out, 1, 1)],
    },
    Kind {
        name: "sink",
        function: "func_sink",
        parallelism: Parallelism::None,
        ports: &[("in", In, 1, 1)],
    },
    Kind {
        name: "gain",
        function: "func_gain",
        parallelism: Parallelism::Full,
        ports: &[("in", In, 1, 1), ("out", Out, 1, 1)],
    },
    Kind {
        name: "copy",
        function: "func_copy",
        parallelism: Parallelism::Full,
        ports: &[("in", In, 1, 1), ("out", Out, 1, 1)],
    },
    Kind {
        name: "conv3",
        function: "func_conv",
        parallelism: Parallelism::Full,
        ports: &[("in", In, 1, 3), ("out", Out, 1, 1)],
    },
    Kind {
        name: "conv5",
        // One C function has one port signature: a 5×5 window is a variant
        // of the built-in (`ir::builtins`), not `func_conv` itself.
        function: "func_conv_5x5",
        parallelism: Parallelism::Full,
        ports: &[("in", In, 1, 5), ("out", Out, 1, 1)],
    },
    Kind {
        name: "conv7",
        function: "func_conv_7x7",
        parallelism: Parallelism::Full,
        ports: &[("in", In, 1, 7), ("out", Out, 1, 1)],
    },
    Kind {
        name: "dup",
        function: "func_dup",
        parallelism: Parallelism::Full,
        ports: &[("in", In, 1, 1), ("out0", Out, 1, 1), ("out1", Out, 1, 1)],
    },
    Kind {
        name: "plus",
        function: "func_plus",
        parallelism: Parallelism::Full,
        ports: &[("a", In, 1, 1), ("b", In, 1, 1), ("out", Out, 1, 1)],
    },
    Kind {
        name: "avg",
        function: "func_avg",
        parallelism: Parallelism::Full,
        ports: &[("a", In, 1, 1), ("b", In, 1, 1), ("out", Out, 1, 1)],
    },
    Kind {
        name: "product",
        function: "func_mul",
        parallelism: Parallelism::Full,
        ports: &[("a", In, 1, 1), ("b", In, 1, 1), ("out", Out, 1, 1)],
    },
    Kind {
        name: "down",
        function: "func_down",
        parallelism: Parallelism::Full,
        ports: &[("in", In, 2, 1), ("out", Out, 1, 1)],
    },
    Kind {
        name: "up",
        function: "func_up",
        parallelism: Parallelism::Full,
        ports: &[("in", In, 1, 1), ("out", Out, 2, 1)],
    },
];

/// The kind of an instance from its name (`source_0` → `source`).
fn kind_of(instance: &str) -> &str {
    instance.rsplit_once('_').map_or(instance, |(k, _)| k)
}

fn kind(name: &str) -> &'static Kind {
    KINDS.iter().find(|k| k.name == name).expect("known kind")
}

/// The generator's state: instances and connections written so far.
struct Chain {
    rng: Rng,
    ty: ElemType,
    base: Pair,
    instances: Vec<Instance>,
    connections: Vec<Connection>,
    open: Vec<Stream>,
    used: Vec<&'static str>,
    counter: usize,
}

impl Chain {
    fn resolution(&self, level: u32) -> Pair {
        Pair::new(self.base.x >> level, self.base.y >> level)
    }

    /// Adds an instance of `kind` at `res`, fed by `inputs`; returns its OUT streams.
    fn add(&mut self, kind_name: &'static str, level: u32, inputs: &[Stream]) -> Vec<Stream> {
        let k = kind(kind_name);
        if !self.used.contains(&k.name) {
            self.used.push(k.name);
        }
        let name = format!("{}_{}", k.name, self.counter);
        self.counter += 1;
        let res = self.resolution(level);
        self.instances.push(Instance {
            name: Ident::new(&name),
            container: Ident::new(k.name),
            resolution: InstanceResolution::Explicit(Spanned::bare(res)),
            span: Span::NONE,
        });
        let in_ports = k.ports.iter().filter(|p| p.1 == In);
        for (input, port) in inputs.iter().zip(in_ports) {
            self.connections.push(Connection {
                from: PortRef::new(&input.instance, input.port),
                to: PortRef::new(&name, port.0),
                delay: None,
                span: Span::NONE,
            });
        }
        k.ports
            .iter()
            .filter(|p| p.1 == Out)
            .map(|p| Stream {
                instance: name.clone(),
                port: p.0,
                level: if p.2 == 2 { level - 1 } else { level },
            })
            .collect()
    }

    fn take(&mut self, i: usize) -> Stream {
        self.open.remove(i)
    }

    /// Two open streams at the same level, if any.
    fn pair_at_same_level(&mut self) -> Option<(usize, usize)> {
        let n = self.open.len();
        let start = self.rng.below(n.max(1));
        for a in (0..n).map(|i| (i + start) % n) {
            for b in 0..n {
                if a != b && self.open[a].level == self.open[b].level {
                    return Some((a.min(b), a.max(b)));
                }
            }
        }
        None
    }

    fn step(&mut self, max_level: u32) {
        let i = self.rng.below(self.open.len());
        let level = self.open[i].level;
        match self.rng.below(10) {
            0..=2 => {
                let s = self.take(i);
                let k = ["gain", "conv3", "conv5", "conv7", "copy"][self.rng.below(5)];
                let out = self.add(k, s.level, &[s]);
                self.open.extend(out);
            }
            3 if self.open.len() < 6 => {
                let s = self.take(i);
                let out = self.add("dup", s.level, &[s]);
                self.open.extend(out);
            }
            4 | 5 if level < max_level => {
                let s = self.take(i);
                let out = self.add("down", s.level + 1, &[s]);
                self.open.extend(out);
            }
            6 | 7 if level > 0 => {
                let s = self.take(i);
                let out = self.add("up", s.level, &[s]);
                self.open.extend(out);
            }
            _ => {
                if let Some((a, b)) = self.pair_at_same_level() {
                    let sb = self.take(b);
                    let sa = self.take(a);
                    let k = ["plus", "avg", "product"][self.rng.below(3)];
                    let out = self.add(k, sa.level, &[sa, sb]);
                    self.open.extend(out);
                } else {
                    let s = self.take(i);
                    let out = self.add("conv3", s.level, &[s]);
                    self.open.extend(out);
                }
            }
        }
    }
}

/// A synthetic chain.
pub fn generate(o: &GenerateOptions) -> Description {
    let mut rng = Rng::new(o.seed);
    let ty = [ElemType::Ushort, ElemType::Int, ElemType::Float][rng.below(3)];
    let mut c = Chain {
        rng,
        ty,
        base: o.resolution,
        instances: Vec::new(),
        connections: Vec::new(),
        open: Vec::new(),
        used: Vec::new(),
        counter: 0,
    };
    // How far the resolution halves: down to 16 pixels, three levels at most.
    let mut max_level = 0;
    while max_level < 3
        && (o.resolution.x >> (max_level + 1)) >= 16
        && (o.resolution.y >> (max_level + 1)) >= 16
        && (o.resolution.x >> max_level).is_multiple_of(2)
        && (o.resolution.y >> max_level).is_multiple_of(2)
    {
        max_level += 1;
    }
    let sources = o.sources.max(1);
    let sinks = o.sinks.max(1);
    for _ in 0..sources {
        let out = c.add("source", 0, &[]);
        c.open.extend(out);
    }
    // Leave room for the boxes that close the graph.
    // At least one processing step, so no source is wired to a sink.
    let budget = o
        .boxes
        .saturating_sub(sinks + 2 * sources + 4)
        .max(sources + 1);
    while c.instances.len() < budget {
        c.step(max_level);
    }
    // Close: bring every stream back to full resolution, merge down to the
    // sink count (or split up to it), then one sink each.
    let open = std::mem::take(&mut c.open);
    for mut s in open {
        while s.level > 0 {
            let lvl = s.level;
            s = c.add("up", lvl, &[s]).remove(0);
        }
        c.open.push(s);
    }
    while c.open.len() > sinks {
        let b = c.open.pop().unwrap();
        let a = c.open.pop().unwrap();
        let k = ["plus", "avg"][c.rng.below(2)];
        let out = c.add(k, 0, &[a, b]);
        c.open.extend(out);
    }
    while c.open.len() < sinks {
        let s = c.open.remove(0);
        let out = c.add("dup", 0, &[s]);
        c.open.extend(out);
    }
    for s in std::mem::take(&mut c.open) {
        // A source left untouched gets a gain before its sink: never a
        // source wired straight to a sink (only chains that had one change).
        let s = if kind_of(&s.instance) == "source" {
            c.add("gain", 0, &[s]).remove(0)
        } else {
            s
        };
        c.add("sink", 0, &[s]);
    }
    describe(c, o.resolution)
}

fn describe(c: Chain, resolution: Pair) -> Description {
    let mut used = c.used.clone();
    used.sort_by_key(|n| KINDS.iter().position(|k| k.name == *n));
    let containers = used
        .iter()
        .map(|n| {
            let k = kind(n);
            ContainerDecl {
                name: Ident::new(k.name),
                ports: k
                    .ports
                    .iter()
                    .map(|(p, dir, mul, window)| Port {
                        name: Ident::new(*p),
                        direction: *dir,
                        ty: c.ty,
                        mul: Spanned::bare(Pair::new(*mul, *mul)),
                        window: (*window > 1).then(|| Spanned::bare(Pair::new(*window, *window))),
                        span: Span::NONE,
                    })
                    .collect(),
                span: Span::NONE,
            }
        })
        .chain(std::iter::once(ContainerDecl {
            name: Ident::new("chain"),
            ports: vec![],
            span: Span::NONE,
        }))
        .collect();
    let binds = used
        .iter()
        .map(|n| {
            let k = kind(n);
            Bind {
                container: Ident::new(k.name),
                function: Ident::new(k.function),
                parallelism: k.parallelism,
                rows: false,
                span: Span::NONE,
            }
        })
        .collect();
    Description {
        composition: Some(Composition {
            containers,
            binds,
            definitions: Vec::new(),
            compositions: vec![ContainerComposition {
                name: Ident::new("chain"),
                instances: c.instances,
                connections: c.connections,
                span: Span::NONE,
            }],
            compose: Some(Compose {
                container: Ident::new("chain"),
                resolution: Spanned::bare(resolution),
                span: Span::NONE,
            }),
            span: Span::NONE,
        }),
        ..Default::default()
    }
}
