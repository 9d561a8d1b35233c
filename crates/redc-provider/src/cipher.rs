//! Asymmetric encryption: `EVP_ASYM_CIPHER` "RSA", RSAES-OAEP and
//! RSAES-PKCS1-v1_5 (RFC 8017 7.1, 7.2) and the raw primitive ("none").
//!
//! PKCS#1 v1.5 decryption uses implicit rejection (a synthetic message for
//! bad padding, byte for byte what OpenSSL 3.2 and later return) unless the
//! caller sets "implicit-rejection" to 0, as OpenSSL 3.2 allows.
//! Parameters: "pad-mode", "digest" (OAEP; default SHA-1), "mgf1-digest"
//! (must equal the OAEP digest), "oaep-label".

use crate::keys::Key;
use crate::params::{Pad, Param, Value, find, md_name, parse_md};
use redc::hash::HashAlg;
use redc::padding::eme_pkcs1v15_decode_strict;
use redc::rsa::os_rng;
use std::sync::Arc;
use zeroize::Zeroizing;

/// An asymmetric-cipher context.
#[derive(Clone)]
pub struct CipherCtx {
    key: Option<Arc<Key>>,
    decrypt: bool,
    pad: Pad,
    md: HashAlg,
    mgf1: Option<HashAlg>,
    label: Vec<u8>,
    implicit_rejection: bool,
}

impl Default for CipherCtx {
    fn default() -> Self {
        CipherCtx {
            key: None,
            decrypt: false,
            pad: Pad::Pkcs1,
            md: HashAlg::Sha1,
            mgf1: None,
            label: Vec::new(),
            implicit_rejection: true,
        }
    }
}

impl CipherCtx {
    /// Start an encryption (`decrypt` false) or decryption with `key`.
    pub fn init(&mut self, key: Option<Arc<Key>>, decrypt: bool, params: &[Param]) -> bool {
        if let Some(k) = key {
            self.key = Some(k);
        }
        let Some(key) = &self.key else { return false };
        if decrypt && key.private().is_none() {
            return false;
        }
        self.decrypt = decrypt;
        self.set_params(params)
    }

    /// The output size bound: k.
    pub fn out_len(&self) -> Option<usize> {
        self.key.as_ref().map(|k| k.public().size())
    }

    /// Encrypt `msg`.
    pub fn encrypt(&self, msg: &[u8]) -> Option<Vec<u8>> {
        let key = self.key.as_ref()?.public();
        let rng = &mut os_rng();
        crate::trace(&format!("encrypt {:?}", self.pad));
        match self.pad {
            Pad::Pkcs1 => key.encrypt_pkcs1v15(rng, msg).ok(),
            Pad::Oaep if self.mgf1.is_none_or(|m| m == self.md) => {
                key.encrypt_oaep(rng, self.md, &self.label, msg).ok()
            }
            Pad::None => key.raw_public(msg).ok(),
            _ => None,
        }
    }

    /// Decrypt `ct`; `None` on any failure (one opaque outcome).
    pub fn decrypt(&self, ct: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
        if !self.decrypt {
            return None;
        }
        let key = self.key.as_ref()?.private()?;
        let rng = &mut os_rng();
        crate::trace(&format!("decrypt {:?}", self.pad));
        match self.pad {
            Pad::Pkcs1 if self.implicit_rejection => key.decrypt_pkcs1v15(rng, ct).ok(),
            Pad::Pkcs1 => {
                let em = key.raw_private(rng, ct).ok()?;
                eme_pkcs1v15_decode_strict(&em, key.size())
                    .ok()
                    .map(Zeroizing::new)
            }
            Pad::Oaep if self.mgf1.is_none_or(|m| m == self.md) => {
                key.decrypt_oaep(rng, self.md, &self.label, ct).ok()
            }
            Pad::None => key.raw_private(rng, ct).ok(),
            _ => None,
        }
    }

    /// Apply the parameters; unknown ones are ignored.
    pub fn set_params(&mut self, params: &[Param]) -> bool {
        if let Some(v) = find(params, "pad-mode") {
            match Pad::parse(v) {
                Some(p @ (Pad::Pkcs1 | Pad::Oaep | Pad::None)) => self.pad = p,
                _ => return false,
            }
        }
        if let Some(v) = find(params, "digest") {
            match v.as_str().and_then(parse_md) {
                Some(h) => self.md = h,
                None => return false,
            }
        }
        if let Some(v) = find(params, "mgf1-digest") {
            match v.as_str().and_then(parse_md) {
                Some(h) => self.mgf1 = Some(h),
                None => return false,
            }
        }
        if let Some(v) = find(params, "oaep-label") {
            match v {
                Value::Octet(l) => self.label = l.clone(),
                _ => return false,
            }
        }
        if let Some(v) = find(params, "implicit-rejection") {
            match v.as_int() {
                Some(i) => self.implicit_rejection = i != 0,
                None => return false,
            }
        }
        true
    }

    /// The value of context parameter `name`.
    pub fn get_param(&self, name: &str) -> Option<Value> {
        match name {
            "pad-mode" => Some(self.pad.value()),
            "digest" => Some(Value::Utf8(md_name(self.md).into())),
            "mgf1-digest" => Some(Value::Utf8(md_name(self.mgf1.unwrap_or(self.md)).into())),
            "oaep-label" => Some(Value::Octet(self.label.clone())),
            "implicit-rejection" => Some(Value::Int(i64::from(self.implicit_rejection))),
            _ => None,
        }
    }
}
