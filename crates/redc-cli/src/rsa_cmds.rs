//! The RSA commands: genrsa, pubout, sign, verify, encrypt, decrypt.
//!
//! Exit status: 0 success; 1 a signature that does not verify or a
//! ciphertext that does not decrypt; 2 bad input or usage (one line on
//! stderr). Outputs are written only on success.

use crate::guard::one_stdin;
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

/// A hash name (`--hash`, `--mgf1-hash`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashName {
    /// SHA-1 (verification, OAEP and MGF1 only).
    Sha1,
    /// SHA-224.
    Sha224,
    /// SHA-256.
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
    /// SHA-512/224.
    #[value(name = "sha512-224")]
    Sha512_224,
    /// SHA-512/256.
    #[value(name = "sha512-256")]
    Sha512_256,
    /// SHA3-224.
    #[value(name = "sha3-224")]
    Sha3_224,
    /// SHA3-256.
    #[value(name = "sha3-256")]
    Sha3_256,
    /// SHA3-384.
    #[value(name = "sha3-384")]
    Sha3_384,
    /// SHA3-512.
    #[value(name = "sha3-512")]
    Sha3_512,
}

impl HashName {
    pub(crate) fn alg(self) -> HashAlg {
        match self {
            HashName::Sha1 => HashAlg::Sha1,
            HashName::Sha224 => HashAlg::Sha224,
            HashName::Sha256 => HashAlg::Sha256,
            HashName::Sha384 => HashAlg::Sha384,
            HashName::Sha512 => HashAlg::Sha512,
            HashName::Sha512_224 => HashAlg::Sha512_224,
            HashName::Sha512_256 => HashAlg::Sha512_256,
            HashName::Sha3_224 => HashAlg::Sha3_224,
            HashName::Sha3_256 => HashAlg::Sha3_256,
            HashName::Sha3_384 => HashAlg::Sha3_384,
            HashName::Sha3_512 => HashAlg::Sha3_512,
        }
    }
}

/// A signature scheme (`sign`/`verify --scheme`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigScheme {
    /// RSASSA-PKCS1-v1_5.
    Pkcs1,
    /// RSASSA-PSS.
    Pss,
}

/// An encryption scheme (`encrypt`/`decrypt --scheme`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CryptScheme {
    /// RSAES-OAEP.
    Oaep,
    /// RSAES-PKCS1-v1_5 (decryption with implicit rejection).
    Pkcs1,
}

/// A private key file format (`genrsa --format`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrivFormat {
    /// PKCS#8 PrivateKeyInfo.
    Pkcs8,
    /// PKCS#1 RSAPrivateKey.
    Pkcs1,
}

/// A public key file format (`pubout --format`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PubFormat {
    /// X.509 SubjectPublicKeyInfo.
    Spki,
    /// PKCS#1 RSAPublicKey.
    Pkcs1,
}

/// The long help of `redc decrypt`: what implicit rejection does.
pub const DECRYPT_ABOUT: &str = "Decrypt a file (OAEP, or PKCS#1 v1.5 with implicit rejection).

OAEP: a ciphertext that does not decrypt (wrong key, wrong --hash, which \
sets both the label hash and the MGF1 hash unless --mgf1-hash is given, wrong \
--label, damaged file) writes \
nothing and exits with status 1. OpenSSL's OAEP default is SHA-1: decrypt its \
output with --hash sha1.

PKCS#1 v1.5 (--scheme pkcs1) uses implicit rejection: a ciphertext that does \
not decrypt, including one made for another key, does NOT fail. The command \
exits 0 and writes a message of random-looking bytes derived from the key and \
the ciphertext, the same bytes every time. This is deliberate: an error would \
tell an attacker which ciphertexts are well formed (Bleichenbacher's attack). \
Success therefore proves nothing; check the decrypted message (for example \
its length or a MAC) before trusting it.";

/// The cipher of an encrypted private key (`genrsa --cipher`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CipherName {
    /// AES-128-CBC.
    #[value(name = "aes-128-cbc")]
    Aes128,
    /// AES-192-CBC.
    #[value(name = "aes-192-cbc")]
    Aes192,
    /// AES-256-CBC.
    #[value(name = "aes-256-cbc")]
    Aes256,
}

