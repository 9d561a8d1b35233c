//! The RSA commands: genrsa, pubout, sign, verify, encrypt, decrypt.
//!
//! Exit status: 0 success; 1 a signature that does not verify or a
//! ciphertext that does not decrypt; 2 bad input or usage (one line on
//! stderr). Outputs are written only on success.

use crate::guard::one_stdin;
use crate::io::{Secrecy, read_input, write_output};
use crate::pass::read_pass;
use crate::rsa_args::{
    CipherName, CryptArgs, CryptScheme, GenrsaArgs, HashName, PrivFormat, PubFormat, PuboutArgs, SigScheme,
    SignArgs, VerifyArgs,
};
use crate::sign_common::{message_digest, sign_error};
use crate::sign_many;
use redc::hash::HashAlg;
use redc::keyfile::{
    self, Encoding, KeyAlgorithm, KeyCipher, KeyFileError, KeyKdf, PrivateKeyFormat, PssParams,
    PublicKeyFormat, RsaPublicComponents, quote_untrusted,
};
use redc::padding::SaltLen;
use redc::rsa::KeyLoadError;
use redc::rsa::{Error as RsaError, RsaPrivateKey, RsaPublicKey, keygen, os_rng};

type CmdResult = Result<i32, String>;

fn finish(context: &str, r: CmdResult) -> i32 {
    r.unwrap_or_else(|message| crate::fail(context, message))
}

fn passphrase(passin: Option<&str>) -> Result<Option<zeroize::Zeroizing<Vec<u8>>>, String> {
    passin.map(|arg| read_pass("--passin", arg)).transpose()
}

/// `--passin`'s place in [`one_stdin`]: `-` when it reads stdin (`stdin`
/// or `fd:0`).
pub(crate) fn passin_stream(passin: Option<&str>) -> &'static str {
    match passin {
        Some("stdin" | "fd:0") => "-",
        _ => "",
    }
}

fn load_error(path: &str, e: KeyLoadError) -> String {
    let hint = match e {
        KeyLoadError::File(KeyFileError::Encrypted) => " (give it with --passin)",
        _ => "",
    };
    format!("'{}': {e}{hint}", quote_untrusted(path))
}

/// A private key and what its file allows it (RSA, or RSA-PSS with its restrictions).
pub(crate) fn load_private(
    path: &str,
    passin: Option<&str>,
) -> Result<(RsaPrivateKey, KeyAlgorithm), String> {
    // The file holds the key's secrets (base64 or DER): wiped after parsing.
    let bytes = zeroize::Zeroizing::new(read_input(path)?);
    let pass = passphrase(passin)?;
    let (c, alg) = keyfile::decode_private_key_info(&bytes, pass.as_deref().map(Vec::as_slice))
        .map_err(|e| load_error(path, KeyLoadError::File(e)))?;
    let key =
        RsaPrivateKey::from_private_components(&c).map_err(|e| load_error(path, KeyLoadError::Key(e)))?;
    Ok((key, alg))
}

/// A public key (or a private key's public half) and what its file allows it.
pub(crate) fn load_public(path: &str, passin: Option<&str>) -> Result<(RsaPublicKey, KeyAlgorithm), String> {
    let bytes = zeroize::Zeroizing::new(read_input(path)?);
    let pass = passphrase(passin)?;
    let (c, alg) = keyfile::decode_public_key_info(&bytes, pass.as_deref().map(Vec::as_slice))
        .map_err(|e| load_error(path, KeyLoadError::File(e)))?;
    let key = RsaPublicKey::new(&c.n, &c.e).map_err(|e| load_error(path, KeyLoadError::Key(e)))?;
    Ok((key, alg))
}

