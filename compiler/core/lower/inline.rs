//! Stage fusion: pointwise defined functions merged into their neighbours
//! (`--inline`; docs/fused.md, "Stage fusion").
//!
//! Takes a composed declaration (delay states already inserted); gives it
//! with fewer function instances, where two rewrites apply, until neither
//! does:
//!
//! * **inline** a pointwise producer `P` (a `function_definition` whose
//!   ports all have one `mul`, no window, every read the element itself)
//!   into every reader, when every reader is a defined function that reads
//!   it element by element: each reader computes `P`'s expression over
//!   `P`'s inputs itself, `P`'s instance and buffer are gone (Halide's
//!   inlining of a pure function);
//! * **merge** a pointwise consumer `C` into its producer `P` (both
//!   defined, one resolution and output `mul`): `C`'s outputs become more
//!   outputs of `P`, computed in `P`'s loop, so `C`'s pass and the read of
//!   `P`'s output are gone; an output of `P` that no one reads any more is
//!   dropped (its value lives on inside the others). Each other input of
//!   `C` is an input `P` reads at the same element, or becomes a new input
//!   of `P` when what writes it does not depend on `P`. A stencil `P` (a
//!   Gaussian) thus computes its consumers in the loop over its rows of
//!   sums, which stay in the level-1 cache, and its output is never
//!   stored when only `C` read it.
//!
//! A read of a replaced output becomes the producer's expression, written
//! out where it was read (the C compiler computes a repeated expression
//! once). Every operation stays as written, in its order and type, so the
//! fused chain computes the same bits as the chain as written: every
//! schedule still prints one checksum. A fused function is a function
//! like any other (`fused_INSTANCE`, its definition printed by `-t
//! interpreter` and `-gd`), so splitting, scheduling, synchronisation,
//! the checker and the exports see nothing new: what the checker proves
//! is what runs.
//!
//! Built-ins fuse like definitions where the language says them as
//! written (`ir::kernel::builtin_definition`: every floating built-in, the
//! pointwise integer ones): their definitions stand in for them while the
//! rewrites run, and a built-in left unfused is a built-in again. Never
//! fused: an integer `func_conv` or `func_down` (its sums compute in a type
//! of their own), the sources and sinks, user kernels (opaque C),
//! connections with a delay and the functions they touch, a function read
//! by something that is not a defined function reading it element by
//! element.
//!
//! Why a rewrite of the declaration, not of the C: the fused chain is a
//! description like any other, so what the checker proves is what runs, and
//! each instance keeps the composition's index as its checksum key
//! (`ir::StableId`), so a fused chain prints the unfused chain's checksum; a
//! hand-written declaration that matches the composition as fused validates
//! and takes those ids. A merged consumer's input from elsewhere becomes a
//! new input of the producer only when what writes it does not depend on
//! the producer (the merge would close a cycle); a fused function fused
//! again is dropped with the rest of the unused. A producer read through a
//! window is not inlined, though the language can say it: it measured no
//! faster on xray (docs/fused.md). `--inline` is off by default because it
//! changes the generated C and `-gd` of every chain with defined functions,
//! which users keep as golden files, though it is the best configuration in
//! `BENCHMARKS.md`.

use crate::ir::kernel::{builtin_definition, type_definition, Kernel, Op};
use crate::ir::{
    Arg, Assignment, Connection, Declaration, Definition, Direction, ElemType, Expr, ExprKind,
    FunctionDecl, Ident, Pair, Port, PortRef,
};
use std::collections::{BTreeMap, BTreeSet};

