//! Writing a key file: the public `encode_*` functions, plain or encrypted,
//! producing what OpenSSL 3 writes for the same key byte for byte (PEM with
//! 64-column base64 and LF line endings). Private output is zeroized on drop.

use core::fmt;

use der::asn1::{AnyRef, BitStringRef, OctetStringRef, UintRef};
use der::pem::LineEnding;
use der::{Decode, Document, SecretDocument};
use pkcs8::PrivateKeyInfoRef;
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

use super::components::{check_private, check_public};
use super::formats::{
    LABEL_ENCRYPTED, LABEL_PKCS1_PRIVATE, LABEL_PKCS1_PSS_PRIVATE, LABEL_PKCS1_PUBLIC, LABEL_PKCS8,
    LABEL_SPKI, RSA_ENCRYPTION, RSASSA_PSS,
};
use super::{
    Encoding, KeyAlgorithm, KeyCipher, KeyFileError, KeyKdf, PrivateKeyFormat, PublicKeyFormat,
    RsaPrivateComponents, RsaPublicComponents, encrypted, pss,
};

fn uint(bytes: &[u8]) -> Result<UintRef<'_>, KeyFileError> {
    UintRef::new(bytes).map_err(|e| KeyFileError::Encode(e.to_string()))
}

fn encode_err(e: impl fmt::Display) -> KeyFileError {
    KeyFileError::Encode(e.to_string())
}

/// PKCS#1 `RSAPrivateKey` DER, in memory that is zeroized.
fn pkcs1_private_der(c: &RsaPrivateComponents) -> Result<SecretDocument, KeyFileError> {
    check_private(c)?;
    let key = pkcs1::RsaPrivateKeyRef {
        modulus: uint(&c.n)?,
        public_exponent: uint(&c.e)?,
        private_exponent: uint(&c.d)?,
        prime1: uint(&c.p)?,
        prime2: uint(&c.q)?,
        exponent1: uint(&c.dp)?,
        exponent2: uint(&c.dq)?,
        coefficient: uint(&c.qinv)?,
        other_prime_infos: None,
    };
    SecretDocument::encode_msg(&key).map_err(encode_err)
}

fn pkcs1_public_der(c: &RsaPublicComponents) -> Result<Document, KeyFileError> {
    check_public(c)?;
    let key = pkcs1::RsaPublicKeyRef {
        modulus: uint(&c.n)?,
        public_exponent: uint(&c.e)?,
    };
    Document::encode_msg(&key).map_err(encode_err)
}

/// `rsaEncryption` with NULL parameters, as OpenSSL writes it.
fn rsa_algorithm() -> AlgorithmIdentifierRef<'static> {
    AlgorithmIdentifierRef {
        oid: RSA_ENCRYPTION,
        parameters: Some(AnyRef::NULL),
    }
}

/// The DER of `RSASSA-PSS-params`, when the key has them.
fn algorithm_params(alg: KeyAlgorithm) -> Result<Option<Vec<u8>>, KeyFileError> {
    match alg {
        KeyAlgorithm::RsaPss(Some(p)) => pss::encode_params(&p).map(Some),
        _ => Ok(None),
    }
}

/// The algorithm identifier of `alg`, its parameters' DER in `params`.
fn algorithm_identifier<'a>(
    alg: KeyAlgorithm,
    params: &'a Option<Vec<u8>>,
) -> Result<AlgorithmIdentifierRef<'a>, KeyFileError> {
    Ok(match alg {
        KeyAlgorithm::Rsa => rsa_algorithm(),
        KeyAlgorithm::RsaPss(_) => AlgorithmIdentifierRef {
            oid: RSASSA_PSS,
            parameters: match params {
                Some(der) => Some(AnyRef::from_der(der).map_err(encode_err)?),
                None => None,
            },
        },
    })
}

/// Write a private key as PKCS#8 (`PRIVATE KEY`, what `openssl genpkey` and
/// `openssl pkey` write) or PKCS#1 (`RSA PRIVATE KEY`, `openssl rsa
/// -traditional`), PEM (LF line endings) or DER. The output is zeroized on
/// drop.
///
/// Errors: a zero or empty component.
///
/// ```
/// use redc::keyfile::*;
/// use zeroize::Zeroizing;
/// let z = |v: &[u8]| Zeroizing::new(v.to_vec());
/// // The toy key n = 61 * 53 = 3233, e = 17, d = 413 (lcm form).
/// let key = RsaPrivateComponents {
///     n: vec![0x0c, 0xa1], e: vec![17], d: z(&[0x01, 0x9d]), p: z(&[61]), q: z(&[53]),
///     dp: z(&[53]), dq: z(&[49]), qinv: z(&[38]),
/// };
/// let pem = encode_private_key(&key, PrivateKeyFormat::Pkcs1, Encoding::Pem).unwrap();
/// assert!(pem.starts_with(b"-----BEGIN RSA PRIVATE KEY-----\n"));
/// let back = decode_private_key(&pem).unwrap();
/// assert_eq!(*back.d, *key.d);
/// ```
pub fn encode_private_key(
    c: &RsaPrivateComponents,
    format: PrivateKeyFormat,
    encoding: Encoding,
) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
    encode_private_key_info(c, KeyAlgorithm::Rsa, format, encoding)
}