/// The signature scheme, hash and MGF1 hash of `sign` and `verify`, with an
/// RSA-PSS key's restrictions enforced (RFC 4055 §3.1) and its parameters
/// as the defaults.
pub(crate) fn signature_plan(
    alg: KeyAlgorithm,
    scheme: Option<SigScheme>,
    hash: Option<HashName>,
    mgf1: Option<HashName>,
) -> Result<(bool, HashAlg, HashAlg), String> {
    let hash_given = hash.map(HashName::alg);
    let mgf1_given = mgf1.map(HashName::alg);
    let pss = match (alg, scheme) {
        (KeyAlgorithm::RsaPss(_), Some(SigScheme::Pkcs1)) => {
            return Err("the key is an RSA-PSS key: it signs with --scheme pss only".into());
        }
        (KeyAlgorithm::RsaPss(_), _) => true,
        (KeyAlgorithm::Rsa, s) => s == Some(SigScheme::Pss),
    };
    if !pss && mgf1_given.is_some() {
        return Err("--mgf1-hash applies to --scheme pss only".into());
    }
    let (hash, mgf1) = match alg {
        KeyAlgorithm::RsaPss(Some(p)) => {
            let hash = hash_given.unwrap_or(p.hash);
            let mgf1 = mgf1_given.unwrap_or(p.mgf1_hash);
            if hash != p.hash {
                return Err(format!("the RSA-PSS key allows --hash {} only", p.hash));
            }
            if mgf1 != p.mgf1_hash {
                return Err(format!("the RSA-PSS key allows --mgf1-hash {} only", p.mgf1_hash));
            }
            (hash, mgf1)
        }
        _ => {
            let hash = hash_given.unwrap_or(HashAlg::Sha256);
            (hash, mgf1_given.unwrap_or(hash))
        }
    };
    Ok((pss, hash, mgf1))
}

/// An RSA-PSS key's minimum salt length (0 for other keys).
pub(crate) fn min_salt(alg: KeyAlgorithm) -> usize {
    match alg {
        KeyAlgorithm::RsaPss(Some(p)) => p.salt_len,
        _ => 0,
    }
}

fn refuse_pss_for_encryption(alg: KeyAlgorithm) -> Result<(), String> {
    match alg {
        KeyAlgorithm::Rsa => Ok(()),
        KeyAlgorithm::RsaPss(_) => {
            Err("the key is an RSA-PSS key: it makes PSS signatures only, no encryption".into())
        }
    }
}

fn encoding(der: bool) -> Encoding {
    if der { Encoding::Der } else { Encoding::Pem }
}

