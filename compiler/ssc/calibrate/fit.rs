//! The fit of the cost model's coefficients to the suite's medians
//! (`super`'s docs, "Measuring"): least squares where two costs share
//! instances, each built-in's own time otherwise.

use super::suite::{
    big_side, suite, DEFINED, POINTWISE, SIDE, SMALL, SOURCE_NARROW, SOURCE_WIDE, STREAMING,
};
use super::Error;
use ssc::ir::Pair;
use ssc::lower::cost::{Coefficients, Work, SOURCE_PERIOD, TYPES};
use ssc::lower::LowerOptions;
use std::collections::BTreeMap;

/// The least-squares solution of `rows` (`(x, y)`: x · c ≈ y) for two
/// coefficients c, by the normal equations; 0 where they are singular.
fn least_squares(rows: &[([f64; 2], f64)]) -> [f64; 2] {
    let (mut a, mut b, mut d, mut e, mut f) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for ([x0, x1], y) in rows {
        a += x0 * x0;
        b += x0 * x1;
        d += x1 * x1;
        e += x0 * y;
        f += x1 * y;
    }
    let det = a * d - b * b;
    if det.abs() < 1e-300 {
        return [0.0; 2];
    }
    [(e * d - b * f) / det, (a * f - b * e) / det]
}

/// The coefficients of the medians (µs) of the instances of
/// `suite(big_side(cache))`, on a machine with `cache` bytes of per-core
/// cache.
pub fn fit(median_us: &BTreeMap<String, f64>, cache: u64) -> Result<Coefficients, Error> {
    let t = |name: &str| -> Result<f64, Error> {
        median_us
            .get(name)
            .map(|v| v * 1000.0)
            .ok_or_else(|| Error::Untimed {
                name: name.to_string(),
            })
    };
    let mut c = Coefficients::shipped();
    // Alone in the harness; `measure` adds the program factors.
    c.program = 1.0;
    c.strip_program = 1.0;
    fit_builtins(&t, &mut c)?;
    fit_defined(&t, &mut c, cache)?;
    fit_types(&t, &mut c)?;
    fit_stream(&t, &mut c, cache)?;
    c.validate()?;
    Ok(c)
}

/// The smallest value a fitted coefficient takes (noise can make it 0 or
/// less); the per-use costs of arithmetic, the source's copy and the
/// stream cost, which are smaller, are held at [`TINY`] / 10 and / 100.
pub const TINY: f64 = 1e-3;

/// Whether `v` is one of the floors the fit holds a coefficient at (noise
/// made it 0 or less): the fit's `max(floor)` gives the floor exactly.
pub fn at_floor(v: f64) -> bool {
    [TINY, TINY / 10.0, TINY / 100.0].contains(&v)
}

/// The suite's instance sizes: the big side's points, half of it, and
/// the small gain's.
fn sizes() -> (f64, f64, f64) {
    (
        (SIDE * SIDE) as f64,
        (SIDE * SIDE / 4) as f64,
        (SMALL * SMALL) as f64,
    )
}

/// ns per point of instance `name` at `points` beyond the call cost `call`
/// (at least [`TINY`]).
fn per_point(t: &Times, call: f64, name: &str, points: f64) -> Result<f64, Error> {
    Ok(((t(name)? - call) / points).max(TINY))
}

/// The median ns of an instance of the suite.
type Times<'a> = dyn Fn(&str) -> Result<f64, Error> + 'a;

/// The call cost and each built-in's cost per point, the tap's.
fn fit_builtins(t: &Times, c: &mut Coefficients) -> Result<(), Error> {
    let (big, half, small) = sizes();
    // The call cost: the line through the small and the big gain.
    let slope = ((t("gain")? - t("gain_small")?) / (big - small)).max(TINY);
    c.call = (t("gain_small")? - small * slope).max(1.0);
    let call = c.call;
    let point = |name: &str, points: f64| per_point(t, call, name, points);
    let per: [(&str, f64); 11] = [
        ("src", big),
        ("sink", big),
        ("gain", big),
        ("copy", big),
        ("dup", big),
        ("plus", big),
        ("product", big),
        ("avg", big),
        ("conv3", big),
        ("down", half),
        ("up", half),
    ];
    for (i, (name, points)) in per.iter().enumerate() {
        c.point[i] = point(name, *points)?;
    }
    // The convolution: 9 and 49 taps.
    let (c3, c7) = (point("conv3", big)?, point("conv7", big)?);
    c.tap = ((c7 - c3) / 40.0).max(TINY);
    c.point[8] = (c3 - 9.0 * c.tap).max(TINY);
    Ok(())
}