/// Fuses `d` as far as the two rewrites go. Idempotent: a fused
/// declaration fuses to itself. With `contract` (`--contract`), every
/// floating value substituted into another function's expression is
/// wrapped in its type's conversion (`float(…)`), which the C back end
/// never contracts through: `a * b + c` contracts into one rounding only
/// where one definition wrote it, so fusing keeps the outputs.
pub fn fuse(d: &mut Declaration, contract: bool, own_kernels: &[String]) {
    // The built-ins the language says as written fuse like definitions
    // (their definitions stand in for them while fusing; those left
    // unfused are built-ins again afterwards), but one a kernel of one's
    // own replaces.
    let defs: Vec<Definition> = d
        .function_decls
        .iter()
        .filter(|f| d.definition(f.name.as_str()).is_none())
        .filter(|f| !crate::ir::builtins::replaced_by_own(f.name.as_str(), own_kernels))
        .filter_map(|f| builtin_definition(f.name.as_str(), &f.ports))
        .collect();
    let stand_ins: BTreeSet<String> = defs.iter().map(|def| def.name.name.clone()).collect();
    d.definitions.extend(defs);
    let used_before: BTreeSet<String> = d
        .functions
        .iter()
        .map(|f| f.function.name.clone())
        .collect();
    let declared_before: BTreeSet<String> = d
        .function_decls
        .iter()
        .map(|f| f.name.name.clone())
        .collect();
    while let Some(rewrite) = next(d) {
        match rewrite {
            Rewrite::Inline(p) => inline(d, &p, contract),
            Rewrite::Merge(p, c) => merge(d, &p, &c, contract),
        }
    }
    // Functions no instance runs any more (a fused instance has its own),
    // among them fused ones that a later rewrite fused again.
    let used: BTreeSet<String> = d
        .functions
        .iter()
        .map(|f| f.function.name.clone())
        .collect();
    let gone =
        |n: &str| !used.contains(n) && (used_before.contains(n) || !declared_before.contains(n));
    d.function_decls.retain(|f| !gone(f.name.as_str()));
    d.definitions
        .retain(|f| !gone(f.name.as_str()) && !stand_ins.contains(f.name.as_str()));
}

enum Rewrite {
    /// Inline this producer instance into all its readers.
    Inline(String),
    /// Merge the consumer (second) into the producer (first).
    Merge(String, String),
}

/// A defined function instance: its declaration, definition and kernel.
struct Defined<'a> {
    decl: &'a FunctionDecl,
    def: &'a Definition,
    kernel: Kernel,
    resolution: Pair,
}

fn defined<'a>(d: &'a Declaration, inst: &str) -> Option<Defined<'a>> {
    let f = d.function(inst)?;
    let decl = d.function_decl(f.function.as_str())?;
    let def = d.definition(f.function.as_str())?;
    let kernel = type_definition(def, &decl.ports, None).ok()?;
    Some(Defined {
        decl,
        def,
        kernel,
        resolution: f.resolution.value,
    })
}

/// Whether `k` reads input `port` only at the element itself (offset 0, no
/// window operation); a port never read counts too.
fn reads_plainly(k: &Kernel, port: usize) -> bool {
    let mut plain = true;
    for v in &k.values {
        v.walk(&mut |node| match &node.op {
            Op::Read { port: p, dx, dy } if *p == port => plain &= *dx == 0 && *dy == 0,
            Op::Stencil { port: p, .. }
            | Op::Separable { port: p, .. }
            | Op::Median { port: p }
            | Op::BlockSum { port: p }
            | Op::Linear { port: p }
                if *p == port =>
            {
                plain = false
            }
            _ => {}
        });
    }
    // A port read inside a window operator's expression is read over a
    // window.
    plain && !k.locals.iter().any(|l| l.reads().contains(&port))
}

/// Whether every input of `k` is read element by element only (a port
/// never read counts too).
fn pointwise(k: &Kernel) -> bool {
    (0..k.inputs.len()).all(|i| reads_plainly(k, i))
}

fn input_index(k: &Kernel, port: &str) -> Option<usize> {
    k.inputs.iter().position(|p| p.name == port)
}

/// The connections into / out of an instance.
fn into<'a>(d: &'a Declaration, inst: &'a str) -> impl Iterator<Item = &'a Connection> + 'a {
    d.connections
        .iter()
        .filter(move |c| c.to.owner_name() == inst)
}
fn out_of<'a>(d: &'a Declaration, inst: &'a str) -> impl Iterator<Item = &'a Connection> + 'a {
    d.connections
        .iter()
        .filter(move |c| c.from.owner_name() == inst)
}

fn touches_delay(d: &Declaration, inst: &str) -> bool {
    into(d, inst)
        .chain(out_of(d, inst))
        .any(|c| c.delay.is_some())
}

/// The first rewrite that applies, in the order of the instances.
fn next(d: &Declaration) -> Option<Rewrite> {
    let names: Vec<String> = d.functions.iter().map(|f| f.name.name.clone()).collect();
    for p in &names {
        if can_inline(d, p) {
            return Some(Rewrite::Inline(p.clone()));
        }
    }
    for c in &names {
        if let Some(p) = merge_target(d, c) {
            return Some(Rewrite::Merge(p, c.clone()));
        }
    }
    None
}