/// `redc genrsa`.
pub fn genrsa(args: GenrsaArgs) -> i32 {
    finish(
        "genrsa",
        (|| {
            let e = parse_exponent(args.e.as_deref().unwrap_or("65537"))?;
            let cipher = match (args.cipher, &args.passout) {
                (Some(_), None) => return Err("--cipher needs --passout (the passphrase)".into()),
                (Some(CipherName::Aes128), Some(_)) => KeyCipher::Aes128Cbc,
                (Some(CipherName::Aes192), Some(_)) => KeyCipher::Aes192Cbc,
                (Some(CipherName::Aes256), Some(_)) | (None, _) => KeyCipher::Aes256Cbc,
            };
            if args.passout.is_some()
                && args.der
                && args.format.unwrap_or(PrivFormat::Pkcs8) == PrivFormat::Pkcs1
            {
                return Err("an encrypted PKCS#1 key is PEM only; use --format pkcs8 for DER".into());
            }
            let alg = if args.pss {
                if args.format.unwrap_or(PrivFormat::Pkcs8) == PrivFormat::Pkcs1 {
                    return Err("an RSA-PSS key is written as PKCS#8 only (--format pkcs8)".into());
                }
                match args.hash.map(HashName::alg) {
                    None => KeyAlgorithm::RsaPss(None),
                    Some(hash) => {
                        if hash == HashAlg::Sha1 {
                            return Err("SHA-1 is accepted for verification only".into());
                        }
                        let mgf1_hash = args.mgf1_hash.map_or(hash, HashName::alg);
                        let salt_len = args.salt_len.unwrap_or(hash.output_len());
                        if salt_len > 255 {
                            return Err(format!(
                                "--salt-len {salt_len}: at most 255 in a key's parameters"
                            ));
                        }
                        KeyAlgorithm::RsaPss(Some(PssParams {
                            hash,
                            mgf1_hash,
                            salt_len,
                        }))
                    }
                }
            } else {
                KeyAlgorithm::Rsa
            };
            // A spinner with the elapsed time moves within each stage (a
            // 16384-bit prime search takes a minute).
            let bar = if args.bits >= 4096 || args.progress {
                crate::progress::spinner(args.progress, format!("redc genrsa: {} bits", args.bits))
            } else {
                None
            };
            let mut progress = |stage: keygen::Progress| {
                if let Some(bar) = &bar {
                    let what = match stage {
                        keygen::Progress::FirstPrime => "searching for the first prime",
                        keygen::Progress::SecondPrime => "searching for the second prime",
                        keygen::Progress::Assembling => "computing d and the CRT values",
                    };
                    bar.set_message(format!("redc genrsa: {} bits: {what}", args.bits));
                }
            };
            let key = keygen::generate_with_progress(args.bits, e, &mut os_rng(), &mut progress)
                .map_err(|err| err.to_string());
            if let Some(bar) = &bar {
                bar.finish_with_message(format!("redc genrsa: {} bits: done", args.bits));
            }
            let key = key?;
            let format = match args.format.unwrap_or(PrivFormat::Pkcs8) {
                PrivFormat::Pkcs1 => PrivateKeyFormat::Pkcs1,
                PrivFormat::Pkcs8 => PrivateKeyFormat::Pkcs8,
            };
            let file = match &args.passout {
                None => keyfile::encode_private_key_info(
                    &key.private_components(),
                    alg,
                    format,
                    encoding(args.der),
                )
                .map_err(|err| err.to_string())?,
                Some(arg) => {
                    let pass = read_pass("--passout", arg)?;
                    keyfile::encode_private_key_encrypted_info(
                        &key.private_components(),
                        alg,
                        format,
                        encoding(args.der),
                        &pass,
                        cipher,
                        KeyKdf::default(),
                        &mut os_rng(),
                    )
                    .map_err(|err| err.to_string())?
                }
            };
            write_output(args.out.as_deref().unwrap_or("-"), &file, Secrecy::Secret)?;
            Ok(0)
        })(),
    )
}

fn parse_exponent(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse::<u64>(),
    };
    let e = parsed.map_err(|_| format!("--e '{}': not a number below 2^64", quote_untrusted(text)))?;
    if e < 3 || e % 2 == 0 {
        return Err(format!("--e {e}: the public exponent must be odd and at least 3"));
    }
    Ok(e)
}

/// `redc pubout`.
pub fn pubout(args: PuboutArgs) -> i32 {
    finish(
        "pubout",
        (|| {
            one_stdin(&[
                ("--key", &args.key),
                ("--passin", passin_stream(args.passin.as_deref())),
            ])?;
            let (key, alg) = load_public(&args.key, args.passin.as_deref())?;
            let format = match args.format.unwrap_or(PubFormat::Spki) {
                PubFormat::Pkcs1 => PublicKeyFormat::Pkcs1,
                PubFormat::Spki => PublicKeyFormat::Spki,
            };
            let c = RsaPublicComponents {
                n: key.n_bytes(),
                e: key.e_bytes(),
            };
            let file = keyfile::encode_public_key_info(&c, alg, format, encoding(args.der))
                .map_err(|e| e.to_string())?;
            write_output(args.out.as_deref().unwrap_or("-"), &file, Secrecy::Public)?;
            Ok(0)
        })(),
    )
}