/// The defined functions' costs.
fn fit_defined(t: &Times, c: &mut Coefficients, cache: u64) -> Result<(), Error> {
    // Defined functions. The pointwise ones without conversions give the
    // cost of a write and of arithmetic (the relative least-squares line
    // through them); each other kind's cost is what its function takes
    // beyond that, per use.
    let desc = ssc::front::syntax::parse(&suite(big_side(cache))).map_err(Error::SuiteParse)?;
    let d = ssc::lower::lower_to_declaration(&desc, &LowerOptions::default())
        .map_err(Error::SuiteLower)?
        .declaration
        .ok_or(Error::SuiteDeclaration)?;
    // (work, points, ns beyond the call) of each defined function.
    let mut measured = BTreeMap::new();
    for (name, _, _, _) in DEFINED {
        let f = d
            .functions
            .iter()
            .find(|f| f.name.name == name)
            .ok_or(Error::SuiteLacks { name })?;
        let fd = d.function_decl(name).ok_or(Error::SuiteLacks { name })?;
        let def = d.definition(name).ok_or(Error::SuiteUndefined { name })?;
        let points = (f.resolution.value.x * f.resolution.value.y) as f64;
        measured.insert(name, (Work::of(def, &fd.ports), points, t(name)? - c.call));
    }
    // ns per point ≈ writes · write + elements · arith · arith, weighted by
    // 1 / ns so each function counts by its relative error.
    let rows: Vec<([f64; 2], f64)> = POINTWISE
        .iter()
        .map(|name| {
            let (w, points, ns) = measured[name];
            let per_point = ns / points;
            (
                [
                    w.writes / per_point,
                    w.elements * w.ops.arith as f64 / per_point,
                ],
                1.0,
            )
        })
        .collect();
    let [write, arith] = least_squares(&rows);
    (c.write, c.arith) = (write.max(TINY), arith.max(TINY / 10.0));
    // The rest: what is left per use, averaged over the functions of a kind.
    type Count = fn(&ssc::ir::Operations) -> u64;
    let kinds: [(&str, &[&str], Count); 5] = [
        ("convert", &["def_sub", "def_to16"], |o| o.convert),
        ("stencil_tap", &["def_gauss3", "def_gauss"], |o| o.taps),
        ("exchange", &["def_median"], |o| o.exchanges),
        ("block", &["def_mean"], |o| o.block),
        ("linear", &["def_linear"], |o| o.linear),
    ];
    // What a function costs by its writes and arithmetic alone (each of
    // these uses one kind besides).
    let mut without = *c;
    without.convert = 0.0;
    without.stencil_tap = 0.0;
    without.exchange = 0.0;
    without.block = 0.0;
    without.linear = 0.0;
    for (kind, names, count) in kinds {
        let mut per_use = Vec::new();
        for name in names {
            let (w, points, ns) = measured[name];
            let uses = count(&w.ops) as f64 * w.elements * points;
            let rest = without.defined_cost(w, Pair::new(points as u64, 1)) * 1000.0 - c.call;
            per_use.push((ns - rest) / uses);
        }
        let v = (per_use.iter().sum::<f64>() / per_use.len() as f64).max(TINY / 10.0);
        match kind {
            "convert" => c.convert = v,
            "stencil_tap" => c.stencil_tap = v,
            "exchange" => c.exchange = v,
            "block" => c.block = v,
            _ => c.linear = v,
        }
    }
    Ok(())
}

