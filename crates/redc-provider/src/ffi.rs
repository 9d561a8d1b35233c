//! The provider's C face: `OSSL_provider_init`, the dispatch tables, and the
//! conversion between OpenSSL's `OSSL_PARAM` arrays and [`Param`]/[`Value`].
//! This is the crate's only module with `unsafe`; each block says why it is
//! sound. The rules it relies on are OpenSSL's provider ABI
//! (`openssl/core.h`, `core_dispatch.h`; provider(7), provider-keymgmt(7),
//! provider-signature(7), provider-asym_cipher(7)): every pointer OpenSSL
//! passes is valid for the documented length or NULL, a context or key
//! pointer is one this module returned and has not freed, and a context is
//! not used by two threads at once (keys may be, read-only).
//!
//! Every entry point runs its body under `catch_unwind`: a panic becomes
//! the function's failure value and never crosses into C.

use crate::cipher::CipherCtx;
use crate::keys::{self, GenCtx, KeyObj};
use crate::params::{Param, Value};
use crate::pss::KeyType;
use crate::sig::{Op, SigCtx};
use core::ffi::{CStr, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::{null, null_mut};
use zeroize::Zeroizing;

// ---------------------------------------------------------------- C types

type Fp = unsafe extern "C" fn();

/// `OSSL_DISPATCH`.
#[repr(C)]
pub struct Dispatch {
    id: c_int,
    f: Option<Fp>,
}

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

macro_rules! entry {
    ($id:expr, $f:expr) => {
        Dispatch {
            id: $id,
            // SAFETY: OpenSSL calls the function only through the C
            // signature that `$id` names in core_dispatch.h, which is the
            // signature `$f` is declared with; the cast merely erases it,
            // as OSSL_DISPATCH's `void (*)(void)` does in C.
            f: Some(unsafe { core::mem::transmute::<*const (), Fp>($f as *const ()) }),
        }
    };
}

const END: Dispatch = Dispatch { id: 0, f: None };

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

/// Run `f`, turning a panic into `fail`.
fn guard<T>(fail: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fail)
}

fn ok(b: bool) -> c_int {
    c_int::from(b)
}

// ---------------------------------------------------------- OSSL_PARAM I/O

