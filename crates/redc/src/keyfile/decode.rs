//! Reading a key file: the public `decode_*` functions, and the detection
//! of what the input is (PEM or DER; PKCS#8, PKCS#1, SPKI, encrypted
//! PKCS#8 or legacy encrypted PEM), as `openssl pkey` detects it. Only the
//! first PEM block counts; its label picks the parser, and the content
//! decides when the label does not match it.

use der::asn1::OctetStringRef;
use der::{Decode, Reader, SliceReader};
use pkcs8::PrivateKeyInfoRef;
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

use super::diagnose::describe_der_failure;
use super::formats::{
    LABEL_ENCRYPTED, LABEL_PKCS1_PRIVATE, LABEL_PKCS1_PSS_PRIVATE, LABEL_PKCS1_PUBLIC, LABEL_PKCS8,
    LABEL_SPKI,
};
use super::parse::{parse_pkcs1_private, parse_pkcs1_public, parse_pkcs8, parse_spki};
use super::{
    KeyAlgorithm, KeyFileError, RsaPrivateComponents, RsaPublicComponents, encrypted, quote_untrusted,
};

/// A key read from a file: private or only public.
enum Decoded {
    Private(RsaPrivateComponents, KeyAlgorithm),
    Public(RsaPublicComponents, KeyAlgorithm),
}

/// Refuse an RSA-PSS key where only plain RSA keys are expected.
fn plain_rsa<T>((key, alg): (T, KeyAlgorithm)) -> Result<T, KeyFileError> {
    match alg {
        KeyAlgorithm::Rsa => Ok(key),
        KeyAlgorithm::RsaPss(_) => Err(KeyFileError::RsaPssRestricted),
    }
}

/// Read a private key with what its file says it is for: plain RSA, or
/// RSA-PSS (`id-RSASSA-PSS` in PKCS#8, with or without parameters, or the
/// `RSA-PSS PRIVATE KEY` label of `openssl rsa -traditional`). Encrypted
/// keys are read with `pass` as in [`decode_private_key_with_passphrase`].
///
/// ```
/// use redc::{hash::HashAlg, keyfile::*};
/// use zeroize::Zeroizing;
/// let z = |v: &[u8]| Zeroizing::new(v.to_vec());
/// let key = RsaPrivateComponents {
///     n: vec![0x0c, 0xa1], e: vec![17], d: z(&[0x01, 0x9d]), p: z(&[61]), q: z(&[53]),
///     dp: z(&[53]), dq: z(&[49]), qinv: z(&[38]),
/// };
/// let pss = KeyAlgorithm::RsaPss(Some(PssParams { hash: HashAlg::Sha256, mgf1_hash: HashAlg::Sha256, salt_len: 32 }));
/// let der = encode_private_key_info(&key, pss, PrivateKeyFormat::Pkcs8, Encoding::Der).unwrap();
/// let (back, alg) = decode_private_key_info(&der, None).unwrap();
/// assert_eq!((back.n, alg), (key.n.clone(), pss));
/// // The plain-RSA readers refuse it.
/// assert_eq!(decode_private_key(&der).unwrap_err(), KeyFileError::RsaPssRestricted);
/// ```
pub fn decode_private_key_info(
    input: &[u8],
    pass: Option<&[u8]>,
) -> Result<(RsaPrivateComponents, KeyAlgorithm), KeyFileError> {
    match decode_any(input, pass)? {
        Decoded::Private(k, alg) => Ok((k, alg)),
        Decoded::Public(..) => Err(KeyFileError::PublicKeyOnly),
    }
}

/// Read a public key (or a private key's public half) with what its file
/// says it is for, as [`decode_private_key_info`].
pub fn decode_public_key_info(
    input: &[u8],
    pass: Option<&[u8]>,
) -> Result<(RsaPublicComponents, KeyAlgorithm), KeyFileError> {
    match decode_any(input, pass)? {
        Decoded::Private(k, alg) => Ok((k.public(), alg)),
        Decoded::Public(k, alg) => Ok((k, alg)),
    }
}

