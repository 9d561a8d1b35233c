//! `OSSL_OP_ASYM_CIPHER`: RSA encryption.

use super::dispatch::Dispatch;
use super::keymgmt::key_of;
use super::ossl_param::{read_params, write_params_with_ptrs};
use super::{
    OCTET_PTR, OCTET_STRING, OsslParam, PARAM_END, Table, UNSIGNED_INTEGER, UTF8_STRING, boxed, desc, emit,
    free, obj, ok, slice,
};
use crate::cipher::CipherCtx;
use crate::pss::KeyType;
use core::ffi::{c_int, c_void};
use std::ptr::null_mut;
use zeroize::Zeroizing;

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

shims! {
    fn ac_newctx(_prov: *mut c_void) -> *mut c_void {
        boxed(CipherCtx::default())
    }

    fn ac_freectx(ctx: *mut c_void) {
        // SAFETY: ctx is a cipher context of this module, freed once.
        unsafe { free::<CipherCtx>(ctx) }
    }

    fn ac_dupctx(ctx: *mut c_void) -> *mut c_void {
        // SAFETY: ctx is a live cipher context.
        match unsafe { obj::<CipherCtx>(ctx) } {
            Some(c) => boxed(c.clone()),
            None => null_mut(),
        }
    }
}

/// # Safety
/// As OpenSSL passes the arguments to an init function.
unsafe fn ac_init(ctx: *mut c_void, kd: *mut c_void, decrypt: bool, params: *const OsslParam) -> c_int {
    // SAFETY: ctx live; kd a live key or NULL; params the caller's array.
    let (c, key, params) = unsafe { (obj::<CipherCtx>(ctx), key_of(kd), read_params(params)) };
    // RSA-PSS keys sign only (OpenSSL's RSA cipher refuses them too).
    if key.as_ref().is_some_and(|(_, kind)| *kind != KeyType::Rsa) {
        crate::raise(crate::Reason::OperationNotSupportedForThisKeytype);
        return 0;
    }
    c.is_some_and(|c| c.init(key.map(|(k, _)| k), decrypt, &params))
        .into()
}

shims! {
    fn ac_encrypt_init(ctx: *mut c_void, kd: *mut c_void, params: *const OsslParam) -> c_int {
        // SAFETY: forwarded unchanged.
        unsafe { ac_init(ctx, kd, false, params) }
    }

    fn ac_decrypt_init(ctx: *mut c_void, kd: *mut c_void, params: *const OsslParam) -> c_int {
        // SAFETY: forwarded unchanged.
        unsafe { ac_init(ctx, kd, true, params) }
    }
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
}

shims! {
    fn ac_encrypt(
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

    fn ac_decrypt(
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

    fn ac_get_ctx_params(ctx: *mut c_void, params: *mut OsslParam) -> c_int {
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
    }

    fn ac_set_ctx_params(ctx: *mut c_void, params: *const OsslParam) -> c_int {
        // SAFETY: ctx live; params the caller's array.
        match unsafe { (obj::<CipherCtx>(ctx), read_params(params)) } {
            (Some(c), p) => ok(c.set_params(&p)),
            _ => 0,
        }
    }

    fn ac_gettable(_ctx: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
        AC_GETTABLE.0.as_ptr()
    }

    fn ac_settable(_ctx: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
        AC_SETTABLE.0.as_ptr()
    }
}

pub(super) static CIPHER: &[Dispatch] = dispatch![
    OSSL_FUNC_ASYM_CIPHER_NEWCTX => ac_newctx,
    OSSL_FUNC_ASYM_CIPHER_ENCRYPT_INIT => ac_encrypt_init,
    OSSL_FUNC_ASYM_CIPHER_ENCRYPT => ac_encrypt,
    OSSL_FUNC_ASYM_CIPHER_DECRYPT_INIT => ac_decrypt_init,
    OSSL_FUNC_ASYM_CIPHER_DECRYPT => ac_decrypt,
    OSSL_FUNC_ASYM_CIPHER_FREECTX => ac_freectx,
    OSSL_FUNC_ASYM_CIPHER_DUPCTX => ac_dupctx,
    OSSL_FUNC_ASYM_CIPHER_GET_CTX_PARAMS => ac_get_ctx_params,
    OSSL_FUNC_ASYM_CIPHER_GETTABLE_CTX_PARAMS => ac_gettable,
    OSSL_FUNC_ASYM_CIPHER_SET_CTX_PARAMS => ac_set_ctx_params,
    OSSL_FUNC_ASYM_CIPHER_SETTABLE_CTX_PARAMS => ac_settable,
];