/// Read a caller's parameter array into owned values; unknown types and
/// NULL data are skipped.
///
/// # Safety
/// `p` is NULL or a valid `OSSL_PARAM` array ending with a NULL key.
unsafe fn read_params(mut p: *const OsslParam) -> Vec<Param> {
    let mut out = Vec::new();
    if p.is_null() {
        return out;
    }
    loop {
        // SAFETY: p points into the caller's array, which ends with a NULL
        // key; we stop there.
        let param = unsafe { &*p };
        if param.key.is_null() {
            break;
        }
        // SAFETY: a non-NULL key is a NUL-terminated C string.
        let key = unsafe { CStr::from_ptr(param.key) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: data is valid for data_size bytes of data_type (the
        // OSSL_PARAM contract), or NULL, which read_value checks.
        if let Some(value) = unsafe { read_value(param) } {
            out.push(Param { key, value });
        }
        // SAFETY: this element was not the terminator, so the next exists.
        p = unsafe { p.add(1) };
    }
    out
}

/// # Safety
/// `param.data` is NULL or valid for `param.data_size` bytes of its type.
unsafe fn read_value(param: &OsslParam) -> Option<Value> {
    if param.data.is_null() {
        return None;
    }
    let bytes = |ptr: *const u8, len: usize| -> &[u8] {
        // SAFETY: ptr is non-NULL (checked by the callers below) and valid
        // for len bytes by the OSSL_PARAM contract.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    };
    match param.data_type {
        // A native signed integer of 1 to 8 bytes: OpenSSL makes them of
        // any size, such as the one byte of `-pkeyopt saltlen:32` read by
        // OSSL_PARAM_allocate_from_text.
        INTEGER if (1..=8).contains(&param.data_size) => {
            let mut le = [0u8; 8];
            le[..param.data_size].copy_from_slice(bytes(param.data as *const u8, param.data_size));
            if le[param.data_size - 1] & 0x80 != 0 {
                le[param.data_size..].fill(0xff);
            }
            Some(Value::Int(i64::from_le_bytes(le)))
        }
        UNSIGNED_INTEGER => {
            // Native (little-endian) unsigned integer of data_size bytes:
            // read straight into a wiped big-endian buffer.
            let le = bytes(param.data as *const u8, param.data_size);
            let mut be = Zeroizing::new(vec![0u8; le.len()]);
            for (dst, src) in be.iter_mut().zip(le.iter().rev()) {
                *dst = *src;
            }
            Some(Value::Big(be))
        }
        UTF8_STRING => {
            let s = bytes(param.data as *const u8, param.data_size);
            let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
            Some(Value::Utf8(String::from_utf8_lossy(&s[..end]).into_owned()))
        }
        UTF8_PTR => {
            // SAFETY: data points at a `const char *`.
            let s = unsafe { *(param.data as *const *const c_char) };
            if s.is_null() {
                return None;
            }
            // SAFETY: a UTF8_PTR's target is a NUL-terminated string.
            Some(Value::Utf8(
                unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned(),
            ))
        }
        OCTET_STRING => Some(Value::Octet(
            bytes(param.data as *const u8, param.data_size).to_vec(),
        )),
        OCTET_PTR => {
            // SAFETY: data points at a `const void *` to data_size bytes.
            let s = unsafe { *(param.data as *const *const u8) };
            if s.is_null() {
                return None;
            }
            Some(Value::Octet(bytes(s, param.data_size).to_vec()))
        }
        _ => None,
    }
}

/// Fill each parameter of a caller's array that `get` knows; false if one
/// could not be written (wrong type or too small a buffer).
///
/// # Safety
/// `p` is NULL or a valid, writable `OSSL_PARAM` array ending with a NULL key.
unsafe fn write_params(p: *mut OsslParam, get: impl Fn(&str) -> Option<Value>) -> bool {
    // SAFETY: forwarded under the same contract.
    unsafe { write_params_with_ptrs(p, get, |_| None) }
}

/// [`write_params`], also answering `OSSL_PARAM_OCTET_PTR` requests with
/// `borrowed`: a pointer into bytes the caller's object owns (OpenSSL's
/// "get0" contract: valid until that object changes or is freed).
///
/// # Safety
/// As [`write_params`]; the slices `borrowed` returns live as long as the
/// context they come from is neither changed nor freed.
unsafe fn write_params_with_ptrs<'a>(
    mut p: *mut OsslParam,
    get: impl Fn(&str) -> Option<Value>,
    borrowed: impl Fn(&str) -> Option<&'a [u8]>,
) -> bool {
    if p.is_null() {
        return true;
    }
    let mut all = true;
    loop {
        // SAFETY: as in read_params; the array is the caller's to fill.
        let param = unsafe { &mut *p };
        if param.key.is_null() {
            break;
        }
        // SAFETY: a non-NULL key is a NUL-terminated C string.
        let key = unsafe { CStr::from_ptr(param.key) }.to_string_lossy();
        if param.data_type == OCTET_PTR
            && let Some(b) = borrowed(&key)
        {
            param.return_size = b.len();
            if !param.data.is_null() {
                let ptr = if b.is_empty() { null() } else { b.as_ptr() };
                // SAFETY: an OCTET_PTR's data is a writable `const void *`
                // slot; the bytes outlive this call (see the contract).
                unsafe { *(param.data as *mut *const u8) = ptr };
            }
        } else if let Some(v) = get(&key) {
            // SAFETY: data is NULL or writable for data_size bytes.
            all &= unsafe { write_value(param, &v) };
        }
        // SAFETY: not the terminator, so the next element exists.
        p = unsafe { p.add(1) };
    }
    all
}

/// # Safety
/// `param.data` is NULL or writable for `param.data_size` bytes.
unsafe fn write_value(param: &mut OsslParam, v: &Value) -> bool {
    let copy = |param: &mut OsslParam, src: &[u8], nul: bool| -> bool {
        param.return_size = src.len();
        if param.data.is_null() {
            return true;
        }
        if param.data_size < src.len() {
            return false;
        }
        // SAFETY: data is writable for data_size >= src.len() bytes and
        // does not overlap our own buffer.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), param.data as *mut u8, src.len()) };
        if nul && src.len() < param.data_size {
            // SAFETY: src.len() < data_size, inside the buffer.
            unsafe { *(param.data as *mut u8).add(src.len()) = 0 };
        }
        true
    };
    match (v, param.data_type) {
        (Value::Int(n) | Value::Named(n, _), INTEGER | UNSIGNED_INTEGER) => {
            let n = *n;
            if param.data_type == UNSIGNED_INTEGER && n < 0 {
                return false;
            }
            let size = param.data_size;
            if param.data.is_null() {
                param.return_size = 8;
                return true;
            }
            match size {
                4 if i32::try_from(n).is_ok()
                    || (param.data_type == UNSIGNED_INTEGER && u32::try_from(n).is_ok()) =>
                {
                    // SAFETY: data is writable for 4 bytes.
                    unsafe { (param.data as *mut u32).write_unaligned(n as u32) };
                }
                // SAFETY: data is writable for 8 bytes.
                8 => unsafe { (param.data as *mut i64).write_unaligned(n) },
                _ => return false,
            }
            param.return_size = size;
            true
        }
        (Value::Named(_, s) | Value::Utf8(s), UTF8_STRING) => copy(param, s.as_bytes(), true),
        (Value::Int(n), UTF8_STRING) => copy(param, n.to_string().as_bytes(), true),
        (Value::Octet(o), OCTET_STRING) => copy(param, o, false),
        (Value::Big(be), UNSIGNED_INTEGER) => {
            let first = be.iter().position(|&b| b != 0).unwrap_or(be.len());
            let be = &be[first..];
            param.return_size = be.len().max(1);
            if param.data.is_null() {
                return true;
            }
            if param.data_size < be.len() {
                return false;
            }
            // SAFETY: data is writable for data_size bytes.
            let out = unsafe { std::slice::from_raw_parts_mut(param.data as *mut u8, param.data_size) };
            out.fill(0);
            for (dst, src) in out.iter_mut().zip(be.iter().rev()) {
                *dst = *src;
            }
            param.return_size = param.data_size;
            true
        }
        _ => false,
    }
}

/// The static C name of a key number.
fn number_name(name: &str) -> &'static CStr {
    match name {
        "n" => c"n",
        "e" => c"e",
        "d" => c"d",
        "rsa-factor1" => c"rsa-factor1",
        "rsa-factor2" => c"rsa-factor2",
        "rsa-exponent1" => c"rsa-exponent1",
        "rsa-exponent2" => c"rsa-exponent2",
        _ => c"rsa-coefficient1",
    }
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

// ---------------------------------------------------------------- provider

struct ProvCtx;

static PROV_GETTABLE: Table<[OsslParam; 5]> = Table([
    desc(c"name", UTF8_PTR),
    desc(c"version", UTF8_PTR),
    desc(c"buildinfo", UTF8_PTR),
    desc(c"status", INTEGER),
    PARAM_END,
]);

const VERSION: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
    Ok(v) => v,
    Err(_) => c"0",
};

unsafe extern "C" fn prov_gettable_params(_prov: *mut c_void) -> *const OsslParam {
    PROV_GETTABLE.0.as_ptr()
}

unsafe extern "C" fn prov_get_params(_prov: *mut c_void, mut p: *mut OsslParam) -> c_int {
    guard(0, || {
        if p.is_null() {
            return 1;
        }
        loop {
            // SAFETY: the core passes a valid array ending with a NULL key.
            let param = unsafe { &mut *p };
            if param.key.is_null() {
                return 1;
            }
            // SAFETY: a non-NULL key is a C string.
            let key = unsafe { CStr::from_ptr(param.key) }.to_bytes();
            let text: Option<&'static CStr> = match key {
                b"name" => Some(c"redc"),
                b"version" => Some(VERSION),
                b"buildinfo" => Some(VERSION),
                _ => None,
            };
            if let Some(t) = text {
                if param.data_type == UTF8_PTR && !param.data.is_null() {
                    // SAFETY: a UTF8_PTR's data is a writable `const char *`
                    // slot; our string is static.
                    unsafe { *(param.data as *mut *const c_char) = t.as_ptr() };
                    param.return_size = t.to_bytes().len();
                } else {
                    // SAFETY: data is NULL or writable for data_size bytes.
                    unsafe { write_value(param, &Value::Utf8(t.to_string_lossy().into_owned())) };
                }
            } else if key == b"status" {
                // SAFETY: as above.
                unsafe { write_value(param, &Value::Int(1)) };
            }
            // SAFETY: not the terminator.
            p = unsafe { p.add(1) };
        }
    })
}

unsafe extern "C" fn prov_teardown(prov: *mut c_void) {
    // SAFETY: prov is the context OSSL_provider_init made.
    guard((), || unsafe { free::<ProvCtx>(prov) })
}

unsafe extern "C" fn prov_query(_prov: *mut c_void, op: c_int, no_cache: *mut c_int) -> *const Algorithm {
    guard(null(), || {
        if !no_cache.is_null() {
            // SAFETY: no_cache is the core's writable int.
            unsafe { *no_cache = 0 };
        }
        match op {
            10 => KEYMGMT_ALGS.0.as_ptr(),
            12 => SIGNATURE_ALGS.0.as_ptr(),
            13 => CIPHER_ALGS.0.as_ptr(),
            _ => null(),
        }
    })
}

