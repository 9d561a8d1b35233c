//! `redc._native`: the Python extension's native half. Plain arguments only
//! (bytes, hash names, integers); the pure-Python package `redc` turns
//! pyca/cryptography's padding, hash and serialization objects (or redc's
//! own) into them and gives the keys cryptography's interface.
//!
//! Every private-key operation, key generation, key-file decryption and
//! verification runs with the interpreter detached (`Python::detach`), so
//! Python threads run them in parallel. Every failure is a Python exception
//! carrying the library's message: `ValueError` for bad keys, lengths and
//! parameters, `PasswordError` (a `ValueError`) for a missing or wrong
//! password. Nothing here panics on any input.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyTuple};
use redc::hash::HashAlg;
use redc::keyfile::{
    self, Encoding, KeyCipher, KeyFileError, KeyKdf, PrivateKeyFormat, PublicKeyFormat, RsaPrivateComponents,
};
use redc::padding::{SaltLen, pss_max_salt_len};
use redc::rsa::{self, KeyLoadError, RsaPrivateKey, RsaPublicKey, keygen, os_rng};
use zeroize::Zeroizing;

create_exception!(
    _native,
    PasswordError,
    PyValueError,
    "A key file's password is missing, wrong, or given for an unencrypted key."
);

/// Salt-length codes of `sign` and `verify` besides a length >= 0: the hash
/// length, the longest that fits, and (verify only) whatever the signature
/// holds.
const SALT_DIGEST: i64 = -1;
const SALT_MAX: i64 = -2;
const SALT_AUTO: i64 = -3;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn hash_alg(name: &str) -> PyResult<HashAlg> {
    HashAlg::from_name(name).ok_or_else(|| {
        value_error(format!(
            "unsupported hash '{name}' (supported: {})",
            HashAlg::NAMES
        ))
    })
}

/// The digest of `data` under `hash`, or `data` itself when the caller
/// hashed it (then its length must be the hash's).
fn digest_of(hash: HashAlg, data: &[u8], prehashed: bool) -> Result<Vec<u8>, String> {
    if !prehashed {
        return Ok(hash.digest(data));
    }
    if data.len() != hash.output_len() {
        return Err(format!(
            "the prehashed data is {} bytes; {} digests are {} bytes",
            data.len(),
            hash.name(),
            hash.output_len()
        ));
    }
    Ok(data.to_vec())
}

/// The PSS salt length to sign with, from a length or a code.
fn sign_salt(hash: HashAlg, bits: usize, code: i64) -> Result<usize, String> {
    match code {
        SALT_DIGEST => Ok(hash.output_len()),
        SALT_MAX => pss_max_salt_len(hash, bits - 1).ok_or_else(|| rsa::Error::MessageTooLong.to_string()),
        SALT_AUTO => Err("PSS salt length AUTO is for verifying only".into()),
        n if n >= 0 => usize::try_from(n).map_err(|e| e.to_string()),
        n => Err(format!("invalid PSS salt length {n}")),
    }
}

/// The PSS salt length to verify with (`None`: the longest does not fit, so
/// nothing verifies).
fn verify_salt(hash: HashAlg, bits: usize, code: i64) -> PyResult<Option<SaltLen>> {
    match code {
        SALT_DIGEST => Ok(Some(SaltLen::Exact(hash.output_len()))),
        SALT_MAX => Ok(pss_max_salt_len(hash, bits - 1).map(SaltLen::Exact)),
        SALT_AUTO => Ok(Some(SaltLen::Auto)),
        n if n >= 0 => Ok(usize::try_from(n).ok().map(SaltLen::Exact)),
        n => Err(value_error(format!("invalid PSS salt length {n}"))),
    }
}

/// PSS parameters as given from Python: MGF1's hash name and the salt code.
type PssArg = Option<(String, i64)>;

fn pss_arg(pss: PssArg) -> PyResult<Option<(HashAlg, i64)>> {
    pss.map(|(mgf, salt)| Ok((hash_alg(&mgf)?, salt))).transpose()
}

/// OAEP parameters as given from Python: the hash, MGF1's hash, the label.
type OaepArg = Option<(String, String, Option<Vec<u8>>)>;

