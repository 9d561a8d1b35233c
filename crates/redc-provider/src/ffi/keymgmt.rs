//! `OSSL_OP_KEYMGMT`: RSA and RSA-PSS key objects.

use super::dispatch::Dispatch;
use super::ossl_param::{read_params, write_params};
use super::{
    Callback, INTEGER, OsslParam, PARAM_END, Table, UNMODIFIED, UNSIGNED_INTEGER, UTF8_STRING, boxed, desc,
    free, key_obj, obj, ok,
};
use crate::keys::{self, GenCtx, KeyObj};
use crate::params::Value;
use crate::pss::KeyType;
use core::ffi::{CStr, c_char, c_int, c_void};
use std::ptr::{null, null_mut};
use zeroize::Zeroizing;

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

shims! {
    fn km_new(_prov: *mut c_void) -> *mut c_void {
        boxed(KeyObj::new(KeyType::Rsa))
    }

    fn km_new_pss(_prov: *mut c_void) -> *mut c_void {
        boxed(KeyObj::new(KeyType::Pss(None)))
    }

    fn km_free(kd: *mut c_void) {
        // SAFETY: kd is a key object this module made, freed once by OpenSSL.
        unsafe { free::<KeyObj>(kd) }
    }

    fn km_has(kd: *const c_void, selection: c_int) -> c_int {
        // SAFETY: kd is NULL or a live key object (read only here).
        match unsafe { key_obj(kd) } {
            Some(k) => ok(keys::has(k, selection)),
            None => 0,
        }
    }

    fn km_match(a: *const c_void, b: *const c_void, selection: c_int) -> c_int {
        // SAFETY: a and b are NULL or live key objects (read only here).
        let (a, b) = unsafe { (key_obj(a), key_obj(b)) };
        match (a, b) {
            (Some(a), Some(b)) => ok(keys::matches(a, b, selection)),
            _ => 0,
        }
    }

    fn km_validate(kd: *const c_void, selection: c_int, _check: c_int) -> c_int {
        // Keys are checked completely when they are imported or generated.
        // SAFETY: forwarded under the same contract.
        unsafe { km_has(kd, selection) }
    }

    fn km_import(kd: *mut c_void, selection: c_int, params: *const OsslParam) -> c_int {
        // SAFETY: kd is a live key object being built by this one caller;
        // params is the caller's array.
        let (k, params) = unsafe { (obj::<KeyObj>(kd), read_params(params)) };
        match k {
            Some(k) => ok(keys::import(k, selection, &params)),
            None => 0,
        }
    }

    fn km_types(_selection: c_int) -> *const OsslParam {
        KEY_NUMBERS.0.as_ptr()
    }

    fn km_types_pss(_selection: c_int) -> *const OsslParam {
        KEY_NUMBERS_PSS.0.as_ptr()
    }

    fn km_export(kd: *mut c_void, selection: c_int, cb: Callback, arg: *mut c_void) -> c_int {
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
    }

    fn km_get_params(kd: *mut c_void, params: *mut OsslParam) -> c_int {
        // SAFETY: kd is a live key object (read only here).
        let Some(obj) = (unsafe { key_obj(kd) }) else {
            return 0;
        };
        if obj.key.is_none() {
            return 0;
        }
        // SAFETY: params is the caller's writable array.
        ok(unsafe { write_params(params, |name| keys::get_param(obj, name)) })
    }

    fn km_gettable_params(_prov: *mut c_void) -> *const OsslParam {
        KEY_GETTABLE.0.as_ptr()
    }

    fn km_gettable_params_pss(_prov: *mut c_void) -> *const OsslParam {
        KEY_GETTABLE_PSS.0.as_ptr()
    }

    fn km_dup(kd: *const c_void, selection: c_int) -> *mut c_void {
        // SAFETY: kd is a live key object (read only here).
        match unsafe { key_obj(kd) } {
            Some(k) => boxed(keys::dup(k, selection)),
            None => null_mut(),
        }
    }

    fn km_query_operation_name(_op: c_int) -> *const c_char {
        c"RSA".as_ptr()
    }
}

/// # Safety
/// `params` is NULL or the caller's array.
unsafe fn gen_init(selection: c_int, params: *const OsslParam, kind: KeyType) -> *mut c_void {
    let mut g = GenCtx::new(selection, kind);
    // SAFETY: params is the caller's array.
    if !g.set_params(&unsafe { read_params(params) }) {
        return null_mut();
    }
    boxed(g)
}