static PROVIDER: [Dispatch; 5] = [
    entry!(1024, prov_teardown),
    entry!(1025, prov_gettable_params),
    entry!(1026, prov_get_params),
    entry!(1027, prov_query),
    END,
];

/// `OSSL_FUNC_core_new_error`.
type CoreNewError = unsafe extern "C" fn(*const c_void);
/// `OSSL_FUNC_core_set_error_debug`.
type CoreSetErrorDebug = unsafe extern "C" fn(*const c_void, *const c_char, c_int, *const c_char);
/// `OSSL_FUNC_core_vset_error`, its `va_list` as the pointer the x86-64
/// and AArch64 Linux ABIs pass one as (x86-64: `va_list` is an array that
/// decays to a pointer; AArch64: a 32-byte structure, passed by reference).
type CoreVsetError = unsafe extern "C" fn(*const c_void, u32, *const c_char, *mut c_void);

/// `PROV_R_INVALID_CONFIG_DATA`: "invalid config data", the reason shown
/// before the message of a refused setting.
const INVALID_CONFIG_DATA: u32 = 211;

/// This file's name, for the error queue's debug fields.
const SOURCE_FILE: &CStr = match CStr::from_bytes_with_nul(concat!(file!(), "\0").as_bytes()) {
    Ok(f) => f,
    Err(_) => c"ffi.rs",
};

/// The core's error functions and the handle to pass them.
#[derive(Clone, Copy)]
struct CoreErrors {
    new_error: CoreNewError,
    set_debug: CoreSetErrorDebug,
    vset_error: CoreVsetError,
    /// The `OSSL_CORE_HANDLE` of the first load, as an address: passed
    /// back only, and with a reason that names its library
    /// (`ERR_LIB_PROV`) the core does not read it (`core_vset_error`).
    handle: usize,
}

/// The core's error functions, kept from the first `OSSL_provider_init`.
static CORE_ERRORS: std::sync::OnceLock<Option<CoreErrors>> = std::sync::OnceLock::new();

/// `ERR_PACK(ERR_LIB_PROV, 0, reason)`.
const fn prov_reason(reason: u32) -> u32 {
    (57 << 23) | reason
}

/// Put `reason` (a `PROV_R_*` code) and `message`, if any, in OpenSSL's
/// error queue, when the core gave its error functions.
pub(crate) fn raise_reason(reason: u32, message: Option<&str>) {
    let Some(Some(core)) = CORE_ERRORS.get() else {
        return;
    };
    if !cfg!(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )) {
        return;
    }
    // The message is the format itself, with every '%' doubled so that it
    // holds no conversion: the formatter then never reads the argument
    // list, and an empty one (zeroed, of a va_list's size) is passed.
    let format = match message.map(|m| std::ffi::CString::new(m.replace('%', "%%"))) {
        Some(Ok(f)) => Some(f),
        Some(Err(_)) => return,
        None => None,
    };
    let mut no_args = [0u64; 4];
    let handle = core.handle as *const c_void;
    // SAFETY: the functions are the core's (see `core_errors`), called with
    // the handle it gave, NUL-terminated strings that outlive the calls,
    // and an argument list that a NULL or conversion-free format never
    // reads.
    unsafe {
        (core.new_error)(handle);
        (core.set_debug)(handle, SOURCE_FILE.as_ptr(), line!() as c_int, null());
        (core.vset_error)(
            handle,
            prov_reason(reason),
            format.as_ref().map_or(null(), |f| f.as_ptr()),
            no_args.as_mut_ptr().cast(),
        );
    }
}

/// Find the core's error functions in its dispatch table.
///
/// # Safety
/// `handle` and `input` are what the core passed to `OSSL_provider_init`.
unsafe fn core_errors(handle: *const c_void, input: *const Dispatch) -> Option<CoreErrors> {
    let (mut new_error, mut set_debug, mut vset_error) = (None, None, None);
    let mut p = input;
    while !p.is_null() {
        // SAFETY: the core's table ends with an entry of id 0; we stop there.
        let entry = unsafe { &*p };
        match (entry.id, entry.f) {
            (0, _) => break,
            // SAFETY: ids 5, 6 and 7 are core_new_error, core_set_error_debug
            // and core_vset_error, with the signatures of the types above
            // (core_dispatch.h).
            (5, Some(f)) => new_error = Some(unsafe { core::mem::transmute::<Fp, CoreNewError>(f) }),
            // SAFETY: as above.
            (6, Some(f)) => set_debug = Some(unsafe { core::mem::transmute::<Fp, CoreSetErrorDebug>(f) }),
            // SAFETY: as above.
            (7, Some(f)) => vset_error = Some(unsafe { core::mem::transmute::<Fp, CoreVsetError>(f) }),
            _ => {}
        }
        // SAFETY: not the terminator, so the next entry exists.
        p = unsafe { p.add(1) };
    }
    Some(CoreErrors {
        new_error: new_error?,
        set_debug: set_debug?,
        vset_error: vset_error?,
        handle: handle as usize,
    })
}

/// The provider's entry point, found by OpenSSL with `dlsym`.
///
/// It refuses to load (returns 0) when a `REDC_*` setting of the
/// environment holds a value redc does not know
/// ([`crate::setting_errors`]), with each reason in OpenSSL's error queue:
/// running with a setting silently ignored would run
/// something other than what was asked for.
///
/// # Safety
/// Called by OpenSSL's core with its handle, its dispatch table and
/// writable `out` and `provctx` slots.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn OSSL_provider_init(
    handle: *const c_void,
    input: *const Dispatch,
    out: *mut *const Dispatch,
    provctx: *mut *mut c_void,
) -> c_int {
    guard(0, || {
        if out.is_null() || provctx.is_null() {
            return 0;
        }
        // SAFETY: handle and input are the core's, as passed to us.
        CORE_ERRORS.get_or_init(|| unsafe { core_errors(handle, input) });
        let errors = crate::setting_errors();
        if !errors.is_empty() {
            for e in &errors {
                raise_reason(INVALID_CONFIG_DATA, Some(e));
            }
            return 0;
        }
        // SAFETY: both slots are the core's, writable.
        unsafe {
            *out = PROVIDER.as_ptr();
            *provctx = boxed(ProvCtx);
        }
        1
    })
}

const RSA_NAMES: &CStr = c"RSA:rsaEncryption:1.2.840.113549.1.1.1";
const RSA_PSS_NAMES: &CStr = c"RSA-PSS:RSASSA-PSS:1.2.840.113549.1.1.10";
const PROPS: &CStr = c"provider=redc";

