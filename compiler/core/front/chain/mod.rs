//! The chain front end: `chain NAME { … }` → the composition it stands for.
//!
//! Takes a [`Description`] whose [`Chain`] the parser read, and the `-D
//! NAME=VALUE` overrides of its parameters; gives the same description
//! with the chain replaced by a `composition` section (every container,
//! port, binding, definition, instance, resolution and connection), which
//! every later stage reads as if it had been written by hand, or the
//! diagnostics of what is wrong (E060–E072, with file:line:col in the
//! chain's text). A description without a chain is returned as it is.
//!
//! Each named value becomes one box, as written: a container of its own
//! (boxes whose ports and expression are the same share one, named after
//! the `fn` they apply), a `function_definition` of its expression over
//! ports named after the values it reads, and an instance named after the
//! value. An input is a source of its type (`func_source_ushort`), an
//! `output NAME = …` a sink named NAME (`func_sink_uchar`) fed by a box
//! `to_NAME` (or by the value itself when the expression is a name). An
//! operator's argument that is not a value by name (`down2(down2(r0))`)
//! becomes a box of its own, `NAME_1`. Windows come from the operators
//! (and offsets), `mul` from `down2`/`up2`/`linear`, sizes from the inputs
//! and the parameters, types from the expressions. Guarantees: the same
//! chain and overrides always give the same expansion, byte for byte when
//! printed; every box of the expansion is read by a sink (a value or an
//! input that nothing reads is left out, with a warning, E070).
//!
//! Why expand rather than compile: the four levels stay the one form every
//! stage, proof and export reads, so nothing after the front end knows
//! chains exist, `-t interpreter` prints the expansion, and building that
//! print gives the chain's checksum. Fusing the boxes stays the schedule's
//! choice (`--inline`). Instances follow the text (inputs, then boxes and
//! sinks where their lines are), because a sink's checksum key is its
//! index: a chain and its four levels written in the same order print one
//! checksum. Sharing containers makes g0, g1 and g2 of a pyramid one C
//! function, as they are written by hand. `prev(x, c)` with a value `c` is
//! `select(first_frame(), c, x delayed)`, so the runtime needs nothing new (a
//! kernel reads `call->iteration`) and the delayed state keeps its constant
//! fill.

mod build;
mod ends;
mod kernel;
mod ports;
mod reads;
mod scope;
mod subst;

use crate::diagnostics::Diagnostic;
use crate::front::check::definitions::diagnostic as kernel_diagnostic;
use crate::front::check::names::suggest;
use crate::ir::kernel::expression_type;
use crate::ir::{
    Arg, Chain, Description, Direction, ElemType, Expr, ExprKind, Ident, Pair, Port, Span,
};
use ports::{frame_names, group, ir_port, rename};
use reads::{as_name, pointwise, Kind, Read, STRUCTURAL, WINDOWED};
use scope::Scope;
use std::collections::{BTreeMap, BTreeSet};

/// The codes of the chain front end (docs/diagnostics.md, "Chains").
pub mod codes {
    /// A name that is not defined.
    pub const UNKNOWN: &str = "E060";
    /// A value read above the line that defines it.
    pub const BEFORE: &str = "E061";
    /// A name defined twice.
    pub const TWICE: &str = "E062";
    /// Values that read each other without `prev`.
    pub const CYCLE: &str = "E063";
    /// A `prev` of a value whose type or size is not what its reader took.
    pub const PREV: &str = "E064";
    /// A `fn` called with the wrong arguments, or calling itself.
    pub const CALL: &str = "E065";
    /// A parameter or a size that is not a whole number.
    pub const NOT_WHOLE: &str = "E066";
    /// A `-D NAME` the chain has no parameter for.
    pub const UNKNOWN_DEFINE: &str = "E067";
    /// A size that `down2` cannot halve.
    pub const HALVE: &str = "E068";
    /// A chain that writes no output, or reads no input.
    pub const NO_OUTPUT: &str = "E069";
    /// An input or a value that nothing reads (a warning).
    pub const UNUSED: &str = "E070";
    /// The values an expression reads have different sizes.
    pub const SIZES: &str = "E071";
    /// A chain operator used outside its form (`down2(x)`, `median(x, [3, 3])`).
    pub const OPERATOR: &str = "E072";
}

