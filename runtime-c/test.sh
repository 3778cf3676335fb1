#!/bin/sh
# test.sh — builds and checks the runtime, the kernels and the examples.
# Exits non-zero on the first failure. About 65 s on a 2-core machine.
# `./test.sh --quick` (what `cargo test` runs, tests/it/runtime_c.rs) skips the
# slowest steps: the kernel and sync unit tests under ThreadSanitizer (~20 s)
# and the whole clang pass (~20 s; tests/it/e2e.rs builds the runtime and
# programs warning-free with clang and checks their checksums); the TSan
# runs of Appendix A by hand stay.
set -eu
QUICK=0
case "${1:-}" in
    --quick) QUICK=1 ;;
    "") ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d "${TMPDIR:-/tmp}/ssc-runtime-test.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
CFLAGS="-std=c11 -O2 -pthread -Wall -Wextra -Werror -I$HERE"
# The runtime's sources (runtime-c/FILES: every `shared` and `program`
# file) are compiled once per compiler and sanitizer, then linked into
# every program (the signal benchmark too: the spin bound is its runtime
# instance's, ssc_rt.c).
SOURCES=$(awk '!/^#/ && ($2 == "shared" || $2 == "program") { print $1 }' "$HERE/FILES")
objects() {   # objects CC SUFFIX FLAGS...: sets RT to the runtime's objects
    _cc=$1; _sfx=$2; shift 2
    RT=""
    for _src in $SOURCES; do
        _obj="$OUT/${_src%.c}.$_sfx.o"
        $_cc "$@" -c -o "$_obj" "$HERE/$_src" || fail "$_cc: $_src"
        RT="$RT $_obj"
    done
}
ITER=200

fail() { echo "FAIL: $*" >&2; exit 1; }
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
checksum_of() { sed -n 's/^checksum: //p' "$1"; }

