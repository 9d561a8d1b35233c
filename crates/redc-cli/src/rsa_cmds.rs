//! The RSA commands: genrsa, pubout, sign, verify, encrypt, decrypt.
//!
//! Exit status: 0 success; 1 a signature that does not verify or a
//! ciphertext that does not decrypt; 2 bad input or usage (one line on
//! stderr). Outputs are written only on success.

use crate::io::{Secrecy, read_input, stream_input, write_output};
use crate::pass::read_pass;
use redc::hash::HashAlg;
use redc::keyfile::{
    self, Encoding, KeyAlgorithm, KeyCipher, KeyFileError, KeyKdf, PrivateKeyFormat, PssParams,
    PublicKeyFormat, RsaPublicComponents, quote_untrusted,
};
use redc::padding::SaltLen;
use redc::rsa::KeyLoadError;
use redc::rsa::{Error as RsaError, RsaPrivateKey, RsaPublicKey, keygen, os_rng};

/// Arguments of `redc genrsa`.
#[derive(clap::Args, Debug)]
pub struct GenrsaArgs {
    /// Modulus size in bits (1024 to 16384).
    #[arg(long)]
    bits: usize,
    /// Public exponent (odd, at least 3; decimal or 0x-prefixed hex).
    #[arg(long, default_value = "65537")]
    e: String,
    /// Private key format.
    #[arg(long, default_value = "pkcs8", value_parser = ["pkcs8", "pkcs1"])]
    format: String,
    /// Write DER instead of PEM.
    #[arg(long)]
    der: bool,
    /// Encrypt the key with this passphrase (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    passout: Option<String>,
    /// Write an RSA-PSS key (id-RSASSA-PSS), restricted to PSS signatures.
    #[arg(long)]
    pss: bool,
    /// With --pss: the only hash the key signs with (writes RSASSA-PSS-params).
    #[arg(long, requires = "pss")]
    hash: Option<String>,
    /// With --pss --hash: the MGF1 hash (default: the same as --hash).
    #[arg(long, requires = "hash")]
    mgf1_hash: Option<String>,
    /// With --pss --hash: the minimum salt length (default: the hash length).
    #[arg(long, requires = "hash")]
    salt_len: Option<usize>,
    /// Cipher of an encrypted key (default with --passout: aes-256-cbc).
    #[arg(long, value_parser = ["aes-128-cbc", "aes-192-cbc", "aes-256-cbc"])]
    cipher: Option<String>,
    /// Output file (`-` for stdout).
    #[arg(short = 'o', long = "out", default_value = "-")]
    out: String,
}

/// Arguments of `redc pubout`.
#[derive(clap::Args, Debug)]
pub struct PuboutArgs {
    /// Private (or public) key file, PEM or DER.
    #[arg(long)]
    key: String,
    /// Passphrase of an encrypted private key (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    passin: Option<String>,
    /// Public key format.
    #[arg(long, default_value = "spki", value_parser = ["spki", "pkcs1"])]
    format: String,
    /// Write DER instead of PEM.
    #[arg(long)]
    der: bool,
    /// Output file (`-` for stdout).
    #[arg(short = 'o', long = "out", default_value = "-")]
    out: String,
}

/// Arguments of `redc sign`.
#[derive(clap::Args, Debug)]
pub struct SignArgs {
    /// Private key file, PEM or DER.
    #[arg(long)]
    key: String,
    /// Passphrase of an encrypted private key (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    passin: Option<String>,
    /// Hash (default: sha256, or an RSA-PSS key's own): sha224, sha256, sha384, sha512, sha512-224, sha512-256, sha3-224, sha3-256, sha3-384 or sha3-512.
    #[arg(long)]
    hash: Option<String>,
    /// PSS: the MGF1 hash (default: the same as --hash).
    #[arg(long)]
    mgf1_hash: Option<String>,
    /// The input (--in) is the digest itself, not the message.
    #[arg(long, conflicts_with = "digest")]
    prehashed: bool,
    /// The digest to sign, in hex (instead of --in).
    #[arg(long, value_name = "HEX", conflicts_with = "input")]
    digest: Option<String>,
    /// Signature scheme (default: pkcs1; pss for an RSA-PSS key).
    #[arg(long, value_parser = ["pkcs1", "pss"])]
    scheme: Option<String>,
    /// PSS salt length in bytes (default: the hash length, or an RSA-PSS key's minimum).
    #[arg(long)]
    salt_len: Option<usize>,
    /// File to sign (`-` for stdin).
    #[arg(long = "in", required_unless_present = "digest")]
    input: Option<String>,
    /// Signature output (`-` for stdout).
    #[arg(short = 'o', long = "out")]
    out: String,
}