static KEYMGMT_ALGS: Table<[Algorithm; 3]> = Table([
    Algorithm {
        names: RSA_NAMES.as_ptr(),
        props: PROPS.as_ptr(),
        imp: KEYMGMT.as_ptr(),
        desc: c"redc RSA key management".as_ptr(),
    },
    Algorithm {
        names: RSA_PSS_NAMES.as_ptr(),
        props: PROPS.as_ptr(),
        imp: KEYMGMT_PSS.as_ptr(),
        desc: c"redc RSA-PSS key management".as_ptr(),
    },
    Algorithm {
        names: null(),
        props: null(),
        imp: null(),
        desc: null(),
    },
]);
static SIGNATURE_ALGS: Table<[Algorithm; 2]> = Table([
    Algorithm {
        names: RSA_NAMES.as_ptr(),
        props: PROPS.as_ptr(),
        imp: SIGNATURE.as_ptr(),
        desc: c"redc RSA signatures (PKCS#1 v1.5, PSS)".as_ptr(),
    },
    Algorithm {
        names: null(),
        props: null(),
        imp: null(),
        desc: null(),
    },
]);
static CIPHER_ALGS: Table<[Algorithm; 2]> = Table([
    Algorithm {
        names: RSA_NAMES.as_ptr(),
        props: PROPS.as_ptr(),
        imp: CIPHER.as_ptr(),
        desc: c"redc RSA encryption (OAEP, PKCS#1 v1.5)".as_ptr(),
    },
    Algorithm {
        names: null(),
        props: null(),
        imp: null(),
        desc: null(),
    },
]);

// ---------------------------------------------------------------- keymgmt

/// A parameter list of `parts` in order, ended by `PARAM_END`. `N` is their
/// total length plus one: a wrong `N` fails the build (the assertion runs
/// when the static is evaluated).
const fn param_list<const N: usize>(parts: &[&[OsslParam]]) -> [OsslParam; N] {
    let mut out = [PARAM_END; N];
    let (mut i, mut p) = (0, 0);
    while p < parts.len() {
        let mut k = 0;
        while k < parts[p].len() {
            out[i] = parts[p][k];
            i += 1;
            k += 1;
        }
        p += 1;
    }
    assert!(i + 1 == N, "N must be the parts' length plus the terminator");
    out
}

/// The numbers of an RSA key, in OpenSSL's order.
const NUMBER_PARAMS: [OsslParam; 8] = [
    desc(c"n", UNSIGNED_INTEGER),
    desc(c"e", UNSIGNED_INTEGER),
    desc(c"d", UNSIGNED_INTEGER),
    desc(c"rsa-factor1", UNSIGNED_INTEGER),
    desc(c"rsa-factor2", UNSIGNED_INTEGER),
    desc(c"rsa-exponent1", UNSIGNED_INTEGER),
    desc(c"rsa-exponent2", UNSIGNED_INTEGER),
    desc(c"rsa-coefficient1", UNSIGNED_INTEGER),
];

/// An RSA-PSS key's restriction (`crate::pss`), as OpenSSL exports it.
const RESTRICTION_PARAMS: [OsslParam; 3] = [
    desc(c"digest", UTF8_STRING),
    desc(c"mgf1-digest", UTF8_STRING),
    desc(c"saltlen", INTEGER),
];

/// A key's sizes (`get_params`).
const SIZE_PARAMS: [OsslParam; 3] = [
    desc(c"bits", INTEGER),
    desc(c"security-bits", INTEGER),
    desc(c"max-size", INTEGER),
];

/// Key generation's settings common to RSA and RSA-PSS.
const GEN_PARAMS: [OsslParam; 3] = [
    desc(c"bits", UNSIGNED_INTEGER),
    desc(c"primes", UNSIGNED_INTEGER),
    desc(c"e", UNSIGNED_INTEGER),
];

static KEY_NUMBERS: Table<[OsslParam; 9]> = Table(param_list(&[&NUMBER_PARAMS]));

/// An RSA-PSS key's numbers and restriction; "mgf" (only "MGF1") is read on import.
static KEY_NUMBERS_PSS: Table<[OsslParam; 13]> = Table(param_list(&[
    &NUMBER_PARAMS,
    &RESTRICTION_PARAMS,
    &[desc(c"mgf", UTF8_STRING)],
]));

static KEY_GETTABLE: Table<[OsslParam; 13]> = Table(param_list(&[
    &SIZE_PARAMS,
    &[desc(c"default-digest", UTF8_STRING)],
    &NUMBER_PARAMS,
]));

static KEY_GETTABLE_PSS: Table<[OsslParam; 17]> = Table(param_list(&[
    &SIZE_PARAMS,
    &[
        desc(c"default-digest", UTF8_STRING),
        desc(c"mandatory-digest", UTF8_STRING),
    ],
    &NUMBER_PARAMS,
    &RESTRICTION_PARAMS,
]));

static GEN_SETTABLE: Table<[OsslParam; 4]> = Table(param_list(&[&GEN_PARAMS]));

static GEN_SETTABLE_PSS: Table<[OsslParam; 8]> = Table(param_list(&[
    &GEN_PARAMS,
    &RESTRICTION_PARAMS,
    &[desc(c"digest-props", UTF8_STRING)],
]));

// Key objects cross threads (see `key_obj`): the compiler checks they may.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<KeyObj>()
};

unsafe extern "C" fn km_new(_prov: *mut c_void) -> *mut c_void {
    guard(null_mut(), || boxed(KeyObj::new(KeyType::Rsa)))
}

unsafe extern "C" fn km_new_pss(_prov: *mut c_void) -> *mut c_void {
    guard(null_mut(), || boxed(KeyObj::new(KeyType::Pss(None))))
}

unsafe extern "C" fn km_free(kd: *mut c_void) {
    // SAFETY: kd is a key object this module made, freed once by OpenSSL.
    guard((), || unsafe { free::<KeyObj>(kd) })
}

unsafe extern "C" fn km_has(kd: *const c_void, selection: c_int) -> c_int {
    guard(0, || {
        // SAFETY: kd is NULL or a live key object (read only here).
        match unsafe { key_obj(kd) } {
            Some(k) => ok(keys::has(k, selection)),
            None => 0,
        }
    })
}

unsafe extern "C" fn km_match(a: *const c_void, b: *const c_void, selection: c_int) -> c_int {
    guard(0, || {
        // SAFETY: a and b are NULL or live key objects (read only here).
        let (a, b) = unsafe { (key_obj(a), key_obj(b)) };
        match (a, b) {
            (Some(a), Some(b)) => ok(keys::matches(a, b, selection)),
            _ => 0,
        }
    })
}

