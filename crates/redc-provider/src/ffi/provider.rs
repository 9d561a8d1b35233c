//! The provider object: `OSSL_provider_init`, its parameters, the
//! algorithm tables, and OpenSSL's error queue.

use super::asym_cipher::CIPHER;
use super::keymgmt::{KEYMGMT, KEYMGMT_PSS};
use super::ossl_param::write_value;
use super::signature::SIGNATURE;
use super::{
    Algorithm, Dispatch, END, Fp, INTEGER, OsslParam, PARAM_END, Table, UTF8_PTR, boxed, desc, free, guard,
};
use crate::params::Value;
use core::ffi::{CStr, c_char, c_int, c_void};
use std::ptr::null;

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
