//! Passphrase-encrypted private keys, read and written.
//!
//! - PKCS#8 `EncryptedPrivateKeyInfo` (RFC 5208 §6) with PBES2 (RFC 8018
//!   §6.2: PBKDF2 or scrypt, AES-CBC or DES-EDE3-CBC), through RustCrypto's
//!   `pkcs8` and `pkcs5`; written with PBKDF2-HMAC-SHA-256 (or scrypt) and
//!   AES-128/192/256-CBC.
//! - PKCS#8 with `pbeWithSHAAnd3-KeyTripleDES-CBC` (RFC 7292 App. C, what
//!   `openssl pkcs8 -v1 PBE-SHA1-3DES` writes; `pkcs5` parses only the
//!   PKCS#5 v1.5 PBES1 OIDs), read only: the PKCS#12 KDF of the `pkcs12`
//!   crate and DES-EDE3-CBC of `des` and `cbc`.
//! - The legacy OpenSSL PEM encryption (`Proc-Type: 4,ENCRYPTED` and
//!   `DEK-Info: CIPHER,IV`, RFC 1421 headers; key from `EVP_BytesToKey`
//!   with MD5, one round, the IV's first 8 bytes as salt): only the header
//!   parsing is written here; MD5, AES and DES-EDE3 in CBC mode are the
//!   RustCrypto crates'.
//!
//! Passphrases and derived keys live in [`Zeroizing`] buffers.

use aes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit, block_padding::Pkcs7};
use der::asn1::OctetStringRef;
use der::pem::LineEnding;
use der::{Decode, Encode, Reader, SecretDocument, SliceReader};
use md5::Digest;
use pkcs8::EncryptedPrivateKeyInfoRef;
use pkcs8::pkcs5::{self, pbes2};
use rand_core::TryCryptoRng;
use spki::ObjectIdentifier;
use zeroize::Zeroizing;

use super::KeyFileError;

/// `pbeWithSHAAnd3-KeyTripleDES-CBC` (RFC 7292 App. C).
const PBE_SHA1_3DES: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.12.1.3");

/// The block cipher of an encrypted key that redc writes.
///
/// ```
/// use redc::keyfile::KeyCipher;
/// assert_eq!(KeyCipher::from_name("AES-256-CBC"), Some(KeyCipher::Aes256Cbc));
/// assert_eq!(KeyCipher::Aes128Cbc.name(), "aes-128-cbc");
/// assert_eq!(KeyCipher::from_name("des"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyCipher {
    /// AES-128 in CBC mode.
    Aes128Cbc,
    /// AES-192 in CBC mode.
    Aes192Cbc,
    /// AES-256 in CBC mode (OpenSSL's `-aes256`).
    Aes256Cbc,
}

impl KeyCipher {
    /// The name as OpenSSL spells it (`aes-256-cbc`).
    pub fn name(self) -> &'static str {
        match self {
            KeyCipher::Aes128Cbc => "aes-128-cbc",
            KeyCipher::Aes192Cbc => "aes-192-cbc",
            KeyCipher::Aes256Cbc => "aes-256-cbc",
        }
    }

    /// Parse `aes-128-cbc`, `aes128`, ... (case ignored).
    pub fn from_name(name: &str) -> Option<KeyCipher> {
        match name.to_ascii_lowercase().as_str() {
            "aes-128-cbc" | "aes128" => Some(KeyCipher::Aes128Cbc),
            "aes-192-cbc" | "aes192" => Some(KeyCipher::Aes192Cbc),
            "aes-256-cbc" | "aes256" => Some(KeyCipher::Aes256Cbc),
            _ => None,
        }
    }

    fn key_len(self) -> usize {
        match self {
            KeyCipher::Aes128Cbc => 16,
            KeyCipher::Aes192Cbc => 24,
            KeyCipher::Aes256Cbc => 32,
        }
    }
}

