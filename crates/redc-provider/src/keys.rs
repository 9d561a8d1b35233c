//! Key management: redc's keys behind OpenSSL's `EVP_KEYMGMT` for "RSA"
//! and "RSA-PSS" (the same numbers; an RSA-PSS key also carries its
//! [`KeyType`], with the restriction of [`crate::pss`]).
//!
//! Keys reach the provider by import (the default provider decodes a file
//! and passes the numbers n, e, d, rsa-factor1/2, rsa-exponent1/2,
//! rsa-coefficient1 as `OSSL_PARAM` big integers) or by generation, and
//! leave it by export (to the default provider's encoders). A private key
//! needs both primes: redc runs every private operation with CRT.
//!
//! Secrets: the numbers are read into wiped buffers ([`Value::Big`]) and
//! the key's own storage is wiped when the last reference is dropped.

use crate::params::{Param, Value, find, md_name};
use crate::pss::{KeyType, Restriction};
use redc::rsa::{PrivateComponents, RsaPrivateKey, RsaPublicKey, keygen};
use std::sync::Arc;
use zeroize::Zeroizing;

/// `OSSL_KEYMGMT_SELECT_PRIVATE_KEY`.
pub const SELECT_PRIVATE: i32 = 0x01;
/// `OSSL_KEYMGMT_SELECT_PUBLIC_KEY`.
pub const SELECT_PUBLIC: i32 = 0x02;
/// Both halves of a key pair.
pub const SELECT_KEYPAIR: i32 = SELECT_PRIVATE | SELECT_PUBLIC;
/// `OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS`: for RSA-PSS, the restriction.
pub const SELECT_OTHER: i32 = 0x80;

/// A key as the provider holds it (once, behind an `Arc`: the size of the
/// variants does not matter).
#[allow(clippy::large_enum_variant)]
pub enum Key {
    /// A private key (with its public half).
    Private(RsaPrivateKey),
    /// A public key only.
    Public(RsaPublicKey),
}

impl Key {
    /// The public half.
    pub fn public(&self) -> &RsaPublicKey {
        match self {
            Key::Private(k) => k.public_key(),
            Key::Public(k) => k,
        }
    }

    /// The private key, if this is one.
    pub fn private(&self) -> Option<&RsaPrivateKey> {
        match self {
            Key::Private(k) => Some(k),
            Key::Public(_) => None,
        }
    }
}

/// OpenSSL's key object (`void *keydata`): empty until imported or
/// generated. Operation contexts hold their own reference to the key.
pub struct KeyObj {
    /// The key, shared with the operation contexts that use it.
    pub key: Option<Arc<Key>>,
    /// RSA or RSA-PSS: fixed by the key management that made the object;
    /// an RSA-PSS key's restriction comes with its import or generation.
    pub kind: KeyType,
}

impl KeyObj {
    /// An empty object of key type `kind`.
    pub fn new(kind: KeyType) -> KeyObj {
        KeyObj { key: None, kind }
    }
}

/// The names of the numbers, in OpenSSL's order.
pub const NAMES: [&str; 8] = [
    "n",
    "e",
    "d",
    "rsa-factor1",
    "rsa-factor2",
    "rsa-exponent1",
    "rsa-exponent2",
    "rsa-coefficient1",
];

fn big<'a>(params: &'a [Param], key: &str) -> Option<&'a [u8]> {
    match find(params, key)? {
        Value::Big(b) => Some(b),
        _ => None,
    }
}

/// Import `params` into `obj` for `selection`, as the default provider's
/// RSA import does: nothing to do without a key-pair selection; n and e
/// always; the private numbers when the selection asks for them and d is
/// present. Multi-prime keys and private keys without their primes are
/// refused (false).
///
/// An RSA-PSS key's restriction is read with the "other parameters"
/// selection ([`Restriction::apply`]); a bad one is refused.
pub fn import(obj: &mut KeyObj, selection: i32, params: &[Param]) -> bool {
    if let KeyType::Pss(current) = obj.kind
        && selection & SELECT_OTHER != 0
    {
        match Restriction::apply(current, params) {
            Ok(r) => obj.kind = KeyType::Pss(r),
            Err(_) => return false,
        }
    }
    if selection & SELECT_KEYPAIR == 0 {
        return true;
    }
    let (Some(n), Some(e)) = (big(params, "n"), big(params, "e")) else {
        return false;
    };
    if find(params, "rsa-factor3").is_some() {
        return false;
    }
    let key = match big(params, "d") {
        Some(d) if selection & SELECT_PRIVATE != 0 => {
            let (Some(p), Some(q)) = (big(params, "rsa-factor1"), big(params, "rsa-factor2")) else {
                return false;
            };
            let crt = match (
                big(params, "rsa-exponent1"),
                big(params, "rsa-exponent2"),
                big(params, "rsa-coefficient1"),
            ) {
                (Some(dp), Some(dq), Some(qinv)) => Some((dp, dq, qinv)),
                _ => None,
            };
            match RsaPrivateKey::from_components(PrivateComponents { n, e, d, p, q, crt }) {
                Ok(k) => Key::Private(k),
                Err(_) => return false,
            }
        }
        _ => match RsaPublicKey::new(n, e) {
            Ok(k) => Key::Public(k),
            Err(_) => return false,
        },
    };
    let kind = match key {
        Key::Private(_) => "private",
        Key::Public(_) => "public",
    };
    crate::trace(format_args!("import {kind} key"));
    obj.key = Some(Arc::new(key));
    true
}

