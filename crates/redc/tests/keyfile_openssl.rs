//! Key files against OpenSSL: keys made by the `openssl` binary decode to
//! components that satisfy the RSA equations (checked with num-bigint), our
//! encodings are byte-identical to what OpenSSL writes for the same key, and
//! OpenSSL accepts them. Needs `openssl` on PATH (CI installs it).

mod common;
use common::openssl_in;

use std::path::PathBuf;

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::One;
use redc::keyfile::{
    Encoding, PrivateKeyFormat, PublicKeyFormat, RsaPrivateComponents, decode_private_key, decode_public_key,
    encode_private_key, encode_public_key,
};

/// A scratch directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("redc-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A big-endian byte string as a number.
fn num(b: &[u8]) -> BigUint {
    BigUint::from_bytes_be(b)
}

/// The RSA equations, and the encoding rule (no leading zero bytes).
fn check_math(k: &RsaPrivateComponents, bits: u64) {
    for v in [&k.n, &k.e, &*k.d, &*k.p, &*k.q, &*k.dp, &*k.dq, &*k.qinv] {
        assert_ne!(v[0], 0, "leading zero byte");
    }
    let (n, e, d, p, q) = (num(&k.n), num(&k.e), num(&k.d), num(&k.p), num(&k.q));
    assert_eq!(n.bits(), bits);
    assert_eq!(&p * &q, n);
    let one = BigUint::one();
    let (p1, q1) = (&p - &one, &q - &one);
    assert_eq!((&d * &e) % p1.lcm(&q1), one);
    assert_eq!(num(&k.dp), &d % &p1);
    assert_eq!(num(&k.dq), &d % &q1);
    assert_eq!((num(&k.qinv) * &q) % &p, one);
}

fn read(dir: &TempDir, f: &str) -> Vec<u8> {
    std::fs::read(dir.path(f)).unwrap()
}

/// One key through every format both ways.
fn round_trip(dir: &TempDir, key: &str, bits: u64) {
    let d = &dir.0;
    openssl_in(d, &["rsa", "-in", key, "-traditional", "-out", "p1.pem"]);
    openssl_in(
        d,
        &[
            "rsa",
            "-in",
            key,
            "-traditional",
            "-outform",
            "DER",
            "-out",
            "p1.der",
        ],
    );
    openssl_in(d, &["pkey", "-in", key, "-out", "p8.pem"]);
    // (`openssl pkey -outform DER` writes PKCS#1 for RSA in OpenSSL 3.0; pkcs8 writes PKCS#8.)
    openssl_in(
        d,
        &[
            "pkcs8", "-topk8", "-nocrypt", "-in", key, "-outform", "DER", "-out", "p8.der",
        ],
    );
    openssl_in(d, &["pkey", "-in", key, "-pubout", "-out", "spki.pem"]);
    openssl_in(
        d,
        &[
            "pkey", "-in", key, "-pubout", "-outform", "DER", "-out", "spki.der",
        ],
    );
    openssl_in(d, &["rsa", "-in", key, "-RSAPublicKey_out", "-out", "rsapub.pem"]);
    openssl_in(
        d,
        &[
            "rsa",
            "-in",
            key,
            "-RSAPublicKey_out",
            "-outform",
            "DER",
            "-out",
            "rsapub.der",
        ],
    );

    let k = decode_private_key(&read(dir, key)).unwrap();
    check_math(&k, bits);
    // The modulus as OpenSSL prints it.
    let modulus = String::from_utf8(openssl_in(d, &["rsa", "-in", key, "-modulus", "-noout"])).unwrap();
    let modulus = modulus.trim().strip_prefix("Modulus=").unwrap();
    assert_eq!(BigUint::parse_bytes(modulus.as_bytes(), 16).unwrap(), num(&k.n));

    // Every private file decodes to the same components.
    for f in ["p1.pem", "p1.der", "p8.pem", "p8.der"] {
        let other = decode_private_key(&read(dir, f)).unwrap();
        assert_eq!(
            (other.n.clone(), other.e.clone()),
            (k.n.clone(), k.e.clone()),
            "{f}"
        );
        for (a, b) in [
            (&other.d, &k.d),
            (&other.p, &k.p),
            (&other.q, &k.q),
            (&other.qinv, &k.qinv),
        ] {
            assert_eq!(**a, **b, "{f}");
        }
        assert_eq!(
            decode_public_key(&read(dir, f)).unwrap(),
            k.public(),
            "{f}: public part of a private key"
        );
    }
    for f in ["spki.pem", "spki.der", "rsapub.pem", "rsapub.der"] {
        assert_eq!(decode_public_key(&read(dir, f)).unwrap(), k.public(), "{f}");
    }

    // Byte-identical to OpenSSL's own output.
    let cases_private = [
        (PrivateKeyFormat::Pkcs1, Encoding::Pem, "p1.pem"),
        (PrivateKeyFormat::Pkcs1, Encoding::Der, "p1.der"),
        (PrivateKeyFormat::Pkcs8, Encoding::Pem, "p8.pem"),
        (PrivateKeyFormat::Pkcs8, Encoding::Der, "p8.der"),
    ];
    for (format, encoding, f) in cases_private {
        let ours = encode_private_key(&k, format, encoding).unwrap();
        assert!(*ours == read(dir, f), "{f}: not byte-identical to openssl");
    }
    let pubkey = k.public();
    let cases_public = [
        (PublicKeyFormat::Spki, Encoding::Pem, "spki.pem"),
        (PublicKeyFormat::Spki, Encoding::Der, "spki.der"),
        (PublicKeyFormat::Pkcs1, Encoding::Pem, "rsapub.pem"),
        (PublicKeyFormat::Pkcs1, Encoding::Der, "rsapub.der"),
    ];
    for (format, encoding, f) in cases_public {
        let ours = encode_public_key(&pubkey, format, encoding).unwrap();
        assert!(ours == read(dir, f), "{f}: not byte-identical to openssl");
    }

    // OpenSSL accepts ours.
    let write = |f: &str, bytes: &[u8]| std::fs::write(dir.path(f), bytes).unwrap();
    write(
        "ours.p1.pem",
        &encode_private_key(&k, PrivateKeyFormat::Pkcs1, Encoding::Pem).unwrap(),
    );
    write(
        "ours.p8.der",
        &encode_private_key(&k, PrivateKeyFormat::Pkcs8, Encoding::Der).unwrap(),
    );
    write(
        "ours.spki.pem",
        &encode_public_key(&pubkey, PublicKeyFormat::Spki, Encoding::Pem).unwrap(),
    );
    write(
        "ours.rsapub.pem",
        &encode_public_key(&pubkey, PublicKeyFormat::Pkcs1, Encoding::Pem).unwrap(),
    );
    let ok = openssl_in(d, &["rsa", "-check", "-noout", "-in", "ours.p1.pem"]);
    assert!(String::from_utf8_lossy(&ok).contains("RSA key ok"));
    openssl_in(
        d,
        &["rsa", "-check", "-noout", "-inform", "DER", "-in", "ours.p8.der"],
    );
    openssl_in(d, &["pkey", "-noout", "-in", "ours.p1.pem"]);
    openssl_in(d, &["pkey", "-noout", "-inform", "DER", "-in", "ours.p8.der"]);
    openssl_in(d, &["pkey", "-pubin", "-noout", "-in", "ours.spki.pem"]);
    openssl_in(
        d,
        &["rsa", "-RSAPublicKey_in", "-noout", "-in", "ours.rsapub.pem"],
    );
}