# ---- build with every compiler present, warnings are errors -------------
CLANG=${CLANG:-clang}     # CLANG=/path/to/clang ./test.sh to name one
COMPILERS=gcc
[ $QUICK = 1 ] || ! command -v "$CLANG" >/dev/null 2>&1 || COMPILERS="$COMPILERS $CLANG"
for CC in $COMPILERS; do
    CN=$(basename "$CC")
    step "build with $CC"
    objects "$CC" "$CN" $CFLAGS
    if [ "$CN" = gcc ]; then GCC_OBJS=$RT; fi
    $CC $CFLAGS -o "$OUT/hand.$CN" "$HERE/examples/appendix_by_hand.c" $RT || fail "$CC: appendix_by_hand"
    $CC $CFLAGS -o "$OUT/ref.$CN" "$HERE/examples/appendix_reference.c" $RT || fail "$CC: appendix_reference"
    $CC $CFLAGS -o "$OUT/test_kernels.$CN" "$HERE/tests/test_kernels.c" $RT -lm || fail "$CC: test_kernels"
    $CC $CFLAGS -o "$OUT/bench.$CN" "$HERE/bench_signal.c" $RT || fail "$CC: bench_signal"

    step "unit tests ($CC): every kernel x type, known values, sync"
    "$OUT/test_kernels.$CN" || fail "$CC: test_kernels"

    step "kernel families for some element types (SSC_KERNEL_TYPES), $CC"
    # What `ssc build` does: each family compiled only for the types its
    # chain uses. Appendix A is int alone (bit 4); no type at all leaves
    # the dispatch only; an excluded type is refused by name.
    TYPED=""
    for _src in $SOURCES; do
        case $_src in
        ssc_kernels_*.c)
            $CC $CFLAGS -DSSC_KERNEL_TYPES=0x00 -c -o "$OUT/none.o" "$HERE/$_src" || fail "$CC: $_src for no type"
            _obj="$OUT/${_src%.c}.int.$CN.o"
            $CC $CFLAGS -DSSC_KERNEL_TYPES=0x10 -c -o "$_obj" "$HERE/$_src" || fail "$CC: $_src for int"
            TYPED="$TYPED $_obj" ;;
        *) TYPED="$TYPED $OUT/${_src%.c}.$CN.o" ;;
        esac
    done
    $CC $CFLAGS -o "$OUT/hand_int.$CN" "$HERE/examples/appendix_by_hand.c" $TYPED || fail "$CC: appendix_by_hand, int kernels"
    "$OUT/hand_int.$CN" --iterations $ITER > "$OUT/hand_int.txt" || fail "$CC: hand_int exited $?"
    "$OUT/hand.$CN" --iterations $ITER > "$OUT/hand.txt" || fail "$CC: hand exited $?"
    [ "$(checksum_of "$OUT/hand_int.txt")" = "$(checksum_of "$OUT/hand.txt")" ] || fail "$CC: int-only kernels, another checksum"
    $CC $CFLAGS -o "$OUT/excluded.$CN" "$HERE/tests/test_kernels.c" $TYPED -lm || fail "$CC: test_kernels, int kernels"
    if "$OUT/excluded.$CN" > /dev/null 2> "$OUT/excluded.txt"; then fail "$CC: a type left out ran"; fi
    grep -q "unknown element type" "$OUT/excluded.txt" || fail "$CC: a type left out: $(cat "$OUT/excluded.txt")"

    step "Appendix A by hand (2 threads) vs reference (1 thread, no split), $CC"
    "$OUT/hand.$CN" --iterations $ITER > "$OUT/hand.txt" || fail "$CC: hand exited $?"
    "$OUT/ref.$CN" --iterations $ITER > "$OUT/ref.txt" || fail "$CC: ref exited $?"
    cat "$OUT/hand.txt"
    H=$(checksum_of "$OUT/hand.txt"); R=$(checksum_of "$OUT/ref.txt")
    [ -n "$H" ] && [ "$H" = "$R" ] || fail "$CC: checksums differ: $H vs $R"
    grep -q "^iterations: $ITER of $ITER$" "$OUT/hand.txt" || fail "$CC: iteration count"
    grep -q "^latency (us): count $ITER " "$OUT/hand.txt" || fail "$CC: latency count"
done
CC=gcc
RT=$GCC_OBJS   # built in the loop
REF_SUM=$(checksum_of "$OUT/ref.txt")

# ---- ThreadSanitizer -----------------------------------------------------
step "ThreadSanitizer: appendix_by_hand and the sync unit tests"
TSAN="-std=c11 -O1 -g -pthread -Wall -Wextra -Werror -fsanitize=thread -I$HERE"
GCC_RT=$RT
objects gcc tsan $TSAN
TSAN_RT=$RT
gcc $TSAN -o "$OUT/hand.tsan" "$HERE/examples/appendix_by_hand.c" $RT || fail "tsan build"
[ $QUICK = 1 ] || gcc $TSAN -o "$OUT/test_kernels.tsan" "$HERE/tests/test_kernels.c" $RT -lm || fail "tsan build"
# setarch -R: older TSan runtimes fail under high-entropy ASLR.
NOASLR=""
setarch "$(uname -m)" -R true 2>/dev/null && NOASLR="setarch $(uname -m) -R"
# spinning, over more iterations than the latency window (256: its slots
# are reused), then every wait on the futex (and -kd 1)
for run in "20000 300" "0 60"; do
    set -- $run; spin=$1; n=$2
    TSAN_OPTIONS="halt_on_error=1 exitcode=66" $NOASLR "$OUT/hand.tsan" --iterations $n \
        --spin-ns $spin $([ $spin = 0 ] && echo --max-lead 1) > "$OUT/tsan.txt" 2> "$OUT/tsan.err" || { cat "$OUT/tsan.err"; fail "tsan run (spin $spin)"; }
    grep -q "ThreadSanitizer" "$OUT/tsan.err" && { cat "$OUT/tsan.err"; fail "TSan report (spin $spin)"; }
    grep -q "^iterations: $n of $n$" "$OUT/tsan.txt" || fail "tsan run incomplete (spin $spin)"
