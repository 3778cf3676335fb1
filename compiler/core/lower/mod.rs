//! Lowering: composition → declaration → instantiation → HSDFG.
//!
//! Each stage is a small module: [`compose`] flattens the composition,
//! [`inline`] fuses pointwise stages into their neighbours (`--inline`),
//! [`split`] (with [`deps`]) splits functions into sub-boxes, [`hsdfg`]
//! builds the graph the schedulers consume, with two copies of the state
//! buffers that [`delay`] picks, [`validate`] checks sections the user
//! wrote, [`timing`] reads the timing table and [`cost`] prices what it
//! leaves out. This module chains them:
//! [`lower`] takes a parsed description and fills in a missing declaration
//! and instantiation, validating those that are present (a present section
//! is honoured as written). The result prints (`-t interpreter`) to a
//! description that, parsed and lowered again, gives the same description.
//!
//! Takes a checked description and [`LowerOptions`]; gives the description
//! with a declaration and an instantiation (and its HSDFG through
//! [`hsdfg::build`]), or the diagnostics of what cannot be lowered
//! (E100–E149). Guarantees: a section the user wrote is honoured as written
//! once [`validate`] accepts it; the same input and options give the same
//! sections; everything after lowering reads the HSDFG, never the
//! description.

pub mod compose;
pub mod cost;
pub mod delay;
pub mod deps;
pub mod hsdfg;
pub mod inline;
pub mod split;
pub mod timing;
pub mod validate;

use crate::diagnostics::Diagnostic;
use crate::ir::{Declaration, Description, Pair};
use split::SplitOptions;
use timing::Timing;

/// Options of the lowering stages (`-cr`, `-dp`, `-mdp`, `-gpp`, `-cd`, `-wt`)
/// and the cost model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LowerOptions {
    /// `-cr w,h`: overrides the resolution of `compose`.
    pub resolution_override: Option<Pair>,
    pub split: SplitOptions,
    /// The cost model of the built-ins for functions without a `timing`
    /// entry (`None`: they cost 1 µs; `ssc build` gives the calibrated
    /// coefficients or the shipped ones).
    pub cost: Option<cost::Coefficients>,
    /// `--inline`: fuse pointwise defined functions into their neighbours
    /// ([`inline`]) in a composed declaration.
    pub inline: bool,
    /// `--contract`: the C back end contracts `a * b + c` into one
    /// rounding ([`crate::back::c::FloatRules::contract`]); fusing then
    /// keeps each substituted value apart ([`inline::fuse`]).
    pub contract: bool,
    /// The functions a kernel of one's own implements (`--kernels`): a
    /// built-in among them is the user's C, which stage fusion leaves
    /// alone.
    pub own_kernels: Vec<String>,
}

/// A lowered description and the warnings found on the way.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub description: Description,
    pub warnings: Vec<Diagnostic>,
}

/// The declaration of a description: the user's (validated against the
/// composition when both exist) or the composed one.
fn declaration(desc: &Description, opts: &LowerOptions) -> Result<Declaration, Vec<Diagnostic>> {
    match (&desc.composition, &desc.declaration) {
        (Some(c), Some(d)) => {
            let composed = compose::compose(c, opts.resolution_override)?;
            // A declaration may be the composition's as composed, or as
            // fused (what `-t interpreter` printed under `--inline`).
            // Fused, its instances keep the ids the composition gives them
            // (the checksum's keys, `ir::StableId`).
            if let Err(errors) = validate::validate_declaration(&composed, d) {
                let mut fused = composed.clone();
                inline::fuse(&mut fused, opts.contract, &opts.own_kernels);
                return match validate::validate_declaration(&fused, d) {
                    Ok(names) if fused != composed => {
                        let mut d = d.clone();
                        for f in &mut d.functions {
                            f.id = fused
                                .function(&names[f.name.as_str()])
                                .map_or(f.id, |g| g.id);
                        }
                        Ok(d)
                    }
                    _ => Err(errors),
                };
            }
            Ok(d.clone())
        }
        (Some(c), None) => {
            let mut d = compose::compose(c, opts.resolution_override)?;
            if opts.resolution_override.is_some() {
                check_overridden(&d)?;
            }
            if opts.inline {
                inline::fuse(&mut d, opts.contract, &opts.own_kernels);
            }
            Ok(d)
        }
        (None, Some(d)) => Ok(d.clone()),
        (None, None) => Err(vec![Diagnostic::error(
            "E134",
            "nothing to lower: the description has neither a composition nor a declaration",
        )
        .hint("start the file with `composition { ... }` or `declaration { ... }`")]),
    }
}

