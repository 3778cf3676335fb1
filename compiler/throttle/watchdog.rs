//! The watchdog: a child process that resumes everything if the monitor
//! dies without doing so (SIGKILL, a crash, an abort).
//!
//! `spawn` forks before the monitor starts any thread. The child keeps
//! the read end of a pipe whose write end only the monitor holds, ignores
//! SIGINT/SIGTERM/SIGHUP (a Ctrl-C reaches the whole process group; the
//! monitor handles it) and blocks in `read`. A clean monitor writes one
//! byte after resuming everything (`Watchdog::disarm`); end of file
//! without that byte means the monitor died, and the child then sends
//! SIGCONT to every pid, writes `0` to every `cgroup.freeze` and 0 to every
//! IA32_CLOCK_MODULATION it was given, and exits. After the fork the child
//! only makes system calls on data prepared before it.

use super::actuator::Rescue;
use std::ffi::CString;

/// The monitor's end of the watchdog.
pub struct Watchdog {
    fd: i32,
    pub pid: i32,
}

/// Why the watchdog could not be started: the system call that failed.
#[derive(Debug, thiserror::Error)]
pub enum WatchdogError {
    #[error("watchdog pipe: {0}")]
    Pipe(#[source] std::io::Error),
    #[error("watchdog fork: {0}")]
    Fork(#[source] std::io::Error),
}

/// Forks the watchdog for this rescue list.
pub fn spawn(rescue: &Rescue) -> Result<Watchdog, WatchdogError> {
    let freeze: Vec<CString> = rescue
        .freeze_files
        .iter()
        .filter_map(|p| CString::new(p.as_os_str().to_string_lossy().as_bytes()).ok())
        .collect();
    let msr: Vec<CString> = rescue
        .msr_cpus
        .iter()
        .filter_map(|c| CString::new(format!("/dev/cpu/{c}/msr")).ok())
        .collect();
    let pids = rescue.pids.clone();
    let note = b"ssc throttle watchdog: the monitor died; resumed every best-effort task\n";
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(WatchdogError::Pipe(std::io::Error::last_os_error()));
    }
    // SAFETY: called before the monitor starts threads; the child below
    // only makes system calls on memory prepared before the fork.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(WatchdogError::Fork(std::io::Error::last_os_error()));
    }
    if pid == 0 {
        // SAFETY: plain system calls in the forked child.
        unsafe {
            libc::close(fds[1]);
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            libc::signal(libc::SIGTERM, libc::SIG_IGN);
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            libc::prctl(
                libc::PR_SET_NAME,
                c"ssc-watchdog".as_ptr() as libc::c_ulong,
                0,
                0,
                0,
            );
            let mut b = 0u8;
            let n = loop {
                let n = libc::read(fds[0], &mut b as *mut u8 as *mut libc::c_void, 1);
                if n < 0 && *libc::__errno_location() == libc::EINTR {
                    continue;
                }
                break n;
            };
            if n == 1 {
                libc::_exit(0);
            }
            for &p in &pids {
                libc::kill(p, libc::SIGCONT);
            }
            for f in &freeze {
                let fd = libc::open(f.as_ptr(), libc::O_WRONLY);
                if fd >= 0 {
                    libc::write(fd, b"0".as_ptr() as *const libc::c_void, 1);
                    libc::close(fd);
                }
            }
            let zero = 0u64.to_le_bytes();
            for f in &msr {
                let fd = libc::open(f.as_ptr(), libc::O_WRONLY);
                if fd >= 0 {
                    libc::pwrite(
                        fd,
                        zero.as_ptr() as *const libc::c_void,
                        8,
                        super::msr::MSR_CLOCK_MODULATION as libc::off_t,
                    );
                    libc::close(fd);
                }
            }
            libc::write(2, note.as_ptr() as *const libc::c_void, note.len());
            libc::_exit(0);
        }
    }
    // SAFETY: the parent closes its copy of the read end.
    unsafe { libc::close(fds[0]) };
    Ok(Watchdog { fd: fds[1], pid })
}

impl Watchdog {
    /// Tells the watchdog that everything was resumed, and reaps it.
    pub fn disarm(self) {
        // SAFETY: one byte to our pipe, then close it and reap the child.
        unsafe {
            libc::write(self.fd, b"D".as_ptr() as *const libc::c_void, 1);
            libc::close(self.fd);
            let mut status = 0;
            libc::waitpid(self.pid, &mut status, 0);
        }
    }
}