/// `-D NAME=VALUE`: a parameter's value for one build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Define {
    pub name: String,
    pub value: String,
}

/// A description with its chain expanded, and the warnings of the expansion.
#[derive(Clone, Debug)]
pub struct Expanded {
    pub description: Description,
    pub warnings: Vec<Diagnostic>,
}

/// Expands the chain of `desc` (if any) with `defines` applied.
pub fn expand(desc: &Description, defines: &[Define]) -> Result<Expanded, Vec<Diagnostic>> {
    let Some(chain) = &desc.chain else {
        if let Some(d) = defines.first() {
            return Err(vec![Diagnostic::error(
                codes::UNKNOWN_DEFINE,
                format!(
                    "`-D {}`: this description has no chain, so no parameter",
                    d.name
                ),
            )
            .hint(
                "`-D` sets a `param` of a `chain { … }`; a four-level description has none",
            )]);
        }
        return Ok(Expanded {
            description: desc.clone(),
            warnings: Vec::new(),
        });
    };
    let scope = Scope::new(chain, defines)?;
    let mut x = Expander::new(chain, &scope, desc.dir.as_deref());
    x.values_in_order();
    x.check_pending();
    if x.errors.is_empty() {
        x.require_ends();
    }
    if !x.errors.is_empty() {
        return Err(x.errors);
    }
    let mut warnings = x.prune();
    let composition = build::composition(chain, &scope, &x.values, &x.boxes, &x.sinks);
    warnings.sort_by_key(|d| d.primary_span().map(|s| s.start));
    Ok(Expanded {
        description: Description {
            chain: None,
            composition: Some(composition),
            dir: desc.dir.clone(),
            ..Description::default()
        },
        warnings,
    })
}

/// A value of the chain once its box is planned.
#[derive(Clone, Debug)]
pub(super) struct Val {
    /// The instance whose `out` port holds it.
    pub(super) instance: String,
    pub(super) ty: ElemType,
    pub(super) size: Pair,
    /// An error was reported for it: what reads it reports nothing more.
    pub(super) bad: bool,
}

impl Val {
    /// The value of `instance` once an error was reported for it.
    pub(super) fn bad(instance: &str) -> Val {
        Val {
            instance: instance.to_string(),
            ty: ElemType::Float,
            size: Pair::ONE,
            bad: true,
        }
    }
}

/// One port of a box.
#[derive(Clone, Debug)]
pub(super) struct PortPlan {
    pub(super) name: String,
    /// The chain's name of the value it reads.
    pub(super) value: String,
    pub(super) ty: ElemType,
    pub(super) mul: Pair,
    pub(super) window: Option<Pair>,
    pub(super) delay: Option<f64>,
}

/// One box: an instance of a defined function.
#[derive(Clone, Debug)]
pub(super) struct BoxPlan {
    pub(super) instance: String,
    /// The container's name when no other box shares it: the `fn` the
    /// value applies, else the instance's.
    pub(super) container: String,
    pub(super) ports: Vec<PortPlan>,
    pub(super) out_ty: ElemType,
    pub(super) out_mul: Pair,
    /// Points (the instance's resolution): the output's size / `out_mul`.
    pub(super) resolution: Pair,
    pub(super) body: Expr,
    /// The name as written (`None` for a box the expansion made).
    pub(super) written: Option<Ident>,
    /// A kernel of one's own: its C function and whether it is `ROWS`
    /// (`None`: a definition, `body`).
    pub(super) kernel: Option<(String, bool)>,
}

/// A sink: `output NAME = …`.
#[derive(Clone, Debug)]
pub(super) struct SinkPlan {
    pub(super) name: Ident,
    /// The chain's name of the value it writes out.
    pub(super) value: String,
    /// How many boxes come before it: an output's sink is an instance
    /// where its line is.
    pub(super) position: usize,
}

/// A `prev` of a value not yet planned: what its reader took it to be.
struct Pending {
    value: Ident,
    size: Pair,
    ty: ElemType,
}