shims! {
    fn km_gen_init(
        _prov: *mut c_void,
        selection: c_int,
        params: *const OsslParam,
    ) -> *mut c_void {
        // SAFETY: forwarded unchanged.
        unsafe { gen_init(selection, params, KeyType::Rsa) }
    }

    fn km_gen_init_pss(
        _prov: *mut c_void,
        selection: c_int,
        params: *const OsslParam,
    ) -> *mut c_void {
        // SAFETY: forwarded unchanged.
        unsafe { gen_init(selection, params, KeyType::Pss(None)) }
    }

    fn km_gen_set_params(g: *mut c_void, params: *const OsslParam) -> c_int {
        // SAFETY: g is a live generation context; params the caller's array.
        match unsafe { (obj::<GenCtx>(g), read_params(params)) } {
            (Some(g), p) => ok(g.set_params(&p)),
            _ => 0,
        }
    }

    fn km_gen_settable_params(_g: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
        GEN_SETTABLE.0.as_ptr()
    }

    fn km_gen_settable_params_pss(_g: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
        GEN_SETTABLE_PSS.0.as_ptr()
    }

    fn km_gen(g: *mut c_void, _cb: Callback, _arg: *mut c_void) -> *mut c_void {
        // SAFETY: g is a live generation context.
        match unsafe { obj::<GenCtx>(g) }.and_then(|g| g.generate()) {
            Some(k) => boxed(k),
            None => null_mut(),
        }
    }

    fn km_gen_cleanup(g: *mut c_void) {
        // SAFETY: g is a generation context this module made, freed once.
        unsafe { free::<GenCtx>(g) }
    }
}

pub(super) static KEYMGMT: &[Dispatch] = dispatch![
    OSSL_FUNC_KEYMGMT_NEW => km_new,
    OSSL_FUNC_KEYMGMT_GEN_INIT => km_gen_init,
    OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS => km_gen_set_params,
    OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS => km_gen_settable_params,
    OSSL_FUNC_KEYMGMT_GEN => km_gen,
    OSSL_FUNC_KEYMGMT_GEN_CLEANUP => km_gen_cleanup,
    OSSL_FUNC_KEYMGMT_FREE => km_free,
    OSSL_FUNC_KEYMGMT_GET_PARAMS => km_get_params,
    OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS => km_gettable_params,
    OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME => km_query_operation_name,
    OSSL_FUNC_KEYMGMT_HAS => km_has,
    OSSL_FUNC_KEYMGMT_VALIDATE => km_validate,
    OSSL_FUNC_KEYMGMT_MATCH => km_match,
    OSSL_FUNC_KEYMGMT_IMPORT => km_import,
    OSSL_FUNC_KEYMGMT_IMPORT_TYPES => km_types,
    OSSL_FUNC_KEYMGMT_EXPORT => km_export,
    OSSL_FUNC_KEYMGMT_EXPORT_TYPES => km_types,
    OSSL_FUNC_KEYMGMT_DUP => km_dup,
];

/// "RSA-PSS": the same entry points but for the key type and the lists of
/// parameters, which add the restriction.
pub(super) static KEYMGMT_PSS: &[Dispatch] = dispatch![
    OSSL_FUNC_KEYMGMT_NEW => km_new_pss,
    OSSL_FUNC_KEYMGMT_GEN_INIT => km_gen_init_pss,
    OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS => km_gen_set_params,
    OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS => km_gen_settable_params_pss,
    OSSL_FUNC_KEYMGMT_GEN => km_gen,
    OSSL_FUNC_KEYMGMT_GEN_CLEANUP => km_gen_cleanup,
    OSSL_FUNC_KEYMGMT_FREE => km_free,
    OSSL_FUNC_KEYMGMT_GET_PARAMS => km_get_params,
    OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS => km_gettable_params_pss,
    OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME => km_query_operation_name,
    OSSL_FUNC_KEYMGMT_HAS => km_has,
    OSSL_FUNC_KEYMGMT_VALIDATE => km_validate,
    OSSL_FUNC_KEYMGMT_MATCH => km_match,
    OSSL_FUNC_KEYMGMT_IMPORT => km_import,
    OSSL_FUNC_KEYMGMT_IMPORT_TYPES => km_types_pss,
    OSSL_FUNC_KEYMGMT_EXPORT => km_export,
    OSSL_FUNC_KEYMGMT_EXPORT_TYPES => km_types_pss,
    OSSL_FUNC_KEYMGMT_DUP => km_dup,
];

/// The key of a provider key pointer, shared, and its type.
///
/// # Safety
/// `kd` is NULL or a live key object of this module.
pub(super) unsafe fn key_of(kd: *mut c_void) -> Option<(std::sync::Arc<keys::Key>, KeyType)> {
    // SAFETY: per the contract (read only).
    unsafe { key_obj(kd) }.and_then(|k| Some((k.key.clone()?, k.kind)))
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