/// Arguments of `redc verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Public or private key file, PEM or DER.
    #[arg(long)]
    key: String,
    /// Passphrase of an encrypted private key (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    passin: Option<String>,
    /// Hash (default: sha256, or an RSA-PSS key's own): sha1, sha224, sha256, sha384, sha512, sha512-224, sha512-256, sha3-224, sha3-256, sha3-384 or sha3-512.
    #[arg(long)]
    hash: Option<String>,
    /// PSS: the MGF1 hash (default: the same as --hash).
    #[arg(long)]
    mgf1_hash: Option<String>,
    /// The input (--in) is the digest itself, not the message.
    #[arg(long, conflicts_with = "digest")]
    prehashed: bool,
    /// The signed digest, in hex (instead of --in).
    #[arg(long, value_name = "HEX", conflicts_with = "input")]
    digest: Option<String>,
    /// Signature scheme (default: pkcs1; pss for an RSA-PSS key).
    #[arg(long, value_parser = ["pkcs1", "pss"])]
    scheme: Option<String>,
    /// PSS salt length in bytes, or `auto` to recover it (default).
    #[arg(long, default_value = "auto")]
    salt_len: String,
    /// The signed file (`-` for stdin).
    #[arg(long = "in", required_unless_present = "digest")]
    input: Option<String>,
    /// The signature file.
    #[arg(long)]
    sig: String,
}

/// Arguments of `redc encrypt` and `redc decrypt`.
#[derive(clap::Args, Debug)]
pub struct CryptArgs {
    /// Key file: public or private to encrypt, private to decrypt.
    #[arg(long)]
    key: String,
    /// Passphrase of an encrypted private key (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    passin: Option<String>,

    /// Encryption scheme.
    #[arg(long, default_value = "oaep", value_parser = ["oaep", "pkcs1"])]
    scheme: String,
    /// OAEP hash, for the label (and MGF1 unless --mgf1-hash): sha1, sha224, sha256, sha384, sha512, sha512-224, sha512-256, sha3-224, sha3-256, sha3-384 or sha3-512.
    #[arg(long, default_value = "sha256")]
    hash: String,
    /// OAEP: the MGF1 hash (default: the same as --hash).
    #[arg(long)]
    mgf1_hash: Option<String>,
    /// OAEP label, in hex (default: empty).
    #[arg(long, default_value = "")]
    label: String,
    /// Input file (`-` for stdin).
    #[arg(long = "in")]
    input: String,
    /// Output file (`-` for stdout).
    #[arg(short = 'o', long = "out")]
    out: String,
}

type CmdResult = Result<i32, String>;

fn finish(context: &str, r: CmdResult) -> i32 {
    r.unwrap_or_else(|message| crate::fail(context, message))
}

fn parse_hash(name: &str) -> Result<HashAlg, String> {
    HashAlg::from_name(name).ok_or_else(|| {
        format!(
            "unknown hash '{}' (use {})",
            quote_untrusted(name),
            HashAlg::NAMES
        )
    })
}

/// The MGF1 hash: `--mgf1-hash`, or the same as `--hash`.
fn parse_mgf1(name: Option<&str>, hash: HashAlg) -> Result<HashAlg, String> {
    name.map_or(Ok(hash), parse_hash)
}

