//! The handful of libcrypto functions the anchor calls, and safe wrappers.
//! Every `unsafe` block of the crate is here. Declarations follow OpenSSL's
//! `<openssl/evp.h>` and `<openssl/crypto.h>` (identical in 3.0 and 4.0).

use std::ffi::{CStr, c_char, c_int, c_long, c_uchar, c_void};
use std::ptr;

#[repr(C)]
struct EvpPkey {
    _private: [u8; 0],
}
#[repr(C)]
struct EvpMdCtx {
    _private: [u8; 0],
}
#[repr(C)]
struct EvpMd {
    _private: [u8; 0],
}

unsafe extern "C" {
    fn OpenSSL_version(t: c_int) -> *const c_char;
    fn d2i_AutoPrivateKey(a: *mut *mut EvpPkey, pp: *mut *const c_uchar, length: c_long) -> *mut EvpPkey;
    fn EVP_PKEY_free(key: *mut EvpPkey);
    fn EVP_PKEY_get_size(key: *const EvpPkey) -> c_int;
    fn EVP_sha256() -> *const EvpMd;
    fn EVP_MD_CTX_new() -> *mut EvpMdCtx;
    fn EVP_MD_CTX_free(ctx: *mut EvpMdCtx);
    fn EVP_DigestSignInit(
        ctx: *mut EvpMdCtx,
        pctx: *mut *mut c_void,
        md: *const EvpMd,
        e: *mut c_void,
        key: *mut EvpPkey,
    ) -> c_int;
    fn EVP_DigestSign(
        ctx: *mut EvpMdCtx,
        sig: *mut c_uchar,
        siglen: *mut usize,
        tbs: *const c_uchar,
        tbslen: usize,
    ) -> c_int;
    fn EVP_DigestVerifyInit(
        ctx: *mut EvpMdCtx,
        pctx: *mut *mut c_void,
        md: *const EvpMd,
        e: *mut c_void,
        key: *mut EvpPkey,
    ) -> c_int;
    fn EVP_DigestVerify(
        ctx: *mut EvpMdCtx,
        sig: *const c_uchar,
        siglen: usize,
        tbs: *const c_uchar,
        tbslen: usize,
    ) -> c_int;
}

/// `OpenSSL_version(OPENSSL_VERSION)`, e.g. "OpenSSL 3.0.13 30 Jan 2024".
pub fn version() -> String {
    // SAFETY: OpenSSL_version(0) returns a pointer to a static NUL-terminated
    // string (never null for OPENSSL_VERSION = 0).
    unsafe { CStr::from_ptr(OpenSSL_version(0)) }
        .to_string_lossy()
        .into_owned()
}

/// A private key loaded by libcrypto; freed on drop.
pub struct PrivateKey(*mut EvpPkey);

// SAFETY: OpenSSL documents EVP_PKEY as safe to use from several threads at
// once when none of them modifies it (openssl-threads(7)); after loading,
// the anchor only signs and verifies with it, each thread in its own
// EVP_MD_CTX.
unsafe impl Send for PrivateKey {}
// SAFETY: as above.
unsafe impl Sync for PrivateKey {}

impl Drop for PrivateKey {
    fn drop(&mut self) {
        // SAFETY: self.0 came from d2i_AutoPrivateKey, is non-null and is
        // freed once, here.
        unsafe { EVP_PKEY_free(self.0) }
    }
}

/// An EVP_MD_CTX freed on drop.
struct MdCtx(*mut EvpMdCtx);

impl MdCtx {
    fn new() -> Result<MdCtx, String> {
        // SAFETY: no arguments; a null return is checked.
        let ctx = unsafe { EVP_MD_CTX_new() };
        if ctx.is_null() {
            return Err("EVP_MD_CTX_new failed".into());
        }
        Ok(MdCtx(ctx))
    }
}

impl Drop for MdCtx {
    fn drop(&mut self) {
        // SAFETY: self.0 came from EVP_MD_CTX_new, non-null, freed once.
        unsafe { EVP_MD_CTX_free(self.0) }
    }
}

impl PrivateKey {
    /// Reads a DER private key (PKCS#8 or PKCS#1).
    pub fn from_der(der: &[u8]) -> Result<PrivateKey, String> {
        let len = c_long::try_from(der.len()).map_err(|_| "key too long")?;
        let mut p = der.as_ptr();
        // SAFETY: p points to `len` readable bytes; d2i reads at most that
        // many, advances p (a local) and returns a new key or null.
        let key = unsafe { d2i_AutoPrivateKey(ptr::null_mut(), &mut p, len) };
        if key.is_null() {
            return Err("libcrypto could not read the key (d2i_AutoPrivateKey)".into());
        }
        Ok(PrivateKey(key))
    }

    /// EVP one-shot sign, SHA-256, the RSA default padding (PKCS#1 v1.5).
    pub fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, String> {
        let ctx = MdCtx::new()?;
        // SAFETY: self.0 is a valid key for the lifetime of self.
        let size = unsafe { EVP_PKEY_get_size(self.0) };
        let mut sig = vec![0u8; usize::try_from(size).map_err(|_| "bad key size")?];
        let mut len = sig.len();
        // SAFETY: ctx and key are valid; EVP_sha256 returns a static
        // digest; null pctx and engine are allowed. EVP_DigestSign writes at
        // most `len` bytes (the key size, which it checks) into sig and
        // reads msg.len() bytes of msg.
        let ok = unsafe {
            EVP_DigestSignInit(ctx.0, ptr::null_mut(), EVP_sha256(), ptr::null_mut(), self.0) == 1
                && EVP_DigestSign(ctx.0, sig.as_mut_ptr(), &mut len, msg.as_ptr(), msg.len()) == 1
        };
        if !ok {
            return Err("EVP_DigestSign failed".into());
        }
        sig.truncate(len);
        Ok(sig)
    }

    /// EVP one-shot verify with the key's public half; true when valid.
    pub fn verify(&self, msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        let ctx = MdCtx::new()?;
        // SAFETY: as in sign; EVP_DigestVerify only reads sig and msg within
        // the lengths given.
        let r = unsafe {
            if EVP_DigestVerifyInit(ctx.0, ptr::null_mut(), EVP_sha256(), ptr::null_mut(), self.0) != 1 {
                return Err("EVP_DigestVerifyInit failed".into());
            }
            EVP_DigestVerify(ctx.0, sig.as_ptr(), sig.len(), msg.as_ptr(), msg.len())
        };
        Ok(r == 1)
    }
}
