//! RSA-PSS keys: the "RSA-PSS" key type (OID 1.2.840.113549.1.1.10,
//! RFC 4055 section 3.1) and its optional parameter restrictions, as
//! OpenSSL 3 keeps them (`RSA_PSS_PARAMS_30`).
//!
//! An RSA-PSS key signs with PSS only. A *restricted* one also fixes the
//! message hash and the MGF1 hash and sets a minimum salt length; its
//! SubjectPublicKeyInfo carries RSASSA-PSS-params (RFC 8017 appendix
//! A.2.3) whose absent fields take the ASN.1 defaults: SHA-1, MGF1 with
//! SHA-1, 20 bytes of salt. OpenSSL passes the restrictions between
//! providers as key parameters: "digest" and "mgf1-digest" (names, sent
//! only when not SHA-1), "mgf" (only "MGF1" exists) and "saltlen" (always
//! sent for a restricted key, so that a key with every field at its
//! default still reads as restricted).
//!
//! Everything here is public data.

use crate::params::{Param, Value, find, md_name, parse_md};
use redc::hash::HashAlg;

/// A restriction parameter OpenSSL would refuse (see [`Restriction::apply`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadRestriction;

impl core::fmt::Display for BadRestriction {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("unsupported RSA-PSS parameter restriction")
    }
}

impl std::error::Error for BadRestriction {}

/// The restrictions of a restricted RSA-PSS key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Restriction {
    /// The only message hash the key signs with.
    pub md: HashAlg,
    /// The only MGF1 hash.
    pub mgf1: HashAlg,
    /// The smallest salt, in bytes.
    pub min_salt: usize,
}

impl Restriction {
    /// RSASSA-PSS-params with every field at its default.
    pub const DEFAULTS: Restriction = Restriction {
        md: HashAlg::Sha1,
        mgf1: HashAlg::Sha1,
        min_salt: 20,
    };

    /// The hashes RSASSA-PSS-params may name, as OpenSSL 3.0 accepts them
    /// in restrictions: SHA-1 and SHA-2 (no SHA-3).
    fn allowed(h: HashAlg) -> bool {
        !matches!(
            h,
            HashAlg::Sha3_224 | HashAlg::Sha3_256 | HashAlg::Sha3_384 | HashAlg::Sha3_512
        )
    }

    /// Apply the restriction parameters among `params` to `current`
    /// (`None`: the key is unrestricted so far). Any one of them makes the
    /// key restricted, starting from [`Restriction::DEFAULTS`]. An error for
    /// a value OpenSSL would refuse: an unknown or SHA-3 hash, a mask
    /// generation function other than MGF1, a negative salt length.
    pub fn apply(
        current: Option<Restriction>,
        params: &[Param],
    ) -> Result<Option<Restriction>, BadRestriction> {
        let (md, mgf, mgf1, salt) = (
            find(params, "digest"),
            find(params, "mgf"),
            find(params, "mgf1-digest"),
            find(params, "saltlen"),
        );
        if md.is_none() && mgf.is_none() && mgf1.is_none() && salt.is_none() {
            return Ok(current);
        }
        let mut r = current.unwrap_or(Restriction::DEFAULTS);
        let hash = |v: &Value| -> Result<HashAlg, BadRestriction> {
            v.as_str()
                .and_then(parse_md)
                .filter(|&h| Restriction::allowed(h))
                .ok_or(BadRestriction)
        };
        if let Some(v) = mgf
            && !v.as_str().is_some_and(|s| s.eq_ignore_ascii_case("MGF1"))
        {
            return Err(BadRestriction);
        }
        if let Some(v) = md {
            r.md = hash(v)?;
        }
        if let Some(v) = mgf1 {
            r.mgf1 = hash(v)?;
        }
        if let Some(v) = salt {
            r.min_salt = v
                .as_int()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or(BadRestriction)?;
        }
        Ok(Some(r))
    }

    /// The parameters OpenSSL's own export of this restriction holds:
    /// "digest" and "mgf1-digest" when not SHA-1, "saltlen" always.
    pub fn to_params(self) -> Vec<(&'static str, Value)> {
        let mut out = Vec::new();
        if self.md != HashAlg::Sha1 {
            out.push(("digest", Value::Utf8(md_name(self.md).into())));
        }
        if self.mgf1 != HashAlg::Sha1 {
            out.push(("mgf1-digest", Value::Utf8(md_name(self.mgf1).into())));
        }
        out.push(("saltlen", Value::Int(self.min_salt as i64)));
        out
    }
}

/// What kind of key an object of the provider holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    /// "RSA" (rsaEncryption): every padding, signatures and encryption.
    Rsa,
    /// "RSA-PSS" (id-RSASSA-PSS): PSS signatures only, within the
    /// restriction if there is one.
    Pss(Option<Restriction>),
}

impl KeyType {
    /// The restriction of a restricted RSA-PSS key.
    pub fn restriction(self) -> Option<Restriction> {
        match self {
            KeyType::Pss(r) => r,
            KeyType::Rsa => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(key: &str, value: Value) -> Param {
        Param {
            key: key.into(),
            value,
        }
    }

    #[test]
    fn any_parameter_restricts_from_the_asn1_defaults() {
        assert_eq!(Restriction::apply(None, &[]), Ok(None));
        let salt_only = Restriction::apply(None, &[p("saltlen", Value::Int(20))]).unwrap();
        assert_eq!(salt_only, Some(Restriction::DEFAULTS));
        let r = Restriction::apply(
            None,
            &[
                p("digest", Value::Utf8("SHA2-256".into())),
                p("saltlen", Value::Int(32)),
            ],
        )
        .unwrap()
        .unwrap();
        // The MGF1 hash stays SHA-1 unless it is named, as in OpenSSL 3.0.
        assert_eq!((r.md, r.mgf1, r.min_salt), (HashAlg::Sha256, HashAlg::Sha1, 32));
        // Round trip through the exported form.
        let back: Vec<Param> = r.to_params().into_iter().map(|(k, v)| p(k, v)).collect();
        assert_eq!(Restriction::apply(None, &back), Ok(Some(r)));
    }

    #[test]
    fn refused_values() {
        for bad in [
            p("digest", Value::Utf8("SHA3-256".into())),
            p("digest", Value::Utf8("MD5".into())),
            p("mgf", Value::Utf8("MGF2".into())),
            p("saltlen", Value::Int(-1)),
        ] {
            assert_eq!(
                Restriction::apply(None, std::slice::from_ref(&bad)),
                Err(BadRestriction),
                "{bad:?}"
            );
        }
    }
}
