//! What a chain must have once every value is planned: the values read
//! through `prev` before their line are what their readers took them to
//! be (E064), an output and an input (E069); then what no output needs is
//! left out, with a warning for each input and value written (E070).

use super::{codes, BoxPlan, Expander};
use crate::diagnostics::Diagnostic;
use std::collections::{BTreeMap, BTreeSet};

impl Expander<'_> {
    /// E064 for a `prev` whose value turned out otherwise than taken.
    pub(super) fn check_pending(&mut self) {
        for p in std::mem::take(&mut self.pending) {
            let Some(v) = self.values.get(&p.value.name) else {
                continue;
            };
            if v.bad || (v.size == p.size && v.ty == p.ty) {
                continue;
            }
            self.errors.push(
                Diagnostic::error(codes::PREV, format!("`prev({}, …)` is read as {} {}×{}, `{}` is {} {}×{}", p.value, p.ty.keyword(), p.size.x, p.size.y, p.value, v.ty.keyword(), v.size.x, v.size.y))
                    .label(p.value.span, "read here")
                    .hint("a value read before its line is taken to have the type and size of what it meets: convert or resize it there"),
            );
        }
    }

    /// E069: a chain reads at least one input and writes one output.
    pub(super) fn require_ends(&mut self) {
        if self.sinks.is_empty() {
            self.errors.push(
                Diagnostic::error(codes::NO_OUTPUT, format!("chain `{}` writes no output", self.chain.name))
                    .label(self.chain.name.span, "no `output` in this chain")
                    .hint("write what the chain gives as `output NAME = …;` (NAME is the program's --output port)"),
            );
        }
        if self.scope.inputs.is_empty() {
            self.errors.push(
                Diagnostic::error(
                    codes::NO_OUTPUT,
                    format!("chain `{}` reads no input", self.chain.name),
                )
                .label(self.chain.name.span, "no `input` in this chain")
                .hint("declare the frames it reads: `input raw: ushort[W, H];`"),
            );
        }
    }

    /// Leaves out what no sink needs; a warning for each input and value
    /// written by the user.
    pub(super) fn prune(&mut self) -> Vec<Diagnostic> {
        let mut live: BTreeSet<String> = self
            .sinks
            .iter()
            .map(|s| self.values[&s.value].instance.clone())
            .collect();
        let by_instance: BTreeMap<&str, &BoxPlan> = self
            .boxes
            .iter()
            .map(|b| (b.instance.as_str(), b))
            .collect();
        let mut todo: Vec<String> = live.iter().cloned().collect();
        while let Some(i) = todo.pop() {
            let Some(b) = by_instance.get(i.as_str()) else {
                continue;
            };
            for p in &b.ports {
                let inst = self.values[&p.value].instance.clone();
                if live.insert(inst.clone()) {
                    todo.push(inst);
                }
            }
        }
        let mut warnings = Vec::new();
        for (i, _) in &self.scope.inputs {
            if !live.contains(&i.name.name) {
                warnings.push(
                    Diagnostic::warning(codes::UNUSED, format!("input `{}` is never read", i.name))
                        .label(i.name.span, "no output needs it")
                        .hint("it is left out of the program (no --input port); remove it, or read it"),
                );
            }
        }
        for b in &self.boxes {
            if let (false, Some(n)) = (live.contains(&b.instance), &b.written) {
                warnings.push(
                    Diagnostic::warning(codes::UNUSED, format!("value `{n}` is never used"))
                        .label(n.span, "no output needs it")
                        .hint("it is left out of the program; remove it, or read it"),
                );
            }
        }
        let kept: Vec<bool> = self
            .boxes
            .iter()
            .map(|b| live.contains(&b.instance))
            .collect();
        for s in &mut self.sinks {
            s.position = kept[..s.position].iter().filter(|&&k| k).count();
        }
        self.boxes.retain(|b| live.contains(&b.instance));
        let kept: BTreeSet<String> = self
            .scope
            .inputs
            .iter()
            .map(|(i, _)| i.name.name.clone())
            .filter(|n| live.contains(n))
            .collect();
        self.values
            .retain(|_, v| live.contains(&v.instance) || kept.contains(&v.instance));
        warnings
    }
}
