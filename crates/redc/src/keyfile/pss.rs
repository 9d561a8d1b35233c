//! RSA-PSS keys: the `id-RSASSA-PSS` algorithm identifier (RFC 4055 §3.1,
//! RFC 8017 App. A.2.3) with or without `RSASSA-PSS-params`, read and
//! written through `pkcs1::RsaPssParams`.

use der::asn1::AnyRef;
use der::{Decode, Encode};
use pkcs1::{RsaPssParamsRef, TrailerField};
use spki::{AlgorithmIdentifierRef, ObjectIdentifier};

use super::KeyFileError;
use crate::hash::HashAlg;

/// `id-mgf1` (RFC 8017 App. B.2.1).
const ID_MGF1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.8");

/// The restrictions an RSA-PSS key names (RFC 4055 §3.1): the hash, the
/// MGF1 hash and the minimum salt length of its signatures.
///
/// ```
/// use redc::{hash::HashAlg, keyfile::PssParams};
/// // RFC 4055's defaults: SHA-1, MGF1 with SHA-1, 20 bytes of salt.
/// assert_eq!(PssParams::default(), PssParams { hash: HashAlg::Sha1, mgf1_hash: HashAlg::Sha1, salt_len: 20 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PssParams {
    /// The only hash the key signs with.
    pub hash: HashAlg,
    /// The only MGF1 hash the key signs with.
    pub mgf1_hash: HashAlg,
    /// The minimum salt length in bytes.
    pub salt_len: usize,
}

impl Default for PssParams {
    fn default() -> Self {
        PssParams {
            hash: HashAlg::Sha1,
            mgf1_hash: HashAlg::Sha1,
            salt_len: 20,
        }
    }
}

/// What a key file says its key is for.
///
/// ```
/// use redc::keyfile::KeyAlgorithm;
/// assert_eq!(KeyAlgorithm::Rsa.name(), "RSA");
/// assert_eq!(KeyAlgorithm::RsaPss(None).name(), "RSA-PSS");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KeyAlgorithm {
    /// `rsaEncryption`: any scheme.
    #[default]
    Rsa,
    /// `id-RSASSA-PSS`: PSS signatures only, restricted further when the
    /// key has parameters.
    RsaPss(Option<PssParams>),
}

impl KeyAlgorithm {
    /// `RSA` or `RSA-PSS`, as OpenSSL names the key types.
    pub fn name(self) -> &'static str {
        match self {
            KeyAlgorithm::Rsa => "RSA",
            KeyAlgorithm::RsaPss(_) => "RSA-PSS",
        }
    }
}

/// The OID of a hash (NIST CSOR, RFC 8017 App. A.2.4).
pub fn hash_oid(hash: HashAlg) -> ObjectIdentifier {
    let s = match hash {
        HashAlg::Sha1 => "1.3.14.3.2.26",
        HashAlg::Sha256 => "2.16.840.1.101.3.4.2.1",
        HashAlg::Sha384 => "2.16.840.1.101.3.4.2.2",
        HashAlg::Sha512 => "2.16.840.1.101.3.4.2.3",
        HashAlg::Sha224 => "2.16.840.1.101.3.4.2.4",
        HashAlg::Sha512_224 => "2.16.840.1.101.3.4.2.5",
        HashAlg::Sha512_256 => "2.16.840.1.101.3.4.2.6",
        HashAlg::Sha3_224 => "2.16.840.1.101.3.4.2.7",
        HashAlg::Sha3_256 => "2.16.840.1.101.3.4.2.8",
        HashAlg::Sha3_384 => "2.16.840.1.101.3.4.2.9",
        HashAlg::Sha3_512 => "2.16.840.1.101.3.4.2.10",
    };
    ObjectIdentifier::new_unwrap(s)
}

fn hash_from_oid(oid: ObjectIdentifier) -> Result<HashAlg, KeyFileError> {
    HashAlg::ALL
        .into_iter()
        .find(|h| hash_oid(*h) == oid)
        .ok_or_else(|| KeyFileError::Malformed(format!("RSA-PSS parameters: unsupported hash {oid}")))
}

/// The restrictions of an `id-RSASSA-PSS` identifier's parameters (`None`:
/// absent, an unrestricted PSS key).
pub(super) fn parse_params(params: Option<AnyRef<'_>>) -> Result<Option<PssParams>, KeyFileError> {
    let Some(any) = params else {
        return Ok(None);
    };
    let bad = |e: der::Error| KeyFileError::Malformed(format!("RSA-PSS parameters: {e}"));
    let der = any.to_der().map_err(bad)?;
    let p = pkcs1::RsaPssParamsOwned::from_der(&der).map_err(bad)?;
    let hash = hash_from_oid(p.hash.oid)?;
    if p.mask_gen.oid != ID_MGF1 {
        return Err(KeyFileError::Malformed(format!(
            "RSA-PSS parameters: unsupported mask generation function {}",
            p.mask_gen.oid
        )));
    }
    let mgf1_hash = match p.mask_gen.parameters {
        Some(alg) => hash_from_oid(alg.oid)?,
        None => HashAlg::Sha1,
    };
    if p.trailer_field != TrailerField::BC {
        return Err(KeyFileError::Malformed(
            "RSA-PSS parameters: trailer field is not 1".into(),
        ));
    }
    Ok(Some(PssParams {
        hash,
        mgf1_hash,
        salt_len: usize::from(p.salt_len),
    }))
}

/// The DER of `RSASSA-PSS-params` for `params` (hash identifiers with NULL
/// parameters, as OpenSSL writes them).
pub(super) fn encode_params(params: &PssParams) -> Result<Vec<u8>, KeyFileError> {
    let salt_len = u8::try_from(params.salt_len)
        .map_err(|_| KeyFileError::Encode(format!("PSS salt length {} above 255", params.salt_len)))?;
    let p = RsaPssParamsRef {
        hash: AlgorithmIdentifierRef {
            oid: hash_oid(params.hash),
            parameters: Some(AnyRef::NULL),
        },
        mask_gen: spki::AlgorithmIdentifier {
            oid: ID_MGF1,
            parameters: Some(AlgorithmIdentifierRef {
                oid: hash_oid(params.mgf1_hash),
                parameters: Some(AnyRef::NULL),
            }),
        },
        salt_len,
        trailer_field: TrailerField::BC,
    };
    p.to_der().map_err(|e| KeyFileError::Encode(e.to_string()))
}
