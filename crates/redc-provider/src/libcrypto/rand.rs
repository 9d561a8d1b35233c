//! OpenSSL's private DRBG (`RAND_priv_bytes_ex`), for [`crate::rng`]:
//! random bytes from user space (OpenSSL seeds, reseeds and separates it
//! across fork), where `getrandom` is a system call per request (see
//! [`crate::rng`]). Looked up at run time like the ASYNC functions
//! ([`super::async_job`]), for the same reasons.

#[cfg(target_os = "linux")]
use super::async_job::dlsym;
#[cfg(target_os = "linux")]
use core::ffi::c_int;
#[cfg(target_os = "linux")]
use core::ffi::c_void;
#[cfg(target_os = "linux")]
use std::ptr::null_mut;

/// `int RAND_priv_bytes_ex(OSSL_LIB_CTX *, unsigned char *, size_t, unsigned int strength)`.
#[cfg(target_os = "linux")]
type RandPrivBytes = unsafe extern "C" fn(*mut c_void, *mut u8, usize, core::ffi::c_uint) -> c_int;

/// Fill `buf` from the private DRBG of the process's libcrypto (its
/// default library context, default strength). False when the process has
/// no such libcrypto or the DRBG failed: the caller falls back.
#[cfg(target_os = "linux")]
pub fn openssl_priv_random(buf: &mut [u8]) -> bool {
    static FN: std::sync::OnceLock<Option<RandPrivBytes>> = std::sync::OnceLock::new();
    let f = FN.get_or_init(|| {
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only
        // looks the symbol up.
        let p = unsafe { dlsym(null_mut(), c"RAND_priv_bytes_ex".as_ptr()) };
        // SAFETY: OpenSSL 3's RAND_priv_bytes_ex has exactly this signature
        // (include/openssl/rand.h).
        (!p.is_null()).then(|| unsafe { core::mem::transmute::<*mut c_void, RandPrivBytes>(p) })
    });
    match f {
        // SAFETY: a null library context means the default one; `buf` is
        // valid for writes of its length; strength 0 asks for the default.
        Some(f) => buf.is_empty() || unsafe { f(null_mut(), buf.as_mut_ptr(), buf.len(), 0) } == 1,
        None => false,
    }
}

/// Not on this platform.
#[cfg(not(target_os = "linux"))]
pub fn openssl_priv_random(_buf: &mut [u8]) -> bool {
    false
}
