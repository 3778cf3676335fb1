//! The `instantiation` section: the sub-boxes of the functions and the
//! dependencies between them.
//!
//! Takes the section's node; gives its [`Instantiation`] with spans, the
//! statements in the order written. Guarantees: a region holds the two
//! corners as written (an empty or reversed one is the checker's to
//! report).

use super::grammar::Rule;
use super::parse::Builder;
use super::walk::{kids, span, Node, Walk};
use crate::ir::{Dependency, Instantiation, Region, Spanned, SubBox};

impl Builder {
    pub(super) fn instantiation(&mut self, n: Node) -> Instantiation {
        let mut inst = Instantiation {
            span: span(&n),
            ..Default::default()
        };
        for stmt in kids(n) {
            let s = span(&stmt);
            match stmt.as_rule() {
                Rule::subboxes => {
                    for sb in kids(stmt) {
                        let sb = self.subbox(sb);
                        inst.subboxes.push(sb);
                    }
                }
                Rule::dependency => {
                    let mut it = Walk::of(stmt);
                    let from = self.subbox_ref(it.expect(Rule::subbox_ref));
                    let to = self.subbox_ref(it.expect(Rule::subbox_ref));
                    let delay = it.maybe().is_some();
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

    /// `F.k [x0, y0] : [x1, y1]`.
    fn subbox(&mut self, n: Node) -> SubBox {
        let s = span(&n);
        let mut it = Walk::of(n);
        let id = self.subbox_ref(it.expect(Rule::subbox_ref));
        let a = it.expect(Rule::pair);
        let b = it.expect(Rule::pair);
        let rs = span(&a).join(span(&b));
        let region = Region::from_corners(self.coords(a), self.coords(b));
        SubBox {
            id,
            region: Spanned::new(region, rs),
            span: s,
        }
    }
}
