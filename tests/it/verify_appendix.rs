//! The runtime checker on the hand-written runtime of Appendix A.

use crate::testgen;
use ssc::ir::{Op, Runtime};
use ssc::verify::{placements_from_runtime, verify, CounterExample, Deadlock, Malformed, OpId};
use testgen::appendix_hsdfg;

fn appendix_runtime() -> Runtime {
    let text = std::fs::read_to_string("examples/appendix.ssc").unwrap();
    let d = ssc::front::syntax::parse(&text).expect("appendix parses");
    d.runtime.expect("appendix has a runtime")
}

#[test]
fn appendix_runtime_is_proved() {
    let h = appendix_hsdfg();
    let r = appendix_runtime();
    let p = placements_from_runtime(&h, &r).unwrap();
    let proof = verify(&h, &r, &p).unwrap_or_else(|e| {
        panic!(
            "{}",
            e.iter()
                .map(|x| x.display(&h, &r).to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    println!("{proof}");
    assert_eq!(proof.dependencies, 16);
}

fn without_signal(r: &Runtime, s: &str) -> Runtime {
    let mut r = r.clone();
    r.signals.retain(|x| x.name.as_str() != s);
    for t in &mut r.thread_executions {
        t.ops.retain(|o| match &o.value {
            Op::Wait(x) | Op::Signal(x) => x.as_str() != s,
            _ => true,
        });
    }
    r
}

/// The zero-token signals (dependencies) are all needed; the one-token
/// (write-after-read) ones are all implied by the others plus program order,
/// e.g. s1: f6.1 →(s8)→ f7.0 … wrap → f8.0 of the next iteration, one token
/// in all. So the thesis' runtime is correct but not minimal.
#[test]
fn appendix_signals_needed_or_implied() {
    let h = appendix_hsdfg();
    let r = appendix_runtime();
    let p = placements_from_runtime(&h, &r).unwrap();
    let mut redundant = Vec::new();
    for s in &r.signals {
        let m = without_signal(&r, s.name.as_str());
        match verify(&h, &m, &p) {
            Ok(_) => redundant.push(s.name.name.clone()),
            Err(e) => println!("without {}: {}", s.name, e[0].display(&h, &m)),
        }
    }
    assert_eq!(redundant, ["s1", "s5", "s10", "s13"]);
}

#[test]
fn appendix_counter_examples() {
    let h = appendix_hsdfg();
    let r = appendix_runtime();
    let p = placements_from_runtime(&h, &r).unwrap();
    // Dropping the initial token of s1 deadlocks.
    let mut m = r.clone();
    m.signals
        .iter_mut()
        .find(|s| s.name.as_str() == "s1")
        .unwrap()
        .initial_token = false;
    let e = verify(&h, &m, &p).unwrap_err();
    assert!(
        matches!(e[0], CounterExample::Deadlock(Deadlock::Cycle(_))),
        "{}",
        e[0].display(&h, &m)
    );
    println!("{}", e[0].display(&h, &m));
    // Placing f6.out over f8.out races.
    let mut q = p.clone();
    q[1].offset = q[0].offset;
    let e = verify(&h, &r, &q).unwrap_err();
    assert!(e.iter().any(|x| matches!(x, CounterExample::Race { .. })));
    println!("{}", e[0].display(&h, &r));
    // An unknown sub-box is an error, not a panic.
    let mut m = r.clone();
    m.thread_executions[0].ops[1].value = Op::Exec(ssc::ir::SubBoxRef::new("nope", 3));
    let e = verify(&h, &m, &p).unwrap_err();
    let unknown = OpId {
        thread: 0,
        index: 1,
    };
    assert_eq!(
        e[0],
        CounterExample::Program(Malformed::UnknownSubbox { op: unknown })
    );
    assert_eq!(e[0].ops(), [unknown]);
    let text = e[0].display(&h, &m).to_string();
    assert!(text.contains("executes nope.3"), "{text}");
}