/// `openssl genpkey` into key.pem until the modulus has exactly `bits` bits
/// (for odd sizes OpenSSL 3.0 sometimes gives one bit less).
fn genpkey_exact(dir: &TempDir, bits: u64, extra: &[&str]) {
    let opt = format!("rsa_keygen_bits:{bits}");
    for _ in 0..20 {
        let mut args = vec![
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            &opt,
            "-out",
            "key.pem",
        ];
        args.extend_from_slice(extra);
        openssl_in(&dir.0, &args);
        let k = decode_public_key(&read(dir, "key.pem")).unwrap();
        if num(&k.n).bits() == bits {
            return;
        }
    }
    panic!("openssl did not make a {bits}-bit key");
}

#[test]
fn genrsa_2048() {
    let dir = TempDir::new("keyfile-2048");
    openssl_in(&dir.0, &["genrsa", "-out", "key.pem", "2048"]);
    assert!(read(&dir, "key.pem").starts_with(b"-----BEGIN PRIVATE KEY-----\n"));
    round_trip(&dir, "key.pem", 2048);
}

/// A key of exactly `bits` bits from two primes made by `openssl prime`,
/// completed with num-bigint and written by our encoder (OpenSSL 3.0's
/// generator gives 3000 bits when asked for 3001).
fn key_from_primes(dir: &TempDir, bits: u64) {
    let prime = |b: u64| {
        let out = openssl_in(&dir.0, &["prime", "-generate", "-hex", "-bits", &b.to_string()]);
        BigUint::parse_bytes(String::from_utf8(out).unwrap().trim().as_bytes(), 16).unwrap()
    };
    let e = BigUint::from(65537u32);
    let one = BigUint::one();
    for _ in 0..40 {
        let (p, q) = (prime(bits - bits / 2), prime(bits / 2));
        let n = &p * &q;
        let lambda = (&p - &one).lcm(&(&q - &one));
        if n.bits() != bits || p == q {
            continue;
        }
        let Some(d) = e.modinv(&lambda) else { continue };
        let z = |x: &BigUint| zeroize::Zeroizing::new(x.to_bytes_be());
        let key = RsaPrivateComponents {
            n: n.to_bytes_be(),
            e: e.to_bytes_be(),
            d: z(&d),
            dp: z(&(&d % (&p - &one))),
            dq: z(&(&d % (&q - &one))),
            qinv: z(&q.modinv(&p).unwrap()),
            p: z(&p),
            q: z(&q),
        };
        let pem = encode_private_key(&key, PrivateKeyFormat::Pkcs8, Encoding::Pem).unwrap();
        std::fs::write(dir.path("key.pem"), &pem).unwrap();
        return;
    }
    panic!("no {bits}-bit key from openssl prime");
}

#[test]
fn sizes_3001_and_3072() {
    let dir = TempDir::new("keyfile-3001");
    key_from_primes(&dir, 3001);
    round_trip(&dir, "key.pem", 3001);
    genpkey_exact(&dir, 3072, &[]);
    round_trip(&dir, "key.pem", 3072);
}

#[test]
fn genrsa_4096_traditional() {
    let dir = TempDir::new("keyfile-4096");
    openssl_in(&dir.0, &["genrsa", "-traditional", "-out", "key.pem", "4096"]);
    assert!(read(&dir, "key.pem").starts_with(b"-----BEGIN RSA PRIVATE KEY-----\n"));
    round_trip(&dir, "key.pem", 4096);
}

/// A small exponent and an odd size: e = 3, 2049 bits.
#[test]
fn exponent_3_and_2049_bits() {
    let dir = TempDir::new("keyfile-e3");
    openssl_in(
        &dir.0,
        &[
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2049",
            "-pkeyopt",
            "rsa_keygen_pubexp:3",
            "-out",
            "key.pem",
        ],
    );
    round_trip(&dir, "key.pem", 2049);
    assert_eq!(decode_public_key(&read(&dir, "key.pem")).unwrap().e, [3]);
}
