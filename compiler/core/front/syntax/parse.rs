//! Builds the IR from pest's parse tree, and turns pest's errors into
//! diagnostics with a hint.

use super::grammar::{Rule, SscParser};
use super::pest_errors::{error_pos, expected_at, token_at};
use crate::diagnostics::Diagnostic;
use crate::ir::*;
use pest::iterators::Pair as PPair;
use pest::Parser as _;

pub(super) type Node<'a> = PPair<'a, Rule>;

/// Parses a description. Returns the IR, or the diagnostics of every syntax
/// error (one per section: after an error the parser recovers at the next
/// section) or, when the syntax is right, of every number out of range.
pub fn parse(text: &str) -> Result<Description, Vec<Diagnostic>> {
    // Record the literal tokens tried at the furthest position (`;`, `}`),
    // so messages can say "expected `;`".
    pest::set_error_detail(true);
    if let Some(d) = nesting_error(text) {
        return Err(vec![d]);
    }
    let mut file = match SscParser::parse(Rule::file, text) {
        Ok(pairs) => pairs,
        Err(e) => return Err(recover(text, e)),
    };
    let mut b = Builder {
        errors: Vec::new(),
        nodes: 0,
        limited: false,
    };
    let root = file.next().expect("the file rule matched");
    let desc = b.file(root);
    if b.errors.is_empty() {
        Ok(desc)
    } else {
        Err(b.errors)
    }
}

pub(super) struct Builder {
    errors: Vec<Diagnostic>,
    /// The nodes of the expression being built (one assignment's).
    pub(super) nodes: usize,
    /// Whether that expression already passed a limit (reported once).
    pub(super) limited: bool,
}

use crate::ir::{MAX_EXPR_DEPTH, MAX_EXPR_NODES};