/// Read a private key: PKCS#8 (`PRIVATE KEY`) or PKCS#1 (`RSA PRIVATE
/// KEY`), PEM or DER, detected from the input.
///
/// Errors say what the input is when it is not usable: not a key at all,
/// an encrypted key, another algorithm (`not an RSA key (algorithm
/// 1.2.840.10045.2.1, EC)`), an RSA-PSS-restricted or multi-prime key, a
/// public key, malformed or truncated data.
///
/// ```
/// use redc::keyfile::{KeyFileError, decode_private_key};
/// assert_eq!(decode_private_key(b"").unwrap_err(), KeyFileError::NotAKey);
/// let e = decode_private_key(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
/// assert!(matches!(e, Err(KeyFileError::UnsupportedPemLabel(_))));
/// ```
pub fn decode_private_key(input: &[u8]) -> Result<RsaPrivateComponents, KeyFileError> {
    decode_private_key_with_passphrase(input, None)
}

/// [`decode_private_key`] that also reads encrypted keys, with `pass`:
/// PKCS#8 `ENCRYPTED PRIVATE KEY` (PBES2 with PBKDF2 or scrypt and AES-CBC
/// or DES-EDE3-CBC; `pbeWithSHAAnd3-KeyTripleDES-CBC`) in PEM or DER, and
/// the legacy OpenSSL PEM (`Proc-Type: 4,ENCRYPTED`, `DEK-Info:
/// AES-128-CBC` ... `DES-EDE3-CBC`). An unencrypted key is read as it is.
///
/// Errors: [`KeyFileError::Encrypted`] when the key is encrypted and `pass`
/// is `None`; [`KeyFileError::BadPassphrase`] when it does not decrypt.
///
/// ```
/// use redc::keyfile::*;
/// use zeroize::Zeroizing;
/// let z = |v: &[u8]| Zeroizing::new(v.to_vec());
/// let key = RsaPrivateComponents {
///     n: vec![0x0c, 0xa1], e: vec![17], d: z(&[0x01, 0x9d]), p: z(&[61]), q: z(&[53]),
///     dp: z(&[53]), dq: z(&[49]), qinv: z(&[38]),
/// };
/// let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
/// let kdf = KeyKdf::Pbkdf2Sha256 { iterations: 10 };
/// let pem = encode_private_key_encrypted(&key, PrivateKeyFormat::Pkcs8, Encoding::Pem,
///     b"secret", KeyCipher::Aes256Cbc, kdf, &mut rng).unwrap();
/// assert!(pem.starts_with(b"-----BEGIN ENCRYPTED PRIVATE KEY-----\n"));
/// assert_eq!(decode_private_key(&pem).unwrap_err(), KeyFileError::Encrypted);
/// let wrong = decode_private_key_with_passphrase(&pem, Some(b"wrong"));
/// assert_eq!(wrong.unwrap_err(), KeyFileError::BadPassphrase);
/// let back = decode_private_key_with_passphrase(&pem, Some(b"secret")).unwrap();
/// assert_eq!(*back.d, *key.d);
/// ```
pub fn decode_private_key_with_passphrase(
    input: &[u8],
    pass: Option<&[u8]>,
) -> Result<RsaPrivateComponents, KeyFileError> {
    plain_rsa(decode_private_key_info(input, pass)?)
}

/// Read a public key: SPKI (`PUBLIC KEY`) or PKCS#1 (`RSA PUBLIC KEY`), PEM
/// or DER; any private key file [`decode_private_key`] reads is accepted
/// too, and gives its public half.
///
/// ```
/// use redc::keyfile::{KeyFileError, decode_public_key};
/// assert_eq!(decode_public_key(b"hello").unwrap_err(), KeyFileError::NotAKey);
/// ```
pub fn decode_public_key(input: &[u8]) -> Result<RsaPublicComponents, KeyFileError> {
    decode_public_key_with_passphrase(input, None)
}

/// [`decode_public_key`] that also reads the public half of an encrypted
/// private key, with `pass` (see [`decode_private_key_with_passphrase`]).
pub fn decode_public_key_with_passphrase(
    input: &[u8],
    pass: Option<&[u8]>,
) -> Result<RsaPublicComponents, KeyFileError> {
    plain_rsa(decode_public_key_info(input, pass)?)
}

/// Every reader's core; the stack it used (a decrypted key's bytes, the
/// passphrase's derived key) is wiped before it returns ([`crate::scrub`]).
fn decode_any(input: &[u8], pass: Option<&[u8]>) -> Result<Decoded, KeyFileError> {
    crate::scrub::scrubbed_setup(|| decode_any_in(input, pass))
}

