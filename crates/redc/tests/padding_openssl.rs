//! The paddings against OpenSSL, both ways, for SHA-1/256/384/512 at 2048,
//! 2049 and 3001 bits (the last two have modBits - 1 a multiple of 8, so a
//! PSS encoding one byte shorter than the modulus). The RSA primitive is
//! done here with num-bigint; keys are read with redc's keyfile. Needs the
//! `openssl` binary.

mod common;
use common::openssl_in;

use std::path::PathBuf;

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::One;
use rand::{Rng, RngCore, SeedableRng, rngs::StdRng};
use redc::hash::HashAlg;
use redc::keyfile::{
    Encoding, PrivateKeyFormat, PublicKeyFormat, RsaPrivateComponents, decode_private_key,
    encode_private_key, encode_public_key,
};
use redc::padding::{
    SaltLen, eme_oaep_decode, eme_oaep_encode, eme_pkcs1v15_decode_implicit, eme_pkcs1v15_decode_strict,
    eme_pkcs1v15_encode, emsa_pkcs1v15_encode, emsa_pkcs1v15_verify, emsa_pss_encode, emsa_pss_verify,
    implicit_rejection_kdk, pss_max_salt_len,
};

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("redc-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn path(&self, f: &str) -> PathBuf {
        self.0.join(f)
    }
    fn write(&self, f: &str, data: &[u8]) {
        std::fs::write(self.path(f), data).unwrap();
    }
    fn read(&self, f: &str) -> Vec<u8> {
        std::fs::read(self.path(f)).unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The key under test, with the raw RSA operations as the oracle.
struct Key {
    c: RsaPrivateComponents,
    n: BigUint,
    bits: usize,
    k: usize,
}

impl Key {
    fn raw(&self, x: &[u8], exp: &[u8]) -> Vec<u8> {
        let x = BigUint::from_bytes_be(x);
        assert!(x < self.n);
        let y = x.modpow(&BigUint::from_bytes_be(exp), &self.n).to_bytes_be();
        let mut out = vec![0u8; self.k - y.len()];
        out.extend_from_slice(&y);
        out
    }
    fn private(&self, x: &[u8]) -> Vec<u8> {
        self.raw(x, &self.c.d)
    }
    fn public(&self, x: &[u8]) -> Vec<u8> {
        self.raw(x, &self.c.e)
    }
}

/// key.pem and pub.pem in `dir`: from `openssl genrsa` for 2048 bits, else
/// from two `openssl prime` primes (OpenSSL 3.0 makes 3000-bit keys when
/// asked for 3001).
fn make_key(dir: &TempDir, bits: usize) -> Key {
    if bits == 2048 {
        openssl_in(&dir.0, &["genrsa", "-out", "key.pem", "2048"]);
    } else {
        let prime = |b: usize| {
            let out = openssl_in(&dir.0, &["prime", "-generate", "-hex", "-bits", &b.to_string()]);
            BigUint::parse_bytes(String::from_utf8(out).unwrap().trim().as_bytes(), 16).unwrap()
        };
        let e = BigUint::from(65537u32);
        let one = BigUint::one();
        let key = loop {
            let (p, q) = (prime(bits - bits / 2), prime(bits / 2));
            let n = &p * &q;
            if n.bits() as usize != bits || p == q {
                continue;
            }
            let Some(d) = e.modinv(&(&p - &one).lcm(&(&q - &one))) else {
                continue;
            };
            let z = |x: &BigUint| zeroize::Zeroizing::new(x.to_bytes_be());
            break RsaPrivateComponents {
                n: n.to_bytes_be(),
                e: e.to_bytes_be(),
                d: z(&d),
                dp: z(&(&d % (&p - &one))),
                dq: z(&(&d % (&q - &one))),
                qinv: z(&q.modinv(&p).unwrap()),
                p: z(&p),
                q: z(&q),
            };
        };
        dir.write(
            "key.pem",
            &encode_private_key(&key, PrivateKeyFormat::Pkcs8, Encoding::Pem).unwrap(),
        );
    }
    let c = decode_private_key(&dir.read("key.pem")).unwrap();
    dir.write(
        "pub.pem",
        &encode_public_key(&c.public(), PublicKeyFormat::Spki, Encoding::Pem).unwrap(),
    );
    let n = BigUint::from_bytes_be(&c.n);
    let bits_got = n.bits() as usize;
    assert_eq!(bits_got, bits);
    Key {
        c,
        n,
        bits,
        k: bits.div_ceil(8),
    }
}

fn sysrng() -> rand_core::UnwrapErr<getrandom::SysRng> {
    rand_core::UnwrapErr(getrandom::SysRng)
}

fn pss(dir: &TempDir, key: &Key, h: HashAlg, rng: &mut StdRng) {
    let d = &dir.0;
    let dgst = format!("-{}", h.name());
    let em_bits = key.bits - 1;
    let mut msg = vec![0u8; rng.gen_range(0..3000)];
    rng.fill_bytes(&mut msg);
    dir.write("msg", &msg);
    let m_hash = h.digest(&msg);
    let h_len = h.output_len();
    let max = pss_max_salt_len(h, em_bits).unwrap();

    // Ours, verified by OpenSSL, with salt length hLen, 0 and max.
    for salt_len in [h_len, 0, max] {
        let mut salt = vec![0u8; salt_len];
        rng.fill_bytes(&mut salt);
        let em = emsa_pss_encode(h, &m_hash, &salt, em_bits).unwrap();
        assert_eq!(em.len(), em_bits.div_ceil(8));
        dir.write("sig", &key.private(&em));
        let sl = salt_len.to_string();
        let out = openssl_in(
            d,
            &[
                "dgst",
                &dgst,
                "-sigopt",
                "rsa_padding_mode:pss",
                "-sigopt",
                &format!("rsa_pss_saltlen:{sl}"),
                "-verify",
                "pub.pem",
                "-signature",
                "sig",
                "msg",
            ],
        );
        assert!(
            String::from_utf8_lossy(&out).contains("Verified OK"),
            "{} {} salt {sl}",
            key.bits,
            h
        );
    }

    // OpenSSL's, verified by us, with salt length hLen ("digest") and max.
    for (opt, salt_len) in [("digest", h_len), ("max", max)] {
        openssl_in(
            d,
            &[
                "dgst",
                &dgst,
                "-sign",
                "key.pem",
                "-sigopt",
                "rsa_padding_mode:pss",
                "-sigopt",
                &format!("rsa_pss_saltlen:{opt}"),
                "-out",
                "sig",
                "msg",
            ],
        );
        let em_k = key.public(&dir.read("sig"));
        assert_eq!(em_k.len(), key.k);
        let ctx = format!("{}-bit {h} saltlen {opt}", key.bits);
        assert!(
            emsa_pss_verify(h, &m_hash, &em_k, em_bits, SaltLen::Exact(salt_len)),
            "{ctx}"
        );
        assert!(
            emsa_pss_verify(h, &m_hash, &em_k, em_bits, SaltLen::Auto),
            "{ctx}"
        );
        assert!(
            !emsa_pss_verify(h, &m_hash, &em_k, em_bits, SaltLen::Exact(salt_len ^ 1)),
            "{ctx}"
        );
        let other = h.digest(b"not the message");
        assert!(
            !emsa_pss_verify(h, &other, &em_k, em_bits, SaltLen::Auto),
            "{ctx}"
        );
        if em_bits.is_multiple_of(8) {
            // The k-byte output has the extra zero byte in front.
            assert_eq!(em_k[0], 0);
            assert!(
                emsa_pss_verify(h, &m_hash, &em_k[1..], em_bits, SaltLen::Auto),
                "{ctx}"
            );
        }
    }
}

fn pkcs1v15_sign(dir: &TempDir, key: &Key, h: HashAlg) {
    let d = &dir.0;
    let dgst = format!("-{}", h.name());
    let msg = format!("a message for {h} at {} bits", key.bits);
    dir.write("msg", msg.as_bytes());
    let digest = h.digest(msg.as_bytes());
    let em = emsa_pkcs1v15_encode(h, &digest, key.k).unwrap();
    let ours = key.private(&em);
    dir.write("sig", &ours);
    let out = openssl_in(
        d,
        &["dgst", &dgst, "-verify", "pub.pem", "-signature", "sig", "msg"],
    );
    assert!(String::from_utf8_lossy(&out).contains("Verified OK"));
    openssl_in(
        d,
        &["dgst", &dgst, "-sign", "key.pem", "-out", "sig.openssl", "msg"],
    );
    let theirs = dir.read("sig.openssl");
    // Deterministic scheme: the very same signature.
    assert_eq!(theirs, ours, "{} {h}", key.bits);
    assert!(emsa_pkcs1v15_verify(h, &digest, &key.public(&theirs)));
    assert!(!emsa_pkcs1v15_verify(h, &h.digest(b"x"), &key.public(&theirs)));
}

fn oaep(dir: &TempDir, key: &Key, h: HashAlg, rng: &mut StdRng) {
    let d = &dir.0;
    let Some(max) = redc::padding::oaep_max_message_len(h, key.k) else {
        return;
    };
    let md = format!("rsa_oaep_md:{}", h.name());
    let mgf = format!("rsa_mgf1_md:{}", h.name());
    for (len, label) in [
        (max, &b""[..]),
        (rng.gen_range(0..max), &b"a label"[..]),
        (0, &b""[..]),
    ] {
        let mut msg = vec![0u8; len];
        rng.fill_bytes(&mut msg);
        let label_opt = format!("rsa_oaep_label:{}", hex::encode(label));
        let mut common = vec![
            "-pkeyopt",
            "rsa_padding_mode:oaep",
            "-pkeyopt",
            &md,
            "-pkeyopt",
            &mgf,
        ];
        if !label.is_empty() {
            common.extend(["-pkeyopt", &label_opt]);
        }
        // Ours, decrypted by OpenSSL.
        let mut seed = vec![0u8; h.output_len()];
        rng.fill_bytes(&mut seed);
        let em = eme_oaep_encode(h, label, &msg, &seed, key.k).unwrap();
        dir.write("ct", &key.public(&em));
        let mut args = vec!["pkeyutl", "-decrypt", "-inkey", "key.pem", "-in", "ct"];
        args.extend(&common);
        assert_eq!(openssl_in(d, &args), msg, "{} {h} len {len}", key.bits);
        // OpenSSL's, decrypted by us.
        dir.write("pt", &msg);
        let mut args = vec![
            "pkeyutl", "-encrypt", "-pubin", "-inkey", "pub.pem", "-in", "pt", "-out", "ct",
        ];
        args.extend(&common);
        openssl_in(d, &args);
        let em = key.private(&dir.read("ct"));
        assert_eq!(
            eme_oaep_decode(h, label, &em, key.k).unwrap(),
            msg,
            "{} {h} len {len}",
            key.bits
        );
        assert!(eme_oaep_decode(h, b"wrong label", &em, key.k).is_err());
    }
}

fn pkcs1v15_encrypt(dir: &TempDir, key: &Key, rng: &mut StdRng) {
    let d = &dir.0;
    let max = key.k - 11;
    for len in [0, 1, rng.gen_range(2..max), max] {
        let mut msg = vec![0u8; len];
        rng.fill_bytes(&mut msg);
        let em = eme_pkcs1v15_encode(&msg, key.k, &mut sysrng()).unwrap();
        dir.write("ct", &key.public(&em));
        let out = openssl_in(
            d,
            &[
                "pkeyutl",
                "-decrypt",
                "-inkey",
                "key.pem",
                "-pkeyopt",
                "rsa_padding_mode:pkcs1",
                "-in",
                "ct",
            ],
        );
        assert_eq!(out, msg, "{} len {len}", key.bits);
        dir.write("pt", &msg);
        openssl_in(
            d,
            &[
                "pkeyutl", "-encrypt", "-pubin", "-inkey", "pub.pem", "-in", "pt", "-out", "ct",
            ],
        );
        let ct = dir.read("ct");
        let em = key.private(&ct);
        assert_eq!(eme_pkcs1v15_decode_strict(&em, key.k).unwrap(), msg);
        let kdk = implicit_rejection_kdk(&key.c.d, &ct, key.k);
        assert_eq!(eme_pkcs1v15_decode_implicit(&em, key.k, &kdk), msg);
    }
}

fn all_schemes(bits: usize, seed: u64) {
    let dir = TempDir::new(&format!("padding-{bits}"));
    let key = make_key(&dir, bits);
    let mut rng = StdRng::seed_from_u64(seed);
    for h in HashAlg::ALL {
        pss(&dir, &key, h, &mut rng);
        pkcs1v15_sign(&dir, &key, h);
        oaep(&dir, &key, h, &mut rng);
    }
    pkcs1v15_encrypt(&dir, &key, &mut rng);
}

#[test]
fn openssl_2048() {
    all_schemes(2048, 1);
}

#[test]
fn openssl_2049() {
    all_schemes(2049, 2);
}

#[test]
fn openssl_3001() {
    all_schemes(3001, 3);
}