unsafe extern "C" fn km_validate(kd: *const c_void, selection: c_int, _check: c_int) -> c_int {
    // Keys are checked completely when they are imported or generated.
    // SAFETY: forwarded under the same contract.
    unsafe { km_has(kd, selection) }
}

unsafe extern "C" fn km_import(kd: *mut c_void, selection: c_int, params: *const OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: kd is a live key object being built by this one caller;
        // params is the caller's array.
        let (k, params) = unsafe { (obj::<KeyObj>(kd), read_params(params)) };
        match k {
            Some(k) => ok(keys::import(k, selection, &params)),
            None => 0,
        }
    })
}

unsafe extern "C" fn km_types(_selection: c_int) -> *const OsslParam {
    KEY_NUMBERS.0.as_ptr()
}

unsafe extern "C" fn km_types_pss(_selection: c_int) -> *const OsslParam {
    KEY_NUMBERS_PSS.0.as_ptr()
}

unsafe extern "C" fn km_export(kd: *mut c_void, selection: c_int, cb: Callback, arg: *mut c_void) -> c_int {
    guard(0, || {
        // SAFETY: kd is a live key object (read only here).
        let Some(obj) = (unsafe { key_obj(kd) }) else {
            return 0;
        };
        let Some(key) = obj.key.clone() else { return 0 };
        let Some(cb) = cb else { return 0 };
        let numbers = keys::export(&key, selection);
        // Little-endian copies, wiped when this function returns.
        let le: Vec<Zeroizing<Vec<u8>>> = numbers
            .iter()
            .map(|(_, be)| {
                let mut v = Zeroizing::new(be.to_vec());
                v.reverse();
                if v.is_empty() {
                    v.push(0);
                }
                v
            })
            .collect();
        let mut params: Vec<OsslParam> = numbers
            .iter()
            .zip(le.iter())
            .map(|((name, _), v)| OsslParam {
                key: number_name(name).as_ptr(),
                data_type: UNSIGNED_INTEGER,
                data: v.as_ptr() as *mut c_void,
                data_size: v.len(),
                return_size: UNMODIFIED,
            })
            .collect();
        // An RSA-PSS key's restriction: names as NUL-terminated strings
        // (data_size without the NUL, as OSSL_PARAM_construct_utf8_string
        // makes them), the salt length as a C int.
        let other = keys::export_other(obj, selection);
        let mut texts: Vec<std::ffi::CString> = Vec::new();
        let mut ints: Vec<Box<c_int>> = Vec::new();
        for (name, value) in &other {
            let key = match *name {
                "digest" => c"digest",
                "mgf1-digest" => c"mgf1-digest",
                "saltlen" => c"saltlen",
                _ => return 0,
            };
            let (data_type, data, data_size) = match value {
                Value::Utf8(text) => {
                    let Ok(c) = std::ffi::CString::new(text.as_str()) else {
                        return 0;
                    };
                    let len = text.len();
                    texts.push(c);
                    let last = texts.last().map_or(null(), |c| c.as_ptr());
                    (UTF8_STRING, last as *mut c_void, len)
                }
                Value::Int(n) => {
                    let Ok(n) = c_int::try_from(*n) else { return 0 };
                    ints.push(Box::new(n));
                    let last = ints.last().map_or(null(), |b| &**b as *const c_int);
                    (INTEGER, last as *mut c_void, size_of::<c_int>())
                }
                _ => return 0,
            };
            params.push(OsslParam {
                key: key.as_ptr(),
                data_type,
                data,
                data_size,
                return_size: UNMODIFIED,
            });
        }
        params.push(PARAM_END);
        // SAFETY: the array and the buffers it points to (le, texts, ints:
        // heap buffers that do not move when their vectors grow) live until
        // after the call; the callback only reads them (OSSL_CALLBACK
        // contract).
        unsafe { cb(params.as_ptr(), arg) }
    })
}

unsafe extern "C" fn km_get_params(kd: *mut c_void, params: *mut OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: kd is a live key object (read only here).
        let Some(obj) = (unsafe { key_obj(kd) }) else {
            return 0;
        };
        if obj.key.is_none() {
            return 0;
        }
        // SAFETY: params is the caller's writable array.
        ok(unsafe { write_params(params, |name| keys::get_param(obj, name)) })
    })
}

unsafe extern "C" fn km_gettable_params(_prov: *mut c_void) -> *const OsslParam {
    KEY_GETTABLE.0.as_ptr()
}

unsafe extern "C" fn km_gettable_params_pss(_prov: *mut c_void) -> *const OsslParam {
    KEY_GETTABLE_PSS.0.as_ptr()
}

unsafe extern "C" fn km_dup(kd: *const c_void, selection: c_int) -> *mut c_void {
    guard(null_mut(), || {
        // SAFETY: kd is a live key object (read only here).
        match unsafe { key_obj(kd) } {
            Some(k) => boxed(keys::dup(k, selection)),
            None => null_mut(),
        }
    })
}

unsafe extern "C" fn km_query_operation_name(_op: c_int) -> *const c_char {
    c"RSA".as_ptr()
}

/// # Safety
/// `params` is NULL or the caller's array.
unsafe fn gen_init(selection: c_int, params: *const OsslParam, kind: KeyType) -> *mut c_void {
    guard(null_mut(), || {
        let mut g = GenCtx::new(selection, kind);
        // SAFETY: params is the caller's array.
        if !g.set_params(&unsafe { read_params(params) }) {
            return null_mut();
        }
        boxed(g)
    })
}

unsafe extern "C" fn km_gen_init(
    _prov: *mut c_void,
    selection: c_int,
    params: *const OsslParam,
) -> *mut c_void {
    // SAFETY: forwarded unchanged.
    unsafe { gen_init(selection, params, KeyType::Rsa) }
}

unsafe extern "C" fn km_gen_init_pss(
    _prov: *mut c_void,
    selection: c_int,
    params: *const OsslParam,
) -> *mut c_void {
    // SAFETY: forwarded unchanged.
    unsafe { gen_init(selection, params, KeyType::Pss(None)) }
}

unsafe extern "C" fn km_gen_set_params(g: *mut c_void, params: *const OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: g is a live generation context; params the caller's array.
        match unsafe { (obj::<GenCtx>(g), read_params(params)) } {
            (Some(g), p) => ok(g.set_params(&p)),
            _ => 0,
        }
    })
}

unsafe extern "C" fn km_gen_settable_params(_g: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
    GEN_SETTABLE.0.as_ptr()
}

unsafe extern "C" fn km_gen_settable_params_pss(_g: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
    GEN_SETTABLE_PSS.0.as_ptr()
}

