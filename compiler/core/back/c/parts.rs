//! Long lists of generated statements (signals, ports, sub-boxes, a
//! thread's operations) cut into parts: takes the statements, gives the
//! `noinline` functions that hold them in order (`SSC_PART` in the
//! program template), none when the list is short.

/// Statements of one generated function split into parts of at most
/// [`PART`]: C compilers take time superlinear in a function's length
/// (gcc -O2 needed over 10 minutes for the 17 000-op threads and 20 000-box
/// initialisation of a 10 000-box chain), so long lists become `noinline`
/// functions the original one calls in order. The parts are compiled
/// without optimisation (`SSC_PART`): every statement is a call of the
/// runtime, which optimisation cannot make faster, and optimising them was
/// 95 % of gcc's time on a 1 000-box chain (16 s of 17).
pub(super) struct Part<T> {
    pub name: String,
    /// `first–last` (1-based) of the whole list.
    pub range: String,
    pub items: Vec<T>,
}

/// Statements per generated function part.
const PART: usize = 500;

/// `items` in parts named `base_part0`, … — none when they fit in one.
pub(super) fn parts<T: Clone>(items: &[T], base: &str) -> Vec<Part<T>> {
    if items.len() <= PART {
        return Vec::new();
    }
    items
        .chunks(PART)
        .enumerate()
        .map(|(i, c)| Part {
            name: format!("{base}_part{i}"),
            range: format!("{}–{} of {}", i * PART + 1, i * PART + c.len(), items.len()),
            items: c.to_vec(),
        })
        .collect()
}
