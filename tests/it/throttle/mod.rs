//! `ssc throttle`: the pure decision core (fixed, proportional, MemGuard)
//! exhaustively on samples and on replayed traces with a virtual clock;
//! the live monitor on real processes is in [`live`].

mod live;

use ssc_throttle::cycle::simulate;
use ssc_throttle::decide::{Action, CoreState, Mode, Policy, Sample};
use ssc_throttle::replay::Trace;
use ssc_throttle::{parse, Threshold};

// ---------------------------------------------------------------- decisions

fn policy(mode: Mode) -> Policy {
    Policy {
        mode,
        interval_us: 100,
        threshold_bps: 1e9,
        suspend_us: 900,
        max_factor: 8.0,
        budget_bytes: 1_000_000,
        period_us: 1000,
    }
}

/// A sample of `dt` µs moving `r` and `w` bytes.
fn sample(t: u64, dt: u64, r: u64, w: u64) -> Sample {
    Sample {
        t_us: t,
        dt_us: dt,
        read_bytes: r,
        write_bytes: w,
    }
}

#[test]
fn fixed_suspends_exactly_above_the_threshold_on_read_or_write() {
    let p = policy(Mode::Fixed);
    let mut st = CoreState::default();
    // 1 GB/s = 100_000 bytes per 100 µs.
    for (r, w, expect) in [
        (0, 0, Action::Run),
        (99_999, 0, Action::Run),
        (100_000, 0, Action::Run), // at the threshold: not above
        (100_001, 0, Action::Suspend { us: 900 }),
        (0, 100_001, Action::Suspend { us: 900 }),
        (0, 100_000, Action::Run),
        (5_000_000, 5_000_000, Action::Suspend { us: 900 }),
    ] {
        assert_eq!(
            p.decide(&mut st, &sample(100, 100, r, w)),
            expect,
            "r {r} w {w}"
        );
    }
    // An empty interval is no bandwidth.
    assert_eq!(p.decide(&mut st, &sample(100, 0, 1 << 40, 0)), Action::Run);
    // The state is not used by fixed mode.
    assert_eq!(st, CoreState::default());
}

#[test]
fn proportional_grows_with_the_excess_and_the_streak_and_is_capped() {
    let p = policy(Mode::Proportional);
    let mut st = CoreState::default();
    // Twice the threshold, first time: 2 × 900.
    assert_eq!(
        p.decide(&mut st, &sample(100, 100, 200_000, 0)),
        Action::Suspend { us: 1800 }
    );
    assert_eq!(st.streak, 1);
    // Again twice: streak 2 → 4 × 900.
    assert_eq!(
        p.decide(&mut st, &sample(200, 100, 0, 200_000)),
        Action::Suspend { us: 3600 }
    );
    // Streak 3, ratio 2 → 6; streak 4 → 8 (the cap); streak 5 → still 8.
    assert_eq!(
        p.decide(&mut st, &sample(300, 100, 200_000, 0)),
        Action::Suspend { us: 5400 }
    );
    assert_eq!(
        p.decide(&mut st, &sample(400, 100, 200_000, 0)),
        Action::Suspend { us: 7200 }
    );
    assert_eq!(
        p.decide(&mut st, &sample(500, 100, 200_000, 0)),
        Action::Suspend { us: 7200 }
    );
    // Below the threshold: run and forget the streak.
    assert_eq!(p.decide(&mut st, &sample(600, 100, 10, 0)), Action::Run);
    assert_eq!(st.streak, 0);
    // Just above, first time: the fixed suspension (rounded).
    assert_eq!(
        p.decide(&mut st, &sample(700, 100, 100_001, 0)),
        Action::Suspend { us: 900 }
    );
    // A huge excess is capped at max_factor.
    let mut st = CoreState::default();
    assert_eq!(
        p.decide(&mut st, &sample(100, 100, 1 << 40, 0)),
        Action::Suspend { us: 7200 }
    );
}

