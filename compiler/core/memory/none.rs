//! `-ms none`: every buffer is its own allocation, made by the runtime.
//!
//! The plan still gives each buffer a distinct range (consecutive, in the
//! order of first write, as [`super::naive`]) so that every later stage and
//! the checker see disjoint bytes; the back end mallocs each buffer on its
//! own instead of carving it from an arena. Nothing shares bytes, so no
//! ordering edges are needed.

use super::lifetime::Lifetimes;
use super::Placement;

pub(crate) fn place(lt: &Lifetimes) -> Vec<Placement> {
    super::naive::place(lt)
}
