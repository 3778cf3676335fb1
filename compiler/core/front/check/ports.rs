//! Port lists of containers and functions, and the size of their buffers.
//!
//! Takes the ports of one container or function; gives E004 for a port name
//! used twice, E011 for a window on an OUT port, and (given a resolution)
//! E033 when a grid or its bytes pass 2^63. Guarantees: a port list that
//! passes has unique names and windows only on inputs.

use super::{codes, names};
use crate::diagnostics::Diagnostic;
use crate::ir::{Direction, Pair, Port, Span};

/// Buffers may not be larger than this many bytes (docs/language.md).
pub(super) const MAX_BYTES: u128 = 1 << 63;

pub(super) fn check_ports(owner: &str, ports: &[Port], out: &mut Vec<Diagnostic>) {
    names::duplicates(
        &format!("port of `{owner}`"),
        ports.iter().map(|p| &p.name),
        out,
    );
    for p in ports {
        if let (Direction::Out, Some(w)) = (p.direction, &p.window) {
            out.push(
                Diagnostic::error(
                    codes::OUT_WINDOW,
                    format!("OUT port `{}` of `{owner}` has a window", p.name),
                )
                .label(w.span, "a window on an OUT port")
                .label(p.name.span, "this port is an OUT port")
                .hint("only IN ports read a neighbourhood; remove the window `[wx, wy]`"),
            );
        }
    }
}

/// The grid and bytes of a port at a resolution; `None` when past 2^63 bytes.
pub(super) fn buffer(port: &Port, res: Pair) -> Option<(Pair, u128)> {
    let grid = port.grid(res)?;
    let bytes = (grid.x as u128)
        .checked_mul(grid.y as u128)?
        .checked_mul(port.ty.size() as u128)?;
    (bytes <= MAX_BYTES).then_some((grid, bytes))
}

/// E033 when the buffer of `port` at `res` does not fit; false then.
pub(super) fn check_size(
    name: &str,
    port: &Port,
    res: Pair,
    at: Span,
    out: &mut Vec<Diagnostic>,
) -> bool {
    if buffer(port, res).is_some() {
        return true;
    }
    let m = port.mul.value;
    out.push(
        Diagnostic::error(
            codes::OVERFLOW,
            format!(
                "the buffer of `{name}` is too large: resolution {res} × mul {m} × {} bytes passes 2^63 bytes",
                port.ty.size()
            ),
        )
        .label(at, format!("resolution {res}"))
        .label(port.mul.span, format!("mul {m}"))
        .hint("use a smaller resolution or `mul` factor"),
    );
    false
}
