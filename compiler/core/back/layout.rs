//! The program layout every C emitter shares: where each buffer is, the
//! ports and sub-boxes, C identifiers and C string literals.
//!
//! Takes the HSDFG and where its buffers live ([`Memory`]: a runtime's
//! memory sections, read by [`crate::memory::sections`] — the reader the
//! proof uses too —, buffers allocated per iteration, or whole grids);
//! gives a [`Layout`]: per buffer its address expression, bytes and ring,
//! the arena sizes, per function instance its kernel and ports (array,
//! index, grid, type), per sub-box its identifier and kernel. The pthread
//! program (`back::c`) and the timing harness (`back::wcet`) render from
//! it. Guarantees: every C identifier comes from a description name with a
//! prefix (`buffer_`, `bands_`, `in_`, `out_`, `BOX_`), description names
//! with `.` made C-safe by `_`; free text reaches C only through
//! [`c_string`] (a string literal's contents) or [`comment`] (a `/* */`
//! comment on one line), the one escaper of each kind.
//!
//! Free text (the description's path, the command line in the header
//! comment, `-dt` in a string literal) is made safe: `*/` and `??` cannot
//! end a comment or form a trigraph, and string escapes are octal (`\012`),
//! never `\x`, which would swallow the hex digits that follow.

use crate::ir::builtins::builtin_of;
use crate::ir::hsdfg::{ActorId, BufferId, FunctionId, FunctionInfo, Hsdfg};
use crate::ir::{Direction, ElemType, Pair, Runtime};
use crate::memory::ring::Band;
use crate::memory::ArenaId;
use std::collections::BTreeMap;

/// Where the buffers live.
#[derive(Clone, Copy, Debug)]
pub enum Memory<'r> {
    /// Where the runtime's memory sections place them; each its own
    /// allocation (`buffer_NAME`) when the runtime has none (`-ms none`).
    Runtime(&'r Runtime),
    /// `-dm`: allocated per iteration at run time, no address when built.
    Dynamic,
    /// The timing harness: each its own whole grid, `buffer[i]`.
    Whole,
}

/// Where one buffer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// At `offset` in an arena.
    Arena { arena: ArenaId, offset: u64 },
    /// Its own allocation, `buffer_NAME`.
    Own,
    /// Allocated per iteration (`-dm`).
    Dynamic,
    /// Element `i` of the harness' `buffer` array.
    Whole(usize),
}

/// One buffer.
#[derive(Clone, Debug)]
pub struct BufferLayout {
    /// Its name in the description (`f.out`).
    pub label: String,
    /// Its name as a C identifier part (`f_out`).
    pub ident: String,
    pub bytes: u64,
    pub storage: Storage,
    /// Its ring of rows, when folded.
    pub ring: Option<RingLayout>,
}

impl BufferLayout {
    /// The C expression of its first byte.
    pub fn data(&self) -> String {
        match self.storage {
            Storage::Arena {
                arena: ArenaId::Shared,
                offset,
            } => format!("shared_arena.base + {offset}"),
            Storage::Arena {
                arena: ArenaId::Local(t),
                offset,
            } => format!("local_arena_{t}.base + {offset}"),
            Storage::Own => self.own_name(),
            Storage::Dynamic => "NULL".into(),
            Storage::Whole(i) => format!("buffer[{i}]"),
        }
    }

    /// The variable of its own allocation.
    pub fn own_name(&self) -> String {
        format!("buffer_{}", self.ident)
    }

    /// The table of its bands, when it has a ring per band.
    pub fn band_table(&self) -> Option<(String, usize)> {
        let ring = self.ring.as_ref()?;
        (ring.bands.len() > 1).then(|| (format!("bands_{}", self.ident), ring.bands.len()))
    }
}

/// A folded buffer: rings of `rows` rows, one per band.
#[derive(Clone, Debug)]
pub struct RingLayout {
    pub rows: u64,
    pub bands: Vec<Band>,
}

/// One port of a function instance.
#[derive(Clone, Debug)]
pub struct PortLayout {
    /// Its name in the description.
    pub name: String,
    /// `in` or `out`: the array of its function's ports it is in.
    pub array: &'static str,
    /// Its index in that array.
    pub index: usize,
    pub buffer: BufferId,
    /// The runtime's `ssc_type` constant.
    pub ty: &'static str,
    pub grid: Pair,
    pub mul: Pair,
    pub window: Pair,
    /// A double-buffered state (`Buffer::copies`): the elements from copy 0
    /// to copy 1, and the port's phase (1 for a delayed reader).
    pub copies: Option<(u64, u32)>,
}

/// One function instance.
#[derive(Clone, Debug)]
pub struct FunctionLayout {
    /// The instance (a C identifier: the HSDFG's function names are).
    pub name: String,
    /// Its C function in the description.
    pub function: String,
    /// The C function that runs it: a user kernel of that name wins, else
    /// the built-in it is a variant of.
    pub kernel: String,
    pub resolution: Pair,
    pub ports: Vec<PortLayout>,
    pub n_in: usize,
    pub n_out: usize,
}

