//! The RSA primitives against num-bigint: key generation's numbers, the
//! CRT private operation (blinded, fault-checked) and the public one, on
//! the default dispatch's key and on every backend this CPU has, forced one
//! by one (`redc::exp::Backend`).

mod common;

use common::big;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::One;
use redc::rsa::{Error, PrivateComponents, RsaPrivateKey, keygen, os_rng};

fn b(x: &[u8]) -> BigUint {
    BigUint::from_bytes_be(x)
}

/// `key` as loaded (the default dispatch, named by its primes' kernels),
/// then the same key forced onto each backend this process runs.
fn on_every_backend(key: &RsaPrivateKey) -> Vec<(String, RsaPrivateKey)> {
    let [_, kp, kq] = key.kernel_names();
    let mut v = vec![(format!("default ({kp}, {kq})"), key.clone())];
    for &backend in common::backends() {
        let forced = key
            .with_backend(backend)
            .unwrap_or_else(|| panic!("backend {} is available but refused", backend.name()));
        v.push((backend.name().to_string(), forced));
    }
    v
}

/// Every FIPS 186-5 condition of a generated key, checked with num-bigint.
fn check_key_numbers(key: &RsaPrivateKey, bits: usize) {
    let pk = key.public_key();
    let (n, e) = (b(&pk.n_bytes()), b(&pk.e_bytes()));
    let (d, p, q) = (b(&key.d_bytes()), b(&key.p_bytes()), b(&key.q_bytes()));
    assert_eq!(n.bits() as usize, bits);
    assert_eq!(&p * &q, n);
    let (p1, q1) = (&p - 1u8, &q - 1u8);
    let lambda = p1.lcm(&q1);
    assert_eq!((&e * &d) % &lambda, BigUint::one(), "d = e^-1 mod lcm");
    assert!(d < lambda && d.bits() as usize > bits / 2);
    assert_eq!(b(&key.dp_bytes()), &d % &p1);
    assert_eq!(b(&key.dq_bytes()), &d % &q1);
    assert_eq!((b(&key.qinv_bytes()) * &q) % &p, BigUint::one());
    let diff = if p > q { &p - &q } else { &q - &p };
    assert!(diff.bits() as usize > bits / 2 - 100);
    // Probable primes: num-bigint's modpow as a Fermat check with a few bases.
    for base in [2u32, 3, 5, 7] {
        assert_eq!(BigUint::from(base).modpow(&p1, &p), BigUint::one());
        assert_eq!(BigUint::from(base).modpow(&q1, &q), BigUint::one());
    }
}

#[test]
fn generated_keys_satisfy_every_condition_and_round_trip() {
    let mut rng = os_rng();
    for (bits, e) in [(1024usize, 65537u64), (1031, 3), (2048, 65537)] {
        let key = keygen::generate(bits, e, &mut rng).unwrap();
        check_key_numbers(&key, bits);
        let n = b(&key.public_key().n_bytes());
        let d = b(&key.d_bytes());
        let k = key.size();
        for (name, key) in on_every_backend(&key) {
            for _ in 0..40 {
                // Message below n; the private op must equal c^d mod n.
                let mut c = vec![0u8; k];
                rand::Rng::fill(&mut rand::thread_rng(), &mut c[1..]);
                let want = b(&c).modpow(&d, &n);
                let m = key.raw_private(&mut rng, &c).unwrap();
                assert_eq!(b(&m), want, "{name}: {bits} bits, e = {e}");
                let back = key.public_key().raw_public(&m).unwrap();
                assert_eq!(back, c, "{name}: {bits} bits, e = {e}");
            }
        }
    }
}