/// `P` is pointwise, one `mul` on every port, no window, and every reader
/// is another defined function reading it element by element.
fn can_inline(d: &Declaration, p: &str) -> bool {
    let Some(pd) = defined(d, p) else {
        return false;
    };
    let mul = pd.kernel.out_mul;
    if touches_delay(d, p)
        || !pointwise(&pd.kernel)
        || pd
            .decl
            .ports
            .iter()
            .any(|q| q.mul.value != mul || q.window_or_one() != Pair::ONE)
        || into(d, p).count() != pd.kernel.inputs.len()
    {
        return false;
    }
    let mut readers = out_of(d, p).peekable();
    readers.peek().is_some()
        && out_of(d, p).all(|c| {
            defined(d, c.to.owner_name())
                .is_some_and(|rd| within_limits(rd.def, pd.def, &[c.to.port.as_str()]))
        })
        && readers.all(|c| {
            let r = c.to.owner_name();
            r != p
                && defined(d, r).is_some_and(|rd| {
                    input_index(&rd.kernel, c.to.port.as_str()).is_some_and(|i| {
                        reads_plainly(&rd.kernel, i) && rd.kernel.inputs[i].window == Pair::ONE
                    })
                })
        })
}

/// The producer `C` can merge into: `C` pointwise with every port at the
/// outputs' `mul`, one of its inputs from a defined `P` whose outputs have
/// the same grid (resolution × `mul`), the first such `P` in the order of
/// `C`'s inputs. Each other input of `C` is an output of `P`, a source `P`
/// reads at the same element through a port at its outputs' `mul`, or
/// becomes a new input of `P` when its producer does not
/// depend on `P` (else the merge would make a cycle).
fn merge_target(d: &Declaration, c: &str) -> Option<String> {
    let cd = defined(d, c)?;
    let mul = cd.kernel.out_mul;
    if touches_delay(d, c)
        || !pointwise(&cd.kernel)
        || cd
            .decl
            .ports
            .iter()
            .any(|q| q.mul.value != mul || q.window_or_one() != Pair::ONE)
    {
        return None;
    }
    let inputs: Vec<&Connection> = into(d, c).collect();
    if inputs.len() != cd.kernel.inputs.len() {
        return None;
    }
    let grid = |res: Pair, m: Pair| (res.x * m.x, res.y * m.y);
    let mut candidates: Vec<&str> = inputs.iter().map(|i| i.from.owner_name()).collect();
    candidates.dedup();
    candidates.into_iter().find_map(|p| {
        let pd = defined(d, p)?;
        // Not into a producer whose outputs have `mul` > 1: its loop runs
        // over points and writes each point's block, and `c`'s outputs
        // written that way cost more than `c`'s own element loop (measured
        // on examples/fluoro.ssc: docs/fused.md).
        if p == c
            || touches_delay(d, p)
            || pd.kernel.out_mul != Pair::ONE
            || grid(pd.resolution, pd.kernel.out_mul) != grid(cd.resolution, mul)
        {
            return None;
        }
        let from_p: Vec<&str> = inputs
            .iter()
            .filter(|i| i.from.owner_name() == p)
            .map(|i| i.to.port.as_str())
            .collect();
        (within_limits(cd.def, pd.def, &from_p)
            && inputs.iter().all(|i| {
                i.from.owner_name() == p
                    || shared_input(d, &pd, p, i).is_some()
                    || !reaches(d, p, i.from.owner_name())
            }))
        .then(|| p.to_string())
    })
}

/// Whether `reader`'s expressions stay within the limits of a written
/// expression (`ir::MAX_EXPR_DEPTH` and `MAX_EXPR_NODES`,
/// docs/language.md, "Limits") when every read of its input ports `ports`
/// becomes one of `producer`'s values (and a conversion around it): a
/// bound, each read counted as the largest value, so a fusion that could
/// pass a limit is not made and the chain runs as written.
fn within_limits(reader: &Definition, producer: &Definition, ports: &[&str]) -> bool {
    use crate::ir::{MAX_EXPR_DEPTH, MAX_EXPR_NODES};
    let (mut depth, mut nodes) = (0, 0);
    for a in &producer.assignments {
        let (d, n, _) = measure(&a.value, &[]);
        depth = depth.max(d);
        nodes = nodes.max(n);
    }
    reader.assignments.iter().all(|a| {
        let (d, n, reads) = measure(&a.value, ports);
        d + depth < MAX_EXPR_DEPTH && n + reads * (nodes + 1) <= MAX_EXPR_NODES
    })
}

