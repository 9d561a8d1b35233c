//! `OSSL_DISPATCH` tables with a type per slot.
//!
//! Each function id of `openssl/core_dispatch.h` that the provider offers
//! or takes is a [`Slot`]: the id and the C function type OpenSSL calls
//! through it. A table entry ([`Slot::entry`], or the `dispatch!` macro
//! that builds a whole table) takes a function of exactly that type, so
//! pairing an id with a function of another signature does not compile:
//!
//! ```
//! use core::ffi::c_void;
//! use redc_provider::ffi::dispatch::{Dispatch, OSSL_FUNC_SIGNATURE_FREECTX};
//! unsafe extern "C" fn freectx(_ctx: *mut c_void) {}
//! static TABLE: [Dispatch; 2] = [OSSL_FUNC_SIGNATURE_FREECTX.entry(freectx), Dispatch::END];
//! ```
//!
//! ```compile_fail
//! use core::ffi::c_void;
//! use redc_provider::ffi::dispatch::{Dispatch, OSSL_FUNC_SIGNATURE_FREECTX};
//! // dupctx's signature (returns the copy) in freectx's slot:
//! unsafe extern "C" fn dupctx(_ctx: *mut c_void) -> *mut c_void { _ctx }
//! static TABLE: [Dispatch; 2] = [OSSL_FUNC_SIGNATURE_FREECTX.entry(dupctx), Dispatch::END];
//! ```
//!
//! The check is by type: two ids of one signature (`sign_init` and
//! `verify_init`) take each other's functions; the tables name each id, so
//! a reader sees the pairing.
//!
//! The entry points themselves are written with `shims!`: the shape every
//! one repeats (`unsafe extern "C"`, the body under `catch_unwind`, a panic
//! turned into the failure value of the return type, [`Fail`]) is
//! generated once.

use super::{Algorithm, Callback, OsslParam};
use core::ffi::{c_char, c_int, c_void};
use core::marker::PhantomData;

/// `void (*)(void)`: a table entry's function, its type erased.
type Fp = unsafe extern "C" fn();

/// `OSSL_DISPATCH`: a function id and the function, its type erased.
#[repr(C)]
pub struct Dispatch {
    id: c_int,
    f: Option<Fp>,
}

impl Dispatch {
    /// The terminator of a table (id 0).
    pub const END: Dispatch = Dispatch { id: 0, f: None };
}

mod sealed {
    pub trait Sealed {}
}

/// A C function pointer type (`unsafe extern "C" fn(..) -> R`, up to six
/// arguments): what a [`Slot`] may carry.
pub trait CFn: Copy + sealed::Sealed {}

macro_rules! c_fn_arities {
    ($(($($a:ident),*))*) => {$(
        impl<R, $($a),*> sealed::Sealed for unsafe extern "C" fn($($a),*) -> R {}
        impl<R, $($a),*> CFn for unsafe extern "C" fn($($a),*) -> R {}
    )*};
}
c_fn_arities!(()(A)(A, B)(A, B, C)(A, B, C, D)(A, B, C, D, E)(A, B, C, D, E, G));

/// A function id of `core_dispatch.h` with the C type `F` of the function
/// OpenSSL calls through it.
pub struct Slot<F> {
    id: c_int,
    f: PhantomData<F>,
}

/// A function pointer's bits seen as `F` or erased (a C function pointer
/// is one code address whatever its signature).
#[repr(C)]
union Erase<F: Copy> {
    typed: F,
    erased: Fp,
}

impl<F: CFn> Slot<F> {
    const fn new(id: c_int) -> Slot<F> {
        Slot { id, f: PhantomData }
    }

    /// The id.
    pub const fn id(&self) -> c_int {
        self.id
    }

    /// The table entry of `f` at this id.
    pub const fn entry(&self, f: F) -> Dispatch {
        const { assert!(size_of::<F>() == size_of::<Fp>()) };
        // SAFETY: F is a C function pointer type ([`CFn`] is sealed and
        // implemented for those only), of Fp's size (asserted above): the
        // union reads the same address as the erased type, which is what
        // `OSSL_DISPATCH`'s `void (*)(void)` holds in C. OpenSSL calls it
        // only through this id's type, which is F.
        let erased = unsafe { Erase { typed: f }.erased };
        Dispatch {
            id: self.id,
            f: Some(erased),
        }
    }