fn decode_any_in(input: &[u8], pass: Option<&[u8]>) -> Result<Decoded, KeyFileError> {
    if let Some(start) = find(input, b"-----BEGIN ") {
        // The first block only, as OpenSSL reads it: text before and after
        // (explanatory text, a certificate) is ignored.
        let block = &input[start..];
        let Some(end) =
            find(block, b"-----END ").and_then(|e| find(&block[e + 9..], b"-----").map(|d| e + 9 + d + 5))
        else {
            // A file cut short: say so rather than the decoder's "pre-encapsulation boundary".
            let begin = block.split(|&b| b == b'\n').next().unwrap_or_default();
            let begin = String::from_utf8_lossy(begin);
            return Err(KeyFileError::BadPem(format!(
                "no END line after '{}': the file is cut short",
                quote_untrusted(begin.trim_end())
            )));
        };
        return decode_pem(&block[..end], pass);
    }
    if input.first() == Some(&0x30) {
        return decode_der(input, pass);
    }
    Err(KeyFileError::NotAKey)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn decode_pem(pem: &[u8], pass: Option<&[u8]>) -> Result<Decoded, KeyFileError> {
    // `RSA-PSS PRIVATE KEY` (openssl rsa -traditional of an RSA-PSS key) is
    // no RFC 7468 label (no hyphen allowed): read it as PKCS#1 under `RSA
    // PRIVATE KEY`, and mark the key as RSA-PSS without parameters.
    let pss_begin = b"-----BEGIN RSA-PSS PRIVATE KEY-----";
    if pem.starts_with(pss_begin) && find(pem, b"Proc-Type: 4,ENCRYPTED").is_none() {
        let renamed = String::from_utf8_lossy(pem).replace("RSA-PSS PRIVATE KEY", LABEL_PKCS1_PRIVATE);
        let renamed = Zeroizing::new(renamed.into_bytes());
        return match decode_pem(&renamed, pass)? {
            Decoded::Private(k, KeyAlgorithm::Rsa) => Ok(Decoded::Private(k, KeyAlgorithm::RsaPss(None))),
            other => Ok(other),
        };
    }
    // Legacy OpenSSL encryption puts RFC 1421 headers inside the block.
    if find(pem, b"Proc-Type: 4,ENCRYPTED").is_some() {
        let legacy = encrypted::parse_legacy(pem)?;
        let Some(pass) = pass else {
            return Err(KeyFileError::Encrypted);
        };
        let der = legacy.decrypt(pass)?;
        // A wrong passphrase that happens to unpad gives garbage, not a key.
        return match legacy.label() {
            LABEL_PKCS1_PRIVATE | LABEL_PKCS8 => {
                decode_der(&der, None).map_err(|_| KeyFileError::BadPassphrase)
            }
            LABEL_PKCS1_PSS_PRIVATE => match decode_der(&der, None) {
                Ok(Decoded::Private(k, _)) => Ok(Decoded::Private(k, KeyAlgorithm::RsaPss(None))),
                _ => Err(KeyFileError::BadPassphrase),
            },
            other => Err(KeyFileError::UnsupportedPemLabel(other.to_string())),
        };
    }
    // Only the first block counts; the label decides the parser first.
    let label = der::pem::decode_label(pem)
        .map_err(|e| KeyFileError::BadPem(e.to_string()))?
        .to_string();
    if label == LABEL_ENCRYPTED {
        let mut buf = Zeroizing::new(vec![0u8; pem.len()]);
        let (_, der) = der::pem::decode(pem, &mut buf).map_err(|e| KeyFileError::BadPem(e.to_string()))?;
        return decode_encrypted_der(der, pass);
    }
    let parse: fn(&[u8]) -> Result<Decoded, KeyFileError> = match label.as_str() {
        LABEL_PKCS8 => |d| parse_pkcs8(d).map(|(k, a)| Decoded::Private(k, a)),
        LABEL_PKCS1_PRIVATE => |d| parse_pkcs1_private(d).map(|k| Decoded::Private(k, KeyAlgorithm::Rsa)),
        LABEL_SPKI => |d| parse_spki(d).map(|(k, a)| Decoded::Public(k, a)),
        LABEL_PKCS1_PUBLIC => |d| parse_pkcs1_public(d).map(|k| Decoded::Public(k, KeyAlgorithm::Rsa)),
        "EC PRIVATE KEY" | "EC PARAMETERS" | "DSA PRIVATE KEY" | "DH PARAMETERS" | "X9.42 DH PARAMETERS" => {
            return Err(KeyFileError::NotRsa(format!("PEM type '{label}'")));
        }
        _ => return Err(KeyFileError::UnsupportedPemLabel(label)),
    };
    // Base64 is at most 3/4 of the text: decode into a buffer that is zeroized.
    let mut buf = Zeroizing::new(vec![0u8; pem.len()]);
    let (_, der) = der::pem::decode(pem, &mut buf).map_err(|e| KeyFileError::BadPem(e.to_string()))?;
    match parse(der) {
        // The content decides, as in OpenSSL: PKCS#8 under `RSA PRIVATE
        // KEY`, SPKI under `RSA PUBLIC KEY`, ... are read when the DER is
        // unambiguously another key structure; otherwise the label's
        // parser says what is wrong.
        // A private label keeps to private content and a public one to
        // public content, as `openssl pkey -pubin` refuses a private key
        // under `PUBLIC KEY`.
        Err(KeyFileError::Malformed(why)) => {
            let private_label = matches!(
                label.as_str(),
                LABEL_PKCS8 | LABEL_PKCS1_PRIVATE | LABEL_PKCS1_PSS_PRIVATE
            );
            match decode_der(der, pass) {
                Ok(d @ Decoded::Private(..)) if private_label => Ok(d),
                Ok(d @ Decoded::Public(..)) if !private_label => Ok(d),
                _ => Err(KeyFileError::Malformed(why)),
            }
        }
        other => other,
    }
}

fn decode_encrypted_der(der: &[u8], pass: Option<&[u8]>) -> Result<Decoded, KeyFileError> {
    if !is_encrypted_pkcs8(der) {
        return Err(KeyFileError::Malformed(describe_der_failure(der)));
    }
    let Some(pass) = pass else {
        return Err(KeyFileError::Encrypted);
    };
    let plain = encrypted::decrypt_pkcs8(der, pass)?;
    // A wrong passphrase that happens to unpad gives garbage, not a key.
    if PrivateKeyInfoRef::from_der(plain.as_bytes()).is_err() {
        return Err(KeyFileError::BadPassphrase);
    }
    parse_pkcs8(plain.as_bytes()).map(|(k, a)| Decoded::Private(k, a))
}

/// DER of unknown kind: try each structure, most common first.
fn decode_der(der: &[u8], pass: Option<&[u8]>) -> Result<Decoded, KeyFileError> {
    if PrivateKeyInfoRef::from_der(der).is_ok() {
        return parse_pkcs8(der).map(|(k, a)| Decoded::Private(k, a));
    }
    if pkcs1::RsaPrivateKeyRef::from_der(der).is_ok() {
        return parse_pkcs1_private(der).map(|k| Decoded::Private(k, KeyAlgorithm::Rsa));
    }
    if is_encrypted_pkcs8(der) {
        return decode_encrypted_der(der, pass);
    }
    if SubjectPublicKeyInfoRef::from_der(der).is_ok() {
        return parse_spki(der).map(|(k, a)| Decoded::Public(k, a));
    }
    if pkcs1::RsaPublicKeyRef::from_der(der).is_ok() {
        return parse_pkcs1_public(der).map(|k| Decoded::Public(k, KeyAlgorithm::Rsa));
    }
    Err(KeyFileError::Malformed(describe_der_failure(der)))
}

/// `EncryptedPrivateKeyInfo ::= SEQUENCE { AlgorithmIdentifier, OCTET STRING }`.
fn is_encrypted_pkcs8(der: &[u8]) -> bool {
    let Ok(mut reader) = SliceReader::new(der) else {
        return false;
    };
    let parsed: der::Result<()> = reader.sequence(|r| {
        let _alg: AlgorithmIdentifierRef<'_> = r.decode()?;
        let _data: &OctetStringRef = r.decode()?;
        Ok(())
    });
    parsed.is_ok() && reader.finish().is_ok()
}