done
if [ $QUICK = 1 ]; then
    echo "   --quick: the unit tests under TSan are skipped"
else
    TSAN_OPTIONS="halt_on_error=1 exitcode=66" $NOASLR "$OUT/test_kernels.tsan" > /dev/null 2> "$OUT/tsan.err" \
        || { cat "$OUT/tsan.err"; fail "tsan unit tests"; }
    grep -q "ThreadSanitizer" "$OUT/tsan.err" && { cat "$OUT/tsan.err"; fail "TSan report in unit tests"; }
fi
step "ThreadSanitizer: --forever until SIGINT"
TSAN_OPTIONS="halt_on_error=1 exitcode=66" $NOASLR "$OUT/hand.tsan" --forever --dump "$OUT/tsan.csv" \
    > "$OUT/tsan.txt" 2> "$OUT/tsan.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid || { cat "$OUT/tsan.err"; fail "tsan --forever exited $?"; }
grep -q "ThreadSanitizer" "$OUT/tsan.err" && { cat "$OUT/tsan.err"; fail "TSan report (--forever)"; }
grep -q "^iterations: [0-9]* (--forever, stopped by signal)$" "$OUT/tsan.txt" || { cat "$OUT/tsan.txt"; fail "tsan --forever report"; }
RT=$GCC_RT

# ---- SIGINT halfway: a complete report of the completed iterations -----
gcc $CFLAGS -DAPPENDIX_BARRIER=1 -o "$OUT/barrier" "$HERE/examples/appendix_by_hand.c" $RT
gcc $TSAN -DAPPENDIX_BARRIER=1 -o "$OUT/barrier.tsan" "$HERE/examples/appendix_by_hand.c" $TSAN_RT
step "ThreadSanitizer: the same with an iteration barrier (-ab)"
TSAN_OPTIONS="halt_on_error=1 exitcode=66" $NOASLR "$OUT/barrier.tsan" --iterations 60 --spin-ns 0 \
    > "$OUT/tsan.txt" 2> "$OUT/tsan.err" || { cat "$OUT/tsan.err"; fail "tsan barrier run"; }
grep -q "ThreadSanitizer" "$OUT/tsan.err" && { cat "$OUT/tsan.err"; fail "TSan report (barrier)"; }

# interrupt PROGRAM DELAY ARGS...: SIGINT after DELAY s; the report must
# cover N whole iterations, with the checksum of N reference iterations.
# With --forever among ARGS, no --iterations is given.
interrupt() {
    prog=$1; delay=$2; shift 2
    case " $* " in *" --forever "*) ITERS="" ;; *) ITERS="--iterations 100000" ;; esac
    "$prog" $ITERS --dump "$OUT/stop.csv" "$@" > "$OUT/stop.txt" &
    pid=$!
    sleep "$delay"
    kill -INT $pid
    wait $pid || fail "interrupted program exited $?"
    N=$(sed -n -e 's/^iterations: \([0-9]*\) of 100000 (stopped by signal)$/\1/p' \
        -e 's/^iterations: \([0-9]*\) (--forever, stopped by signal)$/\1/p' "$OUT/stop.txt")
    [ -n "$N" ] && [ "$N" -gt 0 ] || { cat "$OUT/stop.txt"; fail "no 'stopped by signal' report"; }
    grep -q "^latency (us): count $N " "$OUT/stop.txt" || fail "latency count after SIGINT"
    [ "$(grep -c '^latency,' "$OUT/stop.csv")" = "$N" ] || fail "dump rows after SIGINT"
    "$OUT/ref.gcc" --iterations "$N" > "$OUT/refN.txt"
    [ "$(checksum_of "$OUT/stop.txt")" = "$(checksum_of "$OUT/refN.txt")" ] \
        || fail "checksum after SIGINT differs from $N reference iterations"
    echo "   stopped after $N iterations ($prog $*): checksum of $N iterations"
}
step "SIGINT stops at an iteration boundary, all threads agree"
interrupt "$OUT/hand.gcc" 0.5
interrupt "$OUT/hand.gcc" 0.4 --spin-ns 0
interrupt "$OUT/barrier" 0.4
interrupt "$OUT/barrier" 0.4 --spin-ns 0
interrupt "$OUT/hand.gcc" 0.4 --max-lead 1
interrupt "$OUT/hand.gcc" 0.4 --forever
interrupt "$OUT/barrier" 0.4 --forever --spin-ns 0
interrupt "$OUT/hand.gcc" 0.4 --forever --period-us 200

