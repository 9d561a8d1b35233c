//! Signatures: `EVP_SIGNATURE` "RSA", PKCS#1 v1.5 and PSS (RFC 8017 8.1,
//! 8.2), on a digest (`EVP_PKEY_sign`) or on a message hashed here
//! (`EVP_DigestSign`), with the context parameters OpenSSL's applications
//! set: "pad-mode", "digest", "mgf1-digest", "saltlen".
//!
//! PKCS#1 v1.5 without a digest (`openssl pkeyutl -sign` with no
//! `-digest`) signs the raw input with type-1 padding, as OpenSSL does;
//! pad mode "none" is the raw primitive on k-byte inputs.
//!
//! An RSA-PSS key ([`KeyType::Pss`]) signs with PSS only; a restricted one
//! fixes the digest and the MGF1 digest and starts at its minimum salt
//! length, and any setting outside the restriction is refused, as
//! OpenSSL's default provider does (`providers/implementations/signature/
//! rsa_sig.c`, `rsa_signverify_init` and `rsa_set_ctx_params`).

use crate::algid::{pkcs1_algorithm_id, pss_algorithm_id};
use crate::keys::Key;
use crate::params::{Pad, Param, Salt, Value, find, md_name, parse_md};
use crate::pss::KeyType;
use crate::{Reason, raise};
use redc::hash::{HashAlg, Hasher};
use redc::padding::{SaltLen, emsa_pkcs1v15_decode_raw, emsa_pkcs1v15_encode_raw, pss_max_salt_len};
use redc::rsa::{RsaPrivateKey, RsaPublicKey};
use std::sync::Arc;

/// What the context was initialised for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Signing.
    Sign,
    /// Verifying.
    Verify,
    /// Recovering the signed data (`openssl pkeyutl -verifyrecover`).
    VerifyRecover,
}

/// The digest of a signature context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digest {
    /// One of redc's hashes.
    Hash(HashAlg),
    /// MD5-SHA1, TLS 1.0 and 1.1's digest: the 36 bytes of MD5 and SHA-1,
    /// signed with PKCS#1 v1.5 padding and no DigestInfo (RFC 4346
    /// 4.7). Only over a digest the caller computed: redc has no MD5, so a
    /// digest-sign with it is refused.
    Md5Sha1,
}

impl Digest {
    /// The digest a name denotes, if the provider signs with it.
    pub fn parse(name: &str) -> Option<Digest> {
        if name.trim().eq_ignore_ascii_case("MD5-SHA1") {
            return Some(Digest::Md5Sha1);
        }
        parse_md(name).map(Digest::Hash)
    }

    /// The hash, unless this is MD5-SHA1.
    pub fn hash(self) -> Option<HashAlg> {
        match self {
            Digest::Hash(h) => Some(h),
            Digest::Md5Sha1 => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Digest::Hash(h) => md_name(h),
            Digest::Md5Sha1 => "MD5-SHA1",
        }
    }
}

/// MD5-SHA1's output length.
const MD5_SHA1_LEN: usize = 36;

/// A signature context (`void *ctx` of the signature functions).
#[derive(Clone)]
pub struct SigCtx {
    key: Option<Arc<Key>>,
    kind: KeyType,
    op: Option<Op>,
    pad: Pad,
    md: Option<Digest>,
    mgf1: Option<HashAlg>,
    salt: Salt,
    /// The running hash of a digest-sign/verify.
    hasher: Option<Hasher>,
}

impl Default for SigCtx {
    fn default() -> Self {
        SigCtx {
            key: None,
            kind: KeyType::Rsa,
            op: None,
            pad: Pad::Pkcs1,
            md: None,
            mgf1: None,
            salt: Salt::Auto,
            hasher: None,
        }
    }
}

impl SigCtx {
    /// Start an operation on `key` of type `kind` (`None`: keep the key of
    /// a previous init). As in OpenSSL, each init starts from the key
    /// type's defaults: PKCS#1 v1.5 for RSA, PSS for RSA-PSS (with a
    /// restricted key's digests and minimum salt), the "auto" salt length.
    pub fn init(&mut self, key: Option<(Arc<Key>, KeyType)>, op: Op, params: &[Param]) -> bool {
        if let Some((k, kind)) = key {
            self.key = Some(k);
            self.kind = kind;
        }
        let Some(key) = &self.key else { return false };
        if op == Op::Sign && key.private().is_none() {
            return false;
        }
        self.op = Some(op);
        self.hasher = None;
        self.salt = Salt::Auto;
        match self.kind {
            KeyType::Rsa => self.pad = Pad::Pkcs1,
            KeyType::Pss(None) => self.pad = Pad::Pss,
            KeyType::Pss(Some(r)) => {
                // The minimum salt must fit this key with this digest.
                if pss_max_salt_len(r.md, key.public().bits() - 1).is_none_or(|max| max < r.min_salt) {
                    return raise(Reason::InvalidSaltLength);
                }
                self.pad = Pad::Pss;
                self.md = Some(Digest::Hash(r.md));
                self.mgf1 = Some(r.mgf1);
                self.salt = Salt::Len(r.min_salt);
            }
        }
        self.set_params(params)
    }

