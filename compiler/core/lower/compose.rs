//! Compose: a hierarchical `composition` → a flat `declaration` (docs/language.md).
//!
//! Takes a composition with its `compose APP [w, h]` (or a resolution that
//! overrides it, `-cr`); gives the flat declaration: one
//! `function_declaration` per C function used (ports and parallelism from
//! the container and its `container_bind`), one `function` per leaf
//! instance, and the connections between leaves, with every `self.PORT`
//! pass-through port of a composite container resolved (an outer driver of a
//! composite port feeds every inner port that `self.PORT` fans out to).
//!
//! Guarantees: names follow instance paths joined by `_` (`tgain`,
//! `denoise_tconv`); functions are listed depth-first in the order instances
//! are written; function declarations in order of first use; connections
//! sorted by their reader (function order, then port order: every IN port
//! has one driver, so this is a total order for a valid graph; the sort is
//! stable otherwise). `index` takes the enclosing composition's
//! resolution. Errors (E100–E109) name the composition and the instance.

use crate::diagnostics::Diagnostic;
use crate::ir::{
    Bind, Composition, Connection, ContainerComposition, ContainerDecl, Declaration, Function,
    FunctionDecl, InstanceResolution, Pair, PortRef, Span, Spanned,
};
use std::collections::BTreeMap;

/// A port of a leaf function instance in the flat graph.
#[derive(Clone, Debug, PartialEq)]
struct LeafPort {
    function: String,
    port: String,
}

/// What a composite (or leaf) instance looks like from outside.
#[derive(Default)]
struct Interface {
    /// An IN port → every leaf IN port it feeds.
    inputs: BTreeMap<String, Vec<LeafPort>>,
    /// An OUT port → the leaf OUT port that drives it.
    outputs: BTreeMap<String, LeafPort>,
    /// The instance could not be expanded (already reported).
    failed: bool,
}

struct Ctx<'a> {
    containers: BTreeMap<&'a str, &'a ContainerDecl>,
    binds: BTreeMap<&'a str, &'a Bind>,
    compositions: BTreeMap<&'a str, &'a ContainerComposition>,
    decl: Declaration,
    errors: Vec<Diagnostic>,
    stack: Vec<String>,
}

/// Flattens the composition `compose` names at its resolution (or at
/// `resolution_override`).
pub fn compose(
    c: &Composition,
    resolution_override: Option<Pair>,
) -> Result<Declaration, Vec<Diagnostic>> {
    let Some(top) = &c.compose else {
        // Label the section's header, not its every line; name the
        // container that no composition instantiates, the likely top.
        let header = Span::new(
            c.span.start,
            c.span.start + "composition".len().min(c.span.end - c.span.start),
        );
        let used: std::collections::BTreeSet<&str> = c
            .compositions
            .iter()
            .flat_map(|k| k.instances.iter().map(|i| i.container.as_str()))
            .collect();
        let tops: Vec<&str> = c
            .compositions
            .iter()
            .map(|k| k.name.as_str())
            .filter(|n| !used.contains(n))
            .collect();
        let hint = match tops.as_slice() {
            [top] => format!("add `compose {top} [w, h];` at the end of the composition: `{top}` is the only container no other composition uses"),
            _ => "add `compose APP [w, h];` naming the top-level container".to_string(),
        };
        return Err(vec![Diagnostic::error(
            "E100",
            "the composition has no `compose` statement",
        )
        .label(header, "this composition composes nothing")
        .hint(hint)]);
    };
    let mut ctx = Ctx {
        containers: c.containers.iter().map(|d| (d.name.as_str(), d)).collect(),
        binds: c.binds.iter().map(|b| (b.container.as_str(), b)).collect(),
        compositions: c
            .compositions
            .iter()
            .map(|k| (k.name.as_str(), k))
            .collect(),
        decl: Declaration::default(),
        errors: Vec::new(),
        stack: Vec::new(),
    };
    let res = resolution_override.unwrap_or(top.resolution.value);
    let name = top.container.as_str();
    if let Some(comp) = ctx.compositions.get(name).copied() {
        expand(&mut ctx, comp, res, "");
    } else if ctx.binds.contains_key(name) {
        // A single bound container composed on its own: one function.
        leaf(&mut ctx, name, name, res, top.span);
    } else {
        ctx.errors.push(
            Diagnostic::error(
                "E101",
                format!("`compose {name}` names no container_composition and no bound container"),
            )
            .label(top.container.span, "composed here"),
        );
    }
    if ctx.errors.is_empty() {
        let mut decl = ctx.decl;
        // The definitions of the functions the declaration runs, as written.
        decl.definitions = c
            .definitions
            .iter()
            .filter(|d| decl.function_decl(d.name.as_str()).is_some())
            .cloned()
            .collect();
        let key = |c: &Connection| {
            let f = decl
                .functions
                .iter()
                .position(|f| f.name.as_str() == c.to.owner_name())
                .unwrap_or(usize::MAX);
            let p = decl.functions.get(f).and_then(|f| {
                decl.function_decl(f.function.as_str())?
                    .ports
                    .iter()
                    .position(|p| p.name == c.to.port)
            });
            (f, p.unwrap_or(usize::MAX))
        };
        let mut keyed: Vec<_> = decl
            .connections
            .iter()
            .map(|c| (key(c), c.clone()))
            .collect();
        keyed.sort_by_key(|k| k.0);
        decl.connections = keyed.into_iter().map(|k| k.1).collect();
        Ok(decl)
    } else {
        Err(ctx.errors)
    }
}