/// `redc sign`.
pub fn sign(args: SignArgs) -> i32 {
    finish(
        "sign",
        (|| {
            if args.hash == Some(HashName::Sha1) {
                return Err("SHA-1 is accepted for verification only; sign with sha256 or another SHA-2 or SHA-3 hash".into());
            }
            if args.salt_len.is_some() && args.scheme == Some(SigScheme::Pkcs1) {
                return Err("--salt-len applies to --scheme pss only".into());
            }
            if args.out_dir.is_none() && args.threads.is_some() {
                return Err("--threads applies to --out-dir only".into());
            }
            if args.out_dir.is_none() && args.input.len() > 1 {
                return Err("several --in files need --out-dir DIR".into());
            }
            let input = args.input.first().map_or("-", String::as_str);
            let out = args.out.as_deref().unwrap_or("-");
            if args.digest.is_none() && args.out_dir.is_none() {
                one_stdin(&[
                    ("--key", &args.key),
                    ("--in", input),
                    ("--passin", passin_stream(args.passin.as_deref())),
                ])?;
            } else {
                one_stdin(&[
                    ("--key", &args.key),
                    ("--passin", passin_stream(args.passin.as_deref())),
                ])?;
            }
            let (key, alg) = load_private(&args.key, args.passin.as_deref())?;
            let (pss, hash, mgf1) = signature_plan(alg, args.scheme, args.hash, args.mgf1_hash)?;
            if hash == HashAlg::Sha1 {
                return Err("SHA-1 is accepted for verification only".into());
            }
            if args.salt_len.is_some() && !pss {
                return Err("--salt-len applies to --scheme pss only".into());
            }
            let salt_len = match (args.salt_len, alg) {
                (Some(n), _) if n < min_salt(alg) => {
                    return Err(format!(
                        "--salt-len {n}: the RSA-PSS key requires at least {}",
                        min_salt(alg)
                    ));
                }
                (Some(n), _) => Some(n),
                (None, KeyAlgorithm::RsaPss(Some(p))) => Some(p.salt_len),
                (None, _) => None,
            };
            if let Some(dir) = &args.out_dir {
                let plan = sign_many::Plan {
                    key: &key,
                    pss,
                    hash,
                    mgf1,
                    salt_len,
                    prehashed: args.prehashed,
                };
                return sign_many::run(&args, &plan, dir);
            }
            let digest = message_digest(hash, Some(input), args.prehashed, args.digest.as_deref())?;
            let mut rng = os_rng();
            let sig = if pss {
                key.sign_pss_mgf1(&mut rng, hash, mgf1, &digest, salt_len)
            } else {
                key.sign_pkcs1v15(&mut rng, hash, &digest)
            }
            .map_err(|e| sign_error(hash, e))?;
            write_output(out, &sig, Secrecy::Public)?;
            Ok(0)
        })(),
    )
}

/// `redc verify`: prints `Verified OK` (status 0) or `Verification failure` (status 1).
pub fn verify(args: VerifyArgs) -> i32 {
    finish(
        "verify",
        (|| {
            let input = args.input.as_deref().unwrap_or("-");
            let passin = ("--passin", passin_stream(args.passin.as_deref()));
            if args.digest.is_none() {
                one_stdin(&[
                    ("--key", &args.key),
                    ("--in", input),
                    ("--sig", &args.sig),
                    passin,
                ])?;
            } else {
                one_stdin(&[("--key", &args.key), ("--sig", &args.sig), passin])?;
            }
            let (key, alg) = load_public(&args.key, args.passin.as_deref())?;
            let (pss, hash, mgf1) = signature_plan(alg, args.scheme, args.hash, args.mgf1_hash)?;
            if args.salt_len.is_some() && !pss {
                return Err("--salt-len applies to --scheme pss only".into());
            }
            let salt = match (args.salt_len.unwrap_or(SaltLen::Auto), min_salt(alg)) {
                (SaltLen::Exact(n), min) if n < min => {
                    return Err(format!("--salt-len {n}: the RSA-PSS key requires at least {min}"));
                }
                (SaltLen::Auto, min) if min > 0 => SaltLen::AtLeast(min),
                (s, _) => s,
            };
            let sig = read_input(&args.sig)?;
            let digest = message_digest(hash, Some(input), args.prehashed, args.digest.as_deref())?;
            // One public operation; a malformed signature (wrong length, not
            // below n) is a failure too: say why on stderr.
            let em = match key.raw_public(&sig) {
                Ok(em) => em,
                Err(e) => {
                    eprintln!("redc verify: signature: {e}");
                    crate::outln("Verification failure");
                    return Ok(1);
                }
            };
            let verdict = if pss {
                redc::padding::emsa_pss_verify_mgf1(hash, mgf1, &digest, &em, key.bits() - 1, salt)
            } else {
                redc::padding::emsa_pkcs1v15_verify(hash, &digest, &em)
            };
            if verdict {
                crate::outln("Verified OK");
                Ok(0)
            } else {
                crate::outln("Verification failure");
                Ok(1)
            }
        })(),
    )
}