    /// Start a digest-sign or digest-verify with `md` (`None`: SHA-256, the
    /// key's default digest).
    pub fn digest_init(
        &mut self,
        key: Option<(Arc<Key>, KeyType)>,
        op: Op,
        md: Option<&str>,
        params: &[Param],
    ) -> bool {
        if !self.init(key, op, &[]) {
            return false;
        }
        let md = match (md, self.kind.restriction()) {
            (None | Some(""), Some(r)) => r.md,
            (None | Some(""), None) => HashAlg::Sha256,
            // MD5-SHA1 is refused here: redc has no MD5 to hash with.
            (Some(name), r) => match parse_md(name) {
                Some(h) if r.is_none_or(|r| r.md == h) => h,
                _ => return false,
            },
        };
        self.md = Some(Digest::Hash(md));
        self.hasher = Some(md.hasher());
        self.set_params(params)
    }

    /// Absorb message bytes of a digest-sign/verify.
    pub fn update(&mut self, data: &[u8]) -> bool {
        match &mut self.hasher {
            Some(h) => {
                h.update(data);
                true
            }
            None => false,
        }
    }

    /// The signature length: the modulus size k.
    pub fn sig_len(&self) -> Option<usize> {
        self.key.as_ref().map(|k| k.public().size())
    }

    /// The hash of a PSS signature: the digest set (SHA-1 when none is, as
    /// [`SigCtx::set_params`] makes it), never MD5-SHA1.
    fn pss_hash(&self) -> Option<HashAlg> {
        self.md.unwrap_or(Digest::Hash(HashAlg::Sha1)).hash()
    }

    fn pss_salt_for_sign(&self, hash: HashAlg, key: &RsaPrivateKey) -> Option<usize> {
        let max = pss_max_salt_len(hash, key.bits() - 1)?;
        Some(match self.salt {
            Salt::Digest => hash.output_len(),
            Salt::Auto | Salt::Max => max,
            Salt::AutoDigestMax => hash.output_len().min(max),
            Salt::Len(n) => n,
        })
    }

    fn pss_salt_for_verify(&self, hash: HashAlg, key: &RsaPublicKey) -> Option<SaltLen> {
        Some(match self.salt {
            Salt::Digest => SaltLen::Exact(hash.output_len()),
            Salt::Auto | Salt::AutoDigestMax => SaltLen::Auto,
            Salt::Max => SaltLen::Exact(pss_max_salt_len(hash, key.bits() - 1)?),
            Salt::Len(n) => SaltLen::Exact(n),
        })
    }

    /// Sign `tbs` (a digest when a digest is set, else raw data).
    pub fn sign(&self, tbs: &[u8]) -> Option<Vec<u8>> {
        if self.op != Some(Op::Sign) {
            return None;
        }
        let held = self.key.as_ref()?;
        let key = held.private()?;
        let rng = &mut crate::rng::ProviderRng;
        crate::trace(format_args!("sign {:?} {:?}", self.pad, self.md));
        // The encoded message, then the private operation (queued and
        // batched when OpenSSL runs this inside an async job: `queue`).
        let x = match (self.pad, self.md) {
            (Pad::Pkcs1, Some(Digest::Hash(h))) => key.encode_pkcs1v15_signature(h, tbs).ok()?,
            (Pad::Pkcs1, Some(Digest::Md5Sha1)) if tbs.len() == MD5_SHA1_LEN => {
                emsa_pkcs1v15_encode_raw(tbs, key.size()).ok()?
            }
            (Pad::Pkcs1, None) => emsa_pkcs1v15_encode_raw(tbs, key.size()).ok()?,
            (Pad::Pss, _) => {
                let h = self.pss_hash()?;
                let salt = self.pss_salt_for_sign(h, key)?;
                key.encode_pss_signature(rng, h, self.mgf1.unwrap_or(h), tbs, Some(salt))
                    .ok()?
            }
            (Pad::None, None) => tbs.to_vec(),
            _ => return None,
        };
        crate::queue::private_op(held, &x).map(|s| s.to_vec())
    }