impl FunctionLayout {
    /// The C expression of its inputs (`in_F`, or `NULL`).
    pub fn inputs(&self) -> String {
        array(self.n_in, "in", &self.name)
    }

    /// The C expression of its outputs (`out_F`, or `NULL`).
    pub fn outputs(&self) -> String {
        array(self.n_out, "out", &self.name)
    }
}

fn array(n: usize, prefix: &str, function: &str) -> String {
    if n > 0 {
        format!("{prefix}_{function}")
    } else {
        "NULL".into()
    }
}

/// One sub-box.
#[derive(Clone, Debug)]
pub struct BoxLayout {
    pub actor: ActorId,
    pub function: FunctionId,
    /// Its enum constant (`BOX_F_K`), its index in `boxes`.
    pub id: String,
}

/// What every emitter needs, computed once.
#[derive(Clone, Debug)]
pub struct Layout {
    /// By `BufferId`.
    pub buffers: Vec<BufferLayout>,
    /// Bytes of the shared arena (0: none).
    pub shared_bytes: u64,
    /// Bytes of each thread's local arena, by thread index (only threads
    /// that have one).
    pub local_bytes: BTreeMap<usize, u64>,
    /// By `FunctionId`.
    pub functions: Vec<FunctionLayout>,
    /// In the HSDFG's actor order.
    pub boxes: Vec<BoxLayout>,
}

impl Layout {
    /// The layout of `h` with its buffers where `memory` puts them; `Err`
    /// holds a message per buffer the memory sections cannot place.
    pub fn new(h: &Hsdfg, memory: Memory, user_kernels: &[String]) -> Result<Layout, Vec<String>> {
        let buffers = buffers(h, memory)?;
        let (shared_bytes, local_bytes) = arena_sizes(&buffers);
        Ok(Layout {
            buffers,
            shared_bytes,
            local_bytes,
            functions: h
                .functions
                .iter()
                .map(|f| function(h, f, user_kernels))
                .collect(),
            boxes: h
                .actors()
                .map(|a| {
                    let actor = h.actor(a);
                    BoxLayout {
                        actor: a,
                        function: actor.function,
                        id: box_id(&h.function(actor.function).name, actor.subbox.index),
                    }
                })
                .collect(),
        })
    }

    /// The address expression of a port's buffer.
    pub fn data(&self, p: &PortLayout) -> String {
        self.buffers[p.buffer.0].data()
    }

    /// Port `p` of function instance `f` as `ssc_port_make` takes it.
    pub fn port_make(&self, f: &FunctionLayout, p: &PortLayout) -> PortMake {
        PortMake {
            name: format!("{}_{}[{}]", p.array, f.name, p.index),
            data: self.data(p),
            ty: p.ty,
            width: p.grid.x,
            height: p.grid.y,
            mul_x: p.mul.x,
            mul_y: p.mul.y,
            win_x: p.window.x,
            win_y: p.window.y,
        }
    }
}

/// One port as the runtime's `ssc_port_make` takes it: its C variable
/// (`in_FUNCTION[i]` or `out_FUNCTION[i]`), its buffer's address, element
/// type, grid, multiplicity and window. The program and the timing harness
/// initialise their ports from it alike.
#[derive(Clone, Debug)]
pub struct PortMake {
    pub name: String,
    pub data: String,
    pub ty: &'static str,
    pub width: u64,
    pub height: u64,
    pub mul_x: u64,
    pub mul_y: u64,
    pub win_x: u64,
    pub win_y: u64,
}

/// The enum constant of sub-box `k` of function instance `function`.
pub fn box_id(function: &str, k: u64) -> String {
    format!("BOX_{function}_{k}")
}

/// Every buffer, placed as `memory` says.
fn buffers(h: &Hsdfg, memory: Memory) -> Result<Vec<BufferLayout>, Vec<String>> {
    let placed = match memory {
        Memory::Runtime(r) if r.places_buffers() => {
            let ps = crate::memory::sections::placements(h, r)
                .map_err(|es| es.iter().map(|e| e.display(h, r)).collect::<Vec<_>>())?;
            let rings = crate::memory::sections::rings(h, r, &ps);
            Some((ps, rings))
        }
        _ => None,
    };
    Ok(h.buffers
        .iter()
        .enumerate()
        .map(|(bi, buf)| {
            let (storage, ring) = match (&placed, memory) {
                (Some((ps, rings)), _) => (
                    Storage::Arena {
                        arena: ps[bi].arena,
                        offset: ps[bi].offset,
                    },
                    rings[bi].as_ref().map(|r| RingLayout {
                        rows: r.rows,
                        bands: r.bands.clone(),
                    }),
                ),
                (None, Memory::Runtime(_)) => (Storage::Own, None),
                // A state buffer outlives the iteration: allocated once.
                (None, Memory::Dynamic) if buf.initial.is_some() => (Storage::Own, None),
                (None, Memory::Dynamic) => (Storage::Dynamic, None),
                (None, Memory::Whole) => (Storage::Whole(bi), None),
            };
            BufferLayout {
                label: buf.name.clone(),
                ident: buf.name.replace('.', "_"),
                // An arena holds what the placement says (a ring: less).
                bytes: match &placed {
                    Some((ps, _)) => ps[bi].bytes,
                    None => buf.bytes,
                },
                storage,
                ring,
            }
        })
        .collect())
}