/// `-cr w,h` changes the top resolution after the checker has seen the
/// composition, so explicit inner resolutions (`down1 down [256, 256]`) may
/// no longer fit: the composed declaration is checked again, as if written.
fn check_overridden(d: &Declaration) -> Result<(), Vec<Diagnostic>> {
    let errors: Vec<Diagnostic> = crate::front::check(&Description {
        declaration: Some(d.clone()),
        ..Description::default()
    })
    .into_iter()
    .filter(|e| e.is_error())
    .map(|e| {
        e.hint("-cr overrides the composed resolution; the composition's explicit resolutions must fit it")
    })
    .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Fills in the declaration only (`-gd`): composition + declaration.
pub fn lower_to_declaration(
    desc: &Description,
    opts: &LowerOptions,
) -> Result<Description, Vec<Diagnostic>> {
    Ok(Description {
        chain: None,
        composition: desc.composition.clone(),
        declaration: Some(declaration(desc, opts)?),
        instantiation: None,
        runtime: None,
        dir: desc.dir.clone(),
    })
}

/// Fills in the declaration and the instantiation, validating present ones;
/// keeps a present runtime section as it is. Warnings are returned beside
/// the result.
pub fn lower(desc: &Description, opts: &LowerOptions) -> Result<Lowered, Vec<Diagnostic>> {
    let decl = declaration(desc, opts)?;
    let timing = Timing::from_runtime(desc.runtime.as_ref()).with_model(opts.cost);
    let mut warnings = Vec::new();
    let inst = match &desc.instantiation {
        Some(i) => {
            let diags = validate::validate_instantiation(&decl, i);
            if diags.iter().any(|d| d.is_error()) {
                return Err(diags);
            }
            warnings = diags;
            i.clone()
        }
        None => split::split(&decl, &timing, &opts.split).map_err(|errors| {
            // A composed declaration has no spans: label `compose`.
            let compose = desc.composition.as_ref().and_then(|c| c.compose.as_ref());
            match compose {
                Some(c) if desc.declaration.is_none() => errors
                    .into_iter()
                    .map(|e| e.label(c.span, "the chain composed here"))
                    .collect(),
                _ => errors,
            }
        })?,
    };
    Ok(Lowered {
        description: Description {
            chain: None,
            composition: desc.composition.clone(),
            declaration: Some(decl),
            instantiation: Some(inst),
            runtime: desc.runtime.clone(),
            dir: desc.dir.clone(),
        },
        warnings,
    })
}

/// [`lower`] without the warnings: the description with a declaration and
/// an instantiation (what `-t interpreter` prints before scheduling).
pub fn lower_to_instantiation(
    desc: &Description,
    opts: &LowerOptions,
) -> Result<Description, Vec<Diagnostic>> {
    lower(desc, opts).map(|l| l.description)
}

/// Lowers a description down to its HSDFG (what `-xr`, `-gg`, `-ig` and the
/// schedulers need). Timing comes from the runtime section when present.
pub fn lower_to_hsdfg(
    desc: &Description,
    opts: &LowerOptions,
) -> Result<(Description, crate::ir::hsdfg::Hsdfg), Vec<Diagnostic>> {
    let l = lower(desc, opts)?;
    let timing = Timing::from_runtime(l.description.runtime.as_ref())
        .with_model(opts.cost)
        .in_strips(opts.split.strips.is_some());
    let (Some(d), Some(i)) = (&l.description.declaration, &l.description.instantiation) else {
        unreachable!("lower fills in both sections")
    };
    let g = hsdfg::build(d, i, &timing, opts.split.weighted, desc.dir.as_deref())?;
    Ok((l.description, g))
}