/// The numbers of `key` for `selection`: n and e for any key-pair
/// selection, the private ones too when asked for and present.
pub fn export(key: &Key, selection: i32) -> Vec<(&'static str, Zeroizing<Vec<u8>>)> {
    let mut out = Vec::new();
    if selection & SELECT_KEYPAIR == 0 {
        return out;
    }
    let public = key.public();
    out.push(("n", Zeroizing::new(public.n_bytes())));
    out.push(("e", Zeroizing::new(public.e_bytes())));
    if selection & SELECT_PRIVATE != 0
        && let Some(k) = key.private()
    {
        out.push(("d", k.d_bytes()));
        out.push(("rsa-factor1", k.p_bytes()));
        out.push(("rsa-factor2", k.q_bytes()));
        out.push(("rsa-exponent1", k.dp_bytes()));
        out.push(("rsa-exponent2", k.dq_bytes()));
        out.push(("rsa-coefficient1", k.qinv_bytes()));
    }
    out
}

/// The restriction parameters of `obj` for `selection`: those of a
/// restricted RSA-PSS key under the "other parameters" selection
/// ([`Restriction::to_params`]), else none.
pub fn export_other(obj: &KeyObj, selection: i32) -> Vec<(&'static str, Value)> {
    match obj.kind.restriction() {
        Some(r) if selection & SELECT_OTHER != 0 => r.to_params(),
        _ => Vec::new(),
    }
}

/// A copy of `obj` holding only what `selection` asks for, as OpenSSL's
/// RSA dup: nothing without a key-pair selection (`EVP_PKEY_copy_parameters`
/// asks for the domain parameters only, which RSA has none of), the
/// public half without the private selection. The key type and an
/// RSA-PSS restriction are always copied, as OpenSSL does.
pub fn dup(obj: &KeyObj, selection: i32) -> KeyObj {
    let key = match &obj.key {
        _ if selection & SELECT_KEYPAIR == 0 => None,
        Some(k) if selection & SELECT_PRIVATE == 0 && k.private().is_some() => {
            Some(Arc::new(Key::Public(k.public().clone())))
        }
        k => k.clone(),
    };
    KeyObj { key, kind: obj.kind }
}

/// Whether `obj` holds what `selection` asks for.
pub fn has(obj: &KeyObj, selection: i32) -> bool {
    if selection & SELECT_KEYPAIR == 0 {
        return true;
    }
    match &obj.key {
        None => false,
        Some(k) => selection & SELECT_PRIVATE == 0 || k.private().is_some(),
    }
}

/// Whether two keys are the same for `selection`: the public numbers for
/// any key-pair selection, d as well for a private-only one.
pub fn matches(a: &KeyObj, b: &KeyObj, selection: i32) -> bool {
    let (Some(a), Some(b)) = (&a.key, &b.key) else {
        return false;
    };
    if selection & SELECT_KEYPAIR == 0 {
        return true;
    }
    if a.public() != b.public() {
        return false;
    }
    if selection & SELECT_PUBLIC == 0 {
        return match (a.private(), b.private()) {
            // Constant time: d is secret (both keys' lengths are public).
            (Some(x), Some(y)) => {
                bool::from(subtle::ConstantTimeEq::ct_eq(&x.d_bytes()[..], &y.d_bytes()[..]))
            }
            _ => false,
        };
    }
    true
}

