//! The printer writes a normal form: `parse ∘ print` is the identity on the
//! IR and `print ∘ parse ∘ print` is byte-identical — on random IRs (not only
//! the examples), including names that look like operators (`W`, `S`),
//! ports called `in`/`out`, and chains whose values are called after the
//! words that start a chain's statements (`input`, `param`, `fn`).

use proptest::prelude::*;
use ssc::back::description::print;
use ssc::front::syntax::parse;
use ssc::ir::*;

/// A tiny deterministic generator driven by one proptest seed.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn count(&mut self, max: u64) -> usize {
        self.below(max + 1) as usize
    }
    fn flip(&mut self) -> bool {
        self.next() & 1 == 1
    }
    fn name(&mut self) -> Ident {
        const POOL: &[&str] = &[
            "in",
            "out",
            "W",
            "S",
            "E",
            "B",
            "x",
            "f6",
            "tgain",
            "func_gain",
            "_a",
            "m0",
            "indexed",
            "selfish",
            "mult",
            "INT",
            "In",
            "containers",
            "s1",
            "thread0",
        ];
        if self.flip() {
            Ident::new(POOL[self.below(POOL.len() as u64) as usize])
        } else {
            Ident::new(format!("n{}_{}", self.below(1000), self.below(7)))
        }
    }
    fn num(&mut self) -> u64 {
        match self.below(4) {
            0 => 1 + self.below(4),
            1 => 1 + self.below(4096),
            2 => 1 + self.next() / 2,
            _ => u64::MAX,
        }
    }
    fn coord(&mut self) -> u64 {
        if self.flip() {
            self.below(512)
        } else {
            self.next()
        }
    }
    fn pair(&mut self) -> Spanned<Pair> {
        Spanned::bare(Pair::new(self.num(), self.num()))
    }
    fn time(&mut self) -> f64 {
        match self.below(3) {
            0 => self.below(100_000) as f64,
            1 => self.below(1_000_000) as f64 / 1000.0,
            _ => {
                let v = f64::from_bits(self.next() >> 2);
                if v.is_finite() {
                    v
                } else {
                    0.5
                }
            }
        }
    }
    fn port(&mut self) -> Port {
        let direction = if self.flip() {
            Direction::In
        } else {
            Direction::Out
        };
        let ty = ElemType::ALL[self.below(8) as usize];
        let window = if self.flip() { Some(self.pair()) } else { None };
        Port {
            name: self.name(),
            direction,
            ty,
            mul: self.pair(),
            window,
            span: Span::NONE,
        }
    }
    fn ports(&mut self) -> Vec<Port> {
        (0..self.count(3)).map(|_| self.port()).collect()
    }
    fn parallelism(&mut self) -> Parallelism {
        if self.flip() {
            Parallelism::Full
        } else {
            Parallelism::None
        }
    }
    fn port_ref(&mut self) -> PortRef {
        PortRef {
            owner: if self.below(4) == 0 {
                None
            } else {
                Some(self.name())
            },
            port: self.name(),
            span: Span::NONE,
        }
    }
    fn connection(&mut self) -> Connection {
        Connection {
            from: self.port_ref(),
            to: self.port_ref(),
            delay: match self.below(4) {
                0 => Some(Spanned::bare(0.0)),
                1 => Some(Spanned::bare(-(self.coord() as f64) / 4.0)),
                _ => None,
            },
            span: Span::NONE,
        }
    }
    fn subbox(&mut self) -> SubBoxRef {
        SubBoxRef {
            function: self.name(),
            index: self.coord(),
            span: Span::NONE,
        }
    }
    fn names(&mut self, max: u64) -> Vec<Ident> {
        (0..self.count(max)).map(|_| self.name()).collect()
    }

    fn composition(&mut self) -> Composition {
        Composition {
            containers: (0..self.count(3))
                .map(|_| ContainerDecl {
                    name: self.name(),
                    ports: self.ports(),
                    span: Span::NONE,
                })
                .collect(),
            binds: (0..self.count(3))
                .map(|_| Bind {
                    container: self.name(),
                    function: self.name(),
                    parallelism: self.parallelism(),
                    rows: self.flip(),
                    span: Span::NONE,
                })
                .collect(),
            definitions: (0..self.count(2)).map(|_| self.definition()).collect(),
            compositions: (0..self.count(2))
                .map(|_| ContainerComposition {
                    name: self.name(),
                    instances: (0..self.count(3))
                        .map(|_| Instance {
                            name: self.name(),
                            container: self.name(),
                            resolution: if self.flip() {
                                InstanceResolution::Index
                            } else {
                                InstanceResolution::Explicit(self.pair())
                            },
                            span: Span::NONE,
                        })
                        .collect(),
                    connections: (0..self.count(3)).map(|_| self.connection()).collect(),
                    span: Span::NONE,
                })
                .collect(),
            compose: if self.flip() {
                Some(Compose {
                    container: self.name(),
                    resolution: self.pair(),
                    span: Span::NONE,
                })
            } else {
                None
            },
            span: Span::NONE,
        }
    }

    fn declaration(&mut self) -> Declaration {
        Declaration {
            function_decls: (0..self.count(3))
                .map(|_| FunctionDecl {
                    name: self.name(),
                    parallelism: self.parallelism(),
                    rows: self.flip(),
                    ports: self.ports(),
                    span: Span::NONE,
                })
                .collect(),
            definitions: (0..self.count(2)).map(|_| self.definition()).collect(),
            functions: (0..self.count(3))
                .map(|_| Function {
                    name: self.name(),
                    function: self.name(),
                    resolution: self.pair(),
                    span: Span::NONE,
                    id: Default::default(),
                })
                .collect(),
            connections: (0..self.count(3)).map(|_| self.connection()).collect(),
            span: Span::NONE,
        }
    }

    fn definition(&mut self) -> Definition {
        Definition {
            name: self.name(),
            assignments: (0..self.count(3))
                .map(|_| Assignment {
                    port: self.name(),
                    value: self.expr(3),
                    span: Span::NONE,
                })
                .collect(),
            span: Span::NONE,
        }
    }

    /// A number as the parser reads one: non-negative, whole or not.
    fn number(&mut self) -> f64 {
        match self.below(4) {
            0 => self.below(70000) as f64,
            1 => self.below(1000) as f64 / 8.0,
            2 => 1.0 / (1 + self.below(9)) as f64,
            _ => self.below(100) as f64 * 1e-7,
        }
    }

    /// An expression of at most `depth` levels of every kind the grammar has.
    fn expr(&mut self, depth: u32) -> Expr {
        let e = |kind| Expr::new(kind, Span::NONE);
        let leaf = depth == 0 || self.below(3) == 0;
        if leaf {
            return match self.below(3) {
                0 => e(ExprKind::Number(self.number())),
                1 => e(ExprKind::Port {
                    port: self.name(),
                    offset: None,
                }),
                _ => e(ExprKind::Port {
                    port: self.name(),
                    offset: Some((self.below(5) as i64 - 2, self.below(5) as i64 - 2)),
                }),
            };
        }
        match self.below(4) {
            0 => e(ExprKind::Neg(Box::new(self.expr(depth - 1)))),
            1 => {
                let op = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div][self.below(4) as usize];
                e(ExprKind::Binary(
                    op,
                    Box::new(self.expr(depth - 1)),
                    Box::new(self.expr(depth - 1)),
                ))
            }
            2 => {
                // A comparison only at the top of a call argument: the
                // grammar does not nest it without parentheses.
                let op = CmpOp::ALL[self.below(6) as usize];
                let c = e(ExprKind::Compare(
                    op,
                    Box::new(self.expr(depth - 1)),
                    Box::new(self.expr(depth - 1)),
                ));
                e(ExprKind::Call {
                    callee: Ident::new("select"),
                    args: vec![
                        Arg::Expr(c),
                        Arg::Expr(self.expr(depth - 1)),
                        Arg::Expr(self.expr(0)),
                    ],
                })
            }
            _ => {
                let callee =
                    ["min", "float", "uchar_sat", "lut", "separable", "f6"][self.below(6) as usize];
                let args = (0..self.count(3))
                    .map(|_| match self.below(4) {
                        0 => Arg::List(
                            (0..1 + self.count(4))
                                .map(|_| self.number() - 3.0)
                                .collect(),
                            Span::NONE,
                        ),
                        1 => Arg::Text(format!("tables/t{}.txt", self.below(9)), Span::NONE),
                        _ => Arg::Expr(self.expr(depth - 1)),
                    })
                    .collect();
                e(ExprKind::Call {
                    callee: Ident::new(callee),
                    args,
                })
            }
        }
    }

    fn instantiation(&mut self) -> Instantiation {
        Instantiation {
            subboxes: (0..self.count(4))
                .map(|_| SubBox {
                    id: self.subbox(),
                    region: Spanned::bare(Region::new(
                        self.coord(),
                        self.coord(),
                        self.coord(),
                        self.coord(),
                    )),
                    span: Span::NONE,
                })
                .collect(),
            dependencies: (0..self.count(4))
                .map(|_| Dependency {
                    from: self.subbox(),
                    to: self.subbox(),
                    delay: self.below(4) == 0,
                    span: Span::NONE,
                })
                .collect(),
            span: Span::NONE,
        }
    }

    /// `timing` entries of every scope: `FUNC T`, `FUNC [w, h] T`,
    /// `INSTANCE FUNC T`.
    fn timing(&mut self) -> Vec<TimingEntry> {
        (0..self.count(4))
            .map(|_| TimingEntry {
                name: self.name(),
                scope: match self.below(3) {
                    0 => TimingScope::Function,
                    1 => TimingScope::Resolution(self.pair()),
                    _ => TimingScope::Instance(self.name()),
                },
                time: Spanned::bare(self.time()),
                span: Span::NONE,
            })
            .collect()
    }

    fn timing_system(&mut self) -> Vec<TimingEntry> {
        (0..self.count(3))
            .map(|_| TimingEntry {
                name: self.name(),
                scope: TimingScope::Function,
                time: Spanned::bare(self.time()),
                span: Span::NONE,
            })
            .collect()
    }

    fn op(&mut self) -> Spanned<Op> {
        Spanned::bare(match self.below(4) {
            0 => Op::Wait(self.name()),
            1 => Op::Signal(self.name()),
            2 => Op::Exec(self.subbox()),
            _ => Op::Barrier(self.name()),
        })
    }

    fn runtime(&mut self) -> Runtime {
        Runtime {
            timing: self.timing(),
            timing_system: self.timing_system(),
            thread_schedule: (0..self.count(2))
                .map(|_| ThreadSchedule {
                    thread: self.name(),
                    subboxes: (0..self.count(3)).map(|_| self.subbox()).collect(),
                    span: Span::NONE,
                })
                .collect(),
            memory_mappings: (0..self.count(2))
                .map(|_| MemoryMapping {
                    name: self.name(),
                    arena: if self.flip() {
                        Arena::Shared
                    } else {
                        Arena::Local
                    },
                    start: Spanned::bare(self.coord()),
                    end: Spanned::bare(self.coord()),
                    span: Span::NONE,
                })
                .collect(),
            memory_bindings: (0..self.count(2))
                .map(|_| MemoryBinding {
                    mapping: self.name(),
                    ports: (0..self.count(3)).map(|_| self.port_ref()).collect(),
                    span: Span::NONE,
                })
                .collect(),
            memory_schedules: (0..self.count(2))
                .map(|_| MemorySchedule {
                    name: self.name(),
                    mappings: self.names(3),
                    span: Span::NONE,
                })
                .collect(),
            thread_executions: (0..self.count(2))
                .map(|_| ThreadExecution {
                    thread: self.name(),
                    ops: (0..self.count(6)).map(|_| self.op()).collect(),
                    span: Span::NONE,
                })
                .collect(),
            signals: (0..self.count(3))
                .map(|_| Signal {
                    name: self.name(),
                    initial_token: self.flip(),
                    span: Span::NONE,
                })
                .collect(),
            barriers: (0..self.count(2))
                .map(|_| Barrier {
                    name: self.name(),
                    threads: self.names(3),
                    span: Span::NONE,
                })
                .collect(),
            span: Span::NONE,
        }
    }

    /// A name for a chain's statement: sometimes a word that starts a
    /// statement elsewhere (`input = …;` is a value).
    fn chain_name(&mut self) -> Ident {
        const WORDS: &[&str] = &["input", "param", "output", "fn", "chain", "prev", "down2"];
        if self.below(4) == 0 {
            Ident::new(WORDS[self.below(WORDS.len() as u64) as usize])
        } else {
            self.name()
        }
    }

    /// A size: a number, a parameter, or an expression of them.
    fn size(&mut self) -> Expr {
        let e = |kind| Expr::new(kind, Span::NONE);
        match self.below(3) {
            0 => e(ExprKind::Number(self.num() as f64)),
            1 => e(ExprKind::Port {
                port: self.chain_name(),
                offset: None,
            }),
            _ => e(ExprKind::Binary(
                BinOp::Div,
                Box::new(e(ExprKind::Port {
                    port: self.chain_name(),
                    offset: None,
                })),
                Box::new(e(ExprKind::Number(2.0))),
            )),
        }
    }

    /// A chain of every kind of statement, in a random order.
    fn chain(&mut self) -> Chain {
        let statements = (0..self.count(8))
            .map(|_| match self.below(5) {
                0 => ChainStmt::Params(
                    (0..1 + self.count(2))
                        .map(|_| Param {
                            name: self.chain_name(),
                            value: if self.flip() {
                                self.num() as f64
                            } else {
                                self.number()
                            },
                            value_span: Span::NONE,
                            span: Span::NONE,
                        })
                        .collect(),
                    Span::NONE,
                ),
                1 => ChainStmt::Inputs(
                    (0..1 + self.count(2))
                        .map(|_| ChainInput {
                            name: self.chain_name(),
                            ty: ElemType::ALL[self.below(8) as usize],
                            width: self.size(),
                            height: self.size(),
                            span: Span::NONE,
                        })
                        .collect(),
                    Span::NONE,
                ),
                2 => ChainStmt::Fn(ChainFn {
                    name: self.chain_name(),
                    params: (0..self.count(3)).map(|_| self.chain_name()).collect(),
                    body: self.expr(3),
                    span: Span::NONE,
                }),
                k => ChainStmt::Value(ChainValue {
                    name: self.chain_name(),
                    output: k == 4,
                    value: self.expr(3),
                    span: Span::NONE,
                }),
            })
            .collect();
        Chain {
            name: self.name(),
            statements,
            span: Span::NONE,
        }
    }

    /// A description with a valid run of sections (C, CD, CDI, CDIR, D, DI,
    /// DIR), or a chain.
    fn description(&mut self) -> Description {
        let mut d = Description::default();
        if self.below(4) == 0 {
            d.chain = Some(self.chain());
            return d;
        }
        let with_composition = self.flip();
        let depth = self.below(4);
        if with_composition {
            d.composition = Some(self.composition());
            if depth >= 1 {
                d.declaration = Some(self.declaration());
            }
            if depth >= 2 {
                d.instantiation = Some(self.instantiation());
            }
            if depth >= 3 {
                d.runtime = Some(self.runtime());
            }
        } else {
            d.declaration = Some(self.declaration());
            if depth >= 1 {
                d.instantiation = Some(self.instantiation());
            }
            if depth >= 2 {
                d.runtime = Some(self.runtime());
            }
        }
        d
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn print_then_parse_is_identity(seed in any::<u64>()) {
        let desc = Gen(seed | 1).description();
        let text = print(&desc);
        let parsed = parse(&text).map_err(|e| {
            TestCaseError::fail(format!("printed text does not parse: {e:?}\n{text}"))
        })?;
        prop_assert_eq!(&parsed, &desc, "\n{}", text);
        prop_assert_eq!(print(&parsed), text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Any chain the grammar holds is expanded or refused with coded
    /// diagnostics, never a panic; what expands, the checker reads.
    #[test]
    fn any_chain_expands_or_is_refused_with_a_code(seed in any::<u64>()) {
        let desc = Description {
            chain: Some(Gen(seed | 1).chain()),
            ..Description::default()
        };
        match ssc::front::chain::expand(&desc, &[]) {
            Ok(x) => {
                let _ = ssc::front::check::check(&x.description);
            }
            Err(diags) => {
                prop_assert!(!diags.is_empty());
                prop_assert!(diags.iter().all(|d| d.code.starts_with('E')), "{:?}", diags);
            }
        }
    }
}

#[test]
fn examples_print_in_normal_form() {
    // Every description that parses: examples, test inputs, wrong runtimes.
    let mut paths: Vec<_> = ["examples", "tests/in", "tests/bad_runtime"]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ssc"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let desc = parse(&text).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let once = print(&desc);
        let again = parse(&once).unwrap();
        assert_eq!(again, desc, "{}", path.display());
        assert_eq!(print(&again), once, "{}", path.display());
    }
}

#[test]
fn appendix_has_all_four_sections() {
    let text = std::fs::read_to_string("examples/appendix.ssc").unwrap();
    let d = parse(&text).unwrap();
    let c = d.composition.as_ref().unwrap();
    assert_eq!(c.containers.len(), 5);
    assert_eq!(c.binds.len(), 4);
    assert_eq!(
        c.compose.as_ref().unwrap().resolution.value,
        Pair::new(256, 256)
    );
    let decl = d.declaration.as_ref().unwrap();
    assert_eq!(decl.functions.len(), 4);
    assert_eq!(decl.connections.len(), 3);
    let inst = d.instantiation.as_ref().unwrap();
    assert_eq!(inst.subboxes.len(), 6);
    assert_eq!(inst.dependencies.len(), 8);
    let r = d.runtime.as_ref().unwrap();
    assert_eq!(r.thread_executions.len(), 2);
    assert_eq!(r.thread_executions[0].ops.len(), 12);
    assert_eq!(r.signals.iter().filter(|s| s.initial_token).count(), 4);
    let window = decl.function_decl("func_conv").unwrap().ports[0]
        .window
        .unwrap();
    assert_eq!(window.value, Pair::new(4, 4));
}