    /// The function a caller's table holds at this id, with its type.
    ///
    /// # Safety
    /// `table` is NULL or an `OSSL_DISPATCH` array ending with id 0 whose
    /// function at this id has the C type `F` (the core's tables:
    /// `core_dispatch.h`).
    pub unsafe fn find(&self, table: *const Dispatch) -> Option<F> {
        let mut p = table;
        while !p.is_null() {
            // SAFETY: the table ends with an entry of id 0; we stop there.
            let entry = unsafe { &*p };
            match (entry.id, entry.f) {
                (0, _) => return None,
                // SAFETY: per the contract the function at this id has type
                // F, a C function pointer of Fp's size (see `entry`).
                (id, Some(f)) if id == self.id => return Some(unsafe { Erase::<F> { erased: f }.typed }),
                _ => {}
            }
            // SAFETY: not the terminator, so the next entry exists.
            p = unsafe { p.add(1) };
        }
        None
    }
}

/// A table: each `SLOT => function` entry, then the terminator.
macro_rules! dispatch {
    ($($slot:ident => $f:expr),* $(,)?) => {
        &[$($crate::ffi::dispatch::$slot.entry($f),)* $crate::ffi::dispatch::Dispatch::END]
    };
}

/// The failure value of an entry point's return type: what a panic in its
/// body becomes (never unwinding into C).
pub trait Fail {
    /// 0, NULL, or nothing.
    const FAIL: Self;
}
impl Fail for c_int {
    const FAIL: c_int = 0;
}
impl Fail for () {
    const FAIL: () = ();
}
impl<T> Fail for *mut T {
    const FAIL: *mut T = core::ptr::null_mut();
}
impl<T> Fail for *const T {
    const FAIL: *const T = core::ptr::null();
}

/// Run `f`, turning a panic into `T`'s failure value.
pub(super) fn guard<T: Fail>(f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(T::FAIL)
}

