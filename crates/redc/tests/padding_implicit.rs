//! PKCS#1 v1.5 decryption with implicit rejection: known answers recorded
//! from OpenSSL (through pyca/cryptography, tests/data/implicit_rejection_vectors.txt),
//! a live comparison with it when python3 and cryptography on OpenSSL >= 3.2
//! are installed (skipped otherwise), and the properties the construction
//! promises. RSADP is done here with num-bigint.

use std::process::{Command, Stdio};

use num_bigint::BigUint;
use rand::{Rng, RngCore, SeedableRng, rngs::StdRng};
use redc::padding::{
    eme_pkcs1v15_decode_implicit, eme_pkcs1v15_decode_strict, implicit_rejection_kdk,
    pkcs1v15_decrypt_implicit,
};

struct Key {
    bits: usize,
    n: Vec<u8>,
    d: Vec<u8>,
    cases: Vec<(Vec<u8>, Vec<u8>)>,
}

fn keys() -> Vec<Key> {
    let mut keys: Vec<Key> = Vec::new();
    let mut c = None;
    for line in include_str!("data/implicit_rejection_vectors.txt").lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some(t) = line.strip_prefix("[key ") {
            let bits = t.trim_end_matches(']').parse().unwrap();
            keys.push(Key {
                bits,
                n: vec![],
                d: vec![],
                cases: vec![],
            });
            continue;
        }
        let (k, v) = line.split_once('=').unwrap();
        let v = hex::decode(v.trim()).unwrap();
        let key = keys.last_mut().unwrap();
        match k.trim() {
            "n" => key.n = v,
            "d" => key.d = v,
            "c" => c = Some(v),
            "m" => key.cases.push((c.take().unwrap(), v)),
            other => panic!("unknown field {other}"),
        }
    }
    keys
}

/// RSADP as k bytes.
fn rsadp(c: &[u8], d: &[u8], n: &[u8], k: usize) -> Vec<u8> {
    let m = BigUint::from_bytes_be(c).modpow(&BigUint::from_bytes_be(d), &BigUint::from_bytes_be(n));
    let b = m.to_bytes_be();
    let mut out = vec![0u8; k - b.len()];
    out.extend_from_slice(&b);
    out
}

fn k_of(n: &[u8]) -> usize {
    (BigUint::from_bytes_be(n).bits() as usize).div_ceil(8)
}

#[test]
fn openssl_known_answers() {
    let keys = keys();
    assert_eq!(keys.len(), 2);
    let mut synthetic = 0;
    for key in &keys {
        let k = k_of(&key.n);
        assert_eq!(BigUint::from_bytes_be(&key.n).bits() as usize, key.bits);
        assert!(key.cases.len() >= 10);
        for (c, want) in &key.cases {
            let em = rsadp(c, &key.d, &key.n, k);
            let kdk = implicit_rejection_kdk(&key.d, c, k);
            let got = eme_pkcs1v15_decode_implicit(&em, k, &kdk);
            assert_eq!(
                hex::encode(&got),
                hex::encode(want),
                "{}-bit key, c = {}",
                key.bits,
                hex::encode(c)
            );
            assert_eq!(pkcs1v15_decrypt_implicit(&em, k, &key.d, c), got);
            if eme_pkcs1v15_decode_strict(&em, k).is_err() {
                synthetic += 1;
            }
        }
    }
    assert!(
        synthetic >= 12,
        "the random ciphertexts exercise the synthetic path"
    );
}

/// The same against the OpenSSL behind python's `cryptography`, with fresh
/// ciphertexts, when it is there.
#[test]
fn live_openssl_comparison() {
    const GEN: &str = r#"
import os, sys
from cryptography.hazmat.primitives.asymmetric import rsa, padding
k = rsa.generate_private_key(65537, 1536)
nums = k.private_numbers()
n = nums.public_numbers.n
klen = (n.bit_length() + 7) // 8
print("%x %x" % (n, nums.d))
count = 0
while count < 40:
    c = os.urandom(klen)
    if int.from_bytes(c, "big") >= n:
        continue
    count += 1
    try:
        m = k.decrypt(c, padding.PKCS1v15())
    except Exception:
        print("no-implicit-rejection")
        sys.exit(0)
    print(c.hex(), m.hex() or "-")
m = os.urandom(20)
c = k.public_key().encrypt(m, padding.PKCS1v15())
print(c.hex(), k.decrypt(c, padding.PKCS1v15()).hex())
"#;
    let child = Command::new("python3")
        .arg("-c")
        .arg(GEN)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(child) = child else {
        eprintln!("skipped: no python3");
        return;
    };
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || text.contains("no-implicit-rejection") || text.trim().is_empty() {
        eprintln!("skipped: python3 cryptography with OpenSSL >= 3.2 is not available");
        return;
    }
    let mut lines = text.lines();
    let mut first = lines.next().unwrap().split_whitespace();
    let pad_hex = |s: &str| {
        if s.len() % 2 == 1 {
            format!("0{s}")
        } else {
            s.to_string()
        }
    };
    let n = hex::decode(pad_hex(first.next().unwrap())).unwrap();
    let d = hex::decode(pad_hex(first.next().unwrap())).unwrap();
    let k = k_of(&n);
    let mut count = 0;
    for line in lines {
        let (c, m) = line.split_once(' ').unwrap();
        let c = hex::decode(c).unwrap();
        let want = if m == "-" { vec![] } else { hex::decode(m).unwrap() };
        let em = rsadp(&c, &d, &n, k);
        assert_eq!(
            pkcs1v15_decrypt_implicit(&em, k, &d, &c),
            want,
            "c = {}",
            hex::encode(&c)
        );
        count += 1;
    }
    assert_eq!(count, 41);
}