/// The depth and nodes of `e`, and how many of them read one of `ports`;
/// without recursion (an explicit stack).
fn measure(e: &Expr, ports: &[&str]) -> (usize, usize, usize) {
    let (mut depth, mut nodes, mut reads) = (0, 0, 0);
    let mut stack = vec![(e, 1usize)];
    while let Some((e, d)) = stack.pop() {
        depth = depth.max(d);
        nodes += 1;
        match &e.kind {
            ExprKind::Number(_) => {}
            ExprKind::Port { port, .. } => reads += usize::from(ports.contains(&port.as_str())),
            ExprKind::Neg(x) => stack.push((x, d + 1)),
            ExprKind::Binary(_, a, b) | ExprKind::Compare(_, a, b) => {
                stack.push((a, d + 1));
                stack.push((b, d + 1));
            }
            ExprKind::Call { args, .. } => {
                for a in args {
                    if let Arg::Expr(x) = a {
                        stack.push((x, d + 1));
                    }
                }
            }
        }
    }
    (depth, nodes, reads)
}

/// Whether instance `to` depends on instance `from` (a path of
/// connections, delayed ones too, leads from `from` to `to`).
fn reaches(d: &Declaration, from: &str, to: &str) -> bool {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        if n == to {
            return true;
        }
        if seen.insert(n) {
            stack.extend(out_of(d, n).map(|c| c.to.owner_name()));
        }
    }
    false
}

/// The input of `P` (its name) that reads what connection `i` reads, at
/// the element `i`'s reader reads it: same source, a port of `P` at the
/// outputs' `mul`.
fn shared_input(d: &Declaration, pd: &Defined<'_>, p: &str, i: &Connection) -> Option<String> {
    into(d, p)
        .find(|pc| {
            pc.from == i.from
                && input_index(&pd.kernel, pc.to.port.as_str())
                    .is_some_and(|k| pd.kernel.inputs[k].mul == pd.kernel.out_mul)
        })
        .map(|pc| pc.to.port.name.clone())
}

/// `e` with every read of a port replaced as `with` says: the same read
/// of another port (its offset kept), or an expression (the port is only
/// ever read at the element itself).
fn substitute(e: &Expr, with: &dyn Fn(&str) -> Sub) -> Expr {
    e.map_ports(&|port, offset, span| match with(port.as_str()) {
        Sub::Rename(n) => Expr::new(
            ExprKind::Port {
                port: Ident {
                    name: n,
                    span: port.span,
                },
                offset,
            },
            span,
        ),
        Sub::Expr(x) => x,
    })
}

#[derive(Clone)]
enum Sub {
    Rename(String),
    Expr(Expr),
}

/// The value `P`'s definition gives output `port`.
fn value_of<'a>(def: &'a Definition, port: &str) -> &'a Expr {
    &def.assignments
        .iter()
        .find(|a| a.port.as_str() == port)
        .expect("every output of a defined function is assigned")
        .value
}

/// `value`, an output of type `ty` substituted into another function's
/// expression: under `contract` a floating one in its conversion to its
/// own type (an identity the back end does not contract through).
fn kept(value: Expr, ty: ElemType, contract: bool) -> Expr {
    if !contract || !ty.is_float() {
        return value;
    }
    let span = value.span;
    Expr::new(
        ExprKind::Call {
            callee: Ident {
                name: ty.keyword().to_string(),
                span,
            },
            args: vec![Arg::Expr(value)],
        },
        span,
    )
}

/// The type of output `port` of a function declared with `ports`.
fn output_type(ports: &[Port], port: &str) -> ElemType {
    ports
        .iter()
        .find(|q| q.name.as_str() == port)
        .expect("a connection's port is declared")
        .ty
}

/// A name not in `taken`: `base`, else `base_2`, `base_3`, …
fn fresh(base: String, taken: &BTreeSet<String>) -> String {
    if !taken.contains(&base) {
        return base;
    }
    (2..)
        .map(|k| format!("{base}_{k}"))
        .find(|n| !taken.contains(n))
        .expect("a free name")
}

