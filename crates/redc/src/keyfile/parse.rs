//! One DER structure to key components: PKCS#8 `PrivateKeyInfo`, PKCS#1
//! `RSAPrivateKey` and `RSAPublicKey`, SPKI `SubjectPublicKeyInfo`, and
//! the algorithm identifier inside (`rsaEncryption` or `id-RSASSA-PSS`;
//! any other algorithm is refused by name). Every failure is
//! [`KeyFileError::Malformed`] or a more precise refusal.

use core::fmt;

use der::Decode;
use der::asn1::UintRef;
use pkcs8::PrivateKeyInfoRef;
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

use super::components::{check_private, check_public};
use super::diagnose::{PRIVATE_FIELDS, PUBLIC_FIELDS, field_at_fault};
use super::formats::{RSA_ENCRYPTION, RSASSA_PSS};
use super::{KeyAlgorithm, KeyFileError, RsaPrivateComponents, RsaPublicComponents, pss};

fn malformed(e: impl fmt::Display) -> KeyFileError {
    KeyFileError::Malformed(e.to_string())
}

/// `rsaEncryption` or `id-RSASSA-PSS` (with its parameters); refuse
/// anything else, naming what it is.
pub(super) fn key_algorithm(alg: &AlgorithmIdentifierRef<'_>) -> Result<KeyAlgorithm, KeyFileError> {
    let oid = alg.oid;
    if oid == RSA_ENCRYPTION {
        return Ok(KeyAlgorithm::Rsa);
    }
    if oid == RSASSA_PSS {
        return Ok(KeyAlgorithm::RsaPss(pss::parse_params(alg.parameters)?));
    }
    let name = match oid.to_string().as_str() {
        "1.2.840.10045.2.1" => ", EC",
        "1.3.101.110" => ", X25519",
        "1.3.101.111" => ", X448",
        "1.3.101.112" => ", Ed25519",
        "1.3.101.113" => ", Ed448",
        "1.2.840.10040.4.1" => ", DSA",
        "1.2.840.113549.1.3.1" | "1.2.840.10046.2.1" => ", DH",
        "1.2.156.10197.1.301" => ", SM2",
        _ => "",
    };
    Err(KeyFileError::NotRsa(format!("algorithm {oid}{name}")))
}

pub(super) fn parse_pkcs8(der: &[u8]) -> Result<(RsaPrivateComponents, KeyAlgorithm), KeyFileError> {
    let info = PrivateKeyInfoRef::from_der(der).map_err(malformed)?;
    let alg = key_algorithm(&info.algorithm)?;
    Ok((parse_pkcs1_private(info.private_key.as_bytes())?, alg))
}

pub(crate) fn parse_pkcs1_private(der: &[u8]) -> Result<RsaPrivateComponents, KeyFileError> {
    let key = pkcs1::RsaPrivateKeyRef::from_der(der)
        .map_err(|e| malformed(field_at_fault(der, &PRIVATE_FIELDS).unwrap_or_else(|| e.to_string())))?;
    if key.other_prime_infos.is_some() {
        return Err(KeyFileError::MultiPrime);
    }
    let secret = |u: &UintRef<'_>| Zeroizing::new(u.as_bytes().to_vec());
    let c = RsaPrivateComponents {
        n: key.modulus.as_bytes().to_vec(),
        e: key.public_exponent.as_bytes().to_vec(),
        d: secret(&key.private_exponent),
        p: secret(&key.prime1),
        q: secret(&key.prime2),
        dp: secret(&key.exponent1),
        dq: secret(&key.exponent2),
        qinv: secret(&key.coefficient),
    };
    check_private(&c).map_err(|e| match e {
        KeyFileError::InvalidComponent(name) => malformed(format_args!("component {name} is zero")),
        other => other,
    })?;
    Ok(c)
}

pub(super) fn parse_spki(der: &[u8]) -> Result<(RsaPublicComponents, KeyAlgorithm), KeyFileError> {
    let info = SubjectPublicKeyInfoRef::from_der(der).map_err(malformed)?;
    let alg = key_algorithm(&info.algorithm)?;
    let bits = info
        .subject_public_key
        .as_bytes()
        .ok_or_else(|| malformed("public key bit string has unused bits"))?;
    Ok((parse_pkcs1_public(bits)?, alg))
}

pub(crate) fn parse_pkcs1_public(der: &[u8]) -> Result<RsaPublicComponents, KeyFileError> {
    let key = pkcs1::RsaPublicKeyRef::from_der(der)
        .map_err(|e| malformed(field_at_fault(der, &PUBLIC_FIELDS).unwrap_or_else(|| e.to_string())))?;
    let c = RsaPublicComponents {
        n: key.modulus.as_bytes().to_vec(),
        e: key.public_exponent.as_bytes().to_vec(),
    };
    check_public(&c).map_err(|e| match e {
        KeyFileError::InvalidComponent(name) => malformed(format_args!("component {name} is zero")),
        other => other,
    })?;
    Ok(c)
}