unsafe extern "C" fn km_gen(g: *mut c_void, _cb: Callback, _arg: *mut c_void) -> *mut c_void {
    guard(null_mut(), || {
        // SAFETY: g is a live generation context.
        match unsafe { obj::<GenCtx>(g) }.and_then(|g| g.generate()) {
            Some(k) => boxed(k),
            None => null_mut(),
        }
    })
}

unsafe extern "C" fn km_gen_cleanup(g: *mut c_void) {
    // SAFETY: g is a generation context this module made, freed once.
    guard((), || unsafe { free::<GenCtx>(g) })
}

static KEYMGMT: [Dispatch; 21] = [
    entry!(1, km_new),
    entry!(2, km_gen_init),
    entry!(4, km_gen_set_params),
    entry!(5, km_gen_settable_params),
    entry!(6, km_gen),
    entry!(7, km_gen_cleanup),
    entry!(10, km_free),
    entry!(11, km_get_params),
    entry!(12, km_gettable_params),
    entry!(20, km_query_operation_name),
    entry!(21, km_has),
    entry!(22, km_validate),
    entry!(23, km_match),
    entry!(40, km_import),
    entry!(41, km_types),
    entry!(42, km_export),
    entry!(43, km_types),
    entry!(44, km_dup),
    END,
    END,
    END,
];

/// "RSA-PSS": the same entry points but for the key type and the lists of
/// parameters, which add the restriction.
static KEYMGMT_PSS: [Dispatch; 21] = [
    entry!(1, km_new_pss),
    entry!(2, km_gen_init_pss),
    entry!(4, km_gen_set_params),
    entry!(5, km_gen_settable_params_pss),
    entry!(6, km_gen),
    entry!(7, km_gen_cleanup),
    entry!(10, km_free),
    entry!(11, km_get_params),
    entry!(12, km_gettable_params_pss),
    entry!(20, km_query_operation_name),
    entry!(21, km_has),
    entry!(22, km_validate),
    entry!(23, km_match),
    entry!(40, km_import),
    entry!(41, km_types_pss),
    entry!(42, km_export),
    entry!(43, km_types_pss),
    entry!(44, km_dup),
    END,
    END,
    END,
];

/// The key of a provider key pointer, shared, and its type.
///
/// # Safety
/// `kd` is NULL or a live key object of this module.
unsafe fn key_of(kd: *mut c_void) -> Option<(std::sync::Arc<keys::Key>, KeyType)> {
    // SAFETY: per the contract (read only).
    unsafe { key_obj(kd) }.and_then(|k| Some((k.key.clone()?, k.kind)))
}

// -------------------------------------------------------------- signature

static SIG_SETTABLE: Table<[OsslParam; 7]> = Table([
    desc(c"pad-mode", UTF8_STRING),
    desc(c"digest", UTF8_STRING),
    desc(c"properties", UTF8_STRING),
    desc(c"mgf1-digest", UTF8_STRING),
    desc(c"mgf1-properties", UTF8_STRING),
    desc(c"saltlen", UTF8_STRING),
    PARAM_END,
]);

static SIG_GETTABLE: Table<[OsslParam; 6]> = Table([
    desc(c"algorithm-id", OCTET_STRING),
    desc(c"pad-mode", UTF8_STRING),
    desc(c"digest", UTF8_STRING),
    desc(c"mgf1-digest", UTF8_STRING),
    desc(c"saltlen", UTF8_STRING),
    PARAM_END,
]);

unsafe extern "C" fn sig_newctx(_prov: *mut c_void, _propq: *const c_char) -> *mut c_void {
    guard(null_mut(), || boxed(SigCtx::default()))
}

unsafe extern "C" fn sig_freectx(ctx: *mut c_void) {
    // SAFETY: ctx is a signature context of this module, freed once.
    guard((), || unsafe { free::<SigCtx>(ctx) })
}

unsafe extern "C" fn sig_dupctx(ctx: *mut c_void) -> *mut c_void {
    guard(null_mut(), || {
        // SAFETY: ctx is a live signature context.
        match unsafe { obj::<SigCtx>(ctx) } {
            Some(c) => boxed(c.clone()),
            None => null_mut(),
        }
    })
}

/// # Safety
/// `ctx`, `kd` and `params` as OpenSSL passes them to an init function.
unsafe fn sig_init_common(
    ctx: *mut c_void,
    kd: *mut c_void,
    op: Op,
    md: Option<*const c_char>,
    params: *const OsslParam,
) -> c_int {
    guard(0, || {
        // SAFETY: ctx is a live context; kd a live key or NULL; params the
        // caller's array; md NULL or a C string.
        let (c, key, params) = unsafe { (obj::<SigCtx>(ctx), key_of(kd), read_params(params)) };
        let Some(c) = c else { return 0 };
        match md {
            None => ok(c.init(key, op, &params)),
            Some(md) => {
                let name = (!md.is_null())
                    // SAFETY: a non-NULL digest name is a C string.
                    .then(|| unsafe { CStr::from_ptr(md) }.to_string_lossy().into_owned());
                ok(c.digest_init(key, op, name.as_deref(), &params))
            }
        }
    })
}

unsafe extern "C" fn sig_sign_init(ctx: *mut c_void, kd: *mut c_void, params: *const OsslParam) -> c_int {
    // SAFETY: forwarded unchanged.
    unsafe { sig_init_common(ctx, kd, Op::Sign, None, params) }
}

unsafe extern "C" fn sig_verify_init(ctx: *mut c_void, kd: *mut c_void, params: *const OsslParam) -> c_int {
    // SAFETY: forwarded unchanged.
    unsafe { sig_init_common(ctx, kd, Op::Verify, None, params) }
}

unsafe extern "C" fn sig_verify_recover_init(
    ctx: *mut c_void,
    kd: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    // SAFETY: forwarded unchanged.
    unsafe { sig_init_common(ctx, kd, Op::VerifyRecover, None, params) }
}

unsafe extern "C" fn sig_verify_recover(
    ctx: *mut c_void,
    out: *mut u8,
    outlen: *mut usize,
    outsize: usize,
    sig: *const u8,
    siglen: usize,
) -> c_int {
    guard(0, || {
        // SAFETY: ctx is a live context; sig valid for siglen bytes.
        let (c, sig) = unsafe { (obj::<SigCtx>(ctx), slice(sig, siglen)) };
        let Some(c) = c else { return 0 };
        if out.is_null() {
            return match (c.sig_len(), outlen.is_null()) {
                // SAFETY: outlen is writable.
                (Some(k), false) => unsafe {
                    *outlen = k;
                    1
                },
                _ => 0,
            };
        }
        match c.verify_recover(sig) {
            // SAFETY: out is writable for outsize bytes, outlen writable.
            Some(data) => ok(unsafe { emit(out, outlen, outsize, &data) }),
            None => 0,
        }
    })
}

