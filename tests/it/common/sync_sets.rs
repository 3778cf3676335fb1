//! The runtime options of `ssc build` (`-ab -ai -ss -st -ks -ki N -kd N`)
//! as `SyncOptions`, mapped as `cli::build` maps them, for the property
//! tests that run the synchronisation stage under named option sets.

use ssc::sync::SyncOptions;

/// `SyncOptions` for a flag string such as `"-ks -ki 4 -kd 2"` (`""`: none).
pub fn sync_options(flags: &str) -> SyncOptions {
    let mut o = SyncOptions::default();
    let mut words = flags.split_whitespace();
    while let Some(w) = words.next() {
        let mut number = || {
            words
                .next()
                .and_then(|n| n.parse::<u32>().ok())
                .expect("a number")
        };
        match w {
            "-ab" => o.iteration_barrier = true,
            "-ai" => o.iteration_sync = true,
            "-ss" => o.sort_signals = true,
            "-st" => {
                o.sort_signals = true;
                o.sort_waits = true;
            }
            "-ks" => o.keep_barrier_every = Some(o.keep_barrier_every.unwrap_or(1)),
            "-ki" => o.keep_barrier_every = Some(number()),
            "-kd" => o.keep_distance = Some(number()),
            other => panic!("unknown runtime option {other}"),
        }
    }
    o
}

/// Named option sets, one per flag string.
pub fn sync_sets(flags: &[&'static str]) -> Vec<(&'static str, SyncOptions)> {
    flags.iter().map(|f| (*f, sync_options(f))).collect()
}