/// Expands one composite container at resolution `res` under name `prefix`.
fn expand(ctx: &mut Ctx, comp: &ContainerComposition, res: Pair, prefix: &str) -> Interface {
    let mut iface = Interface::default();
    if ctx.stack.iter().any(|s| s == comp.name.as_str()) {
        ctx.errors.push(
            Diagnostic::error(
                "E102",
                format!(
                    "container_composition `{}` contains itself: {} -> {}",
                    comp.name,
                    ctx.stack.join(" -> "),
                    comp.name
                ),
            )
            .label(comp.name.span, "recursive composition"),
        );
        iface.failed = true;
        return iface;
    }
    ctx.stack.push(comp.name.name.clone());
    let mut inner: BTreeMap<String, Interface> = BTreeMap::new();
    for inst in &comp.instances {
        let r = match inst.resolution {
            InstanceResolution::Index => res,
            InstanceResolution::Explicit(p) => p.value,
        };
        let path = format!("{prefix}{}", inst.name);
        let ctype = inst.container.as_str();
        let sub = if let Some(c2) = ctx.compositions.get(ctype).copied() {
            expand(ctx, c2, r, &format!("{path}_"))
        } else if ctx.binds.contains_key(ctype) {
            leaf(ctx, ctype, &path, r, inst.span)
        } else {
            let what = if ctx.containers.contains_key(ctype) {
                "is neither bound to a function (container_bind) nor composed (container_composition)"
            } else {
                "is not declared"
            };
            ctx.errors.push(
                Diagnostic::error(
                    "E103",
                    format!("container `{ctype}` of instance `{}` {what}", inst.name),
                )
                .label(inst.container.span, "used here")
                .hint(format!(
                    "bind it: `container_bind {ctype} FUNC FULL;` or compose it"
                )),
            );
            Interface {
                failed: true,
                ..Interface::default()
            }
        };
        inner.insert(inst.name.name.clone(), sub);
    }
    for conn in &comp.connections {
        // Sources: a leaf OUT port, or `self.p` (a composite IN port).
        let src: Result<Option<LeafPort>, ()> = match &conn.from.owner {
            None => self_port(ctx, comp, &conn.from, crate::ir::Direction::In).map(|_| None),
            Some(o) => lookup_out(ctx, comp, &inner, o.as_str(), &conn.from).map(Some),
        };
        let dst: Result<Option<Vec<LeafPort>>, ()> = match &conn.to.owner {
            None => self_port(ctx, comp, &conn.to, crate::ir::Direction::Out).map(|_| None),
            Some(o) => lookup_in(ctx, comp, &inner, o.as_str(), &conn.to).map(Some),
        };
        match (src, dst) {
            (Ok(Some(s)), Ok(Some(ds))) => {
                for d in ds {
                    ctx.decl
                        .connections
                        .push(flat_connection(&s, &d, conn.delay));
                }
            }
            (Ok(None), Ok(Some(ds))) => {
                iface
                    .inputs
                    .entry(conn.from.port.name.clone())
                    .or_default()
                    .extend(ds);
            }
            (Ok(Some(s)), Ok(None)) => {
                if iface.outputs.contains_key(&conn.to.port.name) {
                    ctx.errors.push(
                        Diagnostic::error(
                            "E104",
                            format!(
                                "port `self.{}` of `{}` has more than one driver",
                                conn.to.port, comp.name
                            ),
                        )
                        .label(conn.span, "second driver"),
                    );
                } else {
                    iface.outputs.insert(conn.to.port.name.clone(), s);
                }
            }
            (Ok(None), Ok(None)) => ctx.errors.push(
                Diagnostic::error(
                    "E105",
                    format!(
                        "`{} -> {}` in `{}` connects the composition's own ports directly",
                        conn.from, conn.to, comp.name
                    ),
                )
                .label(conn.span, "self to self")
                .hint("route the data through a function, e.g. a container bound to func_copy"),
            ),
            _ => {}
        }
    }
    ctx.stack.pop();
    iface
}

