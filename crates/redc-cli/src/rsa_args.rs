//! The command-line arguments of the RSA commands (genrsa, pubout, sign,
//! verify, encrypt, decrypt): their option types, the checks clap runs on
//! their values, and the long help of `decrypt`.

use redc::hash::HashAlg;
use redc::padding::SaltLen;
use redc::rsa::keygen;

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
    pub(crate) bits: usize,
    /// Public exponent (odd, at least 3; decimal or 0x-prefixed hex; default: 65537).
    #[arg(long)]
    pub(crate) e: Option<String>,
    /// Private key format (default: pkcs8).
    #[arg(long, value_enum)]
    pub(crate) format: Option<PrivFormat>,
    /// Write DER instead of PEM.
    #[arg(long)]
    pub(crate) der: bool,
    /// Encrypt the key with this passphrase (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    pub(crate) passout: Option<String>,
    /// Cipher of an encrypted key (default with --passout: aes-256-cbc).
    #[arg(long, value_enum)]
    pub(crate) cipher: Option<CipherName>,
    /// Write an RSA-PSS key (id-RSASSA-PSS), restricted to PSS signatures.
    #[arg(long)]
    pub(crate) pss: bool,
    /// With --pss: the only hash the key signs with (writes RSASSA-PSS-params).
    #[arg(long, value_enum, requires = "pss")]
    pub(crate) hash: Option<HashName>,
    /// With --pss --hash: the MGF1 hash (default: the same as --hash).
    #[arg(long, value_enum, requires = "hash")]
    pub(crate) mgf1_hash: Option<HashName>,
    /// With --pss --hash: the minimum salt length (default: the hash length).
    #[arg(long, requires = "hash")]
    pub(crate) salt_len: Option<usize>,
    /// Output file (`-` for stdout, the default).
    #[arg(short = 'o', long = "out")]
    pub(crate) out: Option<String>,
    /// Show progress even when stderr is not a terminal (it is shown on a
    /// terminal from 4096 bits).
    #[arg(long)]
    pub(crate) progress: bool,
}

/// Arguments of `redc pubout`.
#[derive(clap::Args, Debug)]
pub struct PuboutArgs {
    /// Private (or public) key file, PEM or DER.
    #[arg(long)]
    pub(crate) key: String,
    /// Passphrase of an encrypted private key (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    pub(crate) passin: Option<String>,
    /// Public key format (default: spki).
    #[arg(long, value_enum)]
    pub(crate) format: Option<PubFormat>,
    /// Write DER instead of PEM.
    #[arg(long)]
    pub(crate) der: bool,
    /// Output file (`-` for stdout, the default).
    #[arg(short = 'o', long = "out")]
    pub(crate) out: Option<String>,
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
    pub(crate) out: Option<String>,
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
    pub(crate) key: String,
    /// Passphrase of an encrypted private key (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    pub(crate) passin: Option<String>,
    /// Hash (default: sha256, or an RSA-PSS key's own).
    #[arg(long, value_enum)]
    pub(crate) hash: Option<HashName>,
    /// PSS: the MGF1 hash (default: the same as --hash).
    #[arg(long, value_enum)]
    pub(crate) mgf1_hash: Option<HashName>,
    /// The input (--in) is the digest itself, not the message.
    #[arg(long, conflicts_with = "digest")]
    pub(crate) prehashed: bool,
    /// The signed digest, in hex (instead of --in).
    #[arg(long, value_name = "HEX", conflicts_with = "input")]
    pub(crate) digest: Option<String>,
    /// Signature scheme (default: pkcs1; pss for an RSA-PSS key).
    #[arg(long, value_enum)]
    pub(crate) scheme: Option<SigScheme>,
    /// PSS salt length in bytes, or `auto` to recover it (default: auto).
    #[arg(long, value_parser = parse_salt_len, allow_hyphen_values = true)]
    pub(crate) salt_len: Option<SaltLen>,
    /// The signed file (`-` for stdin, the default).
    #[arg(long = "in")]
    pub(crate) input: Option<String>,
    /// The signature file.
    #[arg(long)]
    pub(crate) sig: String,
}

/// Arguments of `redc encrypt` and `redc decrypt`.
#[derive(clap::Args, Debug)]
pub struct CryptArgs {
    /// Key file: public or private to encrypt, private to decrypt.
    #[arg(long)]
    pub(crate) key: String,
    /// Passphrase of an encrypted private key (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    pub(crate) passin: Option<String>,
    /// Encryption scheme (default: oaep).
    #[arg(long, value_enum)]
    pub(crate) scheme: Option<CryptScheme>,
    /// OAEP hash, for the label and MGF1 unless --mgf1-hash (default: sha256;
    /// OpenSSL's OAEP default is sha1).
    #[arg(long, value_enum)]
    pub(crate) hash: Option<HashName>,
    /// OAEP: the MGF1 hash (default: the same as --hash).
    #[arg(long, value_enum)]
    pub(crate) mgf1_hash: Option<HashName>,
    /// OAEP label, in hex, `0x` prefix allowed (default: empty).
    #[arg(long, value_parser = parse_label)]
    pub(crate) label: Option<Label>,
    /// Input file (`-` for stdin, the default).
    #[arg(long = "in")]
    pub(crate) input: Option<String>,
    /// Output file (`-` for stdout, the default).
    #[arg(short = 'o', long = "out")]
    pub(crate) out: Option<String>,
}

impl CryptArgs {
    pub(crate) fn scheme(&self) -> CryptScheme {
        self.scheme.unwrap_or(CryptScheme::Oaep)
    }
    pub(crate) fn input(&self) -> &str {
        self.input.as_deref().unwrap_or("-")
    }
    pub(crate) fn out(&self) -> &str {
        self.out.as_deref().unwrap_or("-")
    }
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
pub struct Label(pub(crate) Vec<u8>);

/// `--label`: hex, with or without `0x`, saying what is wrong.
pub(crate) fn parse_label(text: &str) -> Result<Label, String> {
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
