//! Asymmetric encryption: `EVP_ASYM_CIPHER` "RSA", RSAES-OAEP and
//! RSAES-PKCS1-v1_5 (RFC 8017 7.1, 7.2) and the raw primitive ("none").
//!
//! PKCS#1 v1.5 decryption uses implicit rejection (a synthetic message for
//! bad padding, byte for byte what OpenSSL 3.2 and later return) unless the
//! caller sets "implicit-rejection" to 0, as OpenSSL 3.2 allows.
//! Parameters: "pad-mode", "digest" (OAEP; default SHA-1), "mgf1-digest"
//! (must equal the OAEP digest), "oaep-label".
//!
//! Pad mode 7 (`RSA_PKCS1_WITH_TLS_PADDING`) is the TLS 1.2 server's RSA key
//! exchange (RFC 5246 7.4.7.1): the 48-byte pre-master secret, whose first
//! two bytes must be the client's offered version ("tls-client-version", or
//! "tls-negotiated-version" as OpenSSL's workaround allows); on any padding
//! or version mismatch a random 48-byte secret instead, chosen with masks
//! and no branch on the decrypted bytes (the countermeasure of RFC 5246
//! 7.4.7.1 against Bleichenbacher's attack).

use crate::keys::Key;
use crate::params::{Pad, Param, Value, find, md_name, parse_md};
use redc::hash::HashAlg;
use redc::padding::{Plaintext, eme_pkcs1v15_decode_strict};
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
    tls_client_version: u16,
    tls_alt_version: u16,
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
            tls_client_version: 0,
            tls_alt_version: 0,
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

    /// The output size bound: k, or 48 for a TLS pre-master secret
    /// (OpenSSL's answer too; libssl passes a 48-byte buffer).
    pub fn out_len(&self) -> Option<usize> {
        let k = self.key.as_ref()?.public().size();
        Some(if self.decrypt && self.pad == Pad::Tls {
            PREMASTER_LEN
        } else {
            k
        })
    }

    /// The OAEP label.
    pub fn label(&self) -> &[u8] {
        &self.label
    }

    /// Encrypt `msg`.
    pub fn encrypt(&self, msg: &[u8]) -> Option<Vec<u8>> {
        let key = self.key.as_ref()?.public();
        let rng = &mut crate::rng::ProviderRng;
        crate::trace(format_args!("encrypt {:?}", self.pad));
        match self.pad {
            Pad::Pkcs1 => key.encrypt_pkcs1v15(rng, msg).ok(),
            Pad::Oaep => key
                .encrypt_oaep_mgf1(rng, self.md, self.mgf1.unwrap_or(self.md), &self.label, msg)
                .ok(),
            Pad::None => key.raw_public(msg).ok(),
            _ => None,
        }
    }

    /// Decrypt `ct`; `None` on any failure (one opaque outcome).
    pub fn decrypt(&self, ct: &[u8]) -> Option<Plaintext> {
        if !self.decrypt {
            return None;
        }
        let held = self.key.as_ref()?;
        let key = held.private()?;
        let rng = &mut crate::rng::ProviderRng;
        crate::trace(format_args!("decrypt {:?}", self.pad));
        // A ciphertext shorter than the modulus is the same number with its
        // leading zero bytes dropped: OpenSSL reads it as a big-endian
        // integer (`BN_bin2bn`), so it is left-padded to k bytes here; a
        // longer one is refused. The length is public. Implicit rejection
        // derives its key from the padded form, as OpenSSL's `derive_kdk`
        // does.
        let k = key.size();
        let padded;
        let ct = match ct.len() {
            n if n == k => ct,
            n if n < k => {
                let mut v = vec![0u8; k];
                v[k - n..].copy_from_slice(ct);
                padded = v;
                &padded[..]
            }
            _ => return None,
        };
        // The bare private operation: queued and batched inside async jobs.
        let raw = |ct: &[u8]| crate::queue::private_op(held, ct);
        match self.pad {
            // A `Plaintext` keeps all k bytes and is wiped whole when it
            // drops: the wipe does not tell the (real or synthetic) length.
            Pad::Pkcs1 if self.implicit_rejection => key.decrypt_pkcs1v15_with_rng(rng, ct).ok(),
            Pad::Pkcs1 => {
                let em = raw(ct)?;
                eme_pkcs1v15_decode_strict(&em, key.size())
                    .ok()
                    .map(|m| Plaintext::from(Zeroizing::new(m)))
            }
            Pad::Oaep => key
                .decrypt_oaep_mgf1(rng, self.md, self.mgf1.unwrap_or(self.md), &self.label, ct)
                .ok(),
            Pad::None => raw(ct).map(Plaintext::from),
            Pad::Tls => {
                if self.tls_client_version == 0 {
                    return None;
                }
                let em = raw(ct)?;
                tls_premaster(&em, self.tls_client_version, self.tls_alt_version).map(Plaintext::from)
            }
            _ => None,
        }
    }

    /// Apply the parameters; unknown ones are ignored.
    pub fn set_params(&mut self, params: &[Param]) -> bool {
        if let Some(v) = find(params, "pad-mode") {
            match Pad::parse(v) {
                Some(p @ (Pad::Pkcs1 | Pad::Oaep | Pad::None | Pad::Tls)) => self.pad = p,
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
        for (key, slot) in [
            ("tls-client-version", &mut self.tls_client_version),
            ("tls-negotiated-version", &mut self.tls_alt_version),
        ] {
            if let Some(v) = find(params, key) {
                match v.as_int().and_then(|n| u16::try_from(n).ok()) {
                    Some(n) => *slot = n,
                    None => return false,
                }
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
            "tls-client-version" => Some(Value::Int(i64::from(self.tls_client_version))),
            "tls-negotiated-version" => Some(Value::Int(i64::from(self.tls_alt_version))),
            _ => None,
        }
    }
}

/// The pre-master secret's length in TLS 1.2's RSA key exchange.
const PREMASTER_LEN: usize = 48;

/// The TLS pre-master secret from the k-byte RSA decryption `em`:
/// `em = 00 02 PS 00 V1 V2 R[46]`, PS nonzero, V the client's version (or
/// `alt`, when nonzero); otherwise 48 random bytes. Every check is a mask,
/// combined without branching on `em`; the one branch is on `k` (public).
/// `None` only when the key is too small or no random generator answers.
pub fn tls_premaster(em: &[u8], client: u16, alt: u16) -> Option<Zeroizing<Vec<u8>>> {
    use subtle::{ConditionallySelectable, ConstantTimeEq};
    let k = em.len();
    if k < PREMASTER_LEN + 11 {
        return None;
    }
    let mut random = Zeroizing::new(vec![0u8; PREMASTER_LEN]);
    if !crate::rng::try_fill(&mut random) {
        return None;
    }
    let mut good = em[0].ct_eq(&0) & em[1].ct_eq(&2);
    for &b in &em[2..k - PREMASTER_LEN - 1] {
        good &= !b.ct_eq(&0);
    }
    good &= em[k - PREMASTER_LEN - 1].ct_eq(&0);
    let (v1, v2) = (em[k - PREMASTER_LEN], em[k - PREMASTER_LEN + 1]);
    let [c1, c2] = client.to_be_bytes();
    let [a1, a2] = alt.to_be_bytes();
    let alt_ok = (v1.ct_eq(&a1) & v2.ct_eq(&a2)) & !alt.ct_eq(&0);
    good &= (v1.ct_eq(&c1) & v2.ct_eq(&c2)) | alt_ok;
    let mut out = Zeroizing::new(vec![0u8; PREMASTER_LEN]);
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::conditional_select(&random[i], &em[k - PREMASTER_LEN + i], good);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn em(version: [u8; 2], zero_at: usize) -> Vec<u8> {
        let mut em = vec![0x33u8; 128];
        em[0] = 0;
        em[1] = 2;
        em[zero_at] = 0;
        em[128 - 48..128 - 46].copy_from_slice(&version);
        em
    }

    #[test]
    fn tls_premaster_keeps_good_secrets_and_replaces_bad_ones() {
        let good = em([3, 3], 128 - 49);
        assert_eq!(*tls_premaster(&good, 0x0303, 0).unwrap(), good[128 - 48..]);
        // The negotiated version is accepted as the workaround allows.
        let old = em([3, 1], 128 - 49);
        assert_eq!(*tls_premaster(&old, 0x0303, 0x0301).unwrap(), old[128 - 48..]);
        // Wrong version, misplaced separator, wrong block type: random.
        for bad in [em([3, 1], 128 - 49), em([3, 3], 40)] {
            let a = tls_premaster(&bad, 0x0303, 0).unwrap();
            assert_ne!(*a, bad[128 - 48..]);
            assert_ne!(a, tls_premaster(&bad, 0x0303, 0).unwrap());
        }
        let mut block1 = good.clone();
        block1[1] = 1;
        assert_ne!(*tls_premaster(&block1, 0x0303, 0).unwrap(), good[128 - 48..]);
    }
}