/// Arguments of `redc genrsa`.
#[derive(clap::Args, Debug)]
pub struct GenrsaArgs {
    /// Modulus size in bits (1024 to 16384).
    #[arg(long, value_parser = parse_genrsa_bits)]
    bits: usize,
    /// Public exponent (odd, at least 3; decimal or 0x-prefixed hex; default: 65537).
    #[arg(long)]
    e: Option<String>,
    /// Private key format (default: pkcs8).
    #[arg(long, value_enum)]
    format: Option<PrivFormat>,
    /// Write DER instead of PEM.
    #[arg(long)]
    der: bool,
    /// Encrypt the key with this passphrase (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    passout: Option<String>,
    /// Cipher of an encrypted key (default with --passout: aes-256-cbc).
    #[arg(long, value_enum)]
    cipher: Option<CipherName>,
    /// Write an RSA-PSS key (id-RSASSA-PSS), restricted to PSS signatures.
    #[arg(long)]
    pss: bool,
    /// With --pss: the only hash the key signs with (writes RSASSA-PSS-params).
    #[arg(long, value_enum, requires = "pss")]
    hash: Option<HashName>,
    /// With --pss --hash: the MGF1 hash (default: the same as --hash).
    #[arg(long, value_enum, requires = "hash")]
    mgf1_hash: Option<HashName>,
    /// With --pss --hash: the minimum salt length (default: the hash length).
    #[arg(long, requires = "hash")]
    salt_len: Option<usize>,
    /// Output file (`-` for stdout, the default).
    #[arg(short = 'o', long = "out")]
    out: Option<String>,
    /// Show progress even when stderr is not a terminal (it is shown on a
    /// terminal from 4096 bits).
    #[arg(long)]
    progress: bool,
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
    /// Public key format (default: spki).
    #[arg(long, value_enum)]
    format: Option<PubFormat>,
    /// Write DER instead of PEM.
    #[arg(long)]
    der: bool,
    /// Output file (`-` for stdout, the default).
    #[arg(short = 'o', long = "out")]
    out: Option<String>,
}

/// Arguments of `redc sign`.
#[derive(clap::Args, Debug)]
pub struct SignArgs {
    /// Private key file, PEM or DER.
    #[arg(long)]
    pub(crate) key: String,
    /// Passphrase of an encrypted private key (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    pub(crate) passin: Option<String>,
    /// Hash (default: sha256, or an RSA-PSS key's own; sha1 is refused for signing).
    #[arg(long, value_enum)]
    pub(crate) hash: Option<HashName>,
    /// PSS: the MGF1 hash (default: the same as --hash).
    #[arg(long, value_enum)]
    pub(crate) mgf1_hash: Option<HashName>,
    /// The input (--in) is the digest itself, not the message.
    #[arg(long, conflicts_with = "digest")]
    pub(crate) prehashed: bool,
    /// The digest to sign, in hex (instead of --in).
    #[arg(long, value_name = "HEX", conflicts_with_all = ["input", "out_dir"])]
    pub(crate) digest: Option<String>,
    /// Signature scheme (default: pkcs1; pss for an RSA-PSS key).
    #[arg(long, value_enum)]
    pub(crate) scheme: Option<SigScheme>,
    /// PSS salt length in bytes (default: the hash length, or an RSA-PSS key's minimum).
    #[arg(long)]
    pub(crate) salt_len: Option<usize>,
    /// File to sign (`-` for stdin, the default); several files with --out-dir.
    #[arg(long = "in", num_args = 1..)]
    pub(crate) input: Vec<String>,
    /// Signature output (`-` for stdout, the default).
    #[arg(short = 'o', long = "out", conflicts_with = "out_dir")]
    out: Option<String>,
    /// Sign every --in file at once (batch path, all cores), writing
    /// DIR/NAME.sig for each; a file that fails, fails alone (exit 2 at the end).
    #[arg(long, value_name = "DIR")]
    pub(crate) out_dir: Option<String>,
    /// Threads for --out-dir (default: every core).
    #[arg(long, value_name = "N")]
    pub(crate) threads: Option<usize>,
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
    /// Hash (default: sha256, or an RSA-PSS key's own).
    #[arg(long, value_enum)]
    hash: Option<HashName>,
    /// PSS: the MGF1 hash (default: the same as --hash).
    #[arg(long, value_enum)]
    mgf1_hash: Option<HashName>,
    /// The input (--in) is the digest itself, not the message.
    #[arg(long, conflicts_with = "digest")]
    prehashed: bool,
    /// The signed digest, in hex (instead of --in).
    #[arg(long, value_name = "HEX", conflicts_with = "input")]
    digest: Option<String>,
    /// Signature scheme (default: pkcs1; pss for an RSA-PSS key).
    #[arg(long, value_enum)]
    scheme: Option<SigScheme>,
    /// PSS salt length in bytes, or `auto` to recover it (default: auto).
    #[arg(long, value_parser = parse_salt_len, allow_hyphen_values = true)]
    salt_len: Option<SaltLen>,
    /// The signed file (`-` for stdin, the default).
    #[arg(long = "in")]
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
    /// Encryption scheme (default: oaep).
    #[arg(long, value_enum)]
    scheme: Option<CryptScheme>,
    /// OAEP hash, for the label and MGF1 unless --mgf1-hash (default: sha256;
    /// OpenSSL's OAEP default is sha1).
    #[arg(long, value_enum)]
    hash: Option<HashName>,
    /// OAEP: the MGF1 hash (default: the same as --hash).
    #[arg(long, value_enum)]
    mgf1_hash: Option<HashName>,
    /// OAEP label, in hex, `0x` prefix allowed (default: empty).
    #[arg(long, value_parser = parse_label)]
    label: Option<Label>,
    /// Input file (`-` for stdin, the default).
    #[arg(long = "in")]
    input: Option<String>,
    /// Output file (`-` for stdout, the default).
    #[arg(short = 'o', long = "out")]
    out: Option<String>,
}

