//! The box of a kernel of one's own (`kernel NAME(P: TYPE) -> TYPE;`)
//! applied to values by name: its ports are the kernel's, read by name at
//! the values' own size; E065 for the wrong arguments, E041 for a value of
//! another type than the port (with the conversion to write).

use super::reads::as_name;
use super::reads::{Kind, Read};
use super::{codes, BoxPlan, Expander, PortPlan, Val};
use crate::diagnostics::Diagnostic;
use crate::ir::{Arg, ChainKernel, Expr, ExprKind, Ident, Pair, Span};

impl Expander<'_> {
    /// The box of a kernel of one's own applied to values by name.
    pub(super) fn plan_kernel(
        &mut self,
        name: &Ident,
        instance: &str,
        k: &ChainKernel,
        args: &[Arg],
        at: Span,
        written: bool,
    ) -> Val {
        let bad = Val::bad(instance);
        let names: Vec<Option<&Ident>> = args
            .iter()
            .map(|a| match a {
                Arg::Expr(x) => as_name(x),
                _ => None,
            })
            .collect();
        if args.len() != k.params.len() || names.iter().any(Option::is_none) {
            let form: Vec<&str> = k.params.iter().map(|p| p.name.name.as_str()).collect();
            self.errors.push(
                Diagnostic::error(
                    codes::CALL,
                    format!(
                        "kernel `{}` takes {} value(s) by name",
                        k.name,
                        k.params.len()
                    ),
                )
                .label(at, format!("{} argument(s) here", args.len()))
                .label(k.name.span, "declared here")
                .hint(format!("call it as `{}({})`", k.name, form.join(", "))),
            );
            return bad;
        }
        let reads: Vec<Read> = names
            .iter()
            .zip(&k.params)
            .map(|(n, p)| Read {
                value: (*n).expect("checked").clone(),
                kind: Kind::Same,
                window: p.window.map(|w| w.value),
                reach: (0, 0),
                delay: None,
                span: n.expect("checked").span,
            })
            .collect();
        let Some(known) = self.resolve(name, &reads) else {
            return bad;
        };
        let Some((size, _)) = self.geometry(name, &reads, &known) else {
            return bad;
        };
        let mut ports = Vec::new();
        for ((r, v), p) in reads.iter().zip(&known).zip(&k.params) {
            let v = v.as_ref().expect("no prev in a kernel's arguments");
            if v.ty != p.ty {
                self.errors.push(
                    Diagnostic::error(
                        "E041",
                        format!(
                            "`{}`'s `{}` is {}, `{}` is {}",
                            k.name,
                            p.name,
                            p.ty.keyword(),
                            r.value,
                            v.ty.keyword()
                        ),
                    )
                    .label(r.span, format!("a {} value", v.ty.keyword()))
                    .hint(format!(
                        "convert it first: `v = {}({});`, then pass `v`",
                        p.ty.keyword(),
                        r.value
                    )),
                );
                return bad;
            }
            ports.push(PortPlan {
                name: p.name.name.clone(),
                value: r.value.name.clone(),
                ty: p.ty,
                mul: Pair::ONE,
                window: p.window.map(|w| w.value),
                delay: None,
            });
        }
        self.boxes.push(BoxPlan {
            instance: instance.to_string(),
            container: k.name.name.clone(),
            ports,
            out_ty: k.output,
            out_mul: Pair::ONE,
            resolution: size,
            body: Expr::new(ExprKind::Number(0.0), at),
            written: written.then(|| name.clone()),
            kernel: Some((k.name.name.clone(), k.rows)),
        });
        Val {
            instance: instance.to_string(),
            ty: k.output,
            size,
            bad: false,
        }
    }
}