# ---- command line ---------------------------------------------------------
step "command line: --help, unknown options, bad values"
"$OUT/hand.gcc" --help > /dev/null || fail "--help"
set +e
"$OUT/hand.gcc" --frobnicate 2> "$OUT/err.txt"; [ $? = 2 ] || fail "unknown option: exit code"
"$OUT/hand.gcc" --iterations x 2> /dev/null; [ $? = 2 ] || fail "bad number: exit code"
"$OUT/hand.gcc" --iterations 2> /dev/null; [ $? = 2 ] || fail "missing value: exit code"
# --forever runs until a signal: no --iterations beside it; 0 iterations
# points to it
"$OUT/hand.gcc" --forever --iterations 5 2> "$OUT/err2.txt"; [ $? = 2 ] || fail "--forever --iterations: exit code"
grep -q "leave out --iterations" "$OUT/err2.txt" || fail "--forever --iterations: message"
"$OUT/hand.gcc" --iterations 0 2> "$OUT/err2.txt"; [ $? = 2 ] || fail "--iterations 0: exit code"
grep -q -- "--forever" "$OUT/err2.txt" || fail "--iterations 0: no hint of --forever"
"$OUT/hand.gcc" --dump-iterations 0 2> /dev/null; [ $? = 2 ] || fail "--dump-iterations 0: exit code"
set -e
grep -q "unknown option" "$OUT/err.txt" || fail "unknown option: message"

step "a core that does not exist is a startup error (exit 3)"
gcc $CFLAGS -DAPPENDIX_CORES='{0, 1000}' -o "$OUT/badcore" "$HERE/examples/appendix_by_hand.c" $RT
set +e
"$OUT/badcore" --iterations 5 > /dev/null 2> "$OUT/err.txt"; RC=$?
set -e
[ $RC = 3 ] || fail "bad core: exit $RC"
grep -q "core 1000, which does not exist" "$OUT/err.txt" || fail "bad core: message"
gcc $CFLAGS -DREFERENCE_MASK='{0, 1, 1000}' -o "$OUT/badmask" "$HERE/examples/appendix_reference.c" $RT
set +e
"$OUT/badmask" --iterations 5 > /dev/null 2> "$OUT/err.txt"; RC=$?
set -e
[ $RC = 3 ] || fail "bad core in a mask: exit $RC"
grep -q "the core list names core 1000, which does not exist" "$OUT/err.txt" || fail "bad mask: message"

# ---- options of the run -----------------------------------------------------
step "--period-us: 50 iterations at 2 ms take >= 98 ms, same checksum"
START=$(date +%s%N)
"$OUT/hand.gcc" --iterations 50 --period-us 2000 > "$OUT/per.txt"
END=$(date +%s%N)
[ $(( (END - START) / 1000000 )) -ge 98 ] || fail "periodic run too fast"
"$OUT/ref.gcc" --iterations 50 > "$OUT/ref50.txt"
[ "$(checksum_of "$OUT/per.txt")" = "$(checksum_of "$OUT/ref50.txt")" ] || fail "periodic checksum"