impl CryptArgs {
    fn scheme(&self) -> CryptScheme {
        self.scheme.unwrap_or(CryptScheme::Oaep)
    }
    fn input(&self) -> &str {
        self.input.as_deref().unwrap_or("-")
    }
    fn out(&self) -> &str {
        self.out.as_deref().unwrap_or("-")
    }
}

type CmdResult = Result<i32, String>;

fn finish(context: &str, r: CmdResult) -> i32 {
    r.unwrap_or_else(|message| crate::fail(context, message))
}

/// `--bits` of genrsa: the range printed is the range accepted.
fn parse_genrsa_bits(text: &str) -> Result<usize, String> {
    let range = keygen::MIN_GENERATE_BITS..=redc::rsa::MAX_BITS;
    let bits: usize = text
        .parse()
        .map_err(|_| "not a whole number of bits".to_string())?;
    if !range.contains(&bits) {
        return Err(format!(
            "{bits} bits is outside the sizes genrsa makes ({} to {} bits)",
            range.start(),
            range.end()
        ));
    }
    Ok(bits)
}

/// `--salt-len` of verify: a number of bytes or `auto` (`-1`, as OpenSSL).
fn parse_salt_len(text: &str) -> Result<SaltLen, String> {
    match text {
        "auto" | "-1" => Ok(SaltLen::Auto),
        n => n
            .parse()
            .map(SaltLen::Exact)
            .map_err(|_| "a number of bytes or 'auto'".to_string()),
    }
}

/// An OAEP label's bytes.
#[derive(Clone, Debug, Default)]
pub struct Label(Vec<u8>);

/// `--label`: hex, with or without `0x`, saying what is wrong.
fn parse_label(text: &str) -> Result<Label, String> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if let Some((i, c)) = digits.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
        return Err(format!(
            "'{}' at position {} is not a hex digit (0-9, a-f)",
            c.escape_debug(),
            i + 1 + (text.len() - digits.len())
        ));
    }
    if digits.len() % 2 == 1 {
        return Err(format!(
            "{} hex digits is an odd number: each byte takes two digits",
            digits.len()
        ));
    }
    hex::decode(digits).map(Label).map_err(|e| e.to_string())
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

pub(crate) fn digest_of(hash: HashAlg, path: &str) -> Result<Vec<u8>, String> {
    let mut hasher = hash.hasher();
    stream_input(path, |chunk| hasher.update(chunk))?;
    Ok(hasher.finalize())
}

/// The digest to sign or verify: the hash of `input`; with `prehashed`, the
/// input's bytes themselves; or `--digest HEX` (`0x` allowed). A given
/// digest must be the hash's length.
pub(crate) fn message_digest(
    hash: HashAlg,
    input: Option<&str>,
    prehashed: bool,
    hex_digest: Option<&str>,
) -> Result<Vec<u8>, String> {
    let given = match (hex_digest, input) {
        (Some(text), _) => parse_label(text.trim())
            .map(|l| l.0)
            .map_err(|e| format!("--digest: {e}"))?,
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
                let plan = crate::sign_many::Plan {
                    key: &key,
                    pss,
                    hash,
                    mgf1,
                    salt_len,
                    prehashed: args.prehashed,
                };
                return crate::sign_many::run(&args, &plan, dir);
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

/// The message for a signing error.
pub(crate) fn sign_error(hash: HashAlg, e: RsaError) -> String {
    match e {
        RsaError::MessageTooLong => {
            format!("the key is too small for {} with this salt length", hash.name())
        }
        other => other.to_string(),
    }
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