#[test]
fn components_round_trip_and_bad_keys_are_rejected() {
    let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    let (n, e, d, p, q) = (
        key.public_key().n_bytes(),
        key.public_key().e_bytes(),
        key.d_bytes(),
        key.p_bytes(),
        key.q_bytes(),
    );
    let rebuilt = RsaPrivateKey::from_components(PrivateComponents {
        n: &n,
        e: &e,
        d: &d,
        p: &p,
        q: &q,
        crt: None,
    })
    .unwrap();
    assert_eq!(*rebuilt.dp_bytes(), *key.dp_bytes());
    assert_eq!(*rebuilt.qinv_bytes(), *key.qinv_bytes());
    let (dp, dq, qi) = (key.dp_bytes(), key.dq_bytes(), key.qinv_bytes());
    assert!(
        RsaPrivateKey::from_components(PrivateComponents {
            n: &n,
            e: &e,
            d: &d,
            p: &p,
            q: &q,
            crt: Some((&dp, &dq, &qi))
        })
        .is_ok()
    );
    // A wrong qInv, a wrong d, p == q, n != pq.
    let bad_qi = vec![3u8];
    assert!(
        RsaPrivateKey::from_components(PrivateComponents {
            n: &n,
            e: &e,
            d: &d,
            p: &p,
            q: &q,
            crt: Some((&dp, &dq, &bad_qi))
        })
        .is_err()
    );
    let mut bad_d = d.to_vec();
    *bad_d.last_mut().unwrap() ^= 2;
    assert!(
        RsaPrivateKey::from_components(PrivateComponents {
            n: &n,
            e: &e,
            d: &bad_d,
            p: &p,
            q: &q,
            crt: None
        })
        .is_err()
    );
    assert!(
        RsaPrivateKey::from_components(PrivateComponents {
            n: &n,
            e: &e,
            d: &d,
            p: &p,
            q: &p,
            crt: None
        })
        .is_err()
    );
    let mut bad_n = n.clone();
    *bad_n.last_mut().unwrap() ^= 2;
    assert!(
        RsaPrivateKey::from_components(PrivateComponents {
            n: &bad_n,
            e: &e,
            d: &d,
            p: &p,
            q: &q,
            crt: None
        })
        .is_err()
    );
}

#[test]
fn primitive_inputs_are_checked() {
    let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    let k = key.size();
    let n = key.public_key().n_bytes();
    assert_eq!(
        key.raw_private_os(&vec![1u8; k - 1]).unwrap_err(),
        Error::WrongLength {
            expected: k,
            got: k - 1
        }
    );
    assert_eq!(key.raw_private_os(&n).unwrap_err(), Error::OutOfRange);
    assert_eq!(
        key.public_key().raw_public(&vec![0xffu8; k]).unwrap_err(),
        Error::OutOfRange
    );
    assert!(key.public_key().raw_public(&vec![0u8; k + 1]).is_err());
}

#[test]
fn keygen_rejects_bad_parameters() {
    let mut rng = os_rng();
    assert_eq!(
        keygen::generate(512, 65537, &mut rng).unwrap_err(),
        Error::UnsupportedKeySize(512)
    );
    assert_eq!(
        keygen::generate(2048, 4, &mut rng).unwrap_err(),
        Error::InvalidExponent
    );
    assert_eq!(
        keygen::generate(2048, 1, &mut rng).unwrap_err(),
        Error::InvalidExponent
    );
    assert_eq!(
        keygen::generate(20000, 65537, &mut rng).unwrap_err(),
        Error::UnsupportedKeySize(20000)
    );
}

#[test]
fn limbs_helper_is_consistent() {
    assert_eq!(big(&[5, 1]), (BigUint::one() << 64u32) + 5u8);
}