/// The source's costs and the type factors.
fn fit_types(t: &Times, c: &mut Coefficients) -> Result<(), Error> {
    let big = sizes().0;
    let call = c.call;
    let point = |name: &str, points: f64| per_point(t, call, name, points);
    // The source computes SOURCE_PERIOD elements of a row and copies the
    // rest: two sources of as many points, one computed whole and one
    // mostly copied, give both costs.
    let source_rows = |(w, h): (u64, u64)| -> [f64; 2] {
        let computed = (w.min(SOURCE_PERIOD) * h) as f64;
        [computed, (w * h) as f64 - computed]
    };
    let [computed, copied] = least_squares(&[
        (source_rows(SOURCE_NARROW), t("src_narrow")? - c.call),
        (source_rows(SOURCE_WIDE), t("src_wide")? - c.call),
    ]);
    (c.point[0], c.source_copy) = (computed.max(TINY), copied.max(TINY / 10.0));
    // Each type against `float`, at one size: the gains for every
    // built-in but the source and the sink, which have their own.
    for (factors, name) in [
        (&mut c.types, "gain"),
        (&mut c.source_types, "src"),
        (&mut c.sink_types, "sink"),
    ] {
        let float = point(name, big)?;
        for (i, ty) in TYPES.iter().enumerate() {
            factors[i] = if ty.keyword() == "float" {
                1.0
            } else {
                (point(&format!("{name}_{}", ty.keyword()), big)? / float).max(TINY)
            };
        }
    }
    Ok(())
}

/// The streaming cost.
fn fit_stream(t: &Times, c: &mut Coefficients, cache: u64) -> Result<(), Error> {
    // Beyond the cache: the median ns per byte of the streaming instances.
    let big = big_side(cache);
    let mut per_byte = STREAMING
        .iter()
        .map(|(name, _, div, bytes)| {
            let points = ((big / div) * (big / div)) as f64;
            Ok(((t(name)? - c.call) / (points * bytes)).max(TINY / 100.0))
        })
        .collect::<Result<Vec<f64>, Error>>()?;
    per_byte.sort_by(f64::total_cmp);
    c.stream = per_byte[per_byte.len() / 2];
    c.cache = cache as f64;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_recovers_the_coefficients_of_exact_times() {
        // Times made by a known model fit back to it.
        let mut c = Coefficients::shipped();
        c.source_types = [0.9, 0.5, 1.1, 0.6, 1.3, 1.2, 1.0, 1.7];
        c.sink_types = [1.05, 0.95, 1.02, 0.98, 1.1, 1.01, 1.0, 1.3];
        // A cache that holds every 512² frame of the suite (the `double`
        // ones are 2 MiB) and not the streaming instances' 16 MiB.
        c.cache = (8 << 20) as f64;
        let cache = c.cache as u64;
        let desc = ssc::front::syntax::parse(&suite(big_side(cache))).unwrap();
        let d = ssc::lower::lower_to_declaration(&desc, &LowerOptions::default())
            .unwrap()
            .declaration
            .unwrap();
        let medians: BTreeMap<String, f64> = d
            .functions
            .iter()
            .map(|f| {
                let fd = d.function_decl(f.function.as_str()).unwrap();
                let i = ssc::lower::timing::Instance::new(f.name.as_str(), fd, f.resolution.value);
                let t = match d.definition(fd.name.as_str()) {
                    Some(def) => c.defined_cost(Work::of(def, &fd.ports), i.resolution),
                    None => c.cost(i.function, i.ty, i.resolution, i.window).unwrap(),
                };
                (f.name.name.clone(), c.streamed(t, i.traffic, i.resolution))
            })
            .collect();
        let fitted = fit(&medians, cache).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(1.0);
        assert!(close(fitted.call, c.call), "{fitted:?}");
        assert!(close(fitted.stream, c.stream), "{fitted:?}");
        assert_eq!(fitted.cache, c.cache);
        assert_eq!((fitted.program, fitted.strip_program), (1.0, 1.0));
        assert!(close(fitted.tap, c.tap), "{fitted:?}");
        for ((name, fitted), (_, shipped)) in fitted.defined().into_iter().zip(c.defined()) {
            assert!(close(fitted, shipped), "{name}: {fitted} against {shipped}");
        }
        for i in 0..11 {
            assert!(close(fitted.point[i], c.point[i]), "{i}: {fitted:?}");
        }
        assert!(close(fitted.source_copy, c.source_copy), "{fitted:?}");
        for (f, c) in fitted.type_factors().into_iter().zip(c.type_factors()) {
            for i in 0..8 {
                assert!(close(f.1[i], c.1[i]), "{} {i}: {fitted:?}", f.0);
            }
        }
    }
}