/// The password-based key derivation of a key redc writes (PKCS#8 PBES2).
///
/// ```
/// use redc::keyfile::KeyKdf;
/// assert_eq!(KeyKdf::default(), KeyKdf::Pbkdf2Sha256 { iterations: 2048 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKdf {
    /// PBKDF2 with HMAC-SHA-256 (what OpenSSL 3 writes; 2048 iterations by default).
    Pbkdf2Sha256 {
        /// The iteration count.
        iterations: u32,
    },
    /// scrypt (RFC 7914) with cost `2^log_n`, block size `r`, parallelism `p`.
    Scrypt {
        /// log2 of the cost parameter N.
        log_n: u8,
        /// The block size parameter.
        r: u32,
        /// The parallelisation parameter.
        p: u32,
    },
}

impl Default for KeyKdf {
    fn default() -> Self {
        KeyKdf::Pbkdf2Sha256 { iterations: 2048 }
    }
}

fn bad_pass() -> KeyFileError {
    KeyFileError::BadPassphrase
}

/// Decrypt a DER `EncryptedPrivateKeyInfo` into the DER of the inner
/// `PrivateKeyInfo`.
pub(super) fn decrypt_pkcs8(der: &[u8], pass: &[u8]) -> Result<SecretDocument, KeyFileError> {
    if let Some(doc) = decrypt_pkcs12_pbe(der, pass)? {
        return Ok(doc);
    }
    let info = EncryptedPrivateKeyInfoRef::from_der(der).map_err(|e| match e.kind() {
        der::ErrorKind::OidUnknown { oid } => {
            KeyFileError::Malformed(format!("unsupported key encryption algorithm {oid}"))
        }
        _ => KeyFileError::Malformed(format!("encrypted private key: {e}")),
    })?;
    info.decrypt(pass).map_err(|e| match e {
        pkcs8::Error::EncryptedPrivateKey(pkcs5::Error::DecryptFailed) => bad_pass(),
        // The wrapper was parsed above, so a DER error here is in the
        // plaintext: a wrong passphrase whose garbage happened to end in
        // valid CBC padding (about 1 in 256 wrong passphrases).
        pkcs8::Error::Asn1(_) => bad_pass(),
        pkcs8::Error::EncryptedPrivateKey(pkcs5::Error::NoPbes1CryptSupport) => {
            KeyFileError::Malformed(format!(
                "PKCS#5 PBES1 (single DES or RC2, algorithm {}) is not supported; re-encrypt with \
             openssl pkcs8 -topk8 -v2 aes256",
                info.encryption_algorithm.oid()
            ))
        }
        pkcs8::Error::EncryptedPrivateKey(pkcs5::Error::UnsupportedAlgorithm { oid }) => {
            KeyFileError::Malformed(format!("unsupported key encryption algorithm {oid}"))
        }
        other => KeyFileError::Malformed(format!("encrypted private key: {other}")),
    })
}

/// (salt, iteration count, encrypted data) of a PKCS#12 PBE key.
type Pkcs12Pbe = (Vec<u8>, u32, Vec<u8>);