/// Entry points: each `fn name(args) -> T { body }` becomes an
/// `unsafe extern "C" fn` running `body` under [`guard`]. Every argument
/// comes from OpenSSL, under the contract of the slot the function fills
/// (provider-*(7)); each `unsafe` block of a body says which part it uses.
macro_rules! shims {
    ($(
        $(#[$attr:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block
    )*) => {$(
        $(#[$attr])*
        unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
            $crate::ffi::dispatch::guard(|| $body)
        }
    )*};
}

/// Slots: `NAME = id: fn(args) -> ret;`, each a [`Slot`] constant named as
/// in `core_dispatch.h`.
macro_rules! slots {
    ($(
        $name:ident = $id:literal: fn($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;
    )*) => {$(
        #[doc = concat!("`", stringify!($name), "` (", stringify!($id), ").")]
        pub const $name: Slot<unsafe extern "C" fn($($arg: $ty),*) $(-> $ret)?> = Slot::new($id);
    )*};
}

/// `OSSL_OP_KEYMGMT`.
pub const OSSL_OP_KEYMGMT: c_int = 10;
/// `OSSL_OP_SIGNATURE`.
pub const OSSL_OP_SIGNATURE: c_int = 12;
/// `OSSL_OP_ASYM_CIPHER`.
pub const OSSL_OP_ASYM_CIPHER: c_int = 13;

// The core's functions the provider takes (the error queue).
slots! {
    OSSL_FUNC_CORE_NEW_ERROR = 5: fn(handle: *const c_void);
    OSSL_FUNC_CORE_SET_ERROR_DEBUG = 6: fn(handle: *const c_void, file: *const c_char, line: c_int, func: *const c_char);
    // `va_list` as the pointer the x86-64 and AArch64 Linux ABIs pass one
    // as (x86-64: an array that decays to a pointer; AArch64: a 32-byte
    // structure, passed by reference).
    OSSL_FUNC_CORE_VSET_ERROR = 7: fn(handle: *const c_void, reason: u32, fmt: *const c_char, args: *mut c_void);
}

// The provider object.
slots! {
    OSSL_FUNC_PROVIDER_TEARDOWN = 1024: fn(provctx: *mut c_void);
    OSSL_FUNC_PROVIDER_GETTABLE_PARAMS = 1025: fn(provctx: *mut c_void) -> *const OsslParam;
    OSSL_FUNC_PROVIDER_GET_PARAMS = 1026: fn(provctx: *mut c_void, params: *mut OsslParam) -> c_int;
    OSSL_FUNC_PROVIDER_QUERY_OPERATION = 1027: fn(provctx: *mut c_void, operation_id: c_int, no_store: *mut c_int) -> *const Algorithm;
}

// Key management.
slots! {
    OSSL_FUNC_KEYMGMT_NEW = 1: fn(provctx: *mut c_void) -> *mut c_void;
    OSSL_FUNC_KEYMGMT_GEN_INIT = 2: fn(provctx: *mut c_void, selection: c_int, params: *const OsslParam) -> *mut c_void;
    OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS = 4: fn(genctx: *mut c_void, params: *const OsslParam) -> c_int;
    OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS = 5: fn(genctx: *mut c_void, provctx: *mut c_void) -> *const OsslParam;
    OSSL_FUNC_KEYMGMT_GEN = 6: fn(genctx: *mut c_void, cb: Callback, cbarg: *mut c_void) -> *mut c_void;
    OSSL_FUNC_KEYMGMT_GEN_CLEANUP = 7: fn(genctx: *mut c_void);
    OSSL_FUNC_KEYMGMT_FREE = 10: fn(keydata: *mut c_void);
    OSSL_FUNC_KEYMGMT_GET_PARAMS = 11: fn(keydata: *mut c_void, params: *mut OsslParam) -> c_int;
    OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS = 12: fn(provctx: *mut c_void) -> *const OsslParam;
    OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME = 20: fn(operation_id: c_int) -> *const c_char;
    OSSL_FUNC_KEYMGMT_HAS = 21: fn(keydata: *const c_void, selection: c_int) -> c_int;
    OSSL_FUNC_KEYMGMT_VALIDATE = 22: fn(keydata: *const c_void, selection: c_int, checktype: c_int) -> c_int;
    OSSL_FUNC_KEYMGMT_MATCH = 23: fn(keydata1: *const c_void, keydata2: *const c_void, selection: c_int) -> c_int;
    OSSL_FUNC_KEYMGMT_IMPORT = 40: fn(keydata: *mut c_void, selection: c_int, params: *const OsslParam) -> c_int;
    OSSL_FUNC_KEYMGMT_IMPORT_TYPES = 41: fn(selection: c_int) -> *const OsslParam;
    OSSL_FUNC_KEYMGMT_EXPORT = 42: fn(keydata: *mut c_void, selection: c_int, param_cb: Callback, cbarg: *mut c_void) -> c_int;
    OSSL_FUNC_KEYMGMT_EXPORT_TYPES = 43: fn(selection: c_int) -> *const OsslParam;
    OSSL_FUNC_KEYMGMT_DUP = 44: fn(keydata_from: *const c_void, selection: c_int) -> *mut c_void;
}

// Signatures.
slots! {
    OSSL_FUNC_SIGNATURE_NEWCTX = 1: fn(provctx: *mut c_void, propq: *const c_char) -> *mut c_void;
    OSSL_FUNC_SIGNATURE_SIGN_INIT = 2: fn(ctx: *mut c_void, provkey: *mut c_void, params: *const OsslParam) -> c_int;
    OSSL_FUNC_SIGNATURE_SIGN = 3: fn(ctx: *mut c_void, sig: *mut u8, siglen: *mut usize, sigsize: usize, tbs: *const u8, tbslen: usize) -> c_int;
    OSSL_FUNC_SIGNATURE_VERIFY_INIT = 4: fn(ctx: *mut c_void, provkey: *mut c_void, params: *const OsslParam) -> c_int;
    OSSL_FUNC_SIGNATURE_VERIFY = 5: fn(ctx: *mut c_void, sig: *const u8, siglen: usize, tbs: *const u8, tbslen: usize) -> c_int;
    OSSL_FUNC_SIGNATURE_VERIFY_RECOVER_INIT = 6: fn(ctx: *mut c_void, provkey: *mut c_void, params: *const OsslParam) -> c_int;
    OSSL_FUNC_SIGNATURE_VERIFY_RECOVER = 7: fn(ctx: *mut c_void, rout: *mut u8, routlen: *mut usize, routsize: usize, sig: *const u8, siglen: usize) -> c_int;
    OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT = 8: fn(ctx: *mut c_void, mdname: *const c_char, provkey: *mut c_void, params: *const OsslParam) -> c_int;
    OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE = 9: fn(ctx: *mut c_void, data: *const u8, datalen: usize) -> c_int;
    OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL = 10: fn(ctx: *mut c_void, sig: *mut u8, siglen: *mut usize, sigsize: usize) -> c_int;
    OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT = 12: fn(ctx: *mut c_void, mdname: *const c_char, provkey: *mut c_void, params: *const OsslParam) -> c_int;
    OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE = 13: fn(ctx: *mut c_void, data: *const u8, datalen: usize) -> c_int;
    OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL = 14: fn(ctx: *mut c_void, sig: *const u8, siglen: usize) -> c_int;
    OSSL_FUNC_SIGNATURE_FREECTX = 16: fn(ctx: *mut c_void);
    OSSL_FUNC_SIGNATURE_DUPCTX = 17: fn(ctx: *mut c_void) -> *mut c_void;
    OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS = 18: fn(ctx: *mut c_void, params: *mut OsslParam) -> c_int;
    OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS = 19: fn(ctx: *mut c_void, provctx: *mut c_void) -> *const OsslParam;
    OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS = 20: fn(ctx: *mut c_void, params: *const OsslParam) -> c_int;
    OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS = 21: fn(ctx: *mut c_void, provctx: *mut c_void) -> *const OsslParam;
}

// Asymmetric ciphers.
slots! {
    OSSL_FUNC_ASYM_CIPHER_NEWCTX = 1: fn(provctx: *mut c_void) -> *mut c_void;
    OSSL_FUNC_ASYM_CIPHER_ENCRYPT_INIT = 2: fn(ctx: *mut c_void, provkey: *mut c_void, params: *const OsslParam) -> c_int;
    OSSL_FUNC_ASYM_CIPHER_ENCRYPT = 3: fn(ctx: *mut c_void, out: *mut u8, outlen: *mut usize, outsize: usize, input: *const u8, inlen: usize) -> c_int;
    OSSL_FUNC_ASYM_CIPHER_DECRYPT_INIT = 4: fn(ctx: *mut c_void, provkey: *mut c_void, params: *const OsslParam) -> c_int;
    OSSL_FUNC_ASYM_CIPHER_DECRYPT = 5: fn(ctx: *mut c_void, out: *mut u8, outlen: *mut usize, outsize: usize, input: *const u8, inlen: usize) -> c_int;
    OSSL_FUNC_ASYM_CIPHER_FREECTX = 6: fn(ctx: *mut c_void);
    OSSL_FUNC_ASYM_CIPHER_DUPCTX = 7: fn(ctx: *mut c_void) -> *mut c_void;
    OSSL_FUNC_ASYM_CIPHER_GET_CTX_PARAMS = 8: fn(ctx: *mut c_void, params: *mut OsslParam) -> c_int;
    OSSL_FUNC_ASYM_CIPHER_GETTABLE_CTX_PARAMS = 9: fn(ctx: *mut c_void, provctx: *mut c_void) -> *const OsslParam;
    OSSL_FUNC_ASYM_CIPHER_SET_CTX_PARAMS = 10: fn(ctx: *mut c_void, params: *const OsslParam) -> c_int;
    OSSL_FUNC_ASYM_CIPHER_SETTABLE_CTX_PARAMS = 11: fn(ctx: *mut c_void, provctx: *mut c_void) -> *const OsslParam;
}