/// E057 at the first `(` nested deeper than [`MAX_EXPR_DEPTH`], found
/// without recursion before the parser sees the text (whose descent would
/// otherwise go as deep as the text). Comments and quoted file names are
/// skipped; `(` appears nowhere else but in expressions.
fn nesting_error(text: &str) -> Option<Diagnostic> {
    let bytes = text.as_bytes();
    let (mut i, mut depth) = (0, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !bytes[i..].starts_with(b"*/") {
                    i += 1;
                }
                i += 1;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => {
                depth += 1;
                if depth > MAX_EXPR_DEPTH {
                    return Some(too_deep(Span::new(i, i + 1)));
                }
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// E057: an expression nested deeper than [`MAX_EXPR_DEPTH`].
fn too_deep(at: Span) -> Diagnostic {
    Diagnostic::error(
        "E057",
        format!("expression nested deeper than {MAX_EXPR_DEPTH} levels"),
    )
    .label(at, format!("level {} starts here", MAX_EXPR_DEPTH + 1))
    .hint(
        "split the expression: a long sum is a `stencil` or `separable`, \
         parentheses around halves of a chain `a + b + …` halve its depth, \
         and a function before this one can compute a part",
    )
}

/// Keyword tokens carry no information; the builder skips them.
fn not_keyword(n: &Node) -> bool {
    !matches!(
        n.as_rule(),
        Rule::mul_kw
            | Rule::container_kw
            | Rule::function_kw
            | Rule::op_w
            | Rule::op_s
            | Rule::op_e
            | Rule::op_b
            | Rule::chain_kw
            | Rule::param_kw
            | Rule::input_kw
            | Rule::fn_kw
            | Rule::kernel_kw
            | Rule::output_kw
    )
}

/// The children of a node, keyword tokens left out.
pub(super) fn kids(n: Node) -> impl Iterator<Item = Node> {
    n.into_inner().filter(not_keyword)
}

pub(super) fn span(n: &Node) -> Span {
    Span::new(n.as_span().start(), n.as_span().end())
}

pub(super) fn ident(n: Node) -> Ident {
    Ident::spanned(n.as_str(), span(&n))
}

impl Builder {
    fn file(&mut self, root: Node) -> Description {
        let mut d = Description::default();
        for n in kids(root) {
            match n.as_rule() {
                Rule::chain => d.chain = Some(self.chain_section(n)),
                Rule::composition => d.composition = Some(self.composition(n)),
                Rule::declaration => d.declaration = Some(self.declaration(n)),
                Rule::instantiation => d.instantiation = Some(self.instantiation(n)),
                Rule::runtime => d.runtime = Some(self.runtime(n)),
                _ => {}
            }
        }
        d
    }

    // ------------------------------------------------------------ numbers

    /// A whole number ≥ 1 (resolutions, `mul`, windows).
    fn positive(&mut self, n: Node, what: &str) -> u64 {
        let v = self.uint(n.clone());
        if v == 0 {
            self.errors.push(
                Diagnostic::error(
                    "E002",
                    format!("{what} must be a whole number of at least 1"),
                )
                .label(span(&n), "zero is not allowed here"),
            );
        }
        v
    }

    /// Any whole number that fits in 64 bits.
    fn uint(&mut self, n: Node) -> u64 {
        match n.as_str().parse::<u64>() {
            Ok(v) => v,
            Err(_) => {
                self.errors.push(
                    Diagnostic::error("E002", "number too large")
                        .label(span(&n), "does not fit in 64 bits")
                        .hint(format!("the largest whole number is {}", u64::MAX)),
                );
                0
            }
        }
    }

    pub(super) fn pair(&mut self, n: Node, what: &str) -> Spanned<Pair> {
        let s = span(&n);
        let mut it = kids(n);
        let x = self.positive(it.next().unwrap(), what);
        let y = self.positive(it.next().unwrap(), what);
        Spanned::new(Pair::new(x, y), s)
    }

    /// A pair of coordinates, where 0 is fine.
    fn coords(&mut self, n: Node) -> Pair {
        let mut it = kids(n);
        let x = self.uint(it.next().unwrap());
        let y = self.uint(it.next().unwrap());
        Pair::new(x, y)
    }

    // -------------------------------------------------------------- shared

    fn port(&mut self, n: Node) -> Port {
        let s = span(&n);
        let mut it = kids(n);
        let name = ident(it.next().unwrap());
        let direction = match it
            .next()
            .unwrap()
            .into_inner()
            .find(not_keyword)
            .unwrap()
            .as_rule()
        {
            Rule::kw_in => Direction::In,
            _ => Direction::Out,
        };
        let ty = ElemType::from_keyword(it.next().unwrap().as_str()).expect("grammar lists types");
        let mul = self.pair(it.next().unwrap(), "a `mul` factor");
        let window = it.next().map(|w| self.pair(w, "a window"));
        Port {
            name,
            direction,
            ty,
            mul,
            window,
            span: s,
        }
    }

    fn parallelism(n: Node) -> Parallelism {
        match kids(n).next().unwrap().as_rule() {
            Rule::kw_none => Parallelism::None,
            _ => Parallelism::Full,
        }
    }

    fn port_ref(n: Node) -> PortRef {
        let s = span(&n);
        let mut it = kids(n);
        let owner = it.next().unwrap();
        let owner = if owner.as_rule() == Rule::self_kw {
            None
        } else {
            Some(ident(owner))
        };
        PortRef {
            owner,
            port: ident(it.next().unwrap()),
            span: s,
        }
    }

    fn connection(&mut self, n: Node) -> Connection {
        let s = span(&n);
        let mut it = kids(n);
        let from = Self::port_ref(it.next().unwrap());
        let to = Self::port_ref(it.next().unwrap());
        let delay = it.next().map(|d| {
            let v = d.into_inner().find(|x| x.as_rule() == Rule::signed_literal);
            let v = v.expect("the grammar gives `delay` a number");
            Spanned::new(self.number(&v), span(&v))
        });
        Connection {
            from,
            to,
            delay,
            span: s,
        }
    }

    fn subbox_ref(&mut self, n: Node) -> SubBoxRef {
        let s = span(&n);
        let mut it = kids(n);
        let function = ident(it.next().unwrap());
        let index = self.uint(it.next().unwrap());
        SubBoxRef {
            function,
            index,
            span: s,
        }
    }

    // --------------------------------------------------------- composition

    fn composition(&mut self, n: Node) -> Composition {
        let mut c = Composition {
            span: span(&n),
            ..Default::default()
        };
        for stmt in kids(n) {
            let s = span(&stmt);
            match stmt.as_rule() {
                Rule::container_declaration => {
                    let mut it = kids(stmt);
                    let name = ident(it.next().unwrap());
                    let ports = it.map(|p| self.port(p)).collect();
                    c.containers.push(ContainerDecl {
                        name,
                        ports,
                        span: s,
                    });
                }
                Rule::container_bind => {
                    for b in kids(stmt) {
                        // From the container to the last word: pest keeps
                        // the blank before an absent `ROWS` in the pair.
                        let bs = Span::new(
                            b.as_span().start(),
                            kids(b.clone())
                                .last()
                                .map_or(b.as_span().end(), |k| k.as_span().end()),
                        );
                        let mut it = kids(b);
                        c.binds.push(Bind {
                            container: ident(it.next().unwrap()),
                            function: ident(it.next().unwrap()),
                            parallelism: Self::parallelism(it.next().unwrap()),
                            rows: it.next().is_some(),
                            span: bs,
                        });
                    }
                }
                Rule::function_definition => c.definitions.push(self.definition(stmt)),
                Rule::container_composition => {
                    let mut it = kids(stmt);
                    let name = ident(it.next().unwrap());
                    let mut cc = ContainerComposition {
                        name,
                        instances: Vec::new(),
                        connections: Vec::new(),
                        span: s,
                    };
                    for item in it {
                        match item.as_rule() {
                            Rule::instances => {
                                for inst in kids(item) {
                                    cc.instances.push(self.instance(inst));
                                }
                            }
                            _ => cc.connections.push(self.connection(item)),
                        }
                    }
                    c.compositions.push(cc);
                }
                Rule::compose => {
                    let mut it = kids(stmt);
                    let container = ident(it.next().unwrap());
                    let resolution = self.pair(it.next().unwrap(), "a resolution");
                    if c.compose.is_some() {
                        self.errors.push(
                            Diagnostic::error("E003", "`compose` is given twice")
                                .label(s, "second `compose`")
                                .hint("a description composes exactly one top-level container"),
                        );
                    }
                    c.compose = Some(Compose {
                        container,
                        resolution,
                        span: s,
                    });
                }
                _ => {}
            }
        }
        c
    }

    fn instance(&mut self, n: Node) -> Instance {
        let s = span(&n);
        let mut it = kids(n);
        let name = ident(it.next().unwrap());
        let container = ident(it.next().unwrap());
        let res = it.next().unwrap();
        let resolution = match res.as_rule() {
            Rule::index_kw => InstanceResolution::Index,
            _ => InstanceResolution::Explicit(self.pair(res, "a resolution")),
        };
        Instance {
            name,
            container,
            resolution,
            span: s,
        }
    }

    // --------------------------------------------------------- declaration

    fn declaration(&mut self, n: Node) -> Declaration {
        let mut d = Declaration {
            span: span(&n),
            ..Default::default()
        };
        for stmt in kids(n) {
            let s = span(&stmt);
            match stmt.as_rule() {
                Rule::function_declaration => {
                    let mut it = kids(stmt);
                    let name = ident(it.next().unwrap());
                    let parallelism = Self::parallelism(it.next().unwrap());
                    let mut it = it.peekable();
                    let rows = it.next_if(|n| n.as_rule() == Rule::kw_rows).is_some();
                    let ports = it.map(|p| self.port(p)).collect();
                    d.function_decls.push(FunctionDecl {
                        name,
                        parallelism,
                        rows,
                        ports,
                        span: s,
                    });
                }
                Rule::functions => {
                    for f in kids(stmt) {
                        let fs = span(&f);
                        let mut it = kids(f);
                        let name = ident(it.next().unwrap());
                        let function = ident(it.next().unwrap());
                        let resolution = self.pair(it.next().unwrap(), "a resolution");
                        d.functions.push(Function {
                            name,
                            function,
                            resolution,
                            span: fs,
                            id: Default::default(),
                        });
                    }
                }
                Rule::function_definition => d.definitions.push(self.definition(stmt)),
                Rule::connection => d.connections.push(self.connection(stmt)),
                _ => {}
            }
        }
        d
    }

    // --------------------------------------------------------- definitions

    fn definition(&mut self, n: Node) -> Definition {
        let s = span(&n);
        let mut it = kids(n);
        let name = ident(it.next().unwrap());
        let assignments = it
            .map(|a| {
                let as_ = span(&a);
                let mut parts = kids(a);
                let port = ident(parts.next().unwrap());
                self.nodes = 0;
                self.limited = false;
                let value = self.expr(parts.next().unwrap());
                Assignment {
                    port,
                    value,
                    span: as_,
                }
            })
            .collect();
        Definition {
            name,
            assignments,
            span: s,
        }
    }

    /// `expr`, `sum`, `product`: a left-to-right chain of operators.
    pub(super) fn expr(&mut self, n: Node) -> Expr {
        self.chain(n).0
    }

    /// An expression and the depth of its tree. Past a limit (E057, E058,
    /// reported once an expression) the rest is built as `0`, so that no
    /// walk of the tree, its drop included, goes deeper than the limit.
    fn chain(&mut self, n: Node) -> (Expr, usize) {
        let mut it = kids(n);
        let (mut acc, mut depth) = self.operand(it.next().unwrap());
        while let Some(op) = it.next() {
            let (rhs, rd) = self.operand(it.next().unwrap());
            let s = acc.span.join(rhs.span);
            depth = depth.max(rd) + 1;
            if self.limit(depth, span(&op)) {
                (acc, depth) = (Expr::new(ExprKind::Number(0.0), s), 1);
                continue;
            }
            let (l, r) = (Box::new(acc), Box::new(rhs));
            acc = match op.as_str() {
                "+" => Expr::new(ExprKind::Binary(BinOp::Add, l, r), s),
                "-" => Expr::new(ExprKind::Binary(BinOp::Sub, l, r), s),
                "*" => Expr::new(ExprKind::Binary(BinOp::Mul, l, r), s),
                "/" => Expr::new(ExprKind::Binary(BinOp::Div, l, r), s),
                c => Expr::new(
                    ExprKind::Compare(CmpOp::from_symbol(c).expect("grammar lists them"), l, r),
                    s,
                ),
            };
        }
        (acc, depth)
    }

    /// Counts a node of depth `depth` at `s`; whether it is past a limit
    /// (then the diagnostic, the first time, and the caller builds `0`
    /// instead of the node).
    fn limit(&mut self, depth: usize, s: Span) -> bool {
        self.nodes += 1;
        let err = if depth > MAX_EXPR_DEPTH {
            too_deep(s)
        } else if self.nodes > MAX_EXPR_NODES {
            Diagnostic::error(
                "E058",
                format!("expression of more than {MAX_EXPR_NODES} nodes"),
            )
            .label(s, format!("node {} is here", MAX_EXPR_NODES + 1))
            .hint(
                "split the expression: a function before this one can compute \
                 a part, and a long sum is a `stencil` or `separable`",
            )
        } else {
            return false;
        };
        if !self.limited {
            self.limited = true;
            self.errors.push(err);
        }
        true
    }

    fn operand(&mut self, n: Node) -> (Expr, usize) {
        let s = span(&n);
        let (e, depth) = match n.as_rule() {
            Rule::expr | Rule::sum | Rule::product => return self.chain(n),
            Rule::unary => {
                let mut parts: Vec<Node> = kids(n).collect();
                let primary = parts.pop().expect("a primary");
                let (mut e, mut depth) = self.operand(primary);
                for neg in parts.into_iter().rev() {
                    let ns = span(&neg).join(e.span);
                    depth += 1;
                    if self.limit(depth, span(&neg)) {
                        (e, depth) = (Expr::new(ExprKind::Number(0.0), ns), 1);
                        continue;
                    }
                    e = Expr::new(ExprKind::Neg(Box::new(e)), ns);
                }
                return (Expr { span: s, ..e }, depth);
            }
            Rule::literal => (Expr::new(ExprKind::Number(self.number(&n)), s), 1),
            Rule::access => {
                let mut it = kids(n);
                let port = ident(it.next().unwrap());
                let offset = it.next().map(|dx| {
                    let dy = it.next().unwrap();
                    (self.offset(&dx), self.offset(&dy))
                });
                (Expr::new(ExprKind::Port { port, offset }, s), 1)
            }
            Rule::call => {
                let mut it = kids(n);
                let callee = it.next().unwrap();
                let callee = ident(kids(callee).next().unwrap());
                let mut depth = 0;
                let args = it
                    .map(|a| {
                        let (arg, d) = self.argument(a);
                        depth = depth.max(d);
                        arg
                    })
                    .collect();
                (Expr::new(ExprKind::Call { callee, args }, s), depth + 1)
            }
            _ => unreachable!("the grammar's primaries: {:?}", n.as_rule()),
        };
        if self.limit(depth, s) {
            (Expr::new(ExprKind::Number(0.0), s), 1)
        } else {
            (e, depth)
        }
    }

    fn argument(&mut self, n: Node) -> (Arg, usize) {
        let inner = kids(n).next().unwrap();
        let s = span(&inner);
        match inner.as_rule() {
            Rule::list => (
                Arg::List(kids(inner).map(|v| self.number(&v)).collect(), s),
                0,
            ),
            Rule::text => {
                let t = inner.as_str();
                (Arg::Text(t[1..t.len() - 1].to_string(), s), 0)
            }
            _ => {
                let (e, d) = self.chain(inner);
                (Arg::Expr(e), d)
            }
        }
    }

    /// A number of an expression or a list: any finite value.
    pub(super) fn number(&mut self, n: &Node) -> f64 {
        match n.as_str().parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                self.errors.push(
                    Diagnostic::error("E002", "number too large")
                        .label(span(n), "not a finite number")
                        .hint(format!(
                            "numbers of an expression are at most {:e}",
                            f64::MAX
                        )),
                );
                0.0
            }
        }
    }

    /// A window offset `dx` or `dy`.
    fn offset(&mut self, n: &Node) -> i64 {
        n.as_str().parse::<i64>().unwrap_or_else(|_| {
            self.errors.push(
                Diagnostic::error("E002", "number too large")
                    .label(span(n), "not an offset a window can have"),
            );
            0
        })
    }

    // ------------------------------------------------------- instantiation

    fn instantiation(&mut self, n: Node) -> Instantiation {
        let mut inst = Instantiation {
            span: span(&n),
            ..Default::default()
        };
        for stmt in kids(n) {
            let s = span(&stmt);
            match stmt.as_rule() {
                Rule::subboxes => {
                    for sb in kids(stmt) {
                        let sbs = span(&sb);
                        let mut it = kids(sb);
                        let id = self.subbox_ref(it.next().unwrap());
                        let a = it.next().unwrap();
                        let b = it.next().unwrap();
                        let rs = span(&a).join(span(&b));
                        let region = Region::from_corners(self.coords(a), self.coords(b));
                        inst.subboxes.push(SubBox {
                            id,
                            region: Spanned::new(region, rs),
                            span: sbs,
                        });
                    }
                }
                Rule::dependency => {
                    let mut it = kids(stmt);
                    let from = self.subbox_ref(it.next().unwrap());
                    let to = self.subbox_ref(it.next().unwrap());
                    let delay = it.next().is_some();
                    inst.dependencies.push(Dependency {
                        from,
                        to,
                        delay,
                        span: s,
                    });
                }
                _ => {}
            }
        }
        inst
    }

    // ------------------------------------------------------------- runtime

    fn timing_entries(&mut self, n: Node) -> Vec<TimingEntry> {
        n.into_inner()
            .filter(not_keyword)
            .map(|e| {
                let s = span(&e);
                let mut it = kids(e);
                let first = ident(it.next().unwrap());
                let mut t = it.next().unwrap();
                // `INSTANCE FUNC T` or `FUNC [w, h] T` (`timing` only).
                let (name, scope) = match t.as_rule() {
                    Rule::ident => {
                        let function = ident(t);
                        t = it.next().unwrap();
                        (function, TimingScope::Instance(first))
                    }
                    Rule::pair => {
                        let res = self.pair(t, "a resolution");
                        t = it.next().unwrap();
                        (first, TimingScope::Resolution(res))
                    }
                    _ => (first, TimingScope::Function),
                };
                let ts = span(&t);
                let time = match t.as_str().parse::<f64>() {
                    Ok(v) if v.is_finite() => v,
                    _ => {
                        self.errors.push(
                            Diagnostic::error("E002", "time out of range")
                                .label(ts, "not a finite number"),
                        );
                        0.0
                    }
                };
                TimingEntry {
                    name,
                    scope,
                    time: Spanned::new(time, ts),
                    span: s,
                }
            })
            .collect()
    }

    fn runtime(&mut self, n: Node) -> Runtime {
        let mut r = Runtime {
            span: span(&n),
            ..Default::default()
        };
        for stmt in kids(n) {
            match stmt.as_rule() {
                Rule::timing => {
                    let e = self.timing_entries(stmt);
                    r.timing.extend(e);
                }
                Rule::timing_system => {
                    let e = self.timing_entries(stmt);
                    r.timing_system.extend(e);
                }
                Rule::thread_schedule => {
                    for t in kids(stmt) {
                        let s = span(&t);
                        let mut it = kids(t);
                        let thread = ident(it.next().unwrap());
                        let subboxes = it.map(|sb| self.subbox_ref(sb)).collect();
                        r.thread_schedule.push(ThreadSchedule {
                            thread,
                            subboxes,
                            span: s,
                        });
                    }
                }
                Rule::memory_mapping => {
                    for m in kids(stmt) {
                        let s = span(&m);
                        let mut it = kids(m);
                        let name = ident(it.next().unwrap());
                        let arena = match it
                            .next()
                            .unwrap()
                            .into_inner()
                            .find(not_keyword)
                            .unwrap()
                            .as_rule()
                        {
                            Rule::shared_kw => Arena::Shared,
                            _ => Arena::Local,
                        };
                        let a = it.next().unwrap();
                        let start = Spanned::new(self.uint(a.clone()), span(&a));
                        let b = it.next().unwrap();
                        let end = Spanned::new(self.uint(b.clone()), span(&b));
                        r.memory_mappings.push(MemoryMapping {
                            name,
                            arena,
                            start,
                            end,
                            span: s,
                        });
                    }
                }
                Rule::memory_binding => {
                    for m in kids(stmt) {
                        let s = span(&m);
                        let mut it = kids(m);
                        let mapping = ident(it.next().unwrap());
                        let ports = it.map(Self::port_ref).collect();
                        r.memory_bindings.push(MemoryBinding {
                            mapping,
                            ports,
                            span: s,
                        });
                    }
                }
                Rule::memory_schedule => {
                    for m in kids(stmt) {
                        let s = span(&m);
                        let mut it = kids(m);
                        let name = ident(it.next().unwrap());
                        let mappings = it.map(ident).collect();
                        r.memory_schedules.push(MemorySchedule {
                            name,
                            mappings,
                            span: s,
                        });
                    }
                }
                Rule::thread_execution => {
                    for p in kids(stmt) {
                        let s = span(&p);
                        let mut it = kids(p);
                        let thread = ident(it.next().unwrap());
                        let ops = it.map(|op| self.op(op)).collect();
                        r.thread_executions.push(ThreadExecution {
                            thread,
                            ops,
                            span: s,
                        });
                    }
                }
                Rule::signals => {
                    for sig in kids(stmt) {
                        let s = span(&sig);
                        let mut initial_token = false;
                        let mut name = Ident::new("");
                        for part in kids(sig) {
                            match part.as_rule() {
                                Rule::initial_token => initial_token = true,
                                _ => name = ident(part),
                            }
                        }
                        r.signals.push(Signal {
                            name,
                            initial_token,
                            span: s,
                        });
                    }
                }
                Rule::barriers => {
                    for b in kids(stmt) {
                        let s = span(&b);
                        let mut it = kids(b);
                        let name = ident(it.next().unwrap());
                        let threads = it.map(ident).collect();
                        r.barriers.push(Barrier {
                            name,
                            threads,
                            span: s,
                        });
                    }
                }
                _ => {}
            }
        }
        r
    }

    fn op(&mut self, n: Node) -> Spanned<Op> {
        let s = span(&n);
        let inner = kids(n).next().unwrap();
        let arg = kids(inner.clone()).next().unwrap();
        let op = match inner.as_rule() {
            Rule::op_wait => Op::Wait(ident(arg)),
            Rule::op_signal => Op::Signal(ident(arg)),
            Rule::op_exec => Op::Exec(self.subbox_ref(arg)),
            _ => Op::Barrier(ident(arg)),
        };
        Spanned::new(op, s)
    }
}

// ------------------------------------------------------------ syntax errors

/// At most this many syntax errors are collected from one file.
const MAX_SYNTAX_ERRORS: usize = 8;

/// Error recovery at section level: the body of the section holding the
/// error is blanked (offsets kept) and the file parsed again, so an error in
/// each section is reported, and none is a consequence of another.
fn recover(text: &str, first: pest::error::Error<Rule>) -> Vec<Diagnostic> {
    let mut errors = vec![syntax_error(text, first.clone())];
    let mut buf = text.to_string();
    let mut last = error_pos(&first);
    while errors.len() < MAX_SYNTAX_ERRORS {
        let Some((open, close)) = section_body_at(&buf, last) else {
            break;
        };
        blank(&mut buf, open + 1, close);
        match SscParser::parse(Rule::file, &buf) {
            Ok(_) => break,
            Err(e) => {
                let pos = error_pos(&e);
                if pos <= close {
                    break;
                }
                errors.push(syntax_error(&buf, e));
                last = pos;
            }
        }
    }
    errors
}

/// The byte offsets of the `{` and `}` of the top-level section that holds
/// `pos`, skipping comments; `None` when braces do not balance.
fn section_body_at(text: &str, pos: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let (mut i, mut depth, mut open) = (0, 0usize, None);
    while i < bytes.len() {
        if bytes[i..].starts_with(b"//") {
            i += text[i..].find('\n').unwrap_or(text.len() - i);
            continue;
        }
        if bytes[i..].starts_with(b"/*") {
            i += 2 + text[i + 2..].find("*/").map(|j| j + 2)?;
            continue;
        }
        match bytes[i] {
            b'{' => {
                if depth == 0 {
                    open = Some(i);
                }
                depth += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    let o = open?;
                    if o <= pos && pos <= i {
                        return Some((o, i));
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Replaces `text[from..to]` by spaces, keeping newlines and byte offsets.
fn blank(text: &mut String, from: usize, to: usize) {
    let blanked: String = text[from..to]
        .chars()
        .map(|c| {
            if c == '\n' {
                "\n".to_string()
            } else {
                " ".repeat(c.len_utf8())
            }
        })
        .collect();
    text.replace_range(from..to, &blanked);
}

/// What a grammar rule is called in a message.
fn rule_name(rule: &Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::ident => "a name",
        Rule::uint => "a whole number",
        Rule::number => "a number",
        Rule::direction | Rule::kw_in | Rule::kw_out => "`IN` or `OUT`",
        Rule::parallelism | Rule::kw_none | Rule::kw_full => "`NONE` or `FULL`",
        Rule::kw_rows => "`ROWS`",
        Rule::elem_type => "a type (char, uchar, short, ushort, int, uint, float, double)",
        Rule::pair => "`[x, y]`",
        Rule::port_ref => "a port `NAME.PORT`",
        Rule::subbox_ref => "a sub-box `F.k`",
        Rule::port => "a port",
        Rule::composition => "`composition`",
        Rule::declaration => "`declaration`",
        Rule::instantiation => "`instantiation`",
        Rule::runtime => "`runtime`",
        Rule::container_declaration => "`container_declaration`",
        Rule::container_bind => "`container_bind`",
        Rule::container_composition => "`container_composition`",
        Rule::compose => "`compose`",
        Rule::instances => "`container`",
        Rule::instance => "an instance",
        Rule::index_kw => "`index`",
        Rule::connection => "a connection `A.p -> B.q;`",
        Rule::function_declaration => "`function_declaration`",
        Rule::functions => "`function`",
        Rule::subboxes => "`function_instantiation`",
        Rule::dependency => "a dependency `P.i => C.j;`",
        Rule::timing => "`timing`",
        Rule::timing_system => "`timing_system`",
        Rule::thread_schedule => "`thread_schedule`",
        Rule::memory_mapping => "`memory_mapping`",
        Rule::memory_binding => "`memory_binding`",
        Rule::memory_schedule => "`memory_schedule`",
        Rule::thread_execution => "`thread_execution`",
        Rule::signals => "`signal`",
        Rule::barriers => "`barrier`",
        Rule::arena | Rule::shared_kw | Rule::local_kw => "`shared` or `local`",
        Rule::op | Rule::op_wait | Rule::op_signal | Rule::op_exec | Rule::op_barrier => {
            "an operation (`W s`, `S s`, `E F.k`, `B b`)"
        }
        Rule::signal => "a signal",
        Rule::initial_token => "`!`",
        Rule::self_kw => "`self`",
        Rule::function_definition => "`function_definition`",
        Rule::assignment => "an assignment `PORT = EXPR;`",
        Rule::expr | Rule::sum | Rule::product | Rule::unary | Rule::argument => "an expression",
        Rule::literal | Rule::signed_literal => "a number",
        Rule::call | Rule::callee => "a call `NAME(…)`",
        Rule::access => "a port",
        Rule::offset => "an offset",
        Rule::list => "a list `[a, b, …]`",
        Rule::text => "a quoted file name",
        Rule::cmp_op => "a comparison",
        Rule::add_op | Rule::mul_op => "an operator",
        Rule::neg => "`-`",
        Rule::chain | Rule::chain_kw => "`chain`",
        Rule::chain_params | Rule::param_kw => "`param`",
        Rule::param => "a parameter `NAME = VALUE`",
        Rule::chain_inputs | Rule::input_kw => "`input`",
        Rule::chain_input => "an input `NAME: TYPE[W, H]`",
        Rule::chain_fn | Rule::fn_kw => "`fn`",
        Rule::chain_kernel | Rule::kernel_kw => "`kernel`",
        Rule::kernel_param => "a kernel's port `NAME: TYPE [w, h]`",
        Rule::chain_output | Rule::output_kw => "`output`",
        Rule::chain_value => "a value `NAME = EXPR;`",
        _ => "something else",
    }
}

/// The reserved words of the description language.
pub const KEYWORDS: &[&str] = &[
    "container_declaration",
    "container_bind",
    "container_composition",
    "container",
    "compose",
    "composition",
    "function_declaration",
    "function_instantiation",
    "function",
    "declaration",
    "instantiation",
    "runtime",
    "timing_system",
    "timing",
    "thread_schedule",
    "thread_execution",
    "memory_mapping",
    "memory_binding",
    "memory_schedule",
    "signal",
    "barrier",
    "index",
    "self",
    "mul",
    "shared",
    "local",
    "IN",
    "OUT",
    "NONE",
    "FULL",
];

fn syntax_error(text: &str, e: pest::error::Error<Rule>) -> Diagnostic {
    let (pos, mut expected) = expected_at(text, &e, rule_name);
    let (found, len) = token_at(text, pos);
    let mut expected: Vec<&str> = expected.iter_mut().map(|s| s.as_str()).collect();
    expected.sort();
    expected.dedup();
    if expected.contains(&"`[x, y]`") {
        expected.retain(|e| *e != "`[`");
    }
    // A token that a rule's name already says (`IN` in "`IN` or `OUT`") is
    // not listed again.
    let all = expected.clone();
    expected.retain(|t| !all.iter().any(|o| o != t && o.contains(t)));
    let wants_name = expected.contains(&"a name");
    let expected_text = match expected.len() {
        0 => String::from("something else"),
        1 => expected[0].to_string(),
        _ => {
            let last = expected.pop().unwrap();
            format!("{} or {}", expected.join(", "), last)
        }
    };
    let word = found.trim_matches('`');
    if text.trim().is_empty() {
        // Span::NONE is (0, 0): push the label itself, so the report says 1:1.
        let mut d = Diagnostic::error("E001", "empty description").hint(
            "a description starts with `composition {` or `declaration {` (docs/language.md)",
        );
        d.labels.push(crate::diagnostics::Label {
            span: Span::new(0, 0),
            message: "the file has no section".into(),
        });
        return d;
    }
    let message = format!("expected {expected_text}, found {found}");
    // A missing `;` at the end of a line is reported where it belongs,
    // just after the last token before it (as rustc does), not at the
    // next line's first token.
    let before = text[..pos].trim_end();
    let gap = &text[before.len()..pos];
    if all.contains(&"`;`") && gap.contains('\n') && !before.is_empty() {
        let at = before.len();
        return Diagnostic::error("E001", format!("expected `;`, found {found}"))
            .label(Span::new(at, at), "add `;` here")
            .label(Span::new(pos, pos + len), "unexpected token")
            .hint(format!(
                "the statement before ends with `;` (expected {expected_text})"
            ));
    }
    let mut d = Diagnostic::error("E001", message).label(
        Span::new(pos, pos + len),
        format!("expected {expected_text} here"),
    );
    let upper = word.to_ascii_uppercase();
    if upper != word && expected_text.contains(&format!("`{upper}`")) {
        d = d.hint(format!(
            "keywords `IN`, `OUT`, `NONE` and `FULL` are upper case: write `{upper}`"
        ));
    } else if wants_name && KEYWORDS.contains(&word) {
        if before.ends_with(',') {
            d = d.hint(format!(
                "`{word}` is a keyword, so it cannot continue the list: end the list before it with `;` instead of `,`"
            ));
        } else {
            d = d.hint(format!(
                "`{word}` is a keyword and cannot be used as a name"
            ));
        }
    } else if text[pos..].starts_with("/*") {
        d = d.hint("this comment is never closed: add `*/`");
    } else if pos == text.len() {
        d = d.hint("the file ends too early: is a `}` or `;` missing?");
    } else if pos == 0 {
        d = d.hint("a description starts with `composition {` or `declaration {`; sections come in the order composition, declaration, instantiation, runtime");
    }
    d
}