/// The hash, MGF1 hash and label of `encrypt` and `decrypt`, checked together.
fn crypt_options(args: &CryptArgs) -> Result<(HashAlg, HashAlg, Vec<u8>), String> {
    let hash = args.hash.map_or(HashAlg::Sha256, HashName::alg);
    let mgf1 = args.mgf1_hash.map_or(hash, HashName::alg);
    let label = args.label.clone().unwrap_or_default().0;
    if args.scheme() == CryptScheme::Pkcs1 {
        for (given, option) in [
            (args.label.is_some(), "--label"),
            (args.hash.is_some(), "--hash"),
            (args.mgf1_hash.is_some(), "--mgf1-hash"),
        ] {
            if given {
                return Err(format!("{option} applies to --scheme oaep only"));
            }
        }
    }
    one_stdin(&[
        ("--key", &args.key),
        ("--in", args.input()),
        ("--passin", passin_stream(args.passin.as_deref())),
    ])?;
    Ok((hash, mgf1, label))
}

/// `redc encrypt`.
pub fn encrypt(args: CryptArgs) -> i32 {
    finish(
        "encrypt",
        (|| {
            let (hash, mgf1, label) = crypt_options(&args)?;
            let (key, alg) = load_public(&args.key, args.passin.as_deref())?;
            refuse_pss_for_encryption(alg)?;
            let msg = zeroize::Zeroizing::new(read_input(args.input())?);
            let mut rng = os_rng();
            let ct = match args.scheme() {
                CryptScheme::Pkcs1 => key.encrypt_pkcs1v15(&mut rng, &msg),
                CryptScheme::Oaep => key.encrypt_oaep_mgf1(&mut rng, hash, mgf1, &label, &msg),
            }
            .map_err(|e| match e {
                RsaError::MessageTooLong => format!(
                    "message of {} bytes is too long for a {}-bit key with {}",
                    msg.len(),
                    key.bits(),
                    if args.scheme() == CryptScheme::Pkcs1 {
                        "PKCS#1 v1.5".to_string()
                    } else {
                        format!("OAEP-{}", hash.name())
                    }
                ),
                other => other.to_string(),
            })?;
            write_output(args.out(), &ct, Secrecy::Public)?;
            Ok(0)
        })(),
    )
}

/// `redc decrypt`: status 1 when the ciphertext does not decrypt (OAEP).
pub fn decrypt(args: CryptArgs) -> i32 {
    finish(
        "decrypt",
        (|| {
            let (hash, mgf1, label) = crypt_options(&args)?;
            let (key, alg) = load_private(&args.key, args.passin.as_deref())?;
            refuse_pss_for_encryption(alg)?;
            let ct = read_input(args.input())?;
            let mut rng = os_rng();
            let result = match args.scheme() {
                CryptScheme::Pkcs1 => key.decrypt_pkcs1v15_with_rng(&mut rng, &ct),
                CryptScheme::Oaep => key.decrypt_oaep_mgf1(&mut rng, hash, mgf1, &label, &ct),
            };
            match result {
                Ok(msg) => {
                    write_output(args.out(), &msg, Secrecy::Secret)?;
                    Ok(0)
                }
                Err(RsaError::Decryption) => {
                    // A fixed text from the options alone: it says nothing
                    // about why this ciphertext failed.
                    eprintln!(
                        "redc decrypt: decryption failed (OAEP with hash {} and MGF1 hash {}, \
                         label of {} bytes; a wrong key, hash or label fails the same way; --hash sets both \
                         hashes unless --mgf1-hash is given, and OpenSSL's OAEP default is SHA-1: try --hash sha1)",
                        hash.name(),
                        mgf1.name(),
                        label.len()
                    );
                    Ok(1)
                }
                Err(other) => Err(other.to_string()),
            }
        })(),
    )
}
