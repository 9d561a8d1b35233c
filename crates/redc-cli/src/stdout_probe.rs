//! Whether file descriptor 1 was closed when the process started
//! (`redc genrsa -o - >&-`). The Rust runtime opens /dev/null on a closed
//! standard descriptor before `main` runs, after which the output would
//! vanish without an error; a constructor in `.init_array`, which the loader
//! runs before the runtime's set-up, looks first. This module holds the
//! binary's only `unsafe` code.

use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Whether stdout was closed at start (always false where no probe runs).
pub fn was_closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

#[cfg(target_os = "linux")]
mod probe {
    use super::{CLOSED, Ordering};

    unsafe extern "C" {
        /// POSIX `fcntl(2)` from the C library.
        fn fcntl(fd: i32, cmd: i32, ...) -> i32;
    }

    /// `F_GETFD` on Linux.
    const F_GETFD: i32 = 1;

    extern "C" fn probe() {
        // SAFETY: fcntl(1, F_GETFD) reads descriptor 1's flags and takes no
        // pointer; on a closed descriptor it returns -1 (EBADF) and does
        // nothing else.
        let flags = unsafe { fcntl(1, F_GETFD) };
        CLOSED.store(flags == -1, Ordering::Relaxed);
    }

    // SAFETY: `.init_array` holds pointers to functions of no arguments that
    // the loader calls once before `main`; `probe` is such a function and
    // touches only an atomic and a system call, nothing the runtime sets up.
    #[used]
    #[unsafe(link_section = ".init_array")]
    static PROBE: extern "C" fn() = probe;
}