#[test]
fn memguard_spends_a_budget_per_period_and_refills_it() {
    let p = policy(Mode::Memguard); // 1 MB per 1000 µs
    let mut st = CoreState::default();
    assert_eq!(
        p.decide(&mut st, &sample(100, 100, 400_000, 0)),
        Action::Run
    );
    assert_eq!(
        p.decide(&mut st, &sample(200, 100, 0, 500_000)),
        Action::Run
    );
    assert_eq!(st.used, 900_000);
    // Reaching the budget at 300 µs: suspended for the rest of the period.
    assert_eq!(
        p.decide(&mut st, &sample(300, 100, 100_000, 0)),
        Action::Suspend { us: 700 }
    );
    // A new period refills the budget.
    assert_eq!(p.decide(&mut st, &sample(1100, 100, 10, 0)), Action::Run);
    assert_eq!((st.period, st.used), (1, 10));
    // A sample at a period boundary belongs to the new period.
    assert_eq!(
        p.decide(&mut st, &sample(2000, 100, 2_000_000, 0)),
        Action::Suspend { us: 1000 }
    );
    assert_eq!(st.period, 2);
    // A threshold does not matter in MemGuard mode.
    let mut st = CoreState::default();
    assert_eq!(
        p.decide(&mut st, &sample(100, 100, 999_999, 0)),
        Action::Run
    );
}

// ------------------------------------------------------- replayed traces

const HOT: &str = "t_us,core,read_bytes,write_bytes\n1000,1,10000000,0\n1000,0,1000,0\n";

#[test]
fn a_trace_parses_interpolates_and_repeats() {
    let t = Trace::parse(
        "# comment\nt_us,core,read_bytes,write_bytes\n100,0,1000,0\n300,0,0,4000\n\n100,2,5,5\n",
    )
    .unwrap();
    assert_eq!(t.cores(), vec![0, 2]);
    let c = |t_us| {
        let x = t.cumulative(0, t_us);
        (x.read_bytes, x.write_bytes)
    };
    assert_eq!(c(0), (0, 0));
    assert_eq!(c(50), (500, 0));
    assert_eq!(c(100), (1000, 0));
    assert_eq!(c(200), (1000, 2000));
    assert_eq!(c(300), (1000, 4000));
    assert_eq!(c(350), (1500, 4000)); // the trace repeats
    assert_eq!(c(900), (3000, 12000));
    assert_eq!(t.cumulative(7, 1000).read_bytes, 0); // no rows, no traffic
    assert_eq!(t.max_bps(), 4000.0 / 200e-6);
    for bad in [
        "",
        "time,core,r,w\n",
        "t_us,core,read_bytes,write_bytes\n10,0,1\n",
        "t_us,core,read_bytes,write_bytes\n10,0,x,1\n",
        "t_us,core,read_bytes,write_bytes\n10,0,1,1\n10,0,1,1\n",
    ] {
        assert!(Trace::parse(bad).is_err(), "{bad:?}");
    }
    let e = Trace::parse("t_us,core,read_bytes,write_bytes\n10,0,1,1\n5,0,1,1\n").unwrap_err();
    assert!(e.to_string().contains("line 3"), "{e}");
}

#[test]
fn replay_drives_fixed_mode_to_the_thesis_duty_cycle() {
    let t = Trace::parse(HOT).unwrap();
    let p = policy(Mode::Fixed);
    // Core 1 at 10 GB/s is always above 1 GB/s: runs 100, suspended 900.
    let (recs, sum) = simulate(&t, 1, &p, 1_000_000);
    assert_eq!(sum.samples, 1000);
    assert_eq!(sum.suspensions, 1000);
    assert!((sum.duty() - 0.1).abs() < 1e-9, "{}", sum.duty());
    assert!(recs.iter().all(|r| r.suspend_us == 900));
    assert_eq!(recs[0].t_us, 100);
    assert_eq!(recs[1].t_us, 1100);
    // Core 0 at 1 MB/s never is.
    let (_, sum) = simulate(&t, 0, &p, 1_000_000);
    assert_eq!(
        (sum.samples, sum.suspensions, sum.suspended_us),
        (10_000, 0, 0)
    );
    // Deterministic.
    assert_eq!(simulate(&t, 1, &p, 50_000), simulate(&t, 1, &p, 50_000));
}

#[test]
fn replay_of_a_bursty_trace_suspends_only_in_bursts() {
    // 10 ms quiet, 10 ms at 5 GB/s, repeating.
    let t = Trace::parse("t_us,core,read_bytes,write_bytes\n10000,3,0,0\n20000,3,0,50000000\n")
        .unwrap();
    let p = Policy {
        interval_us: 500,
        suspend_us: 500,
        ..policy(Mode::Fixed)
    };
    let (recs, sum) = simulate(&t, 3, &p, 200_000);
    for r in &recs {
        let in_burst = (r.t_us - 1) % 20_000 >= 10_000;
        // An interval that ends in the first 500 µs of a phase straddles it.
        let straddles = (r.t_us % 10_000) < 500 && r.t_us % 10_000 != 0;
        if !straddles {
            assert_eq!(r.suspend_us > 0, in_burst, "{r:?}");
        }
    }
    // In bursts half the time is suspended, outside none: about a quarter.
    assert!((sum.duty() - 0.75).abs() < 0.05, "{}", sum.duty());
}