struct Expander<'a> {
    chain: &'a Chain,
    scope: &'a Scope<'a>,
    dir: Option<&'a std::path::Path>,
    values: BTreeMap<String, Val>,
    boxes: Vec<BoxPlan>,
    sinks: Vec<SinkPlan>,
    /// Every instance name handed out, and every name of the chain.
    taken: BTreeSet<String>,
    /// The values below the one being planned: name → its expression.
    below: BTreeMap<String, &'a Expr>,
    pending: Vec<Pending>,
    /// The port names of the value being planned: value → the parameter
    /// of the fn it is passed to.
    port_names: BTreeMap<String, String>,
    /// The arguments of that fn that are expressions (a box of their own
    /// when lifted, whose port is then named after the parameter).
    arg_names: Vec<(Span, String)>,
    errors: Vec<Diagnostic>,
}

impl<'a> Expander<'a> {
    fn new(chain: &'a Chain, scope: &'a Scope<'a>, dir: Option<&'a std::path::Path>) -> Self {
        let mut taken: BTreeSet<String> = BTreeSet::new();
        let mut values = BTreeMap::new();
        for (i, size) in &scope.inputs {
            taken.insert(i.name.name.clone());
            values.insert(
                i.name.name.clone(),
                Val {
                    instance: i.name.name.clone(),
                    ty: i.ty,
                    size: *size,
                    bad: false,
                },
            );
        }
        taken.extend(scope.values.iter().map(|v| v.name.name.clone()));
        taken.extend(scope.fns.keys().cloned());
        taken.extend(scope.params.keys().cloned());
        Expander {
            chain,
            scope,
            dir,
            values,
            boxes: Vec::new(),
            sinks: Vec::new(),
            taken,
            below: scope
                .values
                .iter()
                .map(|v| (v.name.name.clone(), &v.value))
                .collect(),
            pending: Vec::new(),
            port_names: BTreeMap::new(),
            arg_names: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// Plans every value, in the order written.
    fn values_in_order(&mut self) {
        for v in self.scope.values.clone() {
            self.below.remove(&v.name.name);
            let before = self.errors.len();
            let e = subst::substitute(&v.value, self.scope, &mut self.errors);
            if self.errors.len() > before {
                let bad = Val::bad(&v.name.name);
                self.values.insert(v.name.name.clone(), bad);
                continue;
            }
            // A value that applies a fn names its container after the fn,
            // and the ports of the values it passes by name after the
            // fn's parameters.
            self.port_names.clear();
            self.arg_names.clear();
            let container = match &v.value.kind {
                ExprKind::Call { callee, args } if self.scope.fns.contains_key(&callee.name) => {
                    let f = self.scope.fns[&callee.name];
                    for (p, a) in f.params.iter().zip(args) {
                        if let Arg::Expr(x) = a {
                            if let Some(n) = as_name(x) {
                                self.port_names
                                    .entry(n.name.clone())
                                    .or_insert_with(|| p.name.clone());
                            } else {
                                self.arg_names.push((x.span, p.name.clone()));
                            }
                        }
                    }
                    callee.name.clone()
                }
                _ => v.name.name.clone(),
            };
            if v.output {
                if let Some(name) = as_name(&e).filter(|n| self.values.contains_key(&n.name)) {
                    let val = self.values[&name.name].clone();
                    self.values.insert(v.name.name.clone(), val);
                    self.sinks.push(SinkPlan {
                        name: v.name.clone(),
                        value: name.name.clone(),
                        position: self.boxes.len(),
                    });
                    continue;
                }
                let instance = self.unique(&format!("to_{}", v.name));
                let container = if container == v.name.name {
                    instance.clone()
                } else {
                    container
                };
                let val = self.plan(&v.name, &instance, &container, &e, true);
                self.values.insert(v.name.name.clone(), val);
                self.sinks.push(SinkPlan {
                    name: v.name.clone(),
                    value: v.name.name.clone(),
                    position: self.boxes.len(),
                });
            } else {
                let val = self.plan(&v.name, &v.name.name, &container, &e, true);
                self.values.insert(v.name.name.clone(), val);
            }
        }
    }

    /// A name no instance has yet: `base`, else `base_2`, `base_3`, …
    fn unique(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 2;
        while self.taken.contains(&name) || crate::ir::builtins::builtin_of(&name).is_some() {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// Plans the box of value `name` (instance `instance`) computing `e`;
    /// `written`: the name is the user's (else the expansion made it).
    fn plan(
        &mut self,
        name: &Ident,
        instance: &str,
        container: &str,
        e: &Expr,
        written: bool,
    ) -> Val {
        let bad = Val::bad(instance);
        let before = self.errors.len();
        let e = self.lift(instance, e, true);
        if let ExprKind::Call { callee, args } = &e.kind {
            if let Some(k) = self.scope.kernels.get(&callee.name).copied() {
                return self.plan_kernel(name, instance, k, args, e.span, written);
            }
        }
        let collected = reads::collect(&e, &mut self.errors);
        let known = self.resolve(name, &collected.reads);
        if self.errors.len() > before || known.is_none() {
            return bad;
        }
        let known = known.expect("resolved");
        let Some((size, out_mul)) = self.geometry(name, &collected.reads, &known) else {
            return bad;
        };
        let resolution = Pair::new(size.x / out_mul.x, size.y / out_mul.y);
        let guess = known
            .iter()
            .flatten()
            .map(|v| v.ty)
            .next()
            .unwrap_or(ElemType::Float);
        let names = if written {
            self.port_names.clone()
        } else {
            BTreeMap::new()
        };
        let (mut ports, of) = group(&collected.reads, &known, out_mul, guess, &names);
        let port_names: Vec<String> = of.iter().map(|&p| ports[p].name.clone()).collect();
        let body = rename(&collected.body, &port_names);
        // The ports of values not planned yet (a `prev` of this value or
        // of one below) take the first type that types the expression:
        // for this value's own, the type the expression then has.
        let unknown: Vec<usize> = (0..ports.len())
            .filter(|&p| !self.values.contains_key(&ports[p].value))
            .collect();
        if !unknown.is_empty() {
            let mut tries: Vec<ElemType> = known.iter().flatten().map(|v| v.ty).collect();
            tries.extend([ElemType::Float, ElemType::Double]);
            tries.extend(ElemType::ALL);
            let fits = tries.into_iter().find(|&t| {
                let mut p = ports.clone();
                for &k in &unknown {
                    p[k].ty = t;
                }
                let own_ok =
                    |r: ElemType| unknown.iter().all(|&k| p[k].value != name.name || r == t);
                matches!(self.quiet_type(&body, &p, out_mul), Some(r) if own_ok(r))
            });
            if let Some(t) = fits {
                for &k in &unknown {
                    ports[k].ty = t;
                }
            }
        }
        let ty = self.type_of(&body, &ports, out_mul);
        let own: Vec<usize> = (0..ports.len())
            .filter(|&p| ports[p].value == name.name)
            .collect();
        let Some(ty) = ty else {
            return bad;
        };
        for (k, r) in collected.reads.iter().enumerate() {
            if known[k].is_none() && r.value.name != name.name {
                let p = &ports[of[k]];
                self.pending.push(Pending {
                    value: r.value.clone(),
                    size: Pair::new(p.mul.x * resolution.x, p.mul.y * resolution.y),
                    ty: p.ty,
                });
            }
        }
        if own.iter().any(|&p| ports[p].ty != ty) {
            self.errors.push(
                Diagnostic::error(
                    codes::PREV,
                    format!("`prev({name}, …)` does not have `{name}`'s type"),
                )
                .label(name.span, format!("`{name}` is {}", ty.keyword()))
                .hint("convert the expression so that it has one type throughout"),
            );
            return bad;
        }
        self.boxes.push(BoxPlan {
            instance: instance.to_string(),
            container: container.to_string(),
            ports,
            out_ty: ty,
            out_mul,
            resolution,
            body,
            written: written.then(|| name.clone()),
            kernel: None,
        });
        Val {
            instance: instance.to_string(),
            ty,
            size,
            bad: false,
        }
    }

    /// `e` with every operator argument that needs a box of its own
    /// replaced by a new value `INSTANCE_k`, planned first.
    fn lift(&mut self, instance: &str, e: &Expr, top: bool) -> Expr {
        let kind = match &e.kind {
            ExprKind::Number(_) | ExprKind::Port { .. } => return e.clone(),
            ExprKind::Neg(a) => ExprKind::Neg(Box::new(self.lift(instance, a, false))),
            ExprKind::Binary(op, a, b) => ExprKind::Binary(
                *op,
                Box::new(self.lift(instance, a, false)),
                Box::new(self.lift(instance, b, false)),
            ),
            ExprKind::Compare(op, a, b) => ExprKind::Compare(
                *op,
                Box::new(self.lift(instance, a, false)),
                Box::new(self.lift(instance, b, false)),
            ),
            ExprKind::Call { callee, .. }
                if !top && self.scope.kernels.contains_key(&callee.name) =>
            {
                // A kernel is a box: inside an expression, one of its own.
                let call = self.lift(instance, e, true);
                return self.lifted(instance, &call);
            }
            ExprKind::Call { callee, args } => {
                let c = callee.name.as_str();
                let needs_name =
                    STRUCTURAL.contains(&c) || self.scope.kernels.contains_key(&callee.name);
                let args = args
                    .iter()
                    .enumerate()
                    .map(|(k, a)| match a {
                        Arg::Expr(x) if k == 0 && needs_name && as_name(x).is_none() => {
                            Arg::Expr(self.lifted(instance, x))
                        }
                        Arg::Expr(x)
                            if k == 0
                                && WINDOWED.contains(&c)
                                && as_name(x).is_none()
                                && !pointwise(x) =>
                        {
                            Arg::Expr(self.lifted(instance, x))
                        }
                        Arg::Expr(x) => Arg::Expr(self.lift(instance, x, false)),
                        other => other.clone(),
                    })
                    .collect();
                ExprKind::Call {
                    callee: callee.clone(),
                    args,
                }
            }
        };
        Expr::new(kind, e.span)
    }

    /// Plans `x` as a value of its own; gives the read of it.
    fn lifted(&mut self, instance: &str, x: &Expr) -> Expr {
        let k = self.unique(&format!("{instance}_1"));
        let id = Ident::spanned(k.clone(), x.span);
        let val = self.plan(&id, &k, &k, x, false);
        self.values.insert(k.clone(), val);
        if let Some((_, p)) = self
            .arg_names
            .iter()
            .find(|(s, _)| *s == x.span && !x.span.is_none())
        {
            let p = p.clone();
            self.port_names.entry(k.clone()).or_insert(p);
        }
        Expr::new(
            ExprKind::Port {
                port: id,
                offset: None,
            },
            x.span,
        )
    }

    /// Each read's value, `None` for a `prev` of a value not yet planned;
    /// `None` overall when a read is wrong (reported) or reads a bad value.
    fn resolve(&mut self, name: &Ident, reads: &[Read]) -> Option<Vec<Option<Val>>> {
        let mut out = Vec::new();
        let mut ok = true;
        for r in reads {
            let v = r.value.name.as_str();
            if let Some(val) = self.values.get(v) {
                ok &= !val.bad;
                out.push(Some(val.clone()));
                continue;
            }
            let later = self.below.contains_key(v) || v == name.name;
            if r.delay.is_some() && later {
                out.push(None);
                continue;
            }
            ok = false;
            if later {
                self.errors.push(self.before_error(name, r));
            } else {
                let mut names: Vec<&str> = self.values.keys().map(String::as_str).collect();
                names.extend(self.below.keys().map(String::as_str));
                let hint = match suggest(v, names.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => {
                        "a value reads the inputs (`input x: …;`) and the values written above it"
                            .into()
                    }
                };
                self.errors.push(
                    Diagnostic::error(
                        codes::UNKNOWN,
                        format!("`{v}` is not a value of chain `{}`", self.chain.name),
                    )
                    .label(r.value.span, "not defined")
                    .hint(hint),
                );
            }
        }
        ok.then_some(out)
    }

    /// E061, or E063 when the value read below reads this one back.
    fn before_error(&self, name: &Ident, r: &Read) -> Diagnostic {
        let v = &r.value.name;
        if v == &name.name || self.reaches(v, &name.name) {
            Diagnostic::error(
                codes::CYCLE,
                format!("`{name}` and `{v}` read each other without `prev`"),
            )
            .label(
                r.span,
                format!("`{v}` of this frame needs `{name}` of this frame"),
            )
            .hint(format!(
                "a value cannot need itself: read the previous frame's with `prev({v}, 0)`"
            ))
        } else {
            Diagnostic::error(codes::BEFORE, format!("`{v}` is read above the line that defines it"))
                .label(r.span, "read here")
                .hint(format!("move `{v} = …;` above this line (a chain is read top to bottom; `prev({v}, 0)` reads its previous frame)"))
        }
    }

    /// Whether value `from` (below) reads `to` in this frame, directly or
    /// through other values below (not through `prev`).
    fn reaches(&self, from: &str, to: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(v) = todo.pop() {
            if !seen.insert(v.clone()) {
                continue;
            }
            let Some(e) = self.below.get(&v) else {
                continue;
            };
            let mut names = Vec::new();
            frame_names(e, &mut names);
            if names.iter().any(|n| n == to) {
                return true;
            }
            todo.extend(names);
        }
        false
    }

    /// The output's size and `mul`, from the sizes of the values read.
    fn geometry(
        &mut self,
        name: &Ident,
        reads: &[Read],
        known: &[Option<Val>],
    ) -> Option<(Pair, Pair)> {
        let mut size: Option<(Pair, &Read)> = None;
        let (mut up, mut down) = (None, None);
        for (r, v) in reads.iter().zip(known) {
            match r.kind {
                Kind::Up(k) => up = Some((k, r)),
                Kind::Down(k) => down = Some((k, r)),
                Kind::Same => {}
            }
            let Some(v) = v else { continue };
            let s = match r.kind {
                Kind::Same => v.size,
                Kind::Up(k) => Pair::new(v.size.x * k.x, v.size.y * k.y),
                Kind::Down(k) => {
                    if v.size.x % k.x != 0 || v.size.y % k.y != 0 {
                        self.errors.push(
                            Diagnostic::error(
                                codes::HALVE,
                                format!("`down2` cannot halve `{}`: it is {}×{}", r.value, v.size.x, v.size.y),
                            )
                            .label(r.span, "its width and height must be even")
                            .hint("give the inputs a size every level halves (a multiple of 2 per `down2`: `-D W=…`), or crop the input"),
                        );
                        return None;
                    }
                    Pair::new(v.size.x / k.x, v.size.y / k.y)
                }
            };
            match size {
                Some((first, at)) if first != s => {
                    self.errors.push(
                        Diagnostic::error(codes::SIZES, format!("`{name}` reads values of different sizes"))
                            .label(at.span, format!("{}×{} here", first.x, first.y))
                            .label(r.span, format!("{}×{} here", s.x, s.y))
                            .hint("an element-wise operation needs one size: bring one side to the other's with `down2` or `up2`"),
                    );
                    return None;
                }
                None => size = Some((s, r)),
                _ => {}
            }
        }
        if let (Some((_, u)), Some((_, d))) = (up, down) {
            self.errors.push(
                Diagnostic::error(
                    codes::OPERATOR,
                    format!("`{name}` goes down and up in one value"),
                )
                .label(d.span, "down here")
                .label(u.span, "up here")
                .hint("name one side first: `v = down2(x);`, then read `v`"),
            );
            return None;
        }
        let Some((size, _)) = size else {
            self.errors.push(
                Diagnostic::error(
                    codes::NO_OUTPUT,
                    format!("`{name}` reads no frame, so it has no size"),
                )
                .label(name.span, "a value of numbers only")
                .hint("a value is a frame: compute it from an input or another value"),
            );
            return None;
        };
        Some((size, up.map_or(Pair::ONE, |(k, _)| k)))
    }

    /// The type the body computes in, when it types (nothing reported).
    fn quiet_type(&self, body: &Expr, ports: &[PortPlan], out_mul: Pair) -> Option<ElemType> {
        expression_type(body, &typing_ports(ports, out_mul), self.dir)
            .ok()
            .flatten()
    }

    /// The type the body computes in, or `None` (reported).
    fn type_of(&mut self, body: &Expr, ports: &[PortPlan], out_mul: Pair) -> Option<ElemType> {
        match expression_type(body, &typing_ports(ports, out_mul), self.dir) {
            Ok(Some(t)) => Some(t),
            Ok(None) => None,
            Err(es) => {
                self.errors.extend(es.into_iter().map(kernel_diagnostic));
                None
            }
        }
    }
}

/// The ports a body is typed against: its inputs, and an output of
/// `out_mul` whose type does not matter.
fn typing_ports(ports: &[PortPlan], out_mul: Pair) -> Vec<Port> {
    let mut typed: Vec<Port> = ports
        .iter()
        .map(|p| ir_port(&p.name, Direction::In, p.ty, p.mul, p.window))
        .collect();
    typed.push(ir_port(
        "out",
        Direction::Out,
        ElemType::Double,
        out_mul,
        None,
    ));
    typed
}