/// [`encode_private_key`] of a key for `alg`: an RSA-PSS key is PKCS#8 with
/// `id-RSASSA-PSS` (and its parameters), as `openssl genpkey -algorithm
/// RSA-PSS` writes it, or, without parameters, PKCS#1 under `RSA-PSS
/// PRIVATE KEY` as `openssl rsa -traditional` writes it.
///
/// Errors: PKCS#1 for an RSA-PSS key with parameters (it has no place for
/// them), a salt length above 255, a zero component.
pub fn encode_private_key_info(
    c: &RsaPrivateComponents,
    alg: KeyAlgorithm,
    format: PrivateKeyFormat,
    encoding: Encoding,
) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
    crate::scrub::scrubbed_setup(|| encode_private_key_info_in(c, alg, format, encoding))
}

/// [`encode_private_key_info`] inside the caller's stack scrub.
fn encode_private_key_info_in(
    c: &RsaPrivateComponents,
    alg: KeyAlgorithm,
    format: PrivateKeyFormat,
    encoding: Encoding,
) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
    let pkcs1 = pkcs1_private_der(c)?;
    let (doc, label) = match format {
        PrivateKeyFormat::Pkcs1 => match alg {
            KeyAlgorithm::Rsa => (pkcs1, LABEL_PKCS1_PRIVATE),
            KeyAlgorithm::RsaPss(None) => (pkcs1, LABEL_PKCS1_PSS_PRIVATE),
            KeyAlgorithm::RsaPss(Some(_)) => {
                return Err(KeyFileError::Encode(
                    "PKCS#1 cannot hold RSA-PSS parameters; use PKCS#8".into(),
                ));
            }
        },
        PrivateKeyFormat::Pkcs8 => {
            let key = OctetStringRef::new(pkcs1.as_bytes()).map_err(encode_err)?;
            let params = algorithm_params(alg)?;
            let info = PrivateKeyInfoRef::new(algorithm_identifier(alg, &params)?, key);
            (
                SecretDocument::encode_msg(&info).map_err(encode_err)?,
                LABEL_PKCS8,
            )
        }
    };
    match encoding {
        Encoding::Der => Ok(doc.to_bytes()),
        Encoding::Pem if label == LABEL_PKCS1_PSS_PRIVATE => {
            // The `der` encoder refuses the hyphen (RFC 7468); OpenSSL writes it.
            let pem = doc
                .to_pem(LABEL_PKCS1_PRIVATE, LineEnding::LF)
                .map_err(encode_err)?;
            Ok(Zeroizing::new(
                pem.replace(LABEL_PKCS1_PRIVATE, LABEL_PKCS1_PSS_PRIVATE)
                    .into_bytes(),
            ))
        }
        Encoding::Pem => {
            let pem = doc.to_pem(label, LineEnding::LF).map_err(encode_err)?;
            Ok(Zeroizing::new(pem.as_bytes().to_vec()))
        }
    }
}

/// Write a public key as SPKI (`PUBLIC KEY`, `openssl pkey -pubout`) or
/// PKCS#1 (`RSA PUBLIC KEY`, `openssl rsa -RSAPublicKey_out`), PEM (LF line
/// endings) or DER.
///
/// Errors: a zero or empty component.
///
/// ```
/// use redc::keyfile::*;
/// let key = RsaPublicComponents { n: vec![0x0c, 0xa1], e: vec![17] };
/// let der = encode_public_key(&key, PublicKeyFormat::Pkcs1, Encoding::Der).unwrap();
/// assert_eq!(der, [0x30, 0x07, 0x02, 0x02, 0x0c, 0xa1, 0x02, 0x01, 0x11]);
/// ```
pub fn encode_public_key(
    c: &RsaPublicComponents,
    format: PublicKeyFormat,
    encoding: Encoding,
) -> Result<Vec<u8>, KeyFileError> {
    encode_public_key_info(c, KeyAlgorithm::Rsa, format, encoding)
}