fn oaep_arg(oaep: OaepArg) -> PyResult<Option<(HashAlg, HashAlg, Vec<u8>)>> {
    oaep.map(|(h, m, label)| Ok((hash_alg(&h)?, hash_alg(&m)?, label.unwrap_or_default())))
        .transpose()
}

/// An RSA private key (two primes, CRT), immutable.
#[pyclass(frozen, module = "redc._native", name = "PrivateKey")]
struct PrivateKey {
    key: RsaPrivateKey,
}

/// An RSA public key (n, e), immutable.
#[pyclass(frozen, module = "redc._native", name = "PublicKey")]
struct PublicKey {
    key: RsaPublicKey,
}

impl PrivateKey {
    /// One signature: PKCS#1 v1.5 (`pss` None) or PSS.
    fn sign_one(&self, digest: &[u8], hash: HashAlg, pss: Option<(HashAlg, i64)>) -> Result<Vec<u8>, String> {
        let rng = &mut os_rng();
        match pss {
            None => self.key.sign_pkcs1v15(rng, hash, digest),
            Some((mgf, code)) => {
                let salt = sign_salt(hash, self.key.bits(), code)?;
                self.key.sign_pss_mgf1(rng, hash, mgf, digest, Some(salt))
            }
        }
        .map_err(|e| e.to_string())
    }
}

#[pymethods]
impl PrivateKey {
    /// The modulus size in bits.
    #[getter]
    fn key_size(&self) -> usize {
        self.key.bits()
    }

    /// The modulus size in bytes (the length of every signature).
    #[getter]
    fn size(&self) -> usize {
        self.key.size()
    }