/// `SEQUENCE { SEQUENCE { pbeWithSHAAnd3-KeyTripleDES-CBC, SEQUENCE { salt, iterations } }, OCTET STRING }`:
/// `None` when the algorithm is another one.
fn decrypt_pkcs12_pbe(der: &[u8], pass: &[u8]) -> Result<Option<SecretDocument>, KeyFileError> {
    let Ok(mut reader) = SliceReader::new(der) else {
        return Ok(None);
    };
    let parsed: der::Result<Option<Pkcs12Pbe>> = reader.sequence(|r| {
        let found = r.sequence(|alg| {
            let oid: ObjectIdentifier = alg.decode()?;
            if oid != PBE_SHA1_3DES {
                // Skip whatever parameters another algorithm has.
                while !alg.is_finished() {
                    let _: der::asn1::AnyRef<'_> = alg.decode()?;
                }
                return Ok::<_, der::Error>(None);
            }
            alg.sequence(|p| {
                let salt: &OctetStringRef = p.decode()?;
                let iterations: u32 = p.decode()?;
                Ok::<_, der::Error>(Some((salt.as_bytes().to_vec(), iterations)))
            })
        })?;
        let data: &OctetStringRef = r.decode()?;
        Ok::<_, der::Error>(found.map(|(s, i)| (s, i, data.as_bytes().to_vec())))
    });
    let Ok(Some((salt, iterations, data))) = parsed else {
        return Ok(None);
    };
    if iterations == 0 || iterations > 10_000_000 {
        return Err(KeyFileError::Malformed(format!(
            "encrypted private key: iteration count {iterations} out of range"
        )));
    }
    let text = std::str::from_utf8(pass)
        .map_err(|_| KeyFileError::Malformed("PKCS#12 encryption needs a UTF-8 passphrase".into()))?;
    use pkcs12::kdf::{Pkcs12KeyType, derive_key_utf8};
    let rounds = iterations as i32;
    let derive = |kind, len| {
        derive_key_utf8::<sha1::Sha1>(text, &salt, kind, rounds, len)
            .map(Zeroizing::new)
            .map_err(|e| KeyFileError::Malformed(format!("PKCS#12 key derivation: {e}")))
    };
    let key = derive(Pkcs12KeyType::EncryptionKey, 24)?;
    let iv = derive(Pkcs12KeyType::Iv, 8)?;
    let plain = cbc::Decryptor::<des::TdesEde3>::new_from_slices(&key, &iv)
        .map_err(|_| bad_pass())?
        .decrypt_padded_vec::<Pkcs7>(&data)
        .map_err(|_| bad_pass())?;
    let plain = Zeroizing::new(plain);
    SecretDocument::try_from(plain.as_slice())
        .map(Some)
        .map_err(|_| bad_pass())
}

/// Encrypt the DER of a `PrivateKeyInfo` into an `EncryptedPrivateKeyInfo` DER.
pub(super) fn encrypt_pkcs8<R: TryCryptoRng + ?Sized>(
    plain: &[u8],
    pass: &[u8],
    cipher: KeyCipher,
    kdf: KeyKdf,
    rng: &mut R,
) -> Result<SecretDocument, KeyFileError> {
    let enc = |e: &dyn core::fmt::Display| KeyFileError::Encode(e.to_string());
    let mut salt = [0u8; 16];
    let mut iv = [0u8; 16];
    rng.try_fill_bytes(&mut salt)
        .map_err(|_| enc(&"random generator failed"))?;
    rng.try_fill_bytes(&mut iv)
        .map_err(|_| enc(&"random generator failed"))?;
    let kdf: pbes2::Kdf = match kdf {
        KeyKdf::Pbkdf2Sha256 { iterations } => pbes2::Pbkdf2Params::hmac_sha256(iterations, &salt)
            .map_err(|e| enc(&e))?
            .into(),
        KeyKdf::Scrypt { log_n, r, p } => {
            let params = scrypt_params(log_n, r, p)?;
            pbes2::ScryptParams::from_params_and_salt(params, &salt)
                .map_err(|e| enc(&e))?
                .into()
        }
    };
    let encryption = match cipher {
        KeyCipher::Aes128Cbc => pbes2::EncryptionScheme::Aes128Cbc { iv },
        KeyCipher::Aes192Cbc => pbes2::EncryptionScheme::Aes192Cbc { iv },
        KeyCipher::Aes256Cbc => pbes2::EncryptionScheme::Aes256Cbc { iv },
    };
    let scheme = pkcs5::EncryptionScheme::Pbes2(pbes2::Parameters { kdf, encryption });
    let data = scheme.encrypt(pass, plain).map_err(|e| enc(&e))?;
    let info = pkcs8::EncryptedPrivateKeyInfo {
        encryption_algorithm: scheme,
        encrypted_data: OctetStringRef::new(&data).map_err(|e| enc(&e))?,
    };
    let der = info.to_der().map_err(|e| enc(&e))?;
    SecretDocument::try_from(der.as_slice()).map_err(|e| enc(&e))
}

fn scrypt_params(log_n: u8, r: u32, p: u32) -> Result<pkcs5::scrypt::Params, KeyFileError> {
    pkcs5::scrypt::Params::new(log_n, r, p)
        .map_err(|e| KeyFileError::Encode(format!("scrypt parameters: {e}")))
}

