//! The provider object: `OSSL_provider_init`, its parameters, the
//! algorithm tables, and OpenSSL's error queue.

use super::asym_cipher::CIPHER;
use super::dispatch::{
    Dispatch, OSSL_FUNC_CORE_NEW_ERROR, OSSL_FUNC_CORE_SET_ERROR_DEBUG, OSSL_FUNC_CORE_VSET_ERROR,
    OSSL_OP_ASYM_CIPHER, OSSL_OP_KEYMGMT, OSSL_OP_SIGNATURE, guard,
};
use super::keymgmt::{KEYMGMT, KEYMGMT_PSS};
use super::ossl_param::write_value;
use super::signature::SIGNATURE;
use super::{Algorithm, INTEGER, OsslParam, PARAM_END, Table, UTF8_PTR, boxed, desc, free};
use crate::libcrypto::errors;
use crate::params::Value;
use core::ffi::{CStr, c_char, c_int, c_void};
use std::ptr::null;

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

shims! {
    fn prov_gettable_params(_prov: *mut c_void) -> *const OsslParam {
        PROV_GETTABLE.0.as_ptr()
    }

    fn prov_get_params(_prov: *mut c_void, params: *mut OsslParam) -> c_int {
        let mut p = params;
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
    }

    fn prov_teardown(prov: *mut c_void) {
        // SAFETY: prov is the context OSSL_provider_init made.
        unsafe { free::<ProvCtx>(prov) }
    }

    fn prov_query(_prov: *mut c_void, op: c_int, no_cache: *mut c_int) -> *const Algorithm {
        if !no_cache.is_null() {
            // SAFETY: no_cache is the core's writable int.
            unsafe { *no_cache = 0 };
        }
        match op {
            OSSL_OP_KEYMGMT => KEYMGMT_ALGS.0.as_ptr(),
            OSSL_OP_SIGNATURE => SIGNATURE_ALGS.0.as_ptr(),
            OSSL_OP_ASYM_CIPHER => CIPHER_ALGS.0.as_ptr(),
            _ => null(),
        }
    }
}

static PROVIDER: &[Dispatch] = dispatch![
    OSSL_FUNC_PROVIDER_TEARDOWN => prov_teardown,
    OSSL_FUNC_PROVIDER_GETTABLE_PARAMS => prov_gettable_params,
    OSSL_FUNC_PROVIDER_GET_PARAMS => prov_get_params,
    OSSL_FUNC_PROVIDER_QUERY_OPERATION => prov_query,
];

/// `PROV_R_INVALID_CONFIG_DATA`: "invalid config data", the reason shown
/// before the message of a refused setting.
const INVALID_CONFIG_DATA: u32 = 211;

/// Find the core's error functions in its dispatch table.
///
/// # Safety
/// `handle` and `input` are what the core passed to `OSSL_provider_init`.
unsafe fn core_errors(handle: *const c_void, input: *const Dispatch) -> Option<errors::CoreErrors> {
    // SAFETY: the core's table ends with id 0, and its functions at these
    // ids have the slots' types (core_dispatch.h).
    let (new_error, set_debug, vset_error) = unsafe {
        (
            OSSL_FUNC_CORE_NEW_ERROR.find(input)?,
            OSSL_FUNC_CORE_SET_ERROR_DEBUG.find(input)?,
            OSSL_FUNC_CORE_VSET_ERROR.find(input)?,
        )
    };
    Some(errors::CoreErrors {
        new_error,
        set_debug,
        vset_error,
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
    guard(|| {
        if out.is_null() || provctx.is_null() {
            return 0;
        }
        // SAFETY: handle and input are the core's, as passed to us.
        errors::keep(|| unsafe { core_errors(handle, input) });
        let refused = crate::setting_errors();
        if !refused.is_empty() {
            for e in &refused {
                errors::raise_reason(INVALID_CONFIG_DATA, Some(e));
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

/// `OSSL_provider_init_fn` (`openssl/core.h`): the entry point has the
/// type OpenSSL looks it up as.
const _: unsafe extern "C" fn(
    *const c_void,
    *const Dispatch,
    *mut *const Dispatch,
    *mut *mut c_void,
) -> c_int = OSSL_provider_init;

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