    /// The kernels the private operation runs on (for reports).
    fn kernel_names(&self) -> Vec<&'static str> {
        self.key.kernel_names().to_vec()
    }

    fn public_key(&self) -> PublicKey {
        PublicKey {
            key: self.key.to_public_key(),
        }
    }

    /// Sign `data` (or, `prehashed`, its digest) with `hash`: PKCS#1 v1.5,
    /// or PSS when `pss` is (MGF1 hash, salt length or code).
    #[pyo3(signature = (data, hash, prehashed, pss))]
    fn sign<'py>(
        &self,
        py: Python<'py>,
        data: &[u8],
        hash: &str,
        prehashed: bool,
        pss: PssArg,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let hash = hash_alg(hash)?;
        let pss = pss_arg(pss)?;
        let sig = py
            .detach(|| {
                let digest = digest_of(hash, data, prehashed)?;
                self.sign_one(&digest, hash, pss)
            })
            .map_err(value_error)?;
        Ok(PyBytes::new(py, &sig))
    }

    /// `sign` of every message, through the library's batch path
    /// (eight-lane kernel groups) on `threads` threads (0: every core);
    /// signatures in input order.
    #[pyo3(signature = (messages, hash, prehashed, pss, threads))]
    fn sign_batch<'py>(
        &self,
        py: Python<'py>,
        messages: Vec<PyBackedBytes>,
        hash: &str,
        prehashed: bool,
        pss: PssArg,
        threads: usize,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let hash = hash_alg(hash)?;
        let pss = pss_arg(pss)?;
        let sigs = py
            .detach(|| -> Result<Vec<Vec<u8>>, String> {
                let digests = messages
                    .iter()
                    .enumerate()
                    .map(|(i, m)| digest_of(hash, m, prehashed).map_err(|e| format!("message {i}: {e}")))
                    .collect::<Result<Vec<_>, _>>()?;
                let refs: Vec<&[u8]> = digests.iter().map(|d| &d[..]).collect();
                let results = match pss {
                    None => self.key.sign_pkcs1v15_batch_threads(hash, &refs, threads),
                    Some((mgf, code)) if mgf == hash => {
                        let salt = sign_salt(hash, self.key.bits(), code)?;
                        self.key.sign_pss_batch_threads(hash, &refs, Some(salt), threads)
                    }
                    Some((mgf, code)) => {
                        // MGF1 over another hash: encode here, then the
                        // batch path's private operations.
                        let salt = sign_salt(hash, self.key.bits(), code)?;
                        let encoded = refs
                            .iter()
                            .map(|d| {
                                self.key
                                    .encode_pss_signature(&mut os_rng(), hash, mgf, d, Some(salt))
                            })
                            .collect::<Result<Vec<_>, _>>()
                            .map_err(|e| e.to_string())?;
                        let ops: Vec<(&RsaPrivateKey, &[u8])> =
                            encoded.iter().map(|em| (&self.key, &em[..])).collect();
                        rsa::raw_private_many_threads(&ops, threads)
                            .into_iter()
                            .map(|r| r.map(|s| s.to_vec()))
                            .collect()
                    }
                };
                results
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| r.map_err(|e| format!("message {i}: {e}")))
                    .collect()
            })
            .map_err(value_error)?;
        Ok(sigs.iter().map(|s| PyBytes::new(py, s)).collect())
    }

    /// Decrypt: PKCS#1 v1.5 with implicit rejection (`oaep` None: a bad
    /// padding gives a synthetic message, not an error) or OAEP.
    #[pyo3(signature = (ciphertext, oaep))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        ciphertext: &[u8],
        oaep: OaepArg,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let oaep = oaep_arg(oaep)?;
        let pt = py
            .detach(|| {
                let rng = &mut os_rng();
                match &oaep {
                    None => self.key.decrypt_pkcs1v15_with_rng(rng, ciphertext),
                    Some((h, m, label)) => self.key.decrypt_oaep_mgf1(rng, *h, *m, label, ciphertext),
                }
            })
            .map_err(value_error)?;
        Ok(PyBytes::new(py, pt.as_slice()))
    }

    /// (n, e, d, p, q, d mod (p-1), d mod (q-1), q^-1 mod p), big-endian.
    fn numbers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let c = self.key.private_components();
        let parts: [&[u8]; 8] = [&c.n, &c.e, &c.d, &c.p, &c.q, &c.dp, &c.dq, &c.qinv];
        PyTuple::new(py, parts.iter().map(|b| PyBytes::new(py, b)))
    }

    /// The key from its eight numbers (big-endian), all checked.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn from_numbers(
        py: Python<'_>,
        n: Vec<u8>,
        e: Vec<u8>,
        d: Vec<u8>,
        p: Vec<u8>,
        q: Vec<u8>,
        dp: Vec<u8>,
        dq: Vec<u8>,
        qinv: Vec<u8>,
    ) -> PyResult<PrivateKey> {
        let c = RsaPrivateComponents {
            n,
            e,
            d: Zeroizing::new(d),
            p: Zeroizing::new(p),
            q: Zeroizing::new(q),
            dp: Zeroizing::new(dp),
            dq: Zeroizing::new(dq),
            qinv: Zeroizing::new(qinv),
        };
        let key = py
            .detach(|| RsaPrivateKey::from_private_components(&c))
            .map_err(value_error)?;
        Ok(PrivateKey { key })
    }

    /// The key as a file: `format` "pkcs8" or "pkcs1", PEM or DER, and
    /// encrypted with `password` when given (PKCS#8: PBES2, PBKDF2-SHA256
    /// and AES-256-CBC; PKCS#1: OpenSSL's legacy PEM encryption, AES-256-CBC).
    #[pyo3(signature = (format, der, password=None))]
    fn to_file<'py>(
        &self,
        py: Python<'py>,
        format: &str,
        der: bool,
        password: Option<&[u8]>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let format = match format {
            "pkcs8" => PrivateKeyFormat::Pkcs8,
            "pkcs1" => PrivateKeyFormat::Pkcs1,
            other => return Err(value_error(format!("unknown private key format '{other}'"))),
        };
        let encoding = if der { Encoding::Der } else { Encoding::Pem };
        let out = py
            .detach(|| {
                let c = self.key.private_components();
                match password {
                    None => keyfile::encode_private_key(&c, format, encoding),
                    Some(pass) => keyfile::encode_private_key_encrypted(
                        &c,
                        format,
                        encoding,
                        pass,
                        KeyCipher::Aes256Cbc,
                        KeyKdf::default(),
                        &mut os_rng(),
                    ),
                }
            })
            .map_err(value_error)?;
        Ok(PyBytes::new(py, &out))
    }

    /// Same key: same public key (n determines the primes).
    fn same_key(&self, other: &PrivateKey) -> bool {
        self.key.public_key() == other.key.public_key()
    }
}

