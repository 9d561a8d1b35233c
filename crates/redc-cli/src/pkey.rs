//! `redc pkey`: a look inside a key file, as `openssl pkey -text -noout`
//! and `openssl rsa -check` give it.
//!
//! Without options: the key's kind and size, its public exponent and type
//! (RSA, or RSA-PSS with its parameters). `--text`: the components in
//! OpenSSL's layout (the private ones only for a private key). `--pubout`:
//! the public key (SPKI PEM) alone, as `openssl pkey -pubout` writes it;
//! with `--text`, followed by the public components. `--check`: the consistency checks of
//! the RSA layer (n = p q, e dP = 1 mod p-1 and e dQ = 1 mod q-1, hence
//! d e = 1 mod lcm(p-1, q-1); the CRT values) and Miller-Rabin on p and q
//! with the FIPS 186-5 Table B.1 round counts; prints `RSA key ok` (status
//! 0) or `RSA key error: <the failed check>` (status 1).

use redc::hash::HashAlg;
use redc::keyfile::{
    self, Encoding, KeyAlgorithm, PublicKeyFormat, RsaPrivateComponents, RsaPublicComponents,
};
use redc::rsa::{Error as RsaError, RsaPrivateKey, os_rng, prime};
use zeroize::Zeroizing;

use crate::io::{Secrecy, read_input, write_output};

/// Arguments of `redc pkey`.
#[derive(clap::Args, Debug)]
pub struct PkeyArgs {
    /// Key file (private or public), PEM or DER.
    #[arg(long)]
    key: String,
    /// Passphrase of an encrypted private key (pass:TEXT, env:VAR, file:PATH, fd:N, stdin).
    #[arg(long, value_name = "ARG")]
    passin: Option<String>,
    /// Print the components as `openssl pkey -text` lays them out.
    #[arg(long)]
    text: bool,
    /// Check the private key's consistency and primes: `RSA key ok` (status 0) or the failed check (status 1).
    #[arg(long)]
    check: bool,
    /// Write only the public key (SPKI PEM); with --text, followed by the public components.
    #[arg(long)]
    pubout: bool,
    /// Output file (`-` for stdout, the default).
    #[arg(short = 'o', long = "out")]
    out: Option<String>,
}

/// `redc pkey`.
pub fn run(args: PkeyArgs) -> i32 {
    match pkey(&args) {
        Ok(status) => status,
        Err(message) => crate::fail("pkey", message),
    }
}

enum Key {
    Private(RsaPrivateComponents),
    Public(RsaPublicComponents),
}

fn pkey(args: &PkeyArgs) -> Result<i32, String> {
    crate::guard::one_stdin(&[
        ("--key", &args.key),
        ("--passin", crate::rsa_cmds::passin_stream(args.passin.as_deref())),
    ])?;
    let bytes = Zeroizing::new(read_input(&args.key)?);
    let pass = args
        .passin
        .as_deref()
        .map(|a| crate::pass::read_pass("--passin", a))
        .transpose()?;
    let pass = pass.as_deref().map(Vec::as_slice);
    let path = keyfile::quote_untrusted(&args.key);
    let hint = |e: keyfile::KeyFileError| match e {
        keyfile::KeyFileError::Encrypted => format!("'{path}': {e} (give it with --passin)"),
        e => format!("'{path}': {e}"),
    };
    let (key, alg) = match keyfile::decode_private_key_info(&bytes, pass) {
        Ok((c, alg)) => (Key::Private(c), alg),
        Err(keyfile::KeyFileError::PublicKeyOnly) => {
            let (c, alg) = keyfile::decode_public_key_info(&bytes, pass).map_err(hint)?;
            (Key::Public(c), alg)
        }
        Err(e) => return Err(hint(e)),
    };
    let public = match &key {
        Key::Private(c) => c.public(),
        Key::Public(c) => c.clone(),
    };
    if args.check && matches!(key, Key::Public(_)) {
        return Err("--check needs a private key".into());
    }
    // The text may hold private components: one buffer, large enough for
    // a 16384-bit key's text (so no reallocation leaves a copy behind),
    // wiped on drop.
    let mut out = Zeroizing::new(String::with_capacity(1 << 16));
    if args.pubout {
        let pem = keyfile::encode_public_key_info(&public, alg, PublicKeyFormat::Spki, Encoding::Pem)
            .map_err(|e| e.to_string())?;
        out.push_str(&String::from_utf8_lossy(&pem));
    }
    let bits = bit_len(&public.n);
    match (&key, args.text, args.pubout) {
        (_, false, true) => {}
        (Key::Private(c), true, false) => private_text(&mut out, c, bits),
        (_, true, _) => public_text(&mut out, &public, bits),
        (Key::Private(_), false, _) => {
            out.push_str(&format!("Private-Key: ({bits} bit, 2 primes)\n"));
            number(&mut out, "publicExponent", &public.e);
        }
        (Key::Public(_), false, _) => {
            out.push_str(&format!("Public-Key: ({bits} bit)\n"));
            number(&mut out, "Exponent", &public.e);
        }
    }
    if !args.text && !args.pubout {
        out.push_str(&format!("Type: {}\n", alg.name()));
    }
    if args.text || !args.pubout {
        pss_text(&mut out, alg);
    }
    let mut status = 0;
    if args.check
        && let Key::Private(c) = &key
    {
        match check(c) {
            Ok(()) => out.push_str("RSA key ok\n"),
            Err(why) => {
                out.push_str(&format!("RSA key error: {why}\n"));
                status = 1;
            }
        }
    }
    // Private components on the terminal or in a file: the output is a secret then.
    let secrecy = if args.text && !args.pubout && matches!(key, Key::Private(_)) {
        Secrecy::Secret
    } else {
        Secrecy::Public
    };
    write_output(args.out.as_deref().unwrap_or("-"), out.as_bytes(), secrecy)?;
    Ok(status)
}

