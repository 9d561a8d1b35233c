//! The RSA commands: genrsa, pubout, sign, verify, encrypt, decrypt.
//!
//! Exit status: 0 success; 1 a signature that does not verify or a
//! ciphertext that does not decrypt; 2 bad input or usage (one line on
//! stderr). Outputs are written only on success.

use crate::guard::one_stdin;
use crate::io::{Secrecy, read_input, stream_input, write_output};
use redc::hash::HashAlg;
use redc::keyfile::{Encoding, PrivateKeyFormat, PublicKeyFormat, quote_untrusted};
use redc::padding::SaltLen;
use redc::rsa::{Error as RsaError, RsaPrivateKey, RsaPublicKey, keygen, os_rng};

/// A hash name (`--hash`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashName {
    /// SHA-1 (verification and OAEP only).
    Sha1,
    /// SHA-256.
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
}

impl HashName {
    fn alg(self) -> HashAlg {
        match self {
            HashName::Sha1 => HashAlg::Sha1,
            HashName::Sha256 => HashAlg::Sha256,
            HashName::Sha384 => HashAlg::Sha384,
            HashName::Sha512 => HashAlg::Sha512,
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
sets both the label hash and the MGF1 hash, wrong --label, damaged file) writes \
nothing and exits with status 1. OpenSSL's OAEP default is SHA-1: decrypt its \
output with --hash sha1.

PKCS#1 v1.5 (--scheme pkcs1) uses implicit rejection: a ciphertext that does \
not decrypt, including one made for another key, does NOT fail. The command \
exits 0 and writes a message of random-looking bytes derived from the key and \
the ciphertext, the same bytes every time. This is deliberate: an error would \
tell an attacker which ciphertexts are well formed (Bleichenbacher's attack). \
Success therefore proves nothing; check the decrypted message (for example \
its length or a MAC) before trusting it.";

/// Arguments of `redc genrsa`.
#[derive(clap::Args, Debug)]
pub struct GenrsaArgs {
    /// Modulus size in bits (1024 to 16384).
    #[arg(long, value_parser = parse_genrsa_bits)]
    bits: usize,
    /// Public exponent (odd, at least 3; decimal or 0x-prefixed hex).
    #[arg(long, default_value = "65537")]
    e: String,
    /// Private key format.
    #[arg(long, value_enum, default_value_t = PrivFormat::Pkcs8)]
    format: PrivFormat,
    /// Write DER instead of PEM.
    #[arg(long)]
    der: bool,
    /// Output file (`-` for stdout).
    #[arg(short = 'o', long = "out", default_value = "-")]
    out: String,
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
    /// Public key format.
    #[arg(long, value_enum, default_value_t = PubFormat::Spki)]
    format: PubFormat,
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
    pub(crate) key: String,
    /// Hash (sha1 is refused for signing).
    #[arg(long, value_enum, default_value_t = HashName::Sha256)]
    pub(crate) hash: HashName,
    /// Signature scheme.
    #[arg(long, value_enum, default_value_t = SigScheme::Pkcs1)]
    pub(crate) scheme: SigScheme,
    /// PSS salt length in bytes (default: the hash length).
    #[arg(long)]
    pub(crate) salt_len: Option<usize>,
    /// File to sign (`-` for stdin); several files with --out-dir.
    #[arg(long = "in", num_args = 1.., default_value = "-")]
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
    /// Hash.
    #[arg(long, value_enum, default_value_t = HashName::Sha256)]
    hash: HashName,
    /// Signature scheme.
    #[arg(long, value_enum, default_value_t = SigScheme::Pkcs1)]
    scheme: SigScheme,
    /// PSS salt length in bytes, or `auto` to recover it (default).
    #[arg(long, default_value = "auto", value_parser = parse_salt_len, allow_hyphen_values = true)]
    salt_len: SaltLen,
    /// The signed file (`-` for stdin).
    #[arg(long = "in", default_value = "-")]
    input: String,
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
    /// Encryption scheme.
    #[arg(long, value_enum, default_value_t = CryptScheme::Oaep)]
    scheme: CryptScheme,
    /// OAEP hash, for the label and MGF1 (OpenSSL's OAEP default is sha1).
    #[arg(long, value_enum, default_value_t = HashName::Sha256)]
    hash: HashName,
    /// OAEP label, in hex, `0x` prefix allowed (default: empty).
    #[arg(long, default_value = "", value_parser = parse_label)]
    label: Label,
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

pub(crate) fn load_private(path: &str) -> Result<RsaPrivateKey, String> {
    // The file holds the key's secrets (base64 or DER): wiped after parsing.
    let bytes = zeroize::Zeroizing::new(read_input(path)?);
    RsaPrivateKey::from_key_file(&bytes).map_err(|e| format!("'{}': {e}", quote_untrusted(path)))
}

fn load_public(path: &str) -> Result<RsaPublicKey, String> {
    let bytes = read_input(path)?;
    RsaPublicKey::from_key_file(&bytes).map_err(|e| format!("'{}': {e}", quote_untrusted(path)))
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
            let format = match args.format {
                PrivFormat::Pkcs1 => PrivateKeyFormat::Pkcs1,
                PrivFormat::Pkcs8 => PrivateKeyFormat::Pkcs8,
            };
            let file = key
                .to_key_file(format, encoding(args.der))
                .map_err(|err| err.to_string())?;
            write_output(&args.out, &file, Secrecy::Secret)?;
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
            let key = load_public(&args.key)?;
            let format = match args.format {
                PubFormat::Pkcs1 => PublicKeyFormat::Pkcs1,
                PubFormat::Spki => PublicKeyFormat::Spki,
            };
            let file = key
                .to_key_file(format, encoding(args.der))
                .map_err(|e| e.to_string())?;
            write_output(&args.out, &file, Secrecy::Public)?;
            Ok(0)
        })(),
    )
}

pub(crate) fn digest_of(hash: HashAlg, path: &str) -> Result<Vec<u8>, String> {
    let mut hasher = hash.hasher();
    stream_input(path, |chunk| hasher.update(chunk))?;
    Ok(hasher.finalize())
}

/// `redc sign`.
pub fn sign(args: SignArgs) -> i32 {
    finish(
        "sign",
        (|| {
            let hash = sign_hash(&args)?;
            if let Some(dir) = &args.out_dir {
                return crate::sign_many::run(&args, hash, dir);
            }
            if args.threads.is_some() {
                return Err("--threads applies to --out-dir only".into());
            }
            let [input] = &args.input[..] else {
                return Err("several --in files need --out-dir DIR".into());
            };
            let out = args.out.as_deref().unwrap_or("-");
            one_stdin(&[("--key", &args.key), ("--in", input)])?;
            let key = load_private(&args.key)?;
            let digest = digest_of(hash, input)?;
            let mut rng = os_rng();
            let sig = match args.scheme {
                SigScheme::Pss => key.sign_pss(&mut rng, hash, &digest, args.salt_len),
                SigScheme::Pkcs1 => key.sign_pkcs1v15(&mut rng, hash, &digest),
            }
            .map_err(|e| sign_error(hash, e))?;
            write_output(out, &sig, Secrecy::Public)?;
            Ok(0)
        })(),
    )
}

/// The signing hash, with the checks every form of `sign` makes.
fn sign_hash(args: &SignArgs) -> Result<HashAlg, String> {
    let hash = args.hash.alg();
    if hash == HashAlg::Sha1 {
        return Err("SHA-1 is accepted for verification only; sign with sha256, sha384 or sha512".into());
    }
    if args.salt_len.is_some() && args.scheme != SigScheme::Pss {
        return Err("--salt-len applies to --scheme pss only".into());
    }
    Ok(hash)
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
            let hash = args.hash.alg();
            one_stdin(&[("--key", &args.key), ("--in", &args.input), ("--sig", &args.sig)])?;
            let key = load_public(&args.key)?;
            let sig = read_input(&args.sig)?;
            let digest = digest_of(hash, &args.input)?;
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
            let verdict = match args.scheme {
                SigScheme::Pss => {
                    redc::padding::emsa_pss_verify(hash, &digest, &em, key.bits() - 1, args.salt_len)
                }
                SigScheme::Pkcs1 => redc::padding::emsa_pkcs1v15_verify(hash, &digest, &em),
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

/// The hash and label of `encrypt` and `decrypt`, checked together.
fn crypt_options(args: &CryptArgs) -> Result<(HashAlg, Vec<u8>), String> {
    let hash = args.hash.alg();
    let label = args.label.0.clone();
    if args.scheme == CryptScheme::Pkcs1 && !label.is_empty() {
        return Err("--label applies to --scheme oaep only".into());
    }
    one_stdin(&[("--key", &args.key), ("--in", &args.input)])?;
    Ok((hash, label))
}

/// `redc encrypt`.
pub fn encrypt(args: CryptArgs) -> i32 {
    finish(
        "encrypt",
        (|| {
            let (hash, label) = crypt_options(&args)?;
            let key = load_public(&args.key)?;
            let msg = zeroize::Zeroizing::new(read_input(&args.input)?);
            let mut rng = os_rng();
            let ct = match args.scheme {
                CryptScheme::Pkcs1 => key.encrypt_pkcs1v15(&mut rng, &msg),
                CryptScheme::Oaep => key.encrypt_oaep(&mut rng, hash, &label, &msg),
            }
            .map_err(|e| match e {
                RsaError::MessageTooLong => format!(
                    "message of {} bytes is too long for a {}-bit key with {}",
                    msg.len(),
                    key.bits(),
                    if args.scheme == CryptScheme::Pkcs1 {
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
            let (hash, label) = crypt_options(&args)?;
            let key = load_private(&args.key)?;
            let ct = read_input(&args.input)?;
            let mut rng = os_rng();
            let result = match args.scheme {
                CryptScheme::Pkcs1 => key.decrypt_pkcs1v15(&mut rng, &ct),
                CryptScheme::Oaep => key.decrypt_oaep(&mut rng, hash, &label, &ct),
            };
            match result {
                Ok(msg) => {
                    write_output(&args.out, &msg, Secrecy::Secret)?;
                    Ok(0)
                }
                Err(RsaError::Decryption) => {
                    // A fixed text from the options alone: it says nothing
                    // about why this ciphertext failed.
                    let name = hash.name();
                    eprintln!(
                        "redc decrypt: decryption failed (OAEP with hash {name} and MGF1 hash {name}, \
                         label of {} bytes; a wrong key, hash or label fails the same way; --hash sets both \
                         hashes, and OpenSSL's OAEP default is SHA-1: try --hash sha1)",
                        label.len()
                    );
                    Ok(1)
                }
                Err(other) => Err(other.to_string()),
            }
        })(),
    )
}