/// [`encode_public_key`] of a key for `alg`: SPKI keeps an RSA-PSS key's
/// identifier and parameters, as `openssl pkey -pubout` does; PKCS#1 has
/// no place for them and writes the bare numbers.
pub fn encode_public_key_info(
    c: &RsaPublicComponents,
    alg: KeyAlgorithm,
    format: PublicKeyFormat,
    encoding: Encoding,
) -> Result<Vec<u8>, KeyFileError> {
    let pkcs1 = pkcs1_public_der(c)?;
    let params = algorithm_params(alg)?;
    let (doc, label) = match format {
        PublicKeyFormat::Pkcs1 => (pkcs1, LABEL_PKCS1_PUBLIC),
        PublicKeyFormat::Spki => {
            let bits = BitStringRef::from_bytes(pkcs1.as_bytes()).map_err(encode_err)?;
            let info = SubjectPublicKeyInfoRef {
                algorithm: algorithm_identifier(alg, &params)?,
                subject_public_key: bits,
            };
            (Document::encode_msg(&info).map_err(encode_err)?, LABEL_SPKI)
        }
    };
    match encoding {
        Encoding::Der => Ok(doc.into_vec()),
        Encoding::Pem => Ok(doc
            .to_pem(label, LineEnding::LF)
            .map_err(encode_err)?
            .into_bytes()),
    }
}

/// Write a private key encrypted with `pass`: PKCS#8 as
/// `EncryptedPrivateKeyInfo` (PBES2 with `kdf` and `cipher`; PEM label
/// `ENCRYPTED PRIVATE KEY`, or DER), as `openssl pkey -aes256` writes; or
/// PKCS#1 as the legacy encrypted PEM (`Proc-Type: 4,ENCRYPTED`, key from
/// MD5 `EVP_BytesToKey`), as `openssl rsa -traditional -aes128` writes.
/// Salt and IV come from `rng`. The output is zeroized on drop.
///
/// Errors: PKCS#1 in DER (which has no encrypted form), an empty passphrase,
/// a zero component, bad scrypt parameters.
pub fn encode_private_key_encrypted<R: rand_core::TryCryptoRng + ?Sized>(
    c: &RsaPrivateComponents,
    format: PrivateKeyFormat,
    encoding: Encoding,
    pass: &[u8],
    cipher: KeyCipher,
    kdf: KeyKdf,
    rng: &mut R,
) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
    encode_private_key_encrypted_info(c, KeyAlgorithm::Rsa, format, encoding, pass, cipher, kdf, rng)
}

/// [`encode_private_key_encrypted`] of a key for `alg` (see
/// [`encode_private_key_info`]).
#[allow(clippy::too_many_arguments)]
pub fn encode_private_key_encrypted_info<R: rand_core::TryCryptoRng + ?Sized>(
    c: &RsaPrivateComponents,
    alg: KeyAlgorithm,
    format: PrivateKeyFormat,
    encoding: Encoding,
    pass: &[u8],
    cipher: KeyCipher,
    kdf: KeyKdf,
    rng: &mut R,
) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
    crate::scrub::scrubbed_setup(|| {
        if pass.is_empty() {
            return Err(KeyFileError::Encode("empty passphrase".into()));
        }
        match format {
            PrivateKeyFormat::Pkcs1 => {
                if encoding == Encoding::Der {
                    return Err(KeyFileError::Encode(
                        "a PKCS#1 key has no encrypted DER form; use PKCS#8".into(),
                    ));
                }
                let label = match alg {
                    KeyAlgorithm::Rsa => LABEL_PKCS1_PRIVATE,
                    KeyAlgorithm::RsaPss(None) => LABEL_PKCS1_PSS_PRIVATE,
                    KeyAlgorithm::RsaPss(Some(_)) => {
                        return Err(KeyFileError::Encode(
                            "PKCS#1 cannot hold RSA-PSS parameters; use PKCS#8".into(),
                        ));
                    }
                };
                let der = pkcs1_private_der(c)?;
                encrypted::encrypt_legacy(der.as_bytes(), label, pass, cipher, rng)
            }
            PrivateKeyFormat::Pkcs8 => {
                let plain = encode_private_key_info(c, alg, PrivateKeyFormat::Pkcs8, Encoding::Der)?;
                let doc = encrypted::encrypt_pkcs8(&plain, pass, cipher, kdf, rng)?;
                match encoding {
                    Encoding::Der => Ok(doc.to_bytes()),
                    Encoding::Pem => {
                        let pem = doc.to_pem(LABEL_ENCRYPTED, LineEnding::LF).map_err(encode_err)?;
                        Ok(Zeroizing::new(pem.as_bytes().to_vec()))
                    }
                }
            }
        }
    })
}