/// Checks `self.p` against the composite's `container_declaration` (when it
/// has one): `p` must be a port of the right direction (IN when data comes
/// in through it, OUT when it leaves).
fn self_port(
    ctx: &mut Ctx,
    comp: &ContainerComposition,
    r: &PortRef,
    want: crate::ir::Direction,
) -> Result<(), ()> {
    let Some(decl) = ctx.containers.get(comp.name.as_str()).copied() else {
        return Ok(());
    };
    match decl.ports.iter().find(|p| p.name == r.port) {
        Some(p) if p.direction == want => Ok(()),
        Some(p) => {
            let what = format!(
                "`{}` is an {} port of `{}`; here it is used as an {} port",
                r.port,
                p.direction.keyword(),
                comp.name,
                want.keyword()
            );
            unknown_port(ctx, comp, r, &what);
            Err(())
        }
        None => {
            let what = format!("container `{}` declares no port `{}`", comp.name, r.port);
            unknown_port(ctx, comp, r, &what);
            Err(())
        }
    }
}

fn unknown_port(ctx: &mut Ctx, comp: &ContainerComposition, r: &PortRef, what: &str) {
    ctx.errors.push(
        Diagnostic::error(
            "E106",
            format!("`{r}` in composition `{}`: {what}", comp.name),
        )
        .label(r.span, what.to_string()),
    );
}

fn lookup_out(
    ctx: &mut Ctx,
    comp: &ContainerComposition,
    inner: &BTreeMap<String, Interface>,
    owner: &str,
    r: &PortRef,
) -> Result<LeafPort, ()> {
    let Some(i) = inner.get(owner) else {
        unknown_port(ctx, comp, r, "no such instance");
        return Err(());
    };
    match i.outputs.get(r.port.as_str()) {
        Some(p) => Ok(p.clone()),
        None => {
            if i.failed {
                return Err(()); // already reported
            }
            unknown_port(
                ctx,
                comp,
                r,
                "no such output port (or a composite output never driven inside)",
            );
            Err(())
        }
    }
}

fn lookup_in(
    ctx: &mut Ctx,
    comp: &ContainerComposition,
    inner: &BTreeMap<String, Interface>,
    owner: &str,
    r: &PortRef,
) -> Result<Vec<LeafPort>, ()> {
    let Some(i) = inner.get(owner) else {
        unknown_port(ctx, comp, r, "no such instance");
        return Err(());
    };
    match i.inputs.get(r.port.as_str()) {
        Some(p) => Ok(p.clone()),
        None => {
            if i.failed {
                return Err(());
            }
            unknown_port(
                ctx,
                comp,
                r,
                "no such input port (or a composite input never used inside)",
            );
            Err(())
        }
    }
}

fn flat_connection(s: &LeafPort, d: &LeafPort, delay: Option<Spanned<f64>>) -> Connection {
    Connection {
        from: PortRef::new(&s.function, &s.port),
        to: PortRef::new(&d.function, &d.port),
        delay: delay.map(|v| Spanned::bare(v.value)),
        span: Span::NONE,
    }
}