/// Imported keys may have primes of different limb counts (here 960 and
/// 1090 bits), and equal ones in both orders: the CRT reductions must take
/// each of their paths and stay exact.
#[test]
fn unbalanced_primes_from_components() {
    let mut rng = os_rng();
    let e = BigUint::from(65537u32);
    let prime = |bits: usize, rng: &mut _| {
        b(&redc::limb::to_be_bytes(&redc::rsa::prime::random_prime(
            bits, 65537, rng,
        )))
    };
    let mut pairs = Vec::new();
    // Unequal lengths, and equal ones: Garner's step reduces m_q mod p by one
    // masked subtraction when q has no more bits than p, by the general
    // reduction otherwise; with q > p the subtraction is taken for about
    // (q - p) / q of the inputs.
    for (bp, bq) in [(960, 1090), (1024, 1024)] {
        let (p, q) = loop {
            let (p, q) = (prime(bp, &mut rng), prime(bq, &mut rng));
            if p != q {
                break (p, q);
            }
        };
        pairs.push((p.clone(), q.clone()));
        pairs.push((q, p));
    }
    for (p, q) in pairs {
        let n = &p * &q;
        let lambda = (&p - 1u8).lcm(&(&q - 1u8));
        let d = e.modinv(&lambda).expect("e invertible");
        let key = RsaPrivateKey::from_components(PrivateComponents {
            n: &n.to_bytes_be(),
            e: &e.to_bytes_be(),
            d: &d.to_bytes_be(),
            p: &p.to_bytes_be(),
            q: &q.to_bytes_be(),
            crt: None,
        })
        .unwrap();
        for (name, key) in on_every_backend(&key) {
            for i in 0..40u32 {
                let c = (BigUint::from(i + 2).pow(700) + BigUint::from(i)) % &n;
                let mut bytes = vec![0u8; key.size()];
                let cb = c.to_bytes_be();
                bytes[key.size() - cb.len()..].copy_from_slice(&cb);
                let m = key.raw_private(&mut rng, &bytes).unwrap();
                assert_eq!(
                    b(&m),
                    c.modpow(&d, &n),
                    "{name}: p {} bits, q {} bits",
                    p.bits(),
                    q.bits()
                );
            }
        }
    }
}

/// The edge inputs 0, 1 and n - 1 (0 runs on a stand-in inside, see
/// `ZeroInput`), on the single-operation path and in batches of every
/// grouping, against num-bigint's c^d mod n.
#[test]
fn edge_inputs_match_bigint_single_and_batch() {
    let mut rng = os_rng();
    for bits in [1024usize, 2048] {
        let key = keygen::generate(bits, 65537, &mut rng).unwrap();
        let k = key.size();
        let n = b(&key.public_key().n_bytes());
        let d = b(&key.d_bytes());
        let be = |v: &BigUint| {
            let raw = v.to_bytes_be();
            let mut x = vec![0u8; k - raw.len()];
            x.extend(raw);
            x
        };
        let inputs: Vec<Vec<u8>> = [BigUint::ZERO, BigUint::one(), &n - 1u8, BigUint::from(2u8)]
            .iter()
            .map(be)
            .collect();
        let want: Vec<Vec<u8>> = inputs.iter().map(|c| be(&b(c).modpow(&d, &n))).collect();
        for (name, key) in on_every_backend(&key) {
            for (c, w) in inputs.iter().zip(&want) {
                assert_eq!(
                    &key.raw_private(&mut rng, c).unwrap()[..],
                    &w[..],
                    "{name}: single, c = {}",
                    b(c)
                );
            }
            // Zeros at every position of groups of 1, 4, 8 and 9 operations.
            for len in [1usize, 4, 8, 9] {
                for at in 0..len {
                    let group: Vec<&[u8]> = (0..len)
                        .map(|i| &inputs[if i == at { 0 } else { 1 + i % 3 }][..])
                        .collect();
                    let out = key.raw_private_batch(&mut rng, &group);
                    for (i, r) in out.iter().enumerate() {
                        let w = &want[if i == at { 0 } else { 1 + i % 3 }];
                        assert_eq!(
                            &r.as_ref().unwrap()[..],
                            &w[..],
                            "{name}: batch of {len}, zero at {at}, op {i}"
                        );
                    }
                }
            }
        }
    }
}