/// Security strength of an RSA modulus of `bits` bits, as OpenSSL reports
/// it (`EVP_PKEY_get_security_bits`; libssl's security levels compare it
/// with 80/112/128/192/256): the values NIST lists for the usual sizes
/// (SP 800-56B rev. 2 appendix D; FIPS 140-2 IG 7.5 for 7680 and 15360),
/// else appendix D's estimate of the general number field sieve,
/// E = (1.923 * cbrt(n ln 2 * ln(n ln 2)^2) - 4.69) / ln 2, rounded to the
/// nearest multiple of 8 and capped so that it never decreases with n.
pub fn security_bits(bits: usize) -> i64 {
    match bits {
        2048 => return 112,
        3072 => return 128,
        4096 => return 152,
        6144 => return 176,
        7680 => return 192,
        8192 => return 200,
        15360 => return 256,
        b if b < 8 => return 0,
        b if b >= 687_737 => return 1200,
        _ => {}
    }
    let cap = match bits {
        b if b <= 7680 => 192,
        b if b <= 15360 => 256,
        _ => 1200,
    };
    let x = bits as f64 * core::f64::consts::LN_2;
    let lx = x.ln();
    let e = ((1.923 * (x * lx * lx).cbrt() - 4.69) / core::f64::consts::LN_2).floor() as i64;
    ((e + 4) & !7).min(cap)
}

/// The value of key parameter `name`, if the key has it. A restricted
/// RSA-PSS key names its hash as "mandatory-digest" instead of a
/// "default-digest", and answers its restriction's parameters.
pub fn get_param(obj: &KeyObj, name: &str) -> Option<Value> {
    let key = obj.key.as_deref()?;
    let public = key.public();
    let restriction = obj.kind.restriction();
    Some(match name {
        "bits" => Value::Int(public.bits() as i64),
        "security-bits" => Value::Int(security_bits(public.bits())),
        "max-size" => Value::Int(public.size() as i64),
        "default-digest" if restriction.is_none() => Value::Utf8("SHA256".into()),
        "mandatory-digest" => Value::Utf8(md_name(restriction?.md).into()),
        "digest" | "mgf1-digest" | "saltlen" => {
            let mut params = restriction?.to_params();
            let i = params.iter().position(|(n, _)| *n == name)?;
            params.swap_remove(i).1
        }
        _ => {
            let mut numbers = export(key, SELECT_KEYPAIR);
            let i = numbers.iter().position(|(n, _)| *n == name)?;
            Value::Big(numbers.swap_remove(i).1)
        }
    })
}

/// The smallest modulus OpenSSL accepts as a key generation setting.
pub const MIN_MODULUS_BITS: usize = 512;

/// Key generation settings (`openssl genpkey -pkeyopt rsa_keygen_bits:N`).
pub struct GenCtx {
    /// Modulus size in bits (default 2048).
    pub bits: usize,
    /// Public exponent (default 65537).
    pub e: u64,
    /// What the caller wants generated.
    pub selection: i32,
    /// The key type, with an RSA-PSS key's restriction.
    pub kind: KeyType,
}

impl GenCtx {
    /// The defaults of OpenSSL's RSA (or RSA-PSS, unrestricted) key
    /// generation.
    pub fn new(selection: i32, kind: KeyType) -> GenCtx {
        GenCtx {
            bits: 2048,
            e: 65537,
            selection,
            kind,
        }
    }

    /// Apply "bits", "primes" (only 2) and "e"; for RSA-PSS also the
    /// restriction's "digest", "mgf1-digest" and "saltlen"
    /// (`openssl genpkey -pkeyopt rsa_pss_keygen_md:sha256`, ...).
    pub fn set_params(&mut self, params: &[Param]) -> bool {
        if let KeyType::Pss(current) = self.kind {
            match Restriction::apply(current, params) {
                Ok(r) => self.kind = KeyType::Pss(r),
                Err(_) => return false,
            }
        }
        // Below 512 bits is refused when set, as OpenSSL's default provider
        // does (`RSA_MIN_MODULUS_BITS`); sizes redc's key generation does
        // not make are refused by `generate`.
        if let Some(v) = find(params, "bits") {
            match v.as_int().and_then(|b| usize::try_from(b).ok()) {
                Some(b) if b >= MIN_MODULUS_BITS => self.bits = b,
                Some(_) => return crate::raise(crate::Reason::KeySizeTooSmall),
                None => return false,
            }
        }
        if let Some(v) = find(params, "primes")
            && v.as_int() != Some(2)
        {
            return false;
        }
        if let Some(v) = find(params, "e") {
            match v.as_int().and_then(|e| u64::try_from(e).ok()) {
                Some(e) => self.e = e,
                None => return false,
            }
        }
        true
    }

