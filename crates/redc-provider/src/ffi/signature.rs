//! `OSSL_OP_SIGNATURE`: RSA signatures.

use super::dispatch::Dispatch;
use super::keymgmt::key_of;
use super::ossl_param::{read_params, write_params};
use super::{
    OCTET_STRING, OsslParam, PARAM_END, Table, UTF8_STRING, boxed, desc, emit, free, obj, ok, report_len,
    slice,
};
use crate::sig::{Op, SigCtx};
use core::ffi::{CStr, c_char, c_int, c_void};
use std::ptr::null_mut;

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

shims! {
    fn sig_newctx(_prov: *mut c_void, _propq: *const c_char) -> *mut c_void {
        boxed(SigCtx::default())
    }

    fn sig_freectx(ctx: *mut c_void) {
        // SAFETY: ctx is a signature context of this module, freed once.
        unsafe { free::<SigCtx>(ctx) }
    }

    fn sig_dupctx(ctx: *mut c_void) -> *mut c_void {
        // SAFETY: ctx is a live signature context.
        match unsafe { obj::<SigCtx>(ctx) } {
            Some(c) => boxed(c.clone()),
            None => null_mut(),
        }
    }
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
}

shims! {
    fn sig_sign_init(ctx: *mut c_void, kd: *mut c_void, params: *const OsslParam) -> c_int {
        // SAFETY: forwarded unchanged.
        unsafe { sig_init_common(ctx, kd, Op::Sign, None, params) }
    }

    fn sig_verify_init(ctx: *mut c_void, kd: *mut c_void, params: *const OsslParam) -> c_int {
        // SAFETY: forwarded unchanged.
        unsafe { sig_init_common(ctx, kd, Op::Verify, None, params) }
    }

    fn sig_verify_recover_init(
        ctx: *mut c_void,
        kd: *mut c_void,
        params: *const OsslParam,
    ) -> c_int {
        // SAFETY: forwarded unchanged.
        unsafe { sig_init_common(ctx, kd, Op::VerifyRecover, None, params) }
    }

    fn sig_verify_recover(
        ctx: *mut c_void,
        out: *mut u8,
        outlen: *mut usize,
        outsize: usize,
        sig: *const u8,
        siglen: usize,
    ) -> c_int {
        // SAFETY: ctx is a live context; sig valid for siglen bytes.
        let (c, sig) = unsafe { (obj::<SigCtx>(ctx), slice(sig, siglen)) };
        let Some(c) = c else { return 0 };
        if out.is_null() {
            // SAFETY: outlen is the caller's, NULL or writable.
            return unsafe { report_len(outlen, c.sig_len()) };
        }
        match c.verify_recover(sig) {
            // SAFETY: out is writable for outsize bytes, outlen writable.
            Some(data) => ok(unsafe { emit(out, outlen, outsize, &data) }),
            None => 0,
        }
    }

    fn sig_digest_sign_init(
        ctx: *mut c_void,
        md: *const c_char,
        kd: *mut c_void,
        params: *const OsslParam,
    ) -> c_int {
        // SAFETY: forwarded unchanged.
        unsafe { sig_init_common(ctx, kd, Op::Sign, Some(md), params) }
    }

    fn sig_digest_verify_init(
        ctx: *mut c_void,
        md: *const c_char,
        kd: *mut c_void,
        params: *const OsslParam,
    ) -> c_int {
        // SAFETY: forwarded unchanged.
        unsafe { sig_init_common(ctx, kd, Op::Verify, Some(md), params) }
    }

    fn sig_sign(
        ctx: *mut c_void,
        sig: *mut u8,
        siglen: *mut usize,
        sigsize: usize,
        tbs: *const u8,
        tbslen: usize,
    ) -> c_int {
        // SAFETY: ctx is a live context; tbs valid for tbslen bytes.
        let (c, tbs) = unsafe { (obj::<SigCtx>(ctx), slice(tbs, tbslen)) };
        let Some(c) = c else { return 0 };
        if sig.is_null() {
            // SAFETY: siglen is the caller's, NULL or writable.
            return unsafe { report_len(siglen, c.sig_len()) };
        }
        match c.sign(tbs) {
            // SAFETY: sig is writable for sigsize bytes, siglen writable.
            Some(s) => ok(unsafe { emit(sig, siglen, sigsize, &s) }),
            None => 0,
        }
    }

    fn sig_verify(
        ctx: *mut c_void,
        sig: *const u8,
        siglen: usize,
        tbs: *const u8,
        tbslen: usize,
    ) -> c_int {
        // SAFETY: ctx is a live context; sig and tbs valid for their lengths.
        let (c, sig, tbs) = unsafe { (obj::<SigCtx>(ctx), slice(sig, siglen), slice(tbs, tbslen)) };
        c.is_some_and(|c| c.verify(sig, tbs)).into()
    }

    fn sig_digest_update(ctx: *mut c_void, data: *const u8, len: usize) -> c_int {
        // SAFETY: ctx is a live context; data valid for len bytes.
        let (c, data) = unsafe { (obj::<SigCtx>(ctx), slice(data, len)) };
        c.is_some_and(|c| c.update(data)).into()
    }

    fn sig_digest_sign_final(
        ctx: *mut c_void,
        sig: *mut u8,
        siglen: *mut usize,
        sigsize: usize,
    ) -> c_int {
        // SAFETY: ctx is a live context.
        let Some(c) = (unsafe { obj::<SigCtx>(ctx) }) else {
            return 0;
        };
        if sig.is_null() {
            // SAFETY: siglen is the caller's, NULL or writable.
            return unsafe { report_len(siglen, c.sig_len()) };
        }
        match c.digest_sign_final() {
            // SAFETY: sig is writable for sigsize bytes, siglen writable.
            Some(s) => ok(unsafe { emit(sig, siglen, sigsize, &s) }),
            None => 0,
        }
    }

    fn sig_digest_verify_final(ctx: *mut c_void, sig: *const u8, siglen: usize) -> c_int {
        // SAFETY: ctx is a live context; sig valid for siglen bytes.
        let (c, sig) = unsafe { (obj::<SigCtx>(ctx), slice(sig, siglen)) };
        c.is_some_and(|c| c.digest_verify_final(sig)).into()
    }

    fn sig_get_ctx_params(ctx: *mut c_void, params: *mut OsslParam) -> c_int {
        // SAFETY: ctx is a live context; params the caller's writable array.
        match unsafe { obj::<SigCtx>(ctx) } {
            Some(c) => ok(unsafe { write_params(params, |name| c.get_param(name)) }),
            None => 0,
        }
    }

    fn sig_set_ctx_params(ctx: *mut c_void, params: *const OsslParam) -> c_int {
        // SAFETY: ctx is a live context; params the caller's array.
        match unsafe { (obj::<SigCtx>(ctx), read_params(params)) } {
            (Some(c), p) => ok(c.set_params(&p)),
            _ => 0,
        }
    }

    fn sig_gettable(_ctx: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
        SIG_GETTABLE.0.as_ptr()
    }

    fn sig_settable(_ctx: *mut c_void, _prov: *mut c_void) -> *const OsslParam {
        SIG_SETTABLE.0.as_ptr()
    }
}