/// The function an instance runs after fusion: `fused_INSTANCE`.
fn fused_name(d: &Declaration, inst: &str) -> String {
    let current = &d.function(inst).expect("an instance").function.name;
    if *current == format!("fused_{inst}") {
        return current.clone();
    }
    let taken: BTreeSet<String> = d
        .function_decls
        .iter()
        .map(|f| f.name.name.clone())
        .collect();
    fresh(format!("fused_{inst}"), &taken)
}

/// Replaces instance `inst`'s function by a new one with these ports and
/// assignments.
fn install(d: &mut Declaration, inst: &str, ports: Vec<Port>, assignments: Vec<Assignment>) {
    let name = fused_name(d, inst);
    let old = d.function(inst).expect("an instance").function.name.clone();
    let (parallelism, rows, span) = {
        let od = d.function_decl(&old).expect("declared");
        (od.parallelism, od.rows, od.span)
    };
    let def_span = d.definition(&old).expect("defined").span;
    d.function_decls.retain(|f| f.name.name != name);
    d.definitions.retain(|f| f.name.name != name);
    d.function_decls.push(FunctionDecl {
        name: Ident::new(name.clone()),
        parallelism,
        rows,
        ports,
        span,
    });
    d.definitions.push(Definition {
        name: Ident::new(name.clone()),
        assignments,
        span: def_span,
    });
    let f = d
        .functions
        .iter_mut()
        .find(|f| f.name.as_str() == inst)
        .expect("an instance");
    f.function = Ident {
        name,
        span: f.function.span,
    };
}

/// Inlines producer `p` into each of its readers.
fn inline(d: &mut Declaration, p: &str, contract: bool) {
    let pd = defined(d, p).expect("checked by can_inline");
    let p_def = pd.def.clone();
    let p_decl_ports = pd.decl.ports.clone();
    let p_inputs: Vec<Port> = pd
        .decl
        .ports
        .iter()
        .filter(|q| q.direction == Direction::In)
        .cloned()
        .collect();
    // The source of each input of `p`.
    let sources: BTreeMap<String, PortRef> = into(d, p)
        .map(|c| (c.to.port.name.clone(), c.from.clone()))
        .collect();
    let readers: Vec<Connection> = out_of(d, p).cloned().collect();
    let mut by_reader: BTreeMap<String, Vec<Connection>> = BTreeMap::new();
    for c in readers {
        by_reader
            .entry(c.to.owner_name().to_string())
            .or_default()
            .push(c);
    }
    for (r, conns) in by_reader {
        let rd = defined(d, &r).expect("checked by can_inline");
        let (r_decl, r_def) = (rd.decl.clone(), rd.def.clone());
        let mut taken: BTreeSet<String> =
            r_decl.ports.iter().map(|q| q.name.name.clone()).collect();
        let mut ports = Vec::new();
        let mut new_conns = Vec::new();
        // Reader port → (producer output, producer input → new port name).
        let mut replaced: BTreeMap<String, (String, BTreeMap<String, String>)> = BTreeMap::new();
        for q in &r_decl.ports {
            let Some(c) = conns.iter().find(|c| c.to.port.as_str() == q.name.as_str()) else {
                ports.push(q.clone());
                continue;
            };
            let mut names = BTreeMap::new();
            for pi in &p_inputs {
                let n = fresh(format!("{}_{}", q.name.name, pi.name.name), &taken);
                taken.insert(n.clone());
                ports.push(Port {
                    name: Ident::new(n.clone()),
                    direction: Direction::In,
                    ty: pi.ty,
                    mul: q.mul,
                    window: None,
                    span: q.span,
                });
                new_conns.push(Connection {
                    from: sources[&pi.name.name].clone(),
                    to: PortRef::new(&r, &n),
                    delay: None,
                    span: c.span,
                });
                names.insert(pi.name.name.clone(), n);
            }
            replaced.insert(q.name.name.clone(), (c.from.port.name.clone(), names));
        }
        let assignments = r_def
            .assignments
            .iter()
            .map(|a| Assignment {
                port: a.port.clone(),
                value: substitute(&a.value, &|port| match replaced.get(port) {
                    None => Sub::Rename(port.to_string()),
                    Some((output, names)) => Sub::Expr(kept(
                        substitute(value_of(&p_def, output), &|pp| {
                            Sub::Rename(names[pp].clone())
                        }),
                        output_type(&p_decl_ports, output),
                        contract,
                    )),
                }),
                span: a.span,
            })
            .collect();
        d.connections
            .retain(|c| !(c.from.owner_name() == p && c.to.owner_name() == r));
        d.connections.extend(new_conns);
        install(d, &r, ports, assignments);
    }
    d.connections.retain(|c| c.to.owner_name() != p);
    d.functions.retain(|f| f.name.as_str() != p);
}

