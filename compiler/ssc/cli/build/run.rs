//! `ssc run`: the program built, run, and stopped with ssc.

use super::super::args::BuildArgs;
use super::super::exit;

/// `ssc run`: builds, then runs the executable with `program_args` (and
/// `--json` when given to `ssc run` for a program, not for `-t info`),
/// streaming its report. SIGINT and SIGTERM sent to ssc alone reach the
/// program too (a terminal's ^C reaches both at once and is not sent
/// again): ssc waits for it and ends as it did.
pub(crate) fn run(a: &BuildArgs, program_args: &[String], argv: &[String]) -> i32 {
    let built = match super::build(a, argv) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let Some(exe) = built.executable else {
        return exit::OK;
    };
    let exe = std::path::absolute(&exe).unwrap_or(exe);
    let mut args = program_args.to_vec();
    if a.json && !args.iter().any(|x| x == "--json") {
        args.push("--json".to_string());
    }
    // Handlers first: a signal between the start of the program and
    // theirs is forwarded too.
    let forwarded = forward::Forward::start();
    let child = match std::process::Command::new(&exe).args(&args).spawn() {
        Ok(child) => child,
        Err(e) => {
            forwarded.stop();
            eprintln!("error: cannot run `{}`: {e}", exe.display());
            return exit::EXTERNAL;
        }
    };
    forwarded.child(child.id());
    let status = wait(child);
    let signal = forwarded.stop();
    match status {
        Ok(status) if signal.is_some() => {
            // Stopped on our signal: end as the program did.
            use std::os::unix::process::ExitStatusExt;
            match (status.code(), status.signal()) {
                (Some(code), _) => code,
                (None, Some(sig)) => forward::die_of(sig),
                (None, None) => exit::EXTERNAL,
            }
        }
        Ok(status) if status.success() => exit::OK,
        Ok(status) => {
            eprintln!("error: `{}` exited with {status}", exe.display());
            if status.code() == Some(2) {
                exit::USAGE
            } else {
                exit::EXTERNAL
            }
        }
        Err(e) => {
            eprintln!("error: waiting for `{}`: {e}", exe.display());
            exit::EXTERNAL
        }
    }
}

/// Waits for the child, through the interruptions of forwarded signals.
fn wait(mut child: std::process::Child) -> std::io::Result<std::process::ExitStatus> {
    loop {
        match child.wait() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// Forwarding SIGINT and SIGTERM to the program `ssc run` runs.
mod forward {
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The program's pid while it runs, else 0.
    static CHILD: AtomicI32 = AtomicI32::new(0);
    /// The last signal forwarded, else 0.
    static GOT: AtomicI32 = AtomicI32::new(0);

    extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        GOT.store(sig, Ordering::SeqCst);
        let pid = CHILD.load(Ordering::SeqCst);
        // A terminal's ^C (sent by the kernel, SI_KERNEL) goes to the whole
        // foreground process group, the program included: sent again, it
        // would be the program's second SIGINT, which ends it without its
        // report (its handler is SA_RESETHAND).
        // SAFETY: the kernel passes a valid siginfo_t with SA_SIGINFO.
        let from_terminal = !info.is_null() && unsafe { (*info).si_code } == libc::SI_KERNEL;
        if pid > 0 && !from_terminal {
            // SAFETY: kill is async-signal-safe.
            unsafe { libc::kill(pid, sig) };
        }
    }

    /// The handlers installed while the program runs, and the ones they replaced.
    pub(crate) struct Forward {
        old: Vec<(libc::c_int, libc::sigaction)>,
    }

    impl Forward {
        pub fn start() -> Forward {
            CHILD.store(0, Ordering::SeqCst);
            GOT.store(0, Ordering::SeqCst);
            let mut old = Vec::new();
            for sig in [libc::SIGINT, libc::SIGTERM] {
                // SAFETY: plain sigaction calls on zeroed, then filled, structs;
                // the handler only touches atomics and calls kill.
                unsafe {
                    let mut sa: libc::sigaction = std::mem::zeroed();
                    sa.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                    sa.sa_flags = libc::SA_RESTART | libc::SA_SIGINFO;
                    libc::sigemptyset(&mut sa.sa_mask);
                    let mut prev: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(sig, &sa, &mut prev) == 0 {
                        old.push((sig, prev));
                    }
                }
            }
            Forward { old }
        }

        /// The program started: signals go to it from now on, and one
        /// that came before goes now (a terminal's too: the program did
        /// not exist to receive it).
        pub fn child(&self, pid: u32) {
            CHILD.store(pid as i32, Ordering::SeqCst);
            let sig = GOT.load(Ordering::SeqCst);
            if sig != 0 {
                // SAFETY: a signal to our own child.
                unsafe { libc::kill(pid as i32, sig) };
            }
        }

        /// Restores the handlers; the signal forwarded, if any.
        pub fn stop(self) -> Option<i32> {
            CHILD.store(0, Ordering::SeqCst);
            for (sig, prev) in &self.old {
                // SAFETY: restores what `start` saved.
                unsafe { libc::sigaction(*sig, prev, std::ptr::null_mut()) };
            }
            match GOT.load(Ordering::SeqCst) {
                0 => None,
                sig => Some(sig),
            }
        }
    }

    /// Ends ssc by `sig`, as the program ended (a shell sees the same
    /// status); 128 + sig when the signal does not end it.
    pub(crate) fn die_of(sig: i32) -> i32 {
        // SAFETY: the default action, then the signal to ourselves.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
        128 + sig
    }
}