fn passphrase(passin: Option<&str>) -> Result<Option<zeroize::Zeroizing<Vec<u8>>>, String> {
    passin.map(|arg| read_pass("--passin", arg)).transpose()
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
fn signature_plan(
    alg: KeyAlgorithm,
    scheme: Option<&str>,
    hash: Option<&str>,
    mgf1: Option<&str>,
) -> Result<(bool, HashAlg, HashAlg), String> {
    let hash_given = hash.map(parse_hash).transpose()?;
    let mgf1_given = mgf1.map(parse_hash).transpose()?;
    let pss = match (alg, scheme) {
        (KeyAlgorithm::RsaPss(_), Some("pkcs1")) => {
            return Err("the key is an RSA-PSS key: it signs with --scheme pss only".into());
        }
        (KeyAlgorithm::RsaPss(_), _) => true,
        (KeyAlgorithm::Rsa, s) => s == Some("pss"),
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
fn min_salt(alg: KeyAlgorithm) -> usize {
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
            let e = parse_exponent(&args.e)?;
            let cipher = match (&args.cipher, &args.passout) {
                (Some(_), None) => return Err("--cipher needs --passout (the passphrase)".into()),
                (Some(name), Some(_)) => KeyCipher::from_name(name).ok_or("unknown cipher")?,
                (None, _) => KeyCipher::Aes256Cbc,
            };
            if args.passout.is_some() && args.der && args.format == "pkcs1" {
                return Err("an encrypted PKCS#1 key is PEM only; use --format pkcs8 for DER".into());
            }
            let alg = if args.pss {
                if args.format == "pkcs1" {
                    return Err("an RSA-PSS key is written as PKCS#8 only (--format pkcs8)".into());
                }
                match &args.hash {
                    None => KeyAlgorithm::RsaPss(None),
                    Some(h) => {
                        let hash = parse_hash(h)?;
                        if hash == HashAlg::Sha1 {
                            return Err("SHA-1 is accepted for verification only".into());
                        }
                        let mgf1_hash = parse_mgf1(args.mgf1_hash.as_deref(), hash)?;
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
            let show = args.bits >= 4096;
            let mut progress = |stage: keygen::Progress| {
                if show {
                    let what = match stage {
                        keygen::Progress::FirstPrime => "searching for the first prime",
                        keygen::Progress::SecondPrime => "searching for the second prime",
                        keygen::Progress::Assembling => "computing d and the CRT values",
                    };
                    eprintln!("redc genrsa: {} bits: {what}...", args.bits);
                }
            };
            let key = keygen::generate_with_progress(args.bits, e, &mut os_rng(), &mut progress)
                .map_err(|err| err.to_string())?;
            let format = if args.format == "pkcs1" {
                PrivateKeyFormat::Pkcs1
            } else {
                PrivateKeyFormat::Pkcs8
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
            write_output(&args.out, &file, Secrecy::Secret)?;
            if show {
                eprintln!("redc genrsa: done");
            }
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
            let (key, alg) = load_public(&args.key, args.passin.as_deref())?;
            let format = if args.format == "pkcs1" {
                PublicKeyFormat::Pkcs1
            } else {
                PublicKeyFormat::Spki
            };
            let c = RsaPublicComponents {
                n: key.n_bytes(),
                e: key.e_bytes(),
            };
            let file = keyfile::encode_public_key_info(&c, alg, format, encoding(args.der))
                .map_err(|e| e.to_string())?;
            write_output(&args.out, &file, Secrecy::Public)?;
            Ok(0)
        })(),
    )
}

fn digest_of(hash: HashAlg, path: &str) -> Result<Vec<u8>, String> {
    let mut hasher = hash.hasher();
    stream_input(path, |chunk| hasher.update(chunk))?;
    Ok(hasher.finalize())
}

/// The digest to sign or verify: the hash of `--in`; with `--prehashed`,
/// the `--in` bytes themselves; or `--digest HEX`. A given digest must be
/// the hash's length.
fn message_digest(
    hash: HashAlg,
    input: Option<&str>,
    prehashed: bool,
    hex_digest: Option<&str>,
) -> Result<Vec<u8>, String> {
    let given = match (hex_digest, input) {
        (Some(text), _) => hex::decode(text.trim()).map_err(|_| {
            format!(
                "--digest '{}': not an even number of hex digits",
                quote_untrusted(text)
            )
        })?,
        (None, Some(path)) if prehashed => read_input(path)?,
        (None, Some(path)) => return digest_of(hash, path),
        (None, None) => return Err("give the input with --in or the digest with --digest".into()),
    };
    if given.len() != hash.output_len() {
        return Err(format!(
            "the digest is {} bytes; {} gives {}",
            given.len(),
            hash.name(),
            hash.output_len()
        ));
    }
    Ok(given)
}

/// `redc sign`.
pub fn sign(args: SignArgs) -> i32 {
    finish(
        "sign",
        (|| {
            if let Some(h) = &args.hash
                && parse_hash(h)? == HashAlg::Sha1
            {
                return Err(
                    "SHA-1 is accepted for verification only; sign with sha256, sha384 or sha512".into(),
                );
            }
            if args.salt_len.is_some() && args.scheme.as_deref() == Some("pkcs1") {
                return Err("--salt-len applies to --scheme pss only".into());
            }
            let (key, alg) = load_private(&args.key, args.passin.as_deref())?;
            let (pss, hash, mgf1) = signature_plan(
                alg,
                args.scheme.as_deref(),
                args.hash.as_deref(),
                args.mgf1_hash.as_deref(),
            )?;
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
            let digest = message_digest(
                hash,
                args.input.as_deref(),
                args.prehashed,
                args.digest.as_deref(),
            )?;
            let mut rng = os_rng();
            let sig = if pss {
                key.sign_pss_mgf1(&mut rng, hash, mgf1, &digest, salt_len)
            } else {
                key.sign_pkcs1v15(&mut rng, hash, &digest)
            }
            .map_err(|e| match e {
                RsaError::MessageTooLong => {
                    format!("the key is too small for {} with this salt length", hash.name())
                }
                other => other.to_string(),
            })?;
            write_output(&args.out, &sig, Secrecy::Public)?;
            Ok(0)
        })(),
    )
}

/// `redc verify`: prints `Verified OK` (status 0) or `Verification failure` (status 1).
pub fn verify(args: VerifyArgs) -> i32 {
    finish(
        "verify",
        (|| {
            let salt = match args.salt_len.as_str() {
                "auto" | "-1" => SaltLen::Auto,
                n => SaltLen::Exact(n.parse().map_err(|_| {
                    format!("--salt-len '{}': a number of bytes or 'auto'", quote_untrusted(n))
                })?),
            };
            let (key, alg) = load_public(&args.key, args.passin.as_deref())?;
            let (pss, hash, mgf1) = signature_plan(
                alg,
                args.scheme.as_deref(),
                args.hash.as_deref(),
                args.mgf1_hash.as_deref(),
            )?;
            let salt = match (salt, min_salt(alg)) {
                (SaltLen::Exact(n), min) if n < min => {
                    return Err(format!("--salt-len {n}: the RSA-PSS key requires at least {min}"));
                }
                (SaltLen::Auto, min) if min > 0 => SaltLen::AtLeast(min),
                (s, _) => s,
            };
            let sig = read_input(&args.sig)?;
            let digest = message_digest(
                hash,
                args.input.as_deref(),
                args.prehashed,
                args.digest.as_deref(),
            )?;
            // A malformed signature (wrong length, not below n) is a failure too;
            // say why on stderr.
            if let Err(e @ (RsaError::WrongLength { .. } | RsaError::OutOfRange)) = key.raw_public(&sig) {
                eprintln!("redc verify: signature: {e}");
                crate::outln("Verification failure");
                return Ok(1);
            }
            let verdict = if pss {
                key.verify_pss_mgf1(hash, mgf1, &digest, &sig, salt)
            } else {
                key.verify_pkcs1v15(hash, &digest, &sig)
            };
            if verdict.is_ok() {
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
    let hash = parse_hash(&args.hash)?;
    let mgf1 = parse_mgf1(args.mgf1_hash.as_deref(), hash)?;
    let label = parse_label(&args.label)?;
    if args.scheme == "pkcs1" && !label.is_empty() {
        return Err("--label applies to --scheme oaep only".into());
    }
    if args.scheme == "pkcs1" && args.mgf1_hash.is_some() {
        return Err("--mgf1-hash applies to --scheme oaep only".into());
    }
    Ok((hash, mgf1, label))
}

fn parse_label(hex_text: &str) -> Result<Vec<u8>, String> {
    hex::decode(hex_text).map_err(|_| {
        format!(
            "--label '{}': not an even number of hex digits",
            quote_untrusted(hex_text)
        )
    })
}

/// `redc encrypt`.
pub fn encrypt(args: CryptArgs) -> i32 {
    finish(
        "encrypt",
        (|| {
            let (hash, mgf1, label) = crypt_options(&args)?;
            let (key, alg) = load_public(&args.key, args.passin.as_deref())?;
            refuse_pss_for_encryption(alg)?;
            let msg = zeroize::Zeroizing::new(read_input(&args.input)?);
            let mut rng = os_rng();
            let ct = match args.scheme.as_str() {
                "pkcs1" => key.encrypt_pkcs1v15(&mut rng, &msg),
                _ => key.encrypt_oaep_mgf1(&mut rng, hash, mgf1, &label, &msg),
            }
            .map_err(|e| match e {
                RsaError::MessageTooLong => format!(
                    "message of {} bytes is too long for a {}-bit key with {}",
                    msg.len(),
                    key.bits(),
                    if args.scheme == "pkcs1" {
                        "PKCS#1 v1.5".to_string()
                    } else {
                        format!("OAEP-{}", hash.name())
                    }
                ),
                other => other.to_string(),
            })?;
            write_output(&args.out, &ct, Secrecy::Public)?;
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
            let ct = read_input(&args.input)?;
            let mut rng = os_rng();
            let result = match args.scheme.as_str() {
                "pkcs1" => key.decrypt_pkcs1v15(&mut rng, &ct),
                _ => key.decrypt_oaep_mgf1(&mut rng, hash, mgf1, &label, &ct),
            };
            match result {
                Ok(msg) => {
                    write_output(&args.out, &msg, Secrecy::Secret)?;
                    Ok(0)
                }
                Err(RsaError::Decryption) => {
                    eprintln!("redc decrypt: decryption failed");
                    Ok(1)
                }
                Err(other) => Err(other.to_string()),
            }
        })(),
    )
}