unsafe extern "C" fn sig_digest_sign_init(
    ctx: *mut c_void,
    md: *const c_char,
    kd: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    // SAFETY: forwarded unchanged.
    unsafe { sig_init_common(ctx, kd, Op::Sign, Some(md), params) }
}

unsafe extern "C" fn sig_digest_verify_init(
    ctx: *mut c_void,
    md: *const c_char,
    kd: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    // SAFETY: forwarded unchanged.
    unsafe { sig_init_common(ctx, kd, Op::Verify, Some(md), params) }
}

unsafe extern "C" fn sig_sign(
    ctx: *mut c_void,
    sig: *mut u8,
    siglen: *mut usize,
    sigsize: usize,
    tbs: *const u8,
    tbslen: usize,
) -> c_int {
    guard(0, || {
        // SAFETY: ctx is a live context; tbs valid for tbslen bytes.
        let (c, tbs) = unsafe { (obj::<SigCtx>(ctx), slice(tbs, tbslen)) };
        let Some(c) = c else { return 0 };
        if sig.is_null() {
            return match (c.sig_len(), siglen.is_null()) {
                // SAFETY: siglen is writable.
                (Some(k), false) => unsafe {
                    *siglen = k;
                    1
                },
                _ => 0,
            };
        }
        match c.sign(tbs) {
            // SAFETY: sig is writable for sigsize bytes, siglen writable.
            Some(s) => ok(unsafe { emit(sig, siglen, sigsize, &s) }),
            None => 0,
        }
    })
}

unsafe extern "C" fn sig_verify(
    ctx: *mut c_void,
    sig: *const u8,
    siglen: usize,
    tbs: *const u8,
    tbslen: usize,
) -> c_int {
    guard(0, || {
        // SAFETY: ctx is a live context; sig and tbs valid for their lengths.
        let (c, sig, tbs) = unsafe { (obj::<SigCtx>(ctx), slice(sig, siglen), slice(tbs, tbslen)) };
        c.is_some_and(|c| c.verify(sig, tbs)).into()
    })
}

unsafe extern "C" fn sig_digest_update(ctx: *mut c_void, data: *const u8, len: usize) -> c_int {
    guard(0, || {
        // SAFETY: ctx is a live context; data valid for len bytes.
        let (c, data) = unsafe { (obj::<SigCtx>(ctx), slice(data, len)) };
        c.is_some_and(|c| c.update(data)).into()
    })
}

unsafe extern "C" fn sig_digest_sign_final(
    ctx: *mut c_void,
    sig: *mut u8,
    siglen: *mut usize,
    sigsize: usize,
) -> c_int {
    guard(0, || {
        // SAFETY: ctx is a live context.
        let Some(c) = (unsafe { obj::<SigCtx>(ctx) }) else {
            return 0;
        };
        if sig.is_null() {
            return match (c.sig_len(), siglen.is_null()) {
                // SAFETY: siglen is writable.
                (Some(k), false) => unsafe {
                    *siglen = k;
                    1
                },
                _ => 0,
            };
        }
        match c.digest_sign_final() {
            // SAFETY: sig is writable for sigsize bytes, siglen writable.
            Some(s) => ok(unsafe { emit(sig, siglen, sigsize, &s) }),
            None => 0,
        }
    })
}

unsafe extern "C" fn sig_digest_verify_final(ctx: *mut c_void, sig: *const u8, siglen: usize) -> c_int {
    guard(0, || {
        // SAFETY: ctx is a live context; sig valid for siglen bytes.
        let (c, sig) = unsafe { (obj::<SigCtx>(ctx), slice(sig, siglen)) };
        c.is_some_and(|c| c.digest_verify_final(sig)).into()
    })
}

unsafe extern "C" fn sig_get_ctx_params(ctx: *mut c_void, params: *mut OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: ctx is a live context; params the caller's writable array.
        match unsafe { obj::<SigCtx>(ctx) } {
            Some(c) => ok(unsafe { write_params(params, |name| c.get_param(name)) }),
            None => 0,
        }
    })
}

unsafe extern "C" fn sig_set_ctx_params(ctx: *mut c_void, params: *const OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: ctx is a live context; params the caller's array.
        match unsafe { (obj::<SigCtx>(ctx), read_params(params)) } {
            (Some(c), p) => ok(c.set_params(&p)),
            _ => 0,
        }
    })
}

unsafe extern "C" fn sig_gettable(_ctx: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
    SIG_GETTABLE.0.as_ptr()
}

unsafe extern "C" fn sig_settable(_ctx: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
    SIG_SETTABLE.0.as_ptr()
}

static SIGNATURE: [Dispatch; 20] = [
    entry!(1, sig_newctx),
    entry!(2, sig_sign_init),
    entry!(3, sig_sign),
    entry!(4, sig_verify_init),
    entry!(5, sig_verify),
    entry!(6, sig_verify_recover_init),
    entry!(7, sig_verify_recover),
    entry!(8, sig_digest_sign_init),
    entry!(9, sig_digest_update),
    entry!(10, sig_digest_sign_final),
    entry!(12, sig_digest_verify_init),
    entry!(13, sig_digest_update),
    entry!(14, sig_digest_verify_final),
    entry!(16, sig_freectx),
    entry!(17, sig_dupctx),
    entry!(18, sig_get_ctx_params),
    entry!(19, sig_gettable),
    entry!(20, sig_set_ctx_params),
    entry!(21, sig_settable),
    END,
];

// ---------------------------------------------------- asymmetric cipher

static AC_SETTABLE: Table<[OsslParam; 10]> = Table([
    desc(c"pad-mode", UTF8_STRING),
    desc(c"digest", UTF8_STRING),
    desc(c"digest-props", UTF8_STRING),
    desc(c"mgf1-digest", UTF8_STRING),
    desc(c"mgf1-properties", UTF8_STRING),
    desc(c"oaep-label", OCTET_STRING),
    desc(c"tls-client-version", UNSIGNED_INTEGER),
    desc(c"tls-negotiated-version", UNSIGNED_INTEGER),
    // Read by `CipherCtx::set_params`; OpenSSL 3.2 and later set it through
    // `EVP_PKEY_CTX_ctrl_str(ctx, "rsa_pkcs1_implicit_rejection", ...)`,
    // which looks it up here first.
    desc(c"implicit-rejection", UNSIGNED_INTEGER),
    PARAM_END,
]);

static AC_GETTABLE: Table<[OsslParam; 5]> = Table([
    desc(c"pad-mode", UTF8_STRING),
    desc(c"digest", UTF8_STRING),
    desc(c"mgf1-digest", UTF8_STRING),
    // A pointer, as the default provider answers (EVP_PKEY_CTX_get0_rsa_oaep_label).
    desc(c"oaep-label", OCTET_PTR),
    PARAM_END,
]);