    /// Verify `sig` over `tbs` (a digest when a digest is set).
    pub fn verify(&self, sig: &[u8], tbs: &[u8]) -> bool {
        if self.op != Some(Op::Verify) {
            return false;
        }
        let Some(key) = self.key.as_ref() else {
            return false;
        };
        let key = key.public();
        crate::trace(format_args!("verify {:?} {:?}", self.pad, self.md));
        match (self.pad, self.md) {
            (Pad::Pkcs1, Some(Digest::Hash(h))) => key.verify_pkcs1v15(h, tbs, sig).is_ok(),
            (Pad::Pkcs1, Some(Digest::Md5Sha1)) if tbs.len() != MD5_SHA1_LEN => false,
            (Pad::Pkcs1, Some(Digest::Md5Sha1) | None) => {
                match (key.raw_public(sig), emsa_pkcs1v15_encode_raw(tbs, key.size())) {
                    (Ok(em), Ok(expected)) => em == expected,
                    _ => false,
                }
            }
            (Pad::Pss, _) => match self.pss_hash() {
                Some(h) => match self.pss_salt_for_verify(h, key) {
                    Some(salt) => key
                        .verify_pss_mgf1(h, self.mgf1.unwrap_or(h), tbs, sig, salt)
                        .is_ok(),
                    None => false,
                },
                None => false,
            },
            (Pad::None, None) => key.raw_public(sig).is_ok_and(|m| m == tbs),
            _ => false,
        }
    }

    /// The data a PKCS#1 v1.5 (or raw) signature carries: the digest when a
    /// digest is set (checked against its DigestInfo; MD5-SHA1 has none and
    /// must be 36 bytes), else everything after the type-1 padding; the raw
    /// value with pad mode "none". All public.
    pub fn verify_recover(&self, sig: &[u8]) -> Option<Vec<u8>> {
        if self.op != Some(Op::VerifyRecover) {
            return None;
        }
        let key = self.key.as_ref()?.public();
        crate::trace(format_args!("verify-recover {:?} {:?}", self.pad, self.md));
        let em = key.raw_public(sig).ok()?;
        match self.pad {
            Pad::None => Some(em),
            Pad::Pkcs1 => {
                let data = emsa_pkcs1v15_decode_raw(&em)?;
                match self.md {
                    None => Some(data.to_vec()),
                    Some(Digest::Md5Sha1) => (data.len() == MD5_SHA1_LEN).then(|| data.to_vec()),
                    Some(Digest::Hash(h)) => {
                        let prefix = h.digest_info_prefix();
                        (data.len() == prefix.len() + h.output_len() && data.starts_with(prefix))
                            .then(|| data[prefix.len()..].to_vec())
                    }
                }
            }
            _ => None,
        }
    }

    /// Finish a digest-sign: the signature of everything absorbed. The
    /// context stays usable (OpenSSL may finalise a copy).
    pub fn digest_sign_final(&mut self) -> Option<Vec<u8>> {
        let digest = self.hasher.take()?.finalize();
        self.sign(&digest)
    }

    /// Finish a digest-verify.
    pub fn digest_verify_final(&mut self, sig: &[u8]) -> bool {
        match self.hasher.take() {
            Some(h) => self.verify(sig, &h.finalize()),
            None => false,
        }
    }