/// A legacy encrypted PEM block split into its label, its `DEK-Info` and
/// the base64 body.
pub(super) struct LegacyPem {
    label: String,
    cipher: String,
    iv: Vec<u8>,
    body: String,
}

/// Parse a PEM block carrying `Proc-Type: 4,ENCRYPTED` (RFC 1421 §4.6).
pub(super) fn parse_legacy(pem: &[u8]) -> Result<LegacyPem, KeyFileError> {
    let bad = |what: &str| KeyFileError::BadPem(format!("legacy encrypted PEM: {what}"));
    let text = std::str::from_utf8(pem).map_err(|_| bad("not text"))?;
    let mut lines = text.lines().map(str::trim_end);
    let first = lines.next().ok_or_else(|| bad("empty"))?;
    let label = first
        .strip_prefix("-----BEGIN ")
        .and_then(|l| l.strip_suffix("-----"))
        .ok_or_else(|| bad("no BEGIN line"))?
        .to_string();
    let mut dek = None;
    let mut body = String::new();
    let mut in_headers = true;
    let mut ended = false;
    for line in lines {
        if line.starts_with("-----END ") {
            ended = true;
            break;
        }
        if in_headers {
            if line.is_empty() {
                in_headers = false;
            } else if let Some(v) = line.strip_prefix("DEK-Info:") {
                dek = Some(v.trim().to_string());
            } else if !line.contains(':') {
                return Err(bad("no blank line after the headers"));
            }
            continue;
        }
        body.push_str(line.trim());
    }
    if !ended {
        return Err(bad("no END line"));
    }
    let dek = dek.ok_or_else(|| bad("no DEK-Info header"))?;
    let (cipher, iv_hex) = dek.split_once(',').ok_or_else(|| bad("DEK-Info without an IV"))?;
    let iv = hex_decode(iv_hex.trim()).ok_or_else(|| bad("DEK-Info IV is not hex"))?;
    Ok(LegacyPem {
        label,
        cipher: cipher.trim().to_ascii_uppercase(),
        iv,
        body,
    })
}

fn hex_decode(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// `EVP_BytesToKey` with MD5 and one round: `D_i = MD5(D_{i-1} || pass || salt)`.
fn bytes_to_key(pass: &[u8], salt: &[u8], len: usize) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(Vec::with_capacity(len + 16));
    let mut prev = Zeroizing::new(Vec::new());
    while out.len() < len {
        let mut h = md5::Md5::new();
        h.update(&prev[..]);
        h.update(pass);
        h.update(salt);
        *prev = h.finalize().to_vec();
        out.extend_from_slice(&prev);
    }
    out.truncate(len);
    out
}

impl LegacyPem {
    /// The block's label (`RSA PRIVATE KEY`, ...).
    pub(super) fn label(&self) -> &str {
        &self.label
    }

