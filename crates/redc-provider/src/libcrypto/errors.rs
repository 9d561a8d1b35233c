//! OpenSSL's error queue, through the functions the core passes to
//! `OSSL_provider_init` (`crate::ffi` finds them in its dispatch table and
//! keeps them here), for [`crate::raise`] and the refused settings.

use core::ffi::{CStr, c_char, c_int, c_void};
use std::ptr::null;

/// `OSSL_FUNC_core_new_error`.
pub(crate) type CoreNewError = unsafe extern "C" fn(*const c_void);
/// `OSSL_FUNC_core_set_error_debug`.
pub(crate) type CoreSetErrorDebug = unsafe extern "C" fn(*const c_void, *const c_char, c_int, *const c_char);
/// `OSSL_FUNC_core_vset_error`, its `va_list` as the pointer the x86-64
/// and AArch64 Linux ABIs pass one as (x86-64: `va_list` is an array that
/// decays to a pointer; AArch64: a 32-byte structure, passed by reference).
pub(crate) type CoreVsetError = unsafe extern "C" fn(*const c_void, u32, *const c_char, *mut c_void);

/// This file's name, for the error queue's debug fields.
const SOURCE_FILE: &CStr = match CStr::from_bytes_with_nul(concat!(file!(), "\0").as_bytes()) {
    Ok(f) => f,
    Err(_) => c"errors.rs",
};

/// The core's error functions and the handle to pass them.
#[derive(Clone, Copy)]
pub(crate) struct CoreErrors {
    pub(crate) new_error: CoreNewError,
    pub(crate) set_debug: CoreSetErrorDebug,
    pub(crate) vset_error: CoreVsetError,
    /// The `OSSL_CORE_HANDLE` of the first load, as an address: passed
    /// back only, and with a reason that names its library
    /// (`ERR_LIB_PROV`) the core does not read it (`core_vset_error`).
    pub(crate) handle: usize,
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
    // SAFETY: the functions are the core's (see `keep`), called with
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

/// Keep the core's error functions, found by `find` on the first load
/// only (later loads pass the same core's functions).
pub(crate) fn keep(find: impl FnOnce() -> Option<CoreErrors>) {
    CORE_ERRORS.get_or_init(find);
}
