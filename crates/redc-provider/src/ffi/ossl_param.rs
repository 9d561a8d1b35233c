//! `OSSL_PARAM` arrays: reading a caller's into [`Param`]s, writing
//! [`Value`]s into a caller's.

use super::{INTEGER, OCTET_PTR, OCTET_STRING, OsslParam, UNSIGNED_INTEGER, UTF8_PTR, UTF8_STRING};
use crate::params::{Param, Value};
use core::ffi::{CStr, c_char};
use std::ptr::null;
use zeroize::Zeroizing;

// ---------------------------------------------------------- OSSL_PARAM I/O

/// Read a caller's parameter array into owned values; unknown types and
/// NULL data are skipped.
///
/// # Safety
/// `p` is NULL or a valid `OSSL_PARAM` array ending with a NULL key.
pub(super) unsafe fn read_params(mut p: *const OsslParam) -> Vec<Param> {
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
pub(super) unsafe fn write_params(p: *mut OsslParam, get: impl Fn(&str) -> Option<Value>) -> bool {
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
pub(super) unsafe fn write_params_with_ptrs<'a>(
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
pub(super) unsafe fn write_value(param: &mut OsslParam, v: &Value) -> bool {
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