    /// Decrypt the body into DER.
    pub(super) fn decrypt(&self, pass: &[u8]) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
        // The body alone as a header-less PEM block in 64-column lines:
        // the `der` decoder does the base64.
        // (a placeholder label: RSA-PSS's hyphen is no RFC 7468 label).
        let mut plain_pem = String::from("-----BEGIN X-----\n");
        for chunk in self.body.as_bytes().chunks(64) {
            plain_pem.push_str(std::str::from_utf8(chunk).unwrap_or_default());
            plain_pem.push('\n');
        }
        plain_pem.push_str("-----END X-----\n");
        let mut buf = vec![0u8; plain_pem.len()];
        let (_, ct) = der::pem::decode(plain_pem.as_bytes(), &mut buf)
            .map_err(|e| KeyFileError::BadPem(e.to_string()))?;
        let (key_len, block) = match self.cipher.as_str() {
            "AES-128-CBC" => (16, 16),
            "AES-192-CBC" => (24, 16),
            "AES-256-CBC" => (32, 16),
            "DES-EDE3-CBC" => (24, 8),
            other => {
                return Err(KeyFileError::Malformed(format!(
                    "unsupported legacy PEM cipher '{}'",
                    super::quote_untrusted(other)
                )));
            }
        };
        if self.iv.len() != block {
            return Err(KeyFileError::BadPem(format!(
                "legacy encrypted PEM: DEK-Info IV of {} bytes, {block} expected",
                self.iv.len()
            )));
        }
        if ct.is_empty() || !ct.len().is_multiple_of(block) {
            return Err(KeyFileError::Malformed(format!(
                "truncated encrypted key ({} bytes, not a whole number of {block}-byte blocks)",
                ct.len()
            )));
        }
        let key = bytes_to_key(pass, &self.iv[..8], key_len);
        let iv = &self.iv[..];
        let plain = match key_len {
            _ if block == 8 => cbc::Decryptor::<des::TdesEde3>::new_from_slices(&key, iv)
                .map_err(|_| bad_pass())?
                .decrypt_padded_vec::<Pkcs7>(ct),
            16 => cbc::Decryptor::<aes::Aes128>::new_from_slices(&key, iv)
                .map_err(|_| bad_pass())?
                .decrypt_padded_vec::<Pkcs7>(ct),
            24 => cbc::Decryptor::<aes::Aes192>::new_from_slices(&key, iv)
                .map_err(|_| bad_pass())?
                .decrypt_padded_vec::<Pkcs7>(ct),
            _ => cbc::Decryptor::<aes::Aes256>::new_from_slices(&key, iv)
                .map_err(|_| bad_pass())?
                .decrypt_padded_vec::<Pkcs7>(ct),
        };
        buf.iter_mut().for_each(|b| *b = 0);
        plain.map(Zeroizing::new).map_err(|_| bad_pass())
    }
}

/// Write `der` as a legacy encrypted PEM block (`openssl rsa -traditional -aes128`).
pub(super) fn encrypt_legacy<R: TryCryptoRng + ?Sized>(
    der: &[u8],
    label: &str,
    pass: &[u8],
    cipher: KeyCipher,
    rng: &mut R,
) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
    let mut iv = [0u8; 16];
    rng.try_fill_bytes(&mut iv)
        .map_err(|_| KeyFileError::Encode("random generator failed".into()))?;
    let key = bytes_to_key(pass, &iv[..8], cipher.key_len());
    let ct = match cipher {
        KeyCipher::Aes128Cbc => cbc::Encryptor::<aes::Aes128>::new_from_slices(&key, &iv)
            .map_err(|e| KeyFileError::Encode(e.to_string()))?
            .encrypt_padded_vec::<Pkcs7>(der),
        KeyCipher::Aes192Cbc => cbc::Encryptor::<aes::Aes192>::new_from_slices(&key, &iv)
            .map_err(|e| KeyFileError::Encode(e.to_string()))?
            .encrypt_padded_vec::<Pkcs7>(der),
        KeyCipher::Aes256Cbc => cbc::Encryptor::<aes::Aes256>::new_from_slices(&key, &iv)
            .map_err(|e| KeyFileError::Encode(e.to_string()))?
            .encrypt_padded_vec::<Pkcs7>(der),
    };
    // Base64 through the PEM encoder of `der`, then the headers go after the BEGIN line.
    // (under a placeholder label: RSA-PSS's hyphen is no RFC 7468 label).
    let body =
        der::pem::encode_string("X", LineEnding::LF, &ct).map_err(|e| KeyFileError::Encode(e.to_string()))?;
    let mut iv_hex = String::new();
    for b in iv {
        iv_hex.push_str(&format!("{b:02X}"));
    }
    let header = format!(
        "-----BEGIN {label}-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: {},{iv_hex}\n\n",
        cipher.name().to_ascii_uppercase()
    );
    let begin_len = "-----BEGIN X-----\n".len();
    let mut out = Zeroizing::new(header.into_bytes());
    let rest = &body[begin_len..];
    out.extend_from_slice(
        rest.replace("-----END X-----", &format!("-----END {label}-----"))
            .as_bytes(),
    );
    Ok(out)
}