pub(super) static SIGNATURE: &[Dispatch] = dispatch![
    OSSL_FUNC_SIGNATURE_NEWCTX => sig_newctx,
    OSSL_FUNC_SIGNATURE_SIGN_INIT => sig_sign_init,
    OSSL_FUNC_SIGNATURE_SIGN => sig_sign,
    OSSL_FUNC_SIGNATURE_VERIFY_INIT => sig_verify_init,
    OSSL_FUNC_SIGNATURE_VERIFY => sig_verify,
    OSSL_FUNC_SIGNATURE_VERIFY_RECOVER_INIT => sig_verify_recover_init,
    OSSL_FUNC_SIGNATURE_VERIFY_RECOVER => sig_verify_recover,
    OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT => sig_digest_sign_init,
    OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE => sig_digest_update,
    OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL => sig_digest_sign_final,
    OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT => sig_digest_verify_init,
    OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE => sig_digest_update,
    OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL => sig_digest_verify_final,
    OSSL_FUNC_SIGNATURE_FREECTX => sig_freectx,
    OSSL_FUNC_SIGNATURE_DUPCTX => sig_dupctx,
    OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS => sig_get_ctx_params,
    OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS => sig_gettable,
    OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS => sig_set_ctx_params,
    OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS => sig_settable,
];
