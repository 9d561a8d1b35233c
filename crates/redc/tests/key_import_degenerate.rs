//! Issue 14, item 1: degenerate private keys are refused at import with a
//! reason, never a panic. The key files are built here as DER bytes by
//! hand (not by redc's encoder); the numbers come from num-bigint.

use num_bigint::{BigUint, RandBigInt};
use num_integer::Integer;
use num_traits::One;
use rand::{SeedableRng, rngs::StdRng};
use redc::rsa::{Error, KeyLoadError, PrivateComponents, RsaPrivateKey};

/// DER length octets.
fn der_len(len: usize) -> Vec<u8> {
    if len < 0x80 {
        return vec![len as u8];
    }
    let bytes: Vec<u8> = len.to_be_bytes().into_iter().skip_while(|&b| b == 0).collect();
    let mut out = vec![0x80 | bytes.len() as u8];
    out.extend(bytes);
    out
}

fn tlv(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    out.extend(der_len(body.len()));
    out.extend_from_slice(body);
    out
}

/// DER INTEGER of an unsigned big-endian value.
fn der_uint(x: &BigUint) -> Vec<u8> {
    let mut b = x.to_bytes_be(); // [0] for zero
    if b[0] & 0x80 != 0 {
        b.insert(0, 0);
    }
    tlv(0x02, &b)
}

/// PKCS#1 RSAPrivateKey: version 0, n, e, d, p, q, dP, dQ, qInv.
fn pkcs1_der(v: &[&BigUint; 8]) -> Vec<u8> {
    let mut body = tlv(0x02, &[0]);
    for x in v {
        body.extend(der_uint(x));
    }
    tlv(0x30, &body)
}

/// PKCS#8 PrivateKeyInfo around a PKCS#1 key (rsaEncryption, NULL parameters).
fn pkcs8_der(pkcs1: &[u8]) -> Vec<u8> {
    let oid = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
    let mut alg = tlv(0x06, &oid);
    alg.extend([0x05, 0x00]);
    let mut body = tlv(0x02, &[0]);
    body.extend(tlv(0x30, &alg));
    body.extend(tlv(0x04, pkcs1));
    tlv(0x30, &body)
}

fn big(x: u64) -> BigUint {
    BigUint::from(x)
}

fn random_odd(rng: &mut StdRng, bits: u64) -> BigUint {
    let mut x = rng.gen_biguint(bits);
    x.set_bit(bits - 1, true);
    x.set_bit(0, true);
    x
}

/// A degenerate key: its eight numbers and the reason redc must give.
struct Case {
    what: &'static str,
    v: [BigUint; 8],
    why: &'static str,
}

fn cases() -> Vec<Case> {
    let mut rng = StdRng::seed_from_u64(14);
    let n = random_odd(&mut rng, 1024);
    let e = big(65537);
    let one = BigUint::one();
    let d = big(12345);
    let mut out = vec![
        // The key: p = 1, q = n, CRT values that fit.
        Case {
            what: "p = 1, q = n",
            v: [
                n.clone(),
                e.clone(),
                d.clone(),
                one.clone(),
                n.clone(),
                one.clone(),
                d.clone(),
                one.clone(),
            ],
            why: "p is 1",
        },
        Case {
            what: "p = n, q = 1",
            v: [
                n.clone(),
                e.clone(),
                d.clone(),
                n.clone(),
                one.clone(),
                d.clone(),
                one.clone(),
                one.clone(),
            ],
            why: "q is 1",
        },
        Case {
            what: "p even",
            v: [
                n.clone(),
                e.clone(),
                d.clone(),
                big(1 << 40) * big(1 << 40),
                n.clone(),
                one.clone(),
                one.clone(),
                one.clone(),
            ],
            why: "p is even",
        },
        Case {
            what: "q even",
            v: [
                n.clone(),
                e.clone(),
                d.clone(),
                n.clone(),
                big(2),
                one.clone(),
                one.clone(),
                one.clone(),
            ],
            why: "q is even",
        },
        Case {
            what: "p = 3 (too short), q = n / 3 or anything",
            v: [
                n.clone(),
                e.clone(),
                d.clone(),
                big(3),
                n.clone(),
                one.clone(),
                one.clone(),
                one.clone(),
            ],
            why: "p is shorter than 64 bits",
        },
        Case {
            what: "p = n, q = 2^64 + 1",
            v: [
                n.clone(),
                e.clone(),
                d.clone(),
                n.clone(),
                (one.clone() << 64u32) + 1u32,
                one.clone(),
                one.clone(),
                one.clone(),
            ],
            why: "p is not below n (so q would be 1)",
        },
        Case {
            what: "q = n, p = 2^64 + 1",
            v: [
                n.clone(),
                e.clone(),
                d.clone(),
                (one.clone() << 64u32) + 1u32,
                n.clone(),
                one.clone(),
                one.clone(),
                one.clone(),
            ],
            why: "q is not below n (so p would be 1)",
        },
    ];
    // p = q: n = p^2 for an odd p of 512 bits.
    let p = random_odd(&mut rng, 512);
    out.push(Case {
        what: "p = q",
        v: [
            &p * &p,
            e.clone(),
            d.clone(),
            p.clone(),
            p.clone(),
            one.clone(),
            one.clone(),
            one.clone(),
        ],
        why: "p equals q",
    });
    // n != p q.
    let q = random_odd(&mut rng, 512);
    out.push(Case {
        what: "n != p q",
        v: [
            n.clone(),
            e.clone(),
            d.clone(),
            p.clone(),
            q.clone(),
            one.clone(),
            one.clone(),
            one.clone(),
        ],
        why: "n is not p * q",
    });
    // n = p q with a 61-bit "prime" p (any odd value: primality comes later).
    let small = random_odd(&mut rng, 61);
    let big_q = random_odd(&mut rng, 1000);
    out.push(Case {
        what: "61-bit p",
        v: [
            &small * &big_q,
            e.clone(),
            d.clone(),
            small,
            big_q,
            one.clone(),
            one.clone(),
            one.clone(),
        ],
        why: "p is shorter than 64 bits",
    });
    // d >= n with the right length.
    let pq = &p * &q;
    out.push(Case {
        what: "d = n",
        v: [
            pq.clone(),
            e.clone(),
            pq.clone(),
            p.clone(),
            q.clone(),
            one.clone(),
            one.clone(),
            one.clone(),
        ],
        why: "d is not below n",
    });
    out
}