#[test]
fn properties() {
    let mut rng = StdRng::seed_from_u64(0x1e9);
    for k in [11usize, 12, 64, 128, 129, 256, 384, 512] {
        let mut lengths = std::collections::BTreeSet::new();
        let (mut differ, mut tried) = (0, 0);
        for _ in 0..40 {
            let mut em = vec![0u8; k];
            rng.fill_bytes(&mut em);
            let mut kdk = [0u8; 32];
            rng.fill_bytes(&mut kdk);
            // Random bytes are (almost surely) a bad padding: deterministic
            // output of at most k - 11 bytes, depending on the KDK.
            if eme_pkcs1v15_decode_strict(&em, k).is_ok() {
                continue;
            }
            let a = eme_pkcs1v15_decode_implicit(&em, k, &kdk);
            assert_eq!(a, eme_pkcs1v15_decode_implicit(&em, k, &kdk));
            assert!(a.len() <= k - 11);
            lengths.insert(a.len());
            let mut kdk2 = kdk;
            kdk2[0] ^= 1;
            let b = eme_pkcs1v15_decode_implicit(&em, k, &kdk2);
            if a != b {
                differ += 1;
            }
            tried += 1;
            // A valid padding gives the real message.
            let len = rng.gen_range(0..=k - 11);
            let mut good = vec![0u8, 2];
            good.extend((0..k - 3 - len).map(|_| rng.gen_range(1..=255u8)));
            good.push(0);
            let msg: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
            good.extend_from_slice(&msg);
            assert_eq!(eme_pkcs1v15_decode_implicit(&good, k, &kdk), msg);
            assert_eq!(eme_pkcs1v15_decode_strict(&good, k).unwrap(), msg);
        }
        if k >= 64 {
            assert!(
                differ * 10 >= tried * 9,
                "k = {k}: another KDK, another message ({differ} of {tried})"
            );
            assert!(
                lengths.len() > 10,
                "k = {k}: synthetic lengths spread: {lengths:?}"
            );
        }
    }
    // Each way the padding can be wrong takes the synthetic path.
    let k = 128;
    let kdk = [7u8; 32];
    let mut valid = vec![0u8, 2];
    valid.extend([0x55u8; 100]);
    valid.push(0);
    valid.extend([0xaau8; 25]);
    let msg = &valid[103..];
    assert_eq!(eme_pkcs1v15_decode_implicit(&valid, k, &kdk), msg);
    let synthetic = eme_pkcs1v15_decode_implicit(&[0u8; 128], k, &kdk);
    let mut short_ps = valid.clone();
    short_ps[9] = 0; // PS of 7 bytes
    let mut no_zero = valid.clone();
    no_zero[102] = 1;
    let mut bad0 = valid.clone();
    bad0[0] = 1;
    let mut bad1 = valid.clone();
    bad1[1] = 1;
    for bad in [&short_ps, &no_zero, &bad0, &bad1] {
        assert!(eme_pkcs1v15_decode_strict(bad, k).is_err());
        let out = eme_pkcs1v15_decode_implicit(bad, k, &kdk);
        // The synthetic message depends only on the KDK.
        assert_eq!(out, synthetic);
    }
    // PS of exactly 8 bytes is valid.
    let mut ps8 = valid.clone();
    ps8[10] = 0;
    assert_eq!(eme_pkcs1v15_decode_implicit(&ps8, k, &kdk), &valid[11..]);
    // Public degenerate inputs.
    assert!(eme_pkcs1v15_decode_implicit(&valid, 10, &kdk).is_empty());
    assert_eq!(eme_pkcs1v15_decode_implicit(&valid[1..], k, &kdk), synthetic);
    // Different ciphertexts give different KDKs, leading zeros do not matter.
    let d = [0x11u8; 128];
    assert_ne!(
        implicit_rejection_kdk(&d, &[1u8; 128], 128),
        implicit_rejection_kdk(&d, &[2u8; 128], 128)
    );
    let mut c = vec![0u8; 3];
    c.extend([9u8; 125]);
    assert_eq!(
        implicit_rejection_kdk(&d, &c, 128),
        implicit_rejection_kdk(&d, &c[3..], 128)
    );
}