#[test]
fn replay_drives_proportional_and_memguard_modes() {
    let t = Trace::parse(HOT).unwrap();
    // 10× over the threshold: the first suspension is already the cap.
    let p = policy(Mode::Proportional);
    let (recs, _) = simulate(&t, 1, &p, 100_000);
    assert!(
        recs.iter().all(|r| r.suspend_us == 7200),
        "{:?}",
        &recs[..2]
    );
    // At 1.5× the threshold: 1.5, 3 (×900), then the cap from streak 6.
    let p = Policy {
        threshold_bps: 10e9 / 1.5,
        ..policy(Mode::Proportional)
    };
    let (recs, _) = simulate(&t, 1, &p, 200_000);
    let us: Vec<u64> = recs.iter().take(7).map(|r| r.suspend_us).collect();
    assert_eq!(us, vec![1350, 2700, 4050, 5400, 6750, 7200, 7200]);
    // MemGuard, 10 GB/s against 2 MB per ms: 200 µs of work per period.
    let p = Policy {
        budget_bytes: 2_000_000,
        ..policy(Mode::Memguard)
    };
    let (recs, sum) = simulate(&t, 1, &p, 100_000);
    assert_eq!(recs[0].suspend_us, 0);
    assert_eq!((recs[1].t_us, recs[1].suspend_us), (200, 800));
    assert_eq!(recs[2].t_us, 1100);
    assert!((sum.duty() - 0.2).abs() < 0.01, "{}", sum.duty());
}

#[test]
fn option_values_parse() {
    assert_eq!(parse::bytes("1500").unwrap(), 1500.0);
    assert_eq!(parse::bytes("2G").unwrap(), 2e9);
    assert_eq!(parse::bytes("500MB/s").unwrap(), 5e8);
    assert_eq!(parse::bytes("64Ki").unwrap(), 65536.0);
    assert!(parse::bytes("lots").is_err());
    assert_eq!(parse::threshold("25%").unwrap(), Threshold::Percent(25.0));
    assert_eq!(parse::threshold("1G").unwrap(), Threshold::Rate(1e9));
    assert!(parse::threshold("150%").is_err());
    assert!(parse::threshold("0").is_err());
    assert_eq!(parse::duration_us("2s").unwrap(), 2_000_000);
    assert_eq!(parse::duration_us("1.5").unwrap(), 1_500_000);
    assert_eq!(parse::duration_us("500ms").unwrap(), 500_000);
    assert_eq!(parse::duration_us("100us").unwrap(), 100);
    assert!(parse::duration_us("-1s").is_err());
    assert_eq!(
        ssc_throttle::cpu::parse_list("0-2,5,1").unwrap(),
        vec![0, 1, 2, 5]
    );
    assert!(ssc_throttle::cpu::parse_list("3-1").is_err());
}

// ------------------------------------------------------- live processes

#[test]
fn a_trace_may_start_at_zero_or_late() {
    // A row at 0 marks the start: the first interval is 0..100.
    let zero =
        Trace::parse("t_us,core,read_bytes,write_bytes\n0,1,0,0\n100,1,1000,0\n200,1,3000,0\n")
            .unwrap();
    assert_eq!(zero.cumulative(1, 100).read_bytes, 1000);
    assert_eq!(zero.cumulative(1, 150).read_bytes, 2500);
    assert_eq!(zero.cumulative(1, 250).read_bytes, 4500); // repeats
    assert_eq!(zero.max_bps(), 3000.0 / 100e-6);
    // Absolute times: the trace starts one sampling interval before its
    // first row, not at 0 (no 5 s of silence first).
    let late =
        Trace::parse("t_us,core,read_bytes,write_bytes\n5000000,1,1000,0\n5000100,1,3000,0\n")
            .unwrap();
    assert_eq!(late.cumulative(1, 50).read_bytes, 500);
    assert_eq!(late.cumulative(1, 100).read_bytes, 1000);
    assert_eq!(late.cumulative(1, 200).read_bytes, 4000);
    assert_eq!(late.max_bps(), 3000.0 / 100e-6);
    // Still an error: a core's time that does not increase.
    assert!(Trace::parse("t_us,core,read_bytes,write_bytes\n0,1,0,0\n0,1,5,0\n").is_err());
}