/// A real key built with num-bigint: two 512-bit probable primes (Fermat
/// tests to six bases) with gcd(p - 1, e) = 1, and its CRT values.
fn real_key(rng: &mut StdRng) -> [BigUint; 8] {
    let e = big(65537);
    let prime = |rng: &mut StdRng| loop {
        let c = random_odd(rng, 512);
        let fermat = [2u64, 3, 5, 7, 11, 13]
            .iter()
            .all(|&a| big(a).modpow(&(&c - 1u32), &c).is_one());
        if fermat && (&c - 1u32).gcd(&e).is_one() {
            return c;
        }
    };
    let p = prime(rng);
    let q = prime(rng);
    let (p, q) = if p > q { (p, q) } else { (q, p) };
    let p1 = &p - 1u32;
    let q1 = &q - 1u32;
    let lambda = p1.lcm(&q1);
    let d = e.modinv(&lambda).unwrap();
    let dp = &d % &p1;
    let dq = &d % &q1;
    let qinv = q.modinv(&p).unwrap();
    [&p * &q, e, d, p, q, dp, dq, qinv]
}

fn components(v: &[BigUint; 8]) -> Vec<Vec<u8>> {
    v.iter().map(|x| x.to_bytes_be()).collect()
}

fn import(b: &[Vec<u8>], crt: bool) -> Result<RsaPrivateKey, Error> {
    RsaPrivateKey::from_components(PrivateComponents {
        n: &b[0],
        e: &b[1],
        d: &b[2],
        p: &b[3],
        q: &b[4],
        crt: crt.then(|| (&b[5][..], &b[6][..], &b[7][..])),
    })
}

#[test]
fn degenerate_primes_are_refused_with_a_reason() {
    for case in cases() {
        let b = components(&case.v);
        for crt in [true, false] {
            let got = import(&b, crt).map(|_| ()).unwrap_err();
            assert_eq!(got, Error::InvalidKey(case.why), "{} (crt {crt})", case.what);
        }
        // The same numbers as PKCS#1 and PKCS#8 DER files.
        let refs: [&BigUint; 8] = std::array::from_fn(|i| &case.v[i]);
        let pkcs1 = pkcs1_der(&refs);
        for (form, der) in [("PKCS#1", pkcs1.clone()), ("PKCS#8", pkcs8_der(&pkcs1))] {
            match RsaPrivateKey::from_key_file(&der) {
                Err(KeyLoadError::Key(e)) => {
                    assert_eq!(e, Error::InvalidKey(case.why), "{} {form}", case.what)
                }
                other => panic!("{} {form}: {other:?}", case.what),
            }
        }
    }
}

