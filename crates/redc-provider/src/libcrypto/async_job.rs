//! OpenSSL's async jobs (`ASYNC_get_current_job`, `ASYNC_pause_job`), for
//! [`crate::queue`]. The symbols are looked up at run time in the process
//! (the libcrypto that loaded this provider), so that the crate links
//! without libcrypto (its unit tests) and runs without async support where
//! the lookup fails. Linux only (the wait fd is an eventfd).

use core::ffi::{CStr, c_char, c_int, c_void};
use std::ptr::null_mut;

/// `ASYNC_JOB *ASYNC_get_current_job(void)`.
type GetCurrentJob = unsafe extern "C" fn() -> *mut c_void;
/// `ASYNC_WAIT_CTX *ASYNC_get_wait_ctx(ASYNC_JOB *)`.
type GetWaitCtx = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
/// `int ASYNC_pause_job(void)`.
type PauseJob = unsafe extern "C" fn() -> c_int;
/// `int ASYNC_WAIT_CTX_get_fd(ASYNC_WAIT_CTX *, const void *key, OSSL_ASYNC_FD *, void **)`.
type GetFd = unsafe extern "C" fn(*mut c_void, *const c_void, *mut c_int, *mut *mut c_void) -> c_int;
/// The clean-up callback of a wait fd.
type FdCleanup = unsafe extern "C" fn(*mut c_void, *const c_void, c_int, *mut c_void);
/// `int ASYNC_WAIT_CTX_set_wait_fd(ASYNC_WAIT_CTX *, const void *key, OSSL_ASYNC_FD, void *, cleanup)`.
type SetWaitFd =
    unsafe extern "C" fn(*mut c_void, *const c_void, c_int, *mut c_void, Option<FdCleanup>) -> c_int;

struct AsyncFns {
    get_current_job: GetCurrentJob,
    get_wait_ctx: GetWaitCtx,
    pause_job: PauseJob,
    get_fd: GetFd,
    set_wait_fd: SetWaitFd,
}

#[cfg(target_os = "linux")]
unsafe extern "C" {
    pub(super) fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn eventfd(initval: core::ffi::c_uint, flags: c_int) -> c_int;
    fn read(fd: c_int, buf: *mut c_void, count: usize) -> isize;
    fn write(fd: c_int, buf: *const c_void, count: usize) -> isize;
    fn close(fd: c_int) -> c_int;
}

/// The ASYNC functions of the process's libcrypto, looked up once.
#[cfg(target_os = "linux")]
fn async_fns() -> Option<&'static AsyncFns> {
    static FNS: std::sync::OnceLock<Option<AsyncFns>> = std::sync::OnceLock::new();
    FNS.get_or_init(|| {
        let find = |name: &CStr| {
            // SAFETY: dlsym with RTLD_DEFAULT (a null handle on glibc) and a
            // NUL-terminated name only looks the symbol up.
            let p = unsafe { dlsym(null_mut(), name.as_ptr()) };
            (!p.is_null()).then_some(p)
        };
        let (a, b, c, d, e) = (
            find(c"ASYNC_get_current_job")?,
            find(c"ASYNC_get_wait_ctx")?,
            find(c"ASYNC_pause_job")?,
            find(c"ASYNC_WAIT_CTX_get_fd")?,
            find(c"ASYNC_WAIT_CTX_set_wait_fd")?,
        );
        // SAFETY: these are OpenSSL 3's exported functions with exactly the
        // signatures above (include/openssl/async.h).
        unsafe {
            Some(AsyncFns {
                get_current_job: core::mem::transmute::<*mut c_void, GetCurrentJob>(a),
                get_wait_ctx: core::mem::transmute::<*mut c_void, GetWaitCtx>(b),
                pause_job: core::mem::transmute::<*mut c_void, PauseJob>(c),
                get_fd: core::mem::transmute::<*mut c_void, GetFd>(d),
                set_wait_fd: core::mem::transmute::<*mut c_void, SetWaitFd>(e),
            })
        }
    })
    .as_ref()
}

/// Whether this call runs inside an OpenSSL async job (`SSL_MODE_ASYNC`,
/// `openssl speed -async_jobs N`, ...).
#[cfg(target_os = "linux")]
pub fn in_async_job() -> bool {
    // SAFETY: ASYNC_get_current_job takes nothing and only reads the
    // calling thread's async state.
    async_fns().is_some_and(|f| !unsafe { (f.get_current_job)() }.is_null())
}

/// Not on this platform.
#[cfg(not(target_os = "linux"))]
pub fn in_async_job() -> bool {
    false
}

/// The key of redc's wait fd in a job's `ASYNC_WAIT_CTX` (its address).
#[cfg(target_os = "linux")]
static WAIT_FD_KEY: u8 = 0;

/// Closes redc's eventfd when OpenSSL frees the wait context.
#[cfg(target_os = "linux")]
unsafe extern "C" fn close_wait_fd(_ctx: *mut c_void, _key: *const c_void, fd: c_int, _data: *mut c_void) {
    // SAFETY: fd is the eventfd this module created for the context.
    unsafe { close(fd) };
}

/// Pause the current async job once, giving the application a turn (it
/// resumes other jobs, which may queue more work), and return when it
/// resumes this job. The job's wait fd (an eventfd, made once per wait
/// context) is readable while paused, so that an application waiting on
/// the fds (`openssl speed`, servers) resumes the job at its next round.
/// False when there is no job or no wait context: nothing was paused.
#[cfg(target_os = "linux")]
pub fn pause_async_job() -> bool {
    const EFD_NONBLOCK: c_int = 0o4000;
    const EFD_CLOEXEC: c_int = 0o2000000;
    let Some(f) = async_fns() else { return false };
    let key = (&WAIT_FD_KEY as *const u8).cast::<c_void>();
    // SAFETY: the ASYNC functions are called as documented: on the current
    // job of this thread, its wait context, and a key that is a static
    // address; the fd written and read is the eventfd registered here (8
    // bytes, as eventfd requires). No Rust borrow is held across the pause.
    unsafe {
        let job = (f.get_current_job)();
        if job.is_null() {
            return false;
        }
        let ctx = (f.get_wait_ctx)(job);
        if ctx.is_null() {
            return false;
        }
        let mut fd: c_int = -1;
        let mut data: *mut c_void = null_mut();
        if (f.get_fd)(ctx, key, &mut fd, &mut data) == 0 {
            fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
            if fd < 0 {
                return false;
            }
            if (f.set_wait_fd)(ctx, key, fd, null_mut(), Some(close_wait_fd)) == 0 {
                close(fd);
                return false;
            }
        }
        let one: u64 = 1;
        write(fd, (&one as *const u64).cast(), 8);
        let paused = (f.pause_job)() == 1;
        let mut drained: u64 = 0;
        read(fd, (&mut drained as *mut u64).cast(), 8);
        paused
    }
}

/// Not on this platform.
#[cfg(not(target_os = "linux"))]
pub fn pause_async_job() -> bool {
    false
}