#[pymethods]
impl PublicKey {
    #[getter]
    fn key_size(&self) -> usize {
        self.key.bits()
    }

    #[getter]
    fn size(&self) -> usize {
        self.key.size()
    }

    /// Whether `signature` is a valid signature of `data` (or, `prehashed`,
    /// of the digest `data`): PKCS#1 v1.5, or PSS when `pss` is (MGF1 hash,
    /// salt length or code).
    #[pyo3(signature = (signature, data, hash, prehashed, pss))]
    fn verify(
        &self,
        py: Python<'_>,
        signature: &[u8],
        data: &[u8],
        hash: &str,
        prehashed: bool,
        pss: PssArg,
    ) -> PyResult<bool> {
        let hash = hash_alg(hash)?;
        let pss = match pss_arg(pss)? {
            None => None,
            Some((mgf, code)) => match verify_salt(hash, self.key.bits(), code)? {
                Some(salt) => Some((mgf, salt)),
                None => return Ok(false),
            },
        };
        py.detach(|| {
            let digest = digest_of(hash, data, prehashed)?;
            Ok(match pss {
                None => self.key.verify_pkcs1v15(hash, &digest, signature),
                Some((mgf, salt)) => self.key.verify_pss_mgf1(hash, mgf, &digest, signature, salt),
            }
            .is_ok())
        })
        .map_err(|e: String| value_error(e))
    }

    /// Encrypt: PKCS#1 v1.5 (`oaep` None) or OAEP.
    #[pyo3(signature = (message, oaep))]
    fn encrypt<'py>(&self, py: Python<'py>, message: &[u8], oaep: OaepArg) -> PyResult<Bound<'py, PyBytes>> {
        let oaep = oaep_arg(oaep)?;
        let ct = py
            .detach(|| {
                let rng = &mut os_rng();
                match &oaep {
                    None => self.key.encrypt_pkcs1v15(rng, message),
                    Some((h, m, label)) => self.key.encrypt_oaep_mgf1(rng, *h, *m, label, message),
                }
            })
            .map_err(value_error)?;
        Ok(PyBytes::new(py, &ct))
    }

    /// The data a PKCS#1 v1.5 signature holds: the DigestInfo (`hash`
    /// None) or the digest of `hash`; None when the signature is not a
    /// well-formed PKCS#1 v1.5 signature (for `hash`).
    #[pyo3(signature = (signature, hash))]
    fn recover<'py>(
        &self,
        py: Python<'py>,
        signature: &[u8],
        hash: Option<&str>,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let hash = hash.map(hash_alg).transpose()?;
        let Ok(em) = self.key.raw_public(signature) else {
            return Ok(None);
        };
        // EMSA-PKCS1-v1_5 (RFC 8017 9.2): 00 01 FF..FF (8 or more) 00 T.
        let pad = em.iter().skip(2).take_while(|&&b| b == 0xff).count();
        let t_start = 2 + pad + 1;
        if em.len() < t_start || em[0] != 0 || em[1] != 1 || pad < 8 || em[t_start - 1] != 0 {
            return Ok(None);
        }
        let t = &em[t_start..];
        let out = match hash {
            None => t,
            Some(h) => {
                let prefix = h.digest_info_prefix();
                if t.len() != prefix.len() + h.output_len() || !t.starts_with(prefix) {
                    return Ok(None);
                }
                &t[prefix.len()..]
            }
        };
        Ok(Some(PyBytes::new(py, out)))
    }

    /// (n, e), big-endian.
    fn numbers<'py>(&self, py: Python<'py>) -> (Bound<'py, PyBytes>, Bound<'py, PyBytes>) {
        (
            PyBytes::new(py, &self.key.n_bytes()),
            PyBytes::new(py, &self.key.e_bytes()),
        )
    }

    /// The key from n and e (big-endian), checked.
    #[staticmethod]
    fn from_numbers(n: Vec<u8>, e: Vec<u8>) -> PyResult<PublicKey> {
        let key = RsaPublicKey::new(&n, &e).map_err(value_error)?;
        Ok(PublicKey { key })
    }

    /// The key as a file: `format` "spki" or "pkcs1", PEM or DER.
    fn to_file<'py>(&self, py: Python<'py>, format: &str, der: bool) -> PyResult<Bound<'py, PyBytes>> {
        let format = match format {
            "spki" => PublicKeyFormat::Spki,
            "pkcs1" => PublicKeyFormat::Pkcs1,
            other => return Err(value_error(format!("unknown public key format '{other}'"))),
        };
        let encoding = if der { Encoding::Der } else { Encoding::Pem };
        let out = self.key.to_key_file(format, encoding).map_err(value_error)?;
        Ok(PyBytes::new(py, &out))
    }

    fn same_key(&self, other: &PublicKey) -> bool {
        self.key == other.key
    }
}

