//! What an analysis will cost and how it runs, known before it starts:
//! the [`Plan`] (`cost::plan` fills it), the hyper-period, the
//! [`Options`] of one analysis and the limits the plan bounds.

use super::model::Model;

/// What the analysis will cost, known before it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// `lcm` of the periods, in grid steps.
    pub hyper_period: u128,
    /// Latency trees: triggerings of the first component in a hyper-period.
    pub trees: u128,
    /// The thesis' operation count of eq. 5.15 (saturating), for
    /// comparison with its Table 5.2; not a bound on this analysis.
    pub estimate: u128,
    /// An upper bound of the operations the analysis counts
    /// ([`super::exact::Analysis::operations`]) plus those of the report's statistics,
    /// saturating ([`super::cost`]).
    pub operations: u128,
    /// Of which the loss analysis.
    pub loss_operations: u128,
    /// An upper bound of the bytes the analysis and its statistics hold.
    pub memory: u128,
    /// Whether the weights may outgrow `u128`: the analysis then runs in
    /// big integers from the start (and costs more per operation).
    pub big: bool,
    /// How the loss analysis finds the partners of a tree (never `Auto`).
    pub partners: Partners,
    /// At most this many values in the distribution.
    pub values: u128,
    /// Bits of the distribution's denominator.
    pub den_bits: u128,
}

/// Why the analysis cannot start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// The hyper-period does not fit 128 bits.
    HyperPeriodOverflow,
}

/// The hyper-period and the number of latency trees.
pub fn hyper_period(model: &Model) -> Result<(u128, u128), PlanError> {
    let mut h: u128 = 1;
    for c in &model.components {
        h = super::num::lcm_u128(h, c.period as u128).ok_or(PlanError::HyperPeriodOverflow)?;
    }
    Ok((h, h / model.components[0].period as u128))
}

/// Options of one analysis.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many latency trees (the first ones) to keep in full.
    pub keep_trees: usize,
    /// Do the loss analysis.
    pub loss: bool,
    /// How the loss analysis finds each tree's partners.
    pub partners: Partners,
}

/// How the loss analysis finds the later trees a tree may meet (the same
/// pairs either way; `tests/it/ptts_props.rs` checks that they agree).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Partners {
    /// The one of the two with the smaller bound of operations
    /// ([`super::cost`]), [`Partners::Window`] when the look-up would hold
    /// more than [`LOOK_UP_MEMORY`] bytes.
    #[default]
    Auto,
    /// Every tree up to the lookahead, in a sliding window.
    Window,
    /// Only the trees that share a time, looked up.
    LookUp,
}

/// The most bytes [`Partners::Auto`] lets the look-up hold.
pub const LOOK_UP_MEMORY: u128 = 1 << 29;

impl Default for Options {
    fn default() -> Self {
        Options {
            keep_trees: 0,
            loss: true,
            partners: Partners::Auto,
        }
    }
}

/// The most nodes of the kept trees, in all.
pub const TREE_NODES: usize = 20_000;