#[test]
fn zero_primes_are_refused() {
    let mut rng = StdRng::seed_from_u64(3);
    let n = random_odd(&mut rng, 1024);
    let b = components(&[
        n.clone(),
        big(3),
        big(5),
        big(0),
        n.clone(),
        big(1),
        big(1),
        big(1),
    ]);
    assert_eq!(import(&b, false).map(|_| ()), Err(Error::InvalidKey("p is zero")));
    let mut b2 = b.clone();
    b2.swap(3, 4);
    assert_eq!(import(&b2, true).map(|_| ()), Err(Error::InvalidKey("q is zero")));
    // Empty byte strings are zero too.
    let mut b3 = b.clone();
    b3[3] = Vec::new();
    assert_eq!(import(&b3, true).map(|_| ()), Err(Error::InvalidKey("p is zero")));
}

#[test]
fn inconsistent_crt_values_of_a_real_key_are_refused() {
    let mut rng = StdRng::seed_from_u64(5);
    let good = real_key(&mut rng);
    assert!(import(&components(&good), true).is_ok());
    assert!(import(&components(&good), false).is_ok());
    let p1 = &good[3] - 1u32;
    let q1 = &good[4] - 1u32;
    let tweak = |i: usize, v: BigUint| {
        let mut k = good.clone();
        k[i] = v;
        k
    };
    let cases = [
        (tweak(2, &good[2] + 2u32), "d does not match dP and dQ"),
        (tweak(1, big(3)), "e, d and the primes do not match"),
        (tweak(5, &good[5] + &p1), "dP"),
        (tweak(6, &good[6] + &q1), "dQ"),
        (tweak(7, &good[7] + &good[3]), "qInv"),
        (tweak(7, &good[7] + 1u32), "qInv is not q^-1 mod p"),
    ];
    for (k, why) in cases {
        match import(&components(&k), true) {
            Err(Error::InvalidKey(got)) => assert!(got.starts_with(why), "{why}: got {got}"),
            other => panic!("{why}: {:?}", other.map(|_| ())),
        }
    }
}

/// Issue 14, item 4: public exponents over 64 bits are refused for moduli
/// over 3072 bits (OpenSSL's RSA_MAX_PUBEXP_BITS), so a 16384-bit key with
/// e = n - 2 cannot make verification take seconds.
#[test]
fn long_public_exponents_are_refused_for_large_moduli() {
    use redc::rsa::RsaPublicKey;
    let mut rng = StdRng::seed_from_u64(8);
    let two64 = BigUint::one() << 64u32;
    for bits in [3072u64, 3073, 4096, 16384] {
        let n = random_odd(&mut rng, bits);
        let nb = n.to_bytes_be();
        let e65 = (&two64 + 1u32).to_bytes_be(); // 65 bits
        let e64 = (&two64 - 1u32).to_bytes_be(); // 64 bits, odd
        let huge = (&n - 2u32).to_bytes_be(); // e = n - 2
        assert!(RsaPublicKey::new(&nb, &e64).is_ok(), "{bits}: 64-bit e");
        if bits <= 3072 {
            assert!(
                RsaPublicKey::new(&nb, &e65).is_ok(),
                "{bits}: no bound up to 3072 bits"
            );
            assert!(RsaPublicKey::new(&nb, &huge).is_ok(), "{bits}");
        } else {
            let want = Error::ExponentTooLarge {
                modulus_bits: bits as usize,
                exponent_bits: 65,
            };
            assert_eq!(RsaPublicKey::new(&nb, &e65), Err(want), "{bits}");
            assert!(
                matches!(RsaPublicKey::new(&nb, &huge), Err(Error::ExponentTooLarge { exponent_bits, .. }) if exponent_bits == bits as usize),
                "{bits}: e = n - 2"
            );
            // Through a PKCS#1 public key file (hand-built DER) too.
            let mut body = der_uint(&n);
            body.extend(der_uint(&(&n - 2u32)));
            let der = tlv(0x30, &body);
            match RsaPublicKey::from_key_file(&der) {
                Err(KeyLoadError::Key(Error::ExponentTooLarge { .. })) => {}
                other => panic!("{bits}: {other:?}"),
            }
        }
    }
    let msg = Error::ExponentTooLarge {
        modulus_bits: 4096,
        exponent_bits: 65,
    }
    .to_string();
    assert_eq!(
        msg,
        "public exponent of 65 bits is too large: at most 64 bits for moduli above 3072 bits (4096 here)"
    );
}