unsafe extern "C" fn ac_newctx(_prov: *mut c_void) -> *mut c_void {
    guard(null_mut(), || boxed(CipherCtx::default()))
}

unsafe extern "C" fn ac_freectx(ctx: *mut c_void) {
    // SAFETY: ctx is a cipher context of this module, freed once.
    guard((), || unsafe { free::<CipherCtx>(ctx) })
}

unsafe extern "C" fn ac_dupctx(ctx: *mut c_void) -> *mut c_void {
    guard(null_mut(), || {
        // SAFETY: ctx is a live cipher context.
        match unsafe { obj::<CipherCtx>(ctx) } {
            Some(c) => boxed(c.clone()),
            None => null_mut(),
        }
    })
}

/// # Safety
/// As OpenSSL passes the arguments to an init function.
unsafe fn ac_init(ctx: *mut c_void, kd: *mut c_void, decrypt: bool, params: *const OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: ctx live; kd a live key or NULL; params the caller's array.
        let (c, key, params) = unsafe { (obj::<CipherCtx>(ctx), key_of(kd), read_params(params)) };
        // RSA-PSS keys sign only (OpenSSL's RSA cipher refuses them too).
        if key.as_ref().is_some_and(|(_, kind)| *kind != KeyType::Rsa) {
            crate::raise(crate::Reason::OperationNotSupportedForThisKeytype);
            return 0;
        }
        c.is_some_and(|c| c.init(key.map(|(k, _)| k), decrypt, &params))
            .into()
    })
}

unsafe extern "C" fn ac_encrypt_init(ctx: *mut c_void, kd: *mut c_void, params: *const OsslParam) -> c_int {
    // SAFETY: forwarded unchanged.
    unsafe { ac_init(ctx, kd, false, params) }
}

unsafe extern "C" fn ac_decrypt_init(ctx: *mut c_void, kd: *mut c_void, params: *const OsslParam) -> c_int {
    // SAFETY: forwarded unchanged.
    unsafe { ac_init(ctx, kd, true, params) }
}

/// # Safety
/// As OpenSSL passes the arguments to encrypt/decrypt.
unsafe fn ac_run(
    ctx: *mut c_void,
    out: *mut u8,
    outlen: *mut usize,
    outsize: usize,
    input: *const u8,
    inlen: usize,
    decrypt: bool,
) -> c_int {
    guard(0, || {
        // SAFETY: ctx live; input valid for inlen bytes.
        let (c, input) = unsafe { (obj::<CipherCtx>(ctx), slice(input, inlen)) };
        let Some(c) = c else { return 0 };
        let Some(bound) = c.out_len() else { return 0 };
        if out.is_null() {
            if outlen.is_null() {
                return 0;
            }
            // SAFETY: outlen is writable.
            unsafe { *outlen = bound };
            return 1;
        }
        // The caller's buffer must hold the largest possible output (k
        // bytes; 48 for the TLS pre-master secret), checked before the
        // private operation as OpenSSL's own provider does. Checked after
        // it, against the plaintext's length, success or failure would
        // tell an attacker the length of what the padding check produced
        // (the real message or the implicit-rejection substitute).
        if outsize < bound {
            return 0;
        }
        let result = if decrypt {
            c.decrypt(input)
        } else {
            c.encrypt(input)
                .map(|v| redc::padding::Plaintext::from(Zeroizing::new(v)))
        };
        match result {
            // SAFETY: out writable for outsize bytes; outlen writable.
            Some(r) => ok(unsafe { emit(out, outlen, outsize, &r) }),
            None => 0,
        }
    })
}

unsafe extern "C" fn ac_encrypt(
    ctx: *mut c_void,
    out: *mut u8,
    outlen: *mut usize,
    outsize: usize,
    input: *const u8,
    inlen: usize,
) -> c_int {
    // SAFETY: forwarded unchanged.
    unsafe { ac_run(ctx, out, outlen, outsize, input, inlen, false) }
}

unsafe extern "C" fn ac_decrypt(
    ctx: *mut c_void,
    out: *mut u8,
    outlen: *mut usize,
    outsize: usize,
    input: *const u8,
    inlen: usize,
) -> c_int {
    // SAFETY: forwarded unchanged.
    unsafe { ac_run(ctx, out, outlen, outsize, input, inlen, true) }
}

unsafe extern "C" fn ac_get_ctx_params(ctx: *mut c_void, params: *mut OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: ctx live; params the caller's writable array.
        match unsafe { obj::<CipherCtx>(ctx) } {
            // SAFETY: the label lives in the context, which OpenSSL does
            // not change or free while it uses the pointer ("get0").
            Some(c) => ok(unsafe {
                write_params_with_ptrs(
                    params,
                    |name| c.get_param(name),
                    |name| (name == "oaep-label").then_some(c.label()),
                )
            }),
            None => 0,
        }
    })
}

unsafe extern "C" fn ac_set_ctx_params(ctx: *mut c_void, params: *const OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: ctx live; params the caller's array.
        match unsafe { (obj::<CipherCtx>(ctx), read_params(params)) } {
            (Some(c), p) => ok(c.set_params(&p)),
            _ => 0,
        }
    })
}

unsafe extern "C" fn ac_gettable(_ctx: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
    AC_GETTABLE.0.as_ptr()
}

unsafe extern "C" fn ac_settable(_ctx: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
    AC_SETTABLE.0.as_ptr()
}

static CIPHER: [Dispatch; 12] = [
    entry!(1, ac_newctx),
    entry!(2, ac_encrypt_init),
    entry!(3, ac_encrypt),
    entry!(4, ac_decrypt_init),
    entry!(5, ac_decrypt),
    entry!(6, ac_freectx),
    entry!(7, ac_dupctx),
    entry!(8, ac_get_ctx_params),
    entry!(9, ac_gettable),
    entry!(10, ac_set_ctx_params),
    entry!(11, ac_settable),
    END,
];

// ---------------------------------------------------------------------------
// OpenSSL's async jobs (`ASYNC_get_current_job`, `ASYNC_pause_job`), for
// `crate::queue`. The symbols are looked up at run time in the process
// (the libcrypto that loaded this provider), so that the crate links
// without libcrypto (its unit tests) and runs without async support where
// the lookup fails. Linux only (the wait fd is an eventfd).

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
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
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

// ---------------------------------------------------------------------------
// OpenSSL's private DRBG (`RAND_priv_bytes_ex`), for `crate::rng`: random
// bytes from user space (OpenSSL seeds, reseeds and separates it across
// fork), where each `getrandom` system call cost about 1 us of a handshake.
// Looked up at run time like the ASYNC functions, for the same reasons.

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
