//! The one reader of a runtime's memory sections (`memory_mapping`,
//! `memory_binding`): where every buffer lives, and which buffers are
//! rings.
//!
//! Takes the HSDFG and a [`Runtime`] (emitted by the sync stage or written
//! by hand); gives the [`Placement`] of every buffer ([`placements`]) and
//! the [`Ring`] of every folded one ([`rings`]). The runtime checker
//! (`crate::verify::placements_from_runtime`, `crate::verify::rings`) and
//! every back end (`crate::back::layout`) call these and nothing else, so
//! the proof and the generated program cannot disagree about an address.
//! Guarantees: a name the sections do not resolve is reported as a
//! [`SectionError`] (ids, rendered by [`SectionError::display`]), never a
//! panic; the same inputs give the same placements.

use super::ring::Ring;
use super::{ArenaId, Placement};
use crate::ir::hsdfg::{BufferId, Hsdfg};
use crate::ir::{Arena, Op, Runtime};
use std::collections::HashMap;

/// Why the memory sections place no buffer: ids into the HSDFG and the
/// runtime they were read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionError {
    /// The OUT port of this buffer is in no `memory_binding`.
    Unbound(BufferId),
    /// `memory_bindings[binding]`, which binds this buffer, names a mapping
    /// that `memory_mapping` does not define.
    UnknownMapping { buffer: BufferId, binding: usize },
    /// This double-buffered state (`Buffer::copies`) is mapped to fewer
    /// bytes than its two copies: a state is never folded.
    Copies { buffer: BufferId, bytes: u64 },
}

impl SectionError {
    /// The message, named after `h` and `r`.
    pub fn display(&self, h: &Hsdfg, r: &Runtime) -> String {
        match *self {
            SectionError::Unbound(b) => {
                let buffer = &h.buffers[b.0];
                let f = &h.functions[buffer.producer.0 .0];
                format!(
                    "buffer {} ({}.{}) has no memory_binding",
                    buffer.name, f.name, f.ports[buffer.producer.1].name
                )
            }
            SectionError::UnknownMapping { binding, .. } => format!(
                "memory_binding names mapping {} that memory_mapping does not define",
                r.memory_bindings[binding].mapping
            ),
            SectionError::Copies { buffer, bytes } => {
                let b = &h.buffers[buffer.0];
                format!(
                    "buffer {} is read through a delay and keeps two copies ({} bytes), but its memory_mapping holds {bytes}",
                    b.name, b.bytes
                )
            }
        }
    }

    /// The buffer it is about.
    pub fn buffer(&self) -> BufferId {
        match *self {
            SectionError::Unbound(b)
            | SectionError::UnknownMapping { buffer: b, .. }
            | SectionError::Copies { buffer: b, .. } => b,
        }
    }
}

/// Placements of a runtime, from its `memory_mapping` and
/// `memory_binding`: each buffer goes where its producer's OUT port is
/// bound (`local`: the arena of the producer's thread). Without a memory
/// section (`-ms none`) every buffer has bytes of its own, one after the
/// other in the shared arena, so no two buffers share a byte. `Err` holds
/// one message per buffer that cannot be placed.
pub fn placements(h: &Hsdfg, r: &Runtime) -> Result<Vec<Placement>, Vec<SectionError>> {
    if !r.places_buffers() {
        let mut offset = 0;
        return Ok(h
            .buffers
            .iter()
            .map(|b| {
                let p = Placement {
                    arena: ArenaId::Shared,
                    offset,
                    bytes: b.bytes,
                };
                offset += b.bytes;
                p
            })
            .collect());
    }
    let thread_of = threads_of_functions(r);
    let mut errors = Vec::new();
    let mut out = Vec::new();
    for (bi, b) in h.buffers.iter().enumerate() {
        let f = &h.functions[b.producer.0 .0];
        let port = &f.ports[b.producer.1].name;
        let binding = r.memory_bindings.iter().position(|mb| {
            mb.ports
                .iter()
                .any(|p| p.owner_name() == f.name && &p.port.name == port)
        });
        let Some(bound) = binding else {
            errors.push(SectionError::Unbound(BufferId(bi)));
            continue;
        };
        let binding = &r.memory_bindings[bound];
        let Some(m) = r
            .memory_mappings
            .iter()
            .find(|m| m.name.name == binding.mapping.name)
        else {
            errors.push(SectionError::UnknownMapping {
                buffer: BufferId(bi),
                binding: bound,
            });
            continue;
        };
        let arena = match m.arena {
            Arena::Shared => ArenaId::Shared,
            Arena::Local => ArenaId::Local(*thread_of.get(&f.name).unwrap_or(&0)),
        };
        let bytes = m.end.value.saturating_sub(m.start.value);
        if b.copies == 2 && bytes < b.bytes {
            errors.push(SectionError::Copies {
                buffer: BufferId(bi),
                bytes,
            });
            continue;
        }
        out.push(Placement {
            arena,
            offset: m.start.value,
            bytes,
        });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The thread of each function instance: where its sub-boxes are scheduled
/// (`thread_schedule`), overridden by where they are executed
/// (`thread_execution`).
fn threads_of_functions(r: &Runtime) -> HashMap<String, usize> {
    let mut thread_of: HashMap<String, usize> = HashMap::new();
    for (t, ts) in r.thread_schedule.iter().enumerate() {
        for sb in &ts.subboxes {
            thread_of.insert(sb.function.name.clone(), t);
        }
    }
    for (t, te) in r.thread_executions.iter().enumerate() {
        for op in &te.ops {
            if let Op::Exec(sb) = &op.value {
                thread_of.insert(sb.function.name.clone(), t);
            }
        }
    }
    thread_of
}

/// The rings of the folded buffers of `placements` under runtime `r`
/// (`None` for a buffer placed whole): the bands follow the threads that
/// run each producer's sub-boxes, see [`super::ring`].
pub fn rings(h: &Hsdfg, r: &Runtime, placements: &[Placement]) -> Vec<Option<Ring>> {
    let n = h.graph.node_count();
    let (mut thread, mut pos) = (vec![0usize; n], vec![0usize; n]);
    let finder = h.finder();
    for (t, te) in r.thread_executions.iter().enumerate() {
        let mut k = 0;
        for op in &te.ops {
            if let Op::Exec(sb) = &op.value {
                if let Some(a) = finder.find(sb) {
                    thread[a.index()] = t;
                    pos[a.index()] = k;
                    k += 1;
                }
            }
        }
    }
    h.buffers
        .iter()
        .enumerate()
        .map(|(bi, buf)| {
            let p = placements.get(bi)?;
            p.fold(buf)?;
            let bands = super::ring::bands(h, BufferId(bi), &thread, &pos);
            super::ring::ring(buf, p.bytes, bands)
        })
        .collect()
}