/// The shared arena's bytes and each local arena's: the end of the last
/// buffer placed in it.
fn arena_sizes(buffers: &[BufferLayout]) -> (u64, BTreeMap<usize, u64>) {
    let mut shared = 0u64;
    let mut local: BTreeMap<usize, u64> = BTreeMap::new();
    for b in buffers {
        let Storage::Arena { arena, offset } = b.storage else {
            continue;
        };
        let end = offset + b.bytes;
        match arena {
            ArenaId::Shared => shared = shared.max(end),
            ArenaId::Local(t) => {
                let e = local.entry(t).or_insert(0);
                *e = (*e).max(end);
            }
        }
    }
    (shared, local)
}

/// One function instance: its kernel and its ports, numbered per array.
fn function(h: &Hsdfg, f: &FunctionInfo, user_kernels: &[String]) -> FunctionLayout {
    let (mut n_in, mut n_out) = (0, 0);
    let ports = f
        .ports
        .iter()
        .map(|p| {
            let buf = h.buffer(p.buffer);
            let copies = (buf.copies == 2).then(|| (buf.grid.x * buf.grid.y, u32::from(p.delayed)));
            let (array, counter) = match p.direction {
                Direction::In => ("in", &mut n_in),
                Direction::Out => ("out", &mut n_out),
            };
            *counter += 1;
            PortLayout {
                name: p.name.clone(),
                array,
                index: *counter - 1,
                buffer: p.buffer,
                ty: c_type(p.ty),
                grid: p.grid,
                mul: p.mul,
                window: p.window,
                copies,
            }
        })
        .collect();
    FunctionLayout {
        name: f.name.clone(),
        function: f.function.clone(),
        // A kernel of one's own named after a built-in runs instead of
        // the built-in's generated kernel.
        kernel: if crate::ir::builtins::replaced_by_own(&f.function, user_kernels) {
            f.function.clone()
        } else if h.kernels.contains_key(&f.function) {
            crate::back::c::kernels::function_name(&f.function)
        } else if user_kernels.contains(&f.function) {
            f.function.clone()
        } else {
            builtin_of(&f.function).unwrap_or(&f.function).to_string()
        },
        resolution: f.resolution,
        ports,
        n_in,
        n_out,
    }
}

/// The runtime's `ssc_type` constant of an element type.
pub fn c_type(t: ElemType) -> &'static str {
    match t {
        ElemType::Char => "SSC_CHAR",
        ElemType::Uchar => "SSC_UCHAR",
        ElemType::Short => "SSC_SHORT",
        ElemType::Ushort => "SSC_USHORT",
        ElemType::Int => "SSC_INT",
        ElemType::Uint => "SSC_UINT",
        ElemType::Float => "SSC_FLOAT",
        ElemType::Double => "SSC_DOUBLE",
    }
}

/// Free text (a path, the command line) made safe inside a `/* */`
/// comment on one line.
pub fn comment(s: &str) -> String {
    s.replace("*/", "* /")
        .replace("??", "? ?")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A string as a C string literal's contents.
pub fn c_string(s: &str) -> String {
    s.chars()
        .flat_map(|c| match c {
            '"' => "\\\"".chars().collect::<Vec<_>>(),
            '\\' => "\\\\".chars().collect(),
            // `??/` and friends are trigraphs under -std=c11.
            '?' => "\\?".chars().collect(),
            // Octal, not `\x`: a hex escape would swallow following hex digits.
            c if c.is_ascii_control() => format!("\\{:03o}", c as u32).chars().collect(),
            c => vec![c],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{c_string, comment};

    #[test]
    fn c_strings_escape_quotes_backslashes_trigraphs_and_controls() {
        assert_eq!(c_string(r#"a"b\c"#), r#"a\"b\\c"#);
        assert_eq!(c_string("t??/x"), r"t\?\?/x");
        // Octal escapes have at most three digits: `\012` then `a`, where
        // `\x0a` would have read `\x0aa`.
        assert_eq!(c_string("x\nab"), r"x\012ab");
    }

    #[test]
    fn comments_cannot_be_closed_by_free_text() {
        assert_eq!(
            comment("build a*/b.ssc\n-o x??/"),
            "build a* /b.ssc -o x? ?/"
        );
    }
}