    /// Apply "pad-mode", "digest", "mgf1-digest" and "saltlen"; others are
    /// ignored ("properties": redc has one implementation of each hash).
    ///
    /// Every combination OpenSSL's default provider refuses is refused here,
    /// when it is set (`rsa_set_ctx_params` in its `rsa_sig.c`), so that a
    /// caller learns of it at the same step: a digest with pad mode "none"
    /// (either set first), "saltlen" or "mgf1-digest" unless the pad mode
    /// is PSS, PSS on verify-recover, OAEP; an RSA-PSS key refuses every pad
    /// mode but PSS, and a restricted one other digests, a salt below its
    /// minimum and "auto" salt detection when verifying. With PSS and no
    /// digest, a non-empty list sets SHA-1 (RFC 8017's default
    /// RSASSA-PSS-params, OpenSSL's `RSA_DEFAULT_DIGEST_NAME`); the MGF1
    /// digest follows the digest unless set.
    pub fn set_params(&mut self, params: &[Param]) -> bool {
        let restriction = self.kind.restriction();
        let md = match find(params, "digest") {
            Some(v) => match v.as_str().and_then(Digest::parse) {
                Some(d) => Some(d),
                None => return raise(Reason::InvalidDigest),
            },
            None => None,
        };
        let mut pad = self.pad;
        if let Some(v) = find(params, "pad-mode") {
            pad = match Pad::parse(v) {
                Some(Pad::Pss) if self.op != Some(Op::VerifyRecover) => Pad::Pss,
                Some(p @ (Pad::Pkcs1 | Pad::None)) if self.kind == KeyType::Rsa => p,
                _ => return raise(Reason::IllegalOrUnsupportedPaddingMode),
            };
        }
        let mut salt = self.salt;
        if let Some(v) = find(params, "saltlen") {
            if pad != Pad::Pss {
                return raise(Reason::NotSupported);
            }
            salt = match Salt::parse(v) {
                Some(s) => s,
                None => return raise(Reason::InvalidSaltLength),
            };
            if let Some(r) = restriction {
                let allowed = match salt {
                    Salt::Auto | Salt::AutoDigestMax => self.op != Some(Op::Verify),
                    Salt::Digest => self
                        .md
                        .and_then(Digest::hash)
                        .is_some_and(|h| h.output_len() >= r.min_salt),
                    Salt::Len(n) => n >= r.min_salt,
                    Salt::Max => true,
                };
                if !allowed {
                    return raise(match salt {
                        Salt::Auto | Salt::AutoDigestMax => Reason::InvalidSaltLength,
                        _ => Reason::PssSaltlenTooSmall,
                    });
                }
            }
        }
        let mgf1 = match find(params, "mgf1-digest") {
            Some(_) if pad != Pad::Pss => return raise(Reason::InvalidMgf1Md),
            Some(v) => match v.as_str().and_then(parse_md) {
                Some(h) if restriction.is_none_or(|r| r.mgf1 == h) => Some(h),
                Some(_) => return raise(Reason::DigestNotAllowed),
                None => return raise(Reason::InvalidDigest),
            },
            None => None,
        };
        self.salt = salt;
        self.pad = pad;
        if mgf1.is_some() {
            self.mgf1 = mgf1;
        }
        let md = match md {
            None if self.md.is_none() && pad == Pad::Pss && !params.is_empty() => {
                Some(Digest::Hash(HashAlg::Sha1))
            }
            md => md,
        };
        match md {
            Some(d) => {
                // Pad mode "none" signs the raw value: no digest.
                if pad == Pad::None {
                    return raise(Reason::InvalidPaddingMode);
                }
                // A restricted key signs with its digest only.
                if restriction.is_some_and(|r| Digest::Hash(r.md) != d) {
                    return raise(Reason::DigestNotAllowed);
                }
                // A digest-sign hashes with the digest it started with.
                if let Some(x) = &self.hasher {
                    return Digest::Hash(x.alg()) == d || raise(Reason::DigestNotAllowed);
                }
                self.md = Some(d);
                true
            }
            // Nor may pad mode "none" replace the pad mode of a digest.
            None if pad == Pad::None && self.md.is_some() => raise(Reason::InvalidPaddingMode),
            None => true,
        }
    }

    /// The value of context parameter `name`.
    pub fn get_param(&self, name: &str) -> Option<Value> {
        match name {
            "pad-mode" => Some(self.pad.value()),
            "digest" => self.md.map(|d| Value::Utf8(d.name().into())),
            "mgf1-digest" => self
                .mgf1
                .or(self.md.and_then(Digest::hash))
                .map(|h| Value::Utf8(md_name(h).into())),
            "saltlen" => Some(self.salt.value()),
            "algorithm-id" => match (self.pad, self.md) {
                (Pad::Pkcs1, Some(Digest::Hash(h))) => Some(Value::Octet(pkcs1_algorithm_id(h).ok()?)),
                (Pad::Pss, Some(Digest::Hash(h))) => {
                    let key = self.key.as_ref()?;
                    let salt = match key.private() {
                        Some(k) => self.pss_salt_for_sign(h, k)?,
                        None => match self.pss_salt_for_verify(h, key.public())? {
                            SaltLen::Exact(n) => n,
                            SaltLen::Auto | SaltLen::AtLeast(_) => return None,
                        },
                    };
                    Some(Value::Octet(
                        pss_algorithm_id(h, self.mgf1.unwrap_or(h), salt).ok()?,
                    ))
                }
                _ => None,
            },
            _ => None,
        }
    }
}