step "--json report, spin 0, --max-lead 1, huge pages (or their fallback)"
"$OUT/hand.gcc" --iterations 20 --json > "$OUT/j.txt"
grep -q '"checksum": "0x' "$OUT/j.txt" || fail "json report"
"$OUT/hand.gcc" --iterations $ITER --spin-ns 0 > "$OUT/s0.txt"
[ "$(checksum_of "$OUT/s0.txt")" = "$REF_SUM" ] || fail "spin 0 checksum"
"$OUT/hand.gcc" --iterations $ITER --max-lead 1 > "$OUT/kd.txt"
[ "$(checksum_of "$OUT/kd.txt")" = "$REF_SUM" ] || fail "--max-lead 1 checksum"
gcc $CFLAGS -DAPPENDIX_HUGE=1 -o "$OUT/huge" "$HERE/examples/appendix_by_hand.c" $RT
"$OUT/huge" --iterations $ITER > "$OUT/huge.txt" 2> "$OUT/huge.err"
[ "$(checksum_of "$OUT/huge.txt")" = "$REF_SUM" ] || fail "huge pages checksum"
"$OUT/hand.gcc" --iterations 5 --fifo 10 --mlock > /dev/null 2>&1 || fail "--fifo/--mlock must never fail"
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    # Without CAP_SYS_NICE / CAP_IPC_LOCK: one warning line each, still exit 0.
    setpriv --bounding-set -sys_nice,-ipc_lock --inh-caps -sys_nice,-ipc_lock \
        sh -c "ulimit -l 64; '$OUT/hand.gcc' --iterations 5 --fifo 10 --mlock" > /dev/null 2> "$OUT/err.txt" \
        || fail "--fifo/--mlock without privileges must not fail"
    grep -q "SCHED_FIFO not permitted" "$OUT/err.txt" || fail "no SCHED_FIFO warning"
    grep -q "mlockall refused" "$OUT/err.txt" || fail "no mlockall warning"
fi

step "dumps: csv, json, binary; --dump-iterations"
"$OUT/hand.gcc" --iterations 30 --dump "$OUT/d.csv" > /dev/null
# header + 30 latency + 6 boxes x 30 + 2 threads x 30
[ "$(wc -l < "$OUT/d.csv")" = $((1 + 30 + 180 + 60)) ] || fail "csv dump rows"
# the first 10 of 30 iterations, and a note that says so
"$OUT/hand.gcc" --iterations 30 --dump "$OUT/d10.csv" --dump-iterations 10 > "$OUT/d10.txt" 2> "$OUT/d10.err"
[ "$(wc -l < "$OUT/d10.csv")" = $((1 + 10 + 60 + 20)) ] || fail "csv dump rows with --dump-iterations 10"
grep -q "latency (us): count 30 " "$OUT/d10.txt" || fail "the report covers every iteration, not the dump's"
grep -q "holds the first 10 of 30 iterations" "$OUT/d10.err" || fail "no note of the dump's first iterations"
"$OUT/hand.gcc" --iterations 30 --dump "$OUT/d.json" --dump-format json > /dev/null
if command -v python3 > /dev/null; then
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['iterations']==30 and len(d['boxes'])==6 and len(d['threads'])==2 \
and len(d['boxes'][0]['start_ns'])==30" "$OUT/d.json" || fail "json dump"
fi
"$OUT/hand.gcc" --iterations 30 --dump "$OUT/d.bin" --dump-format binary > /dev/null
# 32-byte header, 30 latency pairs, 6 boxes (4 + 4-byte name + 30 pairs), 2 threads x 30 pairs
[ "$(head -c 8 "$OUT/d.bin")" = "SSCDUMP1" ] || fail "binary dump magic"
[ "$(wc -c < "$OUT/d.bin")" = $((32 + 480 + 6 * (8 + 480) + 2 * 480)) ] || fail "binary dump size"

step "bench_signal runs"
"$OUT/bench.gcc" 2000 > /dev/null || fail "bench_signal"

echo "runtime-c: all tests passed in $(( $(date +%s) - T0 )) s"