/// Issue 14, item 4: an untrusted PEM label is quoted shortened and escaped.
#[test]
fn long_or_control_character_pem_labels_are_quoted_safely() {
    // A label of 5,000 characters: quoted as its first 64 and "...".
    let long = "A".repeat(5000);
    let pem = format!("-----BEGIN {long}-----\nAAAA\n-----END {long}-----\n");
    let err = RsaPrivateKey::from_key_file(pem.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("unsupported PEM type '"), "{err}");
    assert!(err.contains(&format!("'{}...'", "A".repeat(64))), "{err}");
    assert!(err.len() < 220, "{} chars: {err}", err.len());
    // Control characters in a label: der's PEM parser refuses them itself;
    // whatever the message, it is one line without them. (The escaping is
    // clip_untrusted's doctest and the CLI's file-name test.)
    let nasty = "EVIL\r\nKEY\x1b[2J";
    let pem = format!("-----BEGIN {nasty}-----\nAAAA\n-----END {nasty}-----\n");
    let err = RsaPrivateKey::from_key_file(pem.as_bytes())
        .unwrap_err()
        .to_string();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(!err.chars().any(char::is_control), "{err:?}");
}

/// Every field of a real key replaced by values from a degenerate set (0,
/// 1, 2, 3, 2^64 + 1, the other fields, n - 1, n + 2, empty), many times at
/// random: import never panics, and a key it accepts signs correctly.
#[test]
fn degenerate_field_combinations_never_panic() {
    use rand::Rng;
    let mut rng = StdRng::seed_from_u64(77);
    let good = real_key(&mut rng);
    let n = &good[0];
    let mut pool: Vec<Vec<u8>> = good.iter().map(|x| x.to_bytes_be()).collect();
    for x in [
        big(0),
        big(1),
        big(2),
        big(3),
        (BigUint::one() << 64u32) + 1u32,
        n - 1u32,
        n + 2u32,
        n * 3u32,
    ] {
        pool.push(x.to_bytes_be());
    }
    pool.push(Vec::new());
    let mut accepted = 0;
    for _ in 0..3000 {
        let mut b = components(&good);
        // Replace one to four fields (n and e too).
        for _ in 0..rng.gen_range(1..=4) {
            let field = rng.gen_range(0..8);
            b[field] = pool[rng.gen_range(0..pool.len())].clone();
        }
        let crt = rng.gen_bool(0.7);
        let result = std::panic::catch_unwind(|| {
            import(&b, crt).map(|key| {
                let x = vec![5u8; key.size()];
                let y = key.raw_private_os(&x);
                (key.public_key().clone(), x, y)
            })
        });
        let Ok(result) = result else {
            panic!(
                "import panicked on fields {:?} (crt {crt})",
                b.iter().map(hex::encode).collect::<Vec<_>>()
            );
        };
        if let Ok((public, x, y)) = result {
            accepted += 1;
            // A key that was accepted works: x^d^e = x, or the fault check refused.
            if let Ok(y) = y {
                assert_eq!(public.raw_public(&y).unwrap(), x);
            }
        }
    }
    assert!(accepted > 0, "no combination kept a valid key");
}

/// Mutated PKCS#1 and PKCS#8 files of a real key (byte changes,
/// truncations, insertions): reading them as private and as public keys
/// never panics.
#[test]
fn mutated_key_files_never_panic() {
    use rand::Rng;
    use redc::rsa::RsaPublicKey;
    let mut rng = StdRng::seed_from_u64(78);
    let good = real_key(&mut rng);
    let refs: [&BigUint; 8] = std::array::from_fn(|i| &good[i]);
    let pkcs1 = pkcs1_der(&refs);
    let pkcs8 = pkcs8_der(&pkcs1);
    assert!(RsaPrivateKey::from_key_file(&pkcs1).is_ok());
    assert!(RsaPrivateKey::from_key_file(&pkcs8).is_ok());
    for i in 0..4000 {
        let mut f = if i % 2 == 0 { pkcs1.clone() } else { pkcs8.clone() };
        for _ in 0..rng.gen_range(1..=3) {
            let at = rng.gen_range(0..f.len());
            match rng.gen_range(0..4) {
                0 => f[at] ^= 1 << rng.gen_range(0..8),
                1 => f[at] = [0u8, 1, 0x7f, 0x80, 0xff][rng.gen_range(0..5)],
                2 => f.truncate(at),
                _ => f.insert(at, rng.r#gen()),
            }
            if f.is_empty() {
                break;
            }
        }
        let outcome = std::panic::catch_unwind(|| {
            let private = RsaPrivateKey::from_key_file(&f).map(|k| k.bits());
            let public = RsaPublicKey::from_key_file(&f).map(|k| k.bits());
            (private.is_ok(), public.is_ok())
        });
        assert!(outcome.is_ok(), "panicked on {}", hex::encode(&f));
    }
}