    /// A new key, or `None` when redc cannot make one of these settings.
    pub fn generate(&self) -> Option<KeyObj> {
        if self.selection & SELECT_KEYPAIR == 0 {
            return Some(KeyObj::new(self.kind));
        }
        crate::trace(format_args!("generate {} bits", self.bits));
        let key = keygen::generate(self.bits, self.e, &mut crate::rng::ProviderRng).ok()?;
        Some(KeyObj {
            key: Some(Arc::new(Key::Private(key))),
            kind: self.kind,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params_of(numbers: Vec<(&'static str, Zeroizing<Vec<u8>>)>) -> Vec<Param> {
        numbers
            .into_iter()
            .map(|(k, v)| Param {
                key: k.to_string(),
                value: Value::Big(v),
            })
            .collect()
    }

    #[test]
    fn export_import_round_trip_and_selection() {
        let g = GenCtx::new(SELECT_KEYPAIR, KeyType::Rsa);
        let obj = g.generate().unwrap();
        let key = obj.key.as_ref().unwrap();
        let all = params_of(export(key, SELECT_KEYPAIR));
        assert_eq!(all.len(), 8);
        let mut back = KeyObj::new(KeyType::Rsa);
        assert!(import(&mut back, SELECT_KEYPAIR, &all));
        assert!(has(&back, SELECT_KEYPAIR));
        assert!(matches(&obj, &back, SELECT_KEYPAIR));
        // Public selection: a public key even though d is in the params.
        let mut public = KeyObj::new(KeyType::Rsa);
        assert!(import(&mut public, SELECT_PUBLIC, &all));
        assert!(has(&public, SELECT_PUBLIC) && !has(&public, SELECT_PRIVATE));
        // d without the primes: refused.
        let mut no_primes = KeyObj::new(KeyType::Rsa);
        assert!(!import(&mut no_primes, SELECT_KEYPAIR, &all[..3]));
        assert_eq!(get_param(&obj, "bits").unwrap().as_int(), Some(2048));
        assert_eq!(get_param(&obj, "max-size").unwrap().as_int(), Some(256));
        assert_eq!(get_param(&obj, "security-bits").unwrap().as_int(), Some(112));
    }

    #[test]
    fn rsa_pss_restriction_travels_with_the_other_parameters_selection() {
        let mut g = GenCtx::new(SELECT_KEYPAIR, KeyType::Pss(None));
        let set = [
            Param {
                key: "digest".into(),
                value: Value::Utf8("SHA384".into()),
            },
            Param {
                key: "saltlen".into(),
                value: Value::Int(48),
            },
        ];
        assert!(g.set_params(&set));
        let obj = g.generate().unwrap();
        let r = obj.kind.restriction().unwrap();
        assert_eq!(
            (r.md, r.mgf1, r.min_salt),
            (redc::hash::HashAlg::Sha384, redc::hash::HashAlg::Sha1, 48)
        );
        assert_eq!(
            get_param(&obj, "mandatory-digest").unwrap().as_str(),
            Some("SHA384")
        );
        assert!(get_param(&obj, "default-digest").is_none());
        // Exported with the numbers under SELECT_ALL, imported into a fresh
        // RSA-PSS object: the same restriction; without the "other" bit, none.
        let mut all = params_of(export(obj.key.as_ref().unwrap(), SELECT_KEYPAIR));
        all.extend(
            export_other(&obj, SELECT_KEYPAIR | SELECT_OTHER)
                .into_iter()
                .map(|(k, v)| Param {
                    key: k.to_string(),
                    value: v,
                }),
        );
        let mut back = KeyObj::new(KeyType::Pss(None));
        assert!(import(&mut back, SELECT_KEYPAIR | SELECT_OTHER, &all));
        assert_eq!(back.kind, obj.kind);
        let mut bare = KeyObj::new(KeyType::Pss(None));
        assert!(import(&mut bare, SELECT_KEYPAIR, &all));
        assert_eq!(bare.kind, KeyType::Pss(None));
        assert!(export_other(&obj, SELECT_KEYPAIR).is_empty());
        // A plain RSA object ignores the restriction parameters.
        let mut rsa = KeyObj::new(KeyType::Rsa);
        assert!(import(&mut rsa, SELECT_KEYPAIR | SELECT_OTHER, &all));
        assert_eq!(rsa.kind, KeyType::Rsa);
        // dup keeps the restriction whatever the selection.
        assert_eq!(dup(&obj, SELECT_PUBLIC).kind, obj.kind);
    }

    #[test]
    fn security_bits_are_openssls() {
        // NIST's values (SP 800-56B rev. 2 appendix D, FIPS 140-2 IG 7.5),
        // then what OpenSSL 3.0.19's default provider answered for keys of
        // other sizes (EVP_PKEY_get_security_bits on `openssl genpkey` keys).
        for (bits, strength) in [
            (2048, 112),
            (3072, 128),
            (4096, 152),
            (6144, 176),
            (7680, 192),
            (8192, 200),
            (15360, 256),
            (1536, 96),
            (3000, 128),
        ] {
            assert_eq!(security_bits(bits), strength, "{bits} bits");
        }
    }
}