/// Adds one leaf function instance `path` of bound container `ctype`.
fn leaf(ctx: &mut Ctx, ctype: &str, path: &str, res: Pair, span: Span) -> Interface {
    let mut iface = Interface::default();
    let bind = ctx.binds[ctype];
    let ports = match ctx.containers.get(ctype) {
        Some(c) => c.ports.clone(),
        None => {
            ctx.errors.push(
                Diagnostic::error(
                    "E107",
                    format!("bound container `{ctype}` has no container_declaration"),
                )
                .label(bind.container.span, "bound here")
                .hint(format!(
                    "declare its ports: `container_declaration {ctype} {{ ... }};`"
                )),
            );
            iface.failed = true;
            return iface;
        }
    };
    let func = bind.function.as_str();
    match ctx.decl.function_decl(func) {
        Some(fd) => {
            if fd.ports != ports || fd.parallelism != bind.parallelism || fd.rows != bind.rows {
                let first = ctx
                    .binds
                    .values()
                    .find(|b| b.function.as_str() == func && b.container.as_str() != ctype)
                    .map(|b| b.container.name.clone())
                    .unwrap_or_default();
                ctx.errors.push(
                    Diagnostic::error(
                        "E108",
                        format!(
                            "containers `{first}` and `{ctype}` bind function `{func}` with different ports, parallelism or `ROWS`"
                        ),
                    )
                    .label(bind.span, "this binding")
                    .hint(variant_hint(ctype, func, &ports, bind.parallelism)),
                );
            }
        }
        None => ctx.decl.function_decls.push(FunctionDecl {
            name: bind.function.clone().unspanned(),
            parallelism: bind.parallelism,
            rows: bind.rows,
            ports: ports.clone(),
            span: Span::NONE,
        }),
    }
    if ctx.decl.function(path).is_some() {
        ctx.errors.push(
            Diagnostic::error(
                "E109",
                format!("two instances flatten to the same name `{path}`"),
            )
            .label(span, "this instance")
            .hint("rename one of the instances; paths are joined with `_`"),
        );
    }
    let id = crate::ir::StableId(Some(ctx.decl.functions.len() as u32));
    ctx.decl.functions.push(Function {
        name: crate::ir::Ident::new(path),
        function: crate::ir::Ident::new(func),
        resolution: Spanned::bare(res),
        span: Span::NONE,
        id,
    });
    for p in &ports {
        let lp = LeafPort {
            function: path.to_string(),
            port: p.name.name.clone(),
        };
        match p.direction {
            crate::ir::Direction::In => {
                iface.inputs.insert(p.name.name.clone(), vec![lp]);
            }
            crate::ir::Direction::Out => {
                iface.outputs.insert(p.name.name.clone(), lp);
            }
        }
    }
    iface
}

trait Unspanned {
    fn unspanned(self) -> Self;
}
impl Unspanned for crate::ir::Ident {
    fn unspanned(self) -> Self {
        crate::ir::Ident::new(self.name)
    }
}

/// E108's fix: the binding written with a function name of its own. For a
/// built-in that is a variant (`func_conv_5x5`: the built-in's name, `_`,
/// a suffix from the window), which runs the built-in kernel.
fn variant_hint(
    container: &str,
    func: &str,
    ports: &[crate::ir::Port],
    parallelism: crate::ir::Parallelism,
) -> String {
    let suffix = ports
        .iter()
        .find_map(|p| p.window.map(|w| format!("{}x{}", w.value.x, w.value.y)))
        .unwrap_or_else(|| container.to_string());
    let keyword = parallelism.keyword();
    match crate::ir::builtins::builtin_of(func) {
        Some(b) => format!(
            "one C function has one signature: write `{container} {b}_{suffix} {keyword}` (a built-in's name, `_` and a suffix is a variant that runs `{b}`)"
        ),
        None => format!(
            "one C function has one signature: bind `{container}` to a function of its own, e.g. `{container} {func}_{suffix} {keyword}`, and give its C with `--kernels`"
        ),
    }
}
