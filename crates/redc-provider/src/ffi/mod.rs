//! The provider's C face: `OSSL_provider_init`, the dispatch tables, and the
//! conversion between OpenSSL's `OSSL_PARAM` arrays and
//! [`Param`](crate::params::Param)/[`Value`](crate::params::Value), one
//! file per OpenSSL operation. With [`crate::libcrypto`] (the calls the
//! other way), this is the crate's only code with `unsafe`; each block says
//! why it is sound. The rules it relies on are OpenSSL's provider ABI
//! (`openssl/core.h`, `core_dispatch.h`; provider(7), provider-keymgmt(7),
//! provider-signature(7), provider-asym_cipher(7)): every pointer OpenSSL
//! passes is valid for the documented length or NULL, a context or key
//! pointer is one this module returned and has not freed, and a context is
//! not used by two threads at once (keys may be, read-only).
//!
//! Every entry point runs its body under `catch_unwind`: a panic becomes
//! the function's failure value and never crosses into C. The entry points
//! are written once through `shims!`, and the tables are built from typed
//! slots ([`dispatch`]): an id paired with a function of another C type
//! does not compile.

use crate::keys::KeyObj;
use core::ffi::{CStr, c_char, c_int, c_void};
use std::ptr::{null, null_mut};

// ---------------------------------------------------------------- C types

/// `OSSL_PARAM`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct OsslParam {
    key: *const c_char,
    data_type: u32,
    data: *mut c_void,
    data_size: usize,
    return_size: usize,
}

/// `OSSL_ALGORITHM`.
#[repr(C)]
pub struct Algorithm {
    names: *const c_char,
    props: *const c_char,
    imp: *const Dispatch,
    desc: *const c_char,
}

/// `OSSL_CALLBACK`.
type Callback = Option<unsafe extern "C" fn(*const OsslParam, *mut c_void) -> c_int>;

const INTEGER: u32 = 1;
const UNSIGNED_INTEGER: u32 = 2;
const UTF8_STRING: u32 = 4;
const OCTET_STRING: u32 = 5;
const UTF8_PTR: u32 = 6;
const OCTET_PTR: u32 = 7;
const UNMODIFIED: usize = usize::MAX;

/// A static table of C structures holding pointers to static data.
#[repr(transparent)]
struct Table<T>(T);
// SAFETY: the tables hold only pointers to immutable statics (C string
// literals and other tables); nothing writes through them.
unsafe impl<T> Sync for Table<T> {}

const fn desc(key: &'static CStr, data_type: u32) -> OsslParam {
    OsslParam {
        key: key.as_ptr(),
        data_type,
        data: null_mut(),
        data_size: 0,
        return_size: UNMODIFIED,
    }
}

const PARAM_END: OsslParam = OsslParam {
    key: null(),
    data_type: 0,
    data: null_mut(),
    data_size: 0,
    return_size: 0,
};

fn ok(b: bool) -> c_int {
    c_int::from(b)
}

/// Turn a pointer this module made with `Box::into_raw` back into a reference.
///
/// # Safety
/// `p` is NULL or a live `Box<T>` pointer from this module, not used by
/// another thread mutably at the same time.
unsafe fn obj<'a, T>(p: *mut c_void) -> Option<&'a mut T> {
    // SAFETY: per the contract above.
    unsafe { (p as *mut T).as_mut() }
}

/// Turn a key-object pointer into a shared reference. Key objects are
/// shared: OpenSSL hands the same `EVP_PKEY`'s key data to many threads at
/// once (a TLS server's certificate key) and may pass one object twice
/// (`EVP_PKEY_eq(k, k)` calls match with a == b), so the read-only entry
/// points must not make a `&mut` of it (two live `&mut` to one object are
/// undefined behaviour even when nobody writes). [`KeyObj`] is `Sync`: an
/// `Option<Arc<Key>>`, whose keys only lock their blinding pool.
///
/// # Safety
/// `p` is NULL or a live `Box<KeyObj>` pointer from this module that no
/// thread mutates meanwhile (only import and free do, on an object OpenSSL
/// does not share while it builds or frees it).
unsafe fn key_obj<'a>(p: *const c_void) -> Option<&'a KeyObj> {
    // SAFETY: per the contract above.
    unsafe { (p as *const KeyObj).as_ref() }
}

fn boxed<T>(v: T) -> *mut c_void {
    Box::into_raw(Box::new(v)) as *mut c_void
}

/// # Safety
/// `p` is NULL or a live `Box<T>` pointer from this module, freed once.
unsafe fn free<T>(p: *mut c_void) {
    if !p.is_null() {
        // SAFETY: per the contract; dropping wipes any secrets.
        drop(unsafe { Box::from_raw(p as *mut T) });
    }
}

/// The size query of OpenSSL's output convention (the output buffer NULL):
/// `*len = size` and 1, or 0 when the size is unknown or `len` is NULL.
///
/// # Safety
/// `len` is NULL or writable.
unsafe fn report_len(len: *mut usize, size: Option<usize>) -> c_int {
    match (size, len.is_null()) {
        (Some(k), false) => {
            // SAFETY: len is writable (not NULL, per the contract).
            unsafe { *len = k };
            1
        }
        _ => 0,
    }
}

/// Copy `src` to a caller's output buffer of `size` bytes and set `*len`.
///
/// # Safety
/// `out` is writable for `size` bytes; `len` is writable.
unsafe fn emit(out: *mut u8, len: *mut usize, size: usize, src: &[u8]) -> bool {
    if len.is_null() || src.len() > size || out.is_null() {
        return false;
    }
    // SAFETY: out is writable for size >= src.len() bytes; len is writable.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), out, src.len());
        *len = src.len();
    }
    true
}

/// A byte slice from a C pointer and length (NULL with length 0 is empty).
///
/// # Safety
/// `p` is valid for `len` bytes, or `len` is 0.
unsafe fn slice<'a>(p: *const u8, len: usize) -> &'a [u8] {
    if p.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: per the contract.
    unsafe { std::slice::from_raw_parts(p, len) }
}

// The typed slots and the `dispatch!`/`shims!` macros first, for the
// operations after them.
#[macro_use]
pub mod dispatch;
mod asym_cipher;
mod keymgmt;
mod ossl_param;
mod provider;
mod signature;

pub use dispatch::Dispatch;
pub use provider::OSSL_provider_init;