/// Merges consumer `c` into producer `p`.
fn merge(d: &mut Declaration, p: &str, c: &str, contract: bool) {
    let pd = defined(d, p).expect("checked by merge_target");
    let cd = defined(d, c).expect("checked by merge_target");
    let (p_decl, p_def, c_decl, c_def) = (
        pd.decl.clone(),
        pd.def.clone(),
        cd.decl.clone(),
        cd.def.clone(),
    );
    // Each input of `c`: the output of `p` it reads, or `p`'s input.
    let c_inputs: Vec<Connection> = into(d, c).cloned().collect();
    let mut taken: BTreeSet<String> = p_decl.ports.iter().map(|q| q.name.name.clone()).collect();
    // `c`'s outputs take `p`'s `mul`: the same grid at `p`'s resolution.
    let out_mul = p_decl
        .ports
        .iter()
        .find(|q| q.direction == Direction::Out)
        .expect("a defined function has an output")
        .mul;
    let mut ports = p_decl.ports.clone();
    let mut read: BTreeMap<String, Sub> = BTreeMap::new();
    let mut extra = Vec::new();
    for i in &c_inputs {
        let value = if i.from.owner_name() == p {
            let output = i.from.port.as_str();
            Sub::Expr(kept(
                value_of(&p_def, output).clone(),
                output_type(&p_decl.ports, output),
                contract,
            ))
        } else if let Some(shared) = shared_input(d, &pd, p, i) {
            Sub::Rename(shared)
        } else {
            // An input from elsewhere becomes an input of `p`, read at the
            // element as `c` read it.
            let n = fresh(format!("{c}_{}", i.to.port.name), &taken);
            taken.insert(n.clone());
            let q = c_decl
                .ports
                .iter()
                .find(|q| q.name.as_str() == i.to.port.as_str())
                .expect("a connection's port is declared");
            ports.push(Port {
                name: Ident::new(n.clone()),
                mul: out_mul,
                ..q.clone()
            });
            extra.push(Connection {
                from: i.from.clone(),
                to: PortRef::new(p, &n),
                delay: None,
                span: i.span,
            });
            Sub::Rename(n)
        };
        read.insert(i.to.port.name.clone(), value);
    }
    let mut assignments = p_def.assignments.clone();
    let mut renamed = BTreeMap::new();
    for q in c_decl
        .ports
        .iter()
        .filter(|q| q.direction == Direction::Out)
    {
        let n = fresh(format!("{c}_{}", q.name.name), &taken);
        taken.insert(n.clone());
        let a = c_def
            .assignments
            .iter()
            .find(|a| a.port.as_str() == q.name.as_str())
            .expect("every output is assigned");
        assignments.push(Assignment {
            port: Ident::new(n.clone()),
            value: substitute(&a.value, &|port| read[port].clone()),
            span: a.span,
        });
        ports.push(Port {
            name: Ident::new(n.clone()),
            mul: out_mul,
            ..q.clone()
        });
        renamed.insert(q.name.name.clone(), n);
    }
    // `c`'s readers read `p`; `c` is gone.
    d.connections.retain(|x| x.to.owner_name() != c);
    d.connections.extend(extra);
    for x in d
        .connections
        .iter_mut()
        .filter(|x| x.from.owner_name() == c)
    {
        x.from = PortRef::new(p, &renamed[x.from.port.as_str()]);
    }
    d.functions.retain(|f| f.name.as_str() != c);
    // Outputs of `p` that only `c` read.
    let read_now: BTreeSet<String> = out_of(d, p).map(|x| x.from.port.name.clone()).collect();
    let dropped: BTreeSet<String> = c_inputs
        .iter()
        .filter(|i| i.from.owner_name() == p && !read_now.contains(&i.from.port.name))
        .map(|i| i.from.port.name.clone())
        .collect();
    ports.retain(|q| !dropped.contains(&q.name.name));
    assignments.retain(|a| !dropped.contains(&a.port.name));
    install(d, p, ports, assignments);
}