/// A new key of `bits` bits with public exponent `e`.
#[pyfunction]
fn generate(py: Python<'_>, bits: usize, e: u64) -> PyResult<PrivateKey> {
    let key = py
        .detach(|| keygen::generate(bits, e, &mut os_rng()))
        .map_err(value_error)?;
    Ok(PrivateKey { key })
}

/// Why loading failed, as the exception to raise.
enum LoadError {
    Password(String),
    Value(String),
}

impl From<LoadError> for PyErr {
    fn from(e: LoadError) -> PyErr {
        match e {
            LoadError::Password(m) => PasswordError::new_err(m),
            LoadError::Value(m) => PyValueError::new_err(m),
        }
    }
}

fn file_error(e: KeyFileError) -> LoadError {
    match e {
        KeyFileError::Encrypted | KeyFileError::BadPassphrase => LoadError::Password(e.to_string()),
        e => LoadError::Value(e.to_string()),
    }
}

/// A private key from any PEM or DER file the library reads (PKCS#8,
/// PKCS#1, encrypted PKCS#8, OpenSSL's legacy encrypted PEM). A password
/// for an unencrypted key is refused, as pyca/cryptography refuses it.
#[pyfunction]
#[pyo3(signature = (data, password=None))]
fn load_private_key(py: Python<'_>, data: &[u8], password: Option<&[u8]>) -> PyResult<PrivateKey> {
    let key = py.detach(|| -> Result<RsaPrivateKey, LoadError> {
        let c = match (keyfile::decode_private_key(data), password) {
            (Ok(_), Some(_)) => {
                return Err(LoadError::Password(
                    "a password was given but the private key is not encrypted".into(),
                ));
            }
            (Ok(c), None) => c,
            (Err(KeyFileError::Encrypted), Some(pass)) => {
                keyfile::decode_private_key_with_passphrase(data, Some(pass)).map_err(file_error)?
            }
            (Err(e), _) => return Err(file_error(e)),
        };
        RsaPrivateKey::from_private_components(&c).map_err(|e| LoadError::Value(e.to_string()))
    })?;
    Ok(PrivateKey { key })
}

/// A public key from an SPKI or PKCS#1 file, PEM or DER.
#[pyfunction]
fn load_public_key(data: &[u8]) -> PyResult<PublicKey> {
    let key = RsaPublicKey::from_key_file(data).map_err(|e| match e {
        KeyLoadError::File(f) => PyErr::from(file_error(f)),
        KeyLoadError::Key(k) => value_error(k),
    })?;
    Ok(PublicKey { key })
}

/// The thread count `threads` means (0: every core the system reports).
#[pyfunction]
fn thread_count(threads: usize) -> usize {
    rsa::thread_count(threads)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PrivateKey>()?;
    m.add_class::<PublicKey>()?;
    m.add_function(wrap_pyfunction!(generate, m)?)?;
    m.add_function(wrap_pyfunction!(load_private_key, m)?)?;
    m.add_function(wrap_pyfunction!(load_public_key, m)?)?;
    m.add_function(wrap_pyfunction!(thread_count, m)?)?;
    m.add("PasswordError", m.py().get_type::<PasswordError>())?;
    m.add("SALT_DIGEST", SALT_DIGEST)?;
    m.add("SALT_MAX", SALT_MAX)?;
    m.add("SALT_AUTO", SALT_AUTO)?;
    Ok(())
}