fn bit_len(x: &[u8]) -> usize {
    match x.iter().position(|&b| b != 0) {
        Some(i) => (x.len() - i) * 8 - x[i].leading_zeros() as usize,
        None => 0,
    }
}

/// OpenSSL's layout of a number (`ASN1_bn_print`): up to 8 bytes in
/// decimal and hex on one line, longer ones as colon-separated hex bytes
/// (a leading 00 when the top bit is set), 15 a line, 4 spaces in.
fn number(out: &mut String, name: &str, be: &[u8]) {
    let start = be.iter().position(|&b| b != 0).unwrap_or(be.len());
    let v = &be[start..];
    if v.len() <= 8 {
        let x = v.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        out.push_str(&format!("{name}: {x} (0x{x:x})\n"));
        return;
    }
    out.push_str(&format!("{name}:\n"));
    let mut bytes = Zeroizing::new(Vec::with_capacity(v.len() + 1));
    if v[0] & 0x80 != 0 {
        bytes.push(0);
    }
    bytes.extend_from_slice(v);
    let lines = bytes.chunks(15).count();
    for (i, line) in bytes.chunks(15).enumerate() {
        out.push_str("    ");
        for (j, b) in line.iter().enumerate() {
            out.push_str(&format!("{b:02x}"));
            if i + 1 < lines || j + 1 < line.len() {
                out.push(':');
            }
        }
        out.push('\n');
    }
}

fn private_text(out: &mut String, c: &RsaPrivateComponents, bits: usize) {
    out.push_str(&format!("Private-Key: ({bits} bit, 2 primes)\n"));
    number(out, "modulus", &c.n);
    number(out, "publicExponent", &c.e);
    number(out, "privateExponent", &c.d);
    number(out, "prime1", &c.p);
    number(out, "prime2", &c.q);
    number(out, "exponent1", &c.dp);
    number(out, "exponent2", &c.dq);
    number(out, "coefficient", &c.qinv);
}

fn public_text(out: &mut String, c: &RsaPublicComponents, bits: usize) {
    out.push_str(&format!("Public-Key: ({bits} bit)\n"));
    number(out, "Modulus", &c.n);
    number(out, "Exponent", &c.e);
}

/// OpenSSL 3's names of the hashes (`SHA2-256`, ...).
fn openssl_name(h: HashAlg) -> &'static str {
    match h {
        HashAlg::Sha1 => "SHA1",
        HashAlg::Sha224 => "SHA2-224",
        HashAlg::Sha256 => "SHA2-256",
        HashAlg::Sha384 => "SHA2-384",
        HashAlg::Sha512 => "SHA2-512",
        HashAlg::Sha512_224 => "SHA2-512/224",
        HashAlg::Sha512_256 => "SHA2-512/256",
        HashAlg::Sha3_224 => "SHA3-224",
        HashAlg::Sha3_256 => "SHA3-256",
        HashAlg::Sha3_384 => "SHA3-384",
        HashAlg::Sha3_512 => "SHA3-512",
    }
}

fn pss_text(out: &mut String, alg: KeyAlgorithm) {
    match alg {
        KeyAlgorithm::Rsa => {}
        KeyAlgorithm::RsaPss(None) => out.push_str("No PSS parameter restrictions\n"),
        KeyAlgorithm::RsaPss(Some(p)) => {
            out.push_str("PSS parameter restrictions:\n");
            // RFC 4055's defaults (SHA-1, MGF1 with SHA-1, 20) marked as OpenSSL marks them.
            let default = |is: bool| if is { " (default)" } else { "" };
            out.push_str(&format!(
                "  Hash Algorithm: {}{}\n",
                openssl_name(p.hash),
                default(p.hash == HashAlg::Sha1)
            ));
            out.push_str(&format!(
                "  Mask Algorithm: MGF1 with {}{}\n",
                openssl_name(p.mgf1_hash),
                default(p.mgf1_hash == HashAlg::Sha1)
            ));
            out.push_str(&format!(
                "  Minimum Salt Length: {}{}\n",
                p.salt_len,
                default(p.salt_len == 20)
            ));
            out.push_str("  Trailer Field: 0x1 (default)\n");
        }
    }
}

/// Big-endian bytes as little-endian 64-bit limbs (at least one), wiped on drop.
fn limbs(be: &[u8]) -> Zeroizing<Vec<u64>> {
    let mut out = Zeroizing::new(vec![0u64; be.len().div_ceil(8).max(1)]);
    for (i, &b) in be.iter().rev().enumerate() {
        out[i / 8] |= u64::from(b) << (8 * (i % 8));
    }
    out
}

/// The RSA layer's consistency checks, then primality of p and q.
fn check(c: &RsaPrivateComponents) -> Result<(), String> {
    match RsaPrivateKey::from_private_components(c) {
        Ok(_) => {}
        Err(RsaError::InvalidKey(why)) => return Err(why.to_string()),
        Err(other) => return Err(other.to_string()),
    }
    let mut rng = os_rng();
    for (name, v) in [("p", &c.p), ("q", &c.q)] {
        let rounds = prime::mr_rounds(bit_len(v));
        if !prime::miller_rabin(&limbs(v), rounds, &mut rng) {
            return Err(format!("{name} is not prime"));
        }
    }
    Ok(())
}
