//! The batch path (`RsaPrivateKey::sign_pkcs1v15_batch`, `raw_private_many`):
//! every result byte for byte the single-operation result, in input order,
//! at batch lengths around the eight-lane group size, with mixed keys and
//! bad inputs that fail alone. The oracle is the single-operation path
//! (itself tested against OpenSSL in the interop tests) and the public
//! operation.

use redc::hash::HashAlg;
use redc::rsa::{Error, RsaPrivateKey, keygen, os_rng, raw_private_many};

fn digests(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| HashAlg::Sha256.digest(&(i as u64).to_le_bytes()))
        .collect()
}

#[test]
fn batch_signatures_equal_single_signatures_at_every_length() {
    // 2048 bits: groups of 3 and 4 on the eight-lane kernel's register
    // window; 3072 and 4096: full groups on its column blocks.
    for bits in [1024, 2048, 3072, 4096] {
        let key = keygen::generate(bits, 65537, &mut os_rng()).unwrap();
        for len in [0usize, 1, 2, 3, 4, 5, 7, 8, 9, 17] {
            let ds = digests(len);
            let refs: Vec<&[u8]> = ds.iter().map(|d| &d[..]).collect();
            let sigs = key.sign_pkcs1v15_batch(&mut os_rng(), HashAlg::Sha256, &refs);
            assert_eq!(sigs.len(), len);
            for (d, s) in ds.iter().zip(&sigs) {
                let s = s.as_ref().unwrap();
                assert_eq!(
                    *s,
                    key.sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, d).unwrap(),
                    "{bits} bits, batch of {len}"
                );
                key.public_key().verify_pkcs1v15(HashAlg::Sha256, d, s).unwrap();
            }
        }
    }
}

#[test]
fn mixed_keys_and_bad_inputs_fail_alone_in_input_order() {
    let a = keygen::generate(2048, 65537, &mut os_rng()).unwrap();
    let b = keygen::generate(2048, 3, &mut os_rng()).unwrap();
    let c = keygen::generate(3072, 65537, &mut os_rng()).unwrap();
    let input = |key: &RsaPrivateKey, tag: u8| {
        let mut x = vec![0u8; key.size()];
        x[1] = tag;
        x[key.size() - 1] = tag;
        x
    };
    let xs: Vec<(&RsaPrivateKey, Vec<u8>)> = (0..11u8)
        .map(|i| {
            let key = [&a, &b, &c][i as usize % 3];
            (key, input(key, i + 1))
        })
        .collect();
    let too_short = vec![1u8; 10];
    let too_big = vec![0xffu8; a.size()]; // above n
    let mut ops: Vec<(&RsaPrivateKey, &[u8])> = xs.iter().map(|(k, x)| (*k, &x[..])).collect();
    ops.insert(4, (&a, &too_short));
    ops.insert(7, (&b, &too_big));
    let out = raw_private_many(&mut os_rng(), &ops);
    assert_eq!(out.len(), ops.len());
    for (k, ((key, x), y)) in ops.iter().zip(&out).enumerate() {
        match k {
            4 => assert_eq!(
                y.as_ref().unwrap_err(),
                &Error::WrongLength {
                    expected: 256,
                    got: 10
                }
            ),
            7 => assert_eq!(y.as_ref().unwrap_err(), &Error::OutOfRange),
            _ => {
                let y = y.as_ref().unwrap();
                assert_eq!(key.public_key().raw_public(y).unwrap(), *x, "operation {k}");
                assert_eq!(**y, *key.raw_private(&mut os_rng(), x).unwrap(), "operation {k}");
            }
        }
    }
}

/// The threaded form: byte for byte the one-thread signatures at every
/// length and thread count (deterministic PKCS#1 v1.5), in input order.
#[test]
fn threaded_batch_equals_single_signatures() {
    let key = keygen::generate(2048, 65537, &mut os_rng()).unwrap();
    for len in [0usize, 1, 7, 8, 9, 17] {
        let ds = digests(len);
        let refs: Vec<&[u8]> = ds.iter().map(|d| &d[..]).collect();
        for threads in [0usize, 1, 2, 3] {
            let sigs = key.sign_pkcs1v15_batch_threads(HashAlg::Sha256, &refs, threads);
            assert_eq!(sigs.len(), len);
            for (d, s) in ds.iter().zip(&sigs) {
                assert_eq!(
                    *s.as_ref().unwrap(),
                    key.sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, d).unwrap(),
                    "batch of {len}, {threads} threads"
                );
            }
        }
    }
}

/// Threaded raw operations on mixed keys: each result is its own key's
/// private operation on its own input, a bad input failing alone.
#[test]
fn threaded_raw_operations_on_mixed_keys() {
    let a = keygen::generate(2048, 65537, &mut os_rng()).unwrap();
    let b = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    let xs: Vec<(&RsaPrivateKey, Vec<u8>)> = (0..13u8)
        .map(|i| {
            let key = if i % 4 == 1 { &b } else { &a };
            let mut x = vec![0u8; key.size()];
            x[2] = i + 1;
            x[key.size() - 1] = i;
            (key, x)
        })
        .collect();
    let bad = vec![0xffu8; a.size()];
    let mut ops: Vec<(&RsaPrivateKey, &[u8])> = xs.iter().map(|(k, x)| (*k, &x[..])).collect();
    ops.insert(6, (&a, &bad));
    let out = redc::rsa::raw_private_many_threads(&ops, 2);
    assert_eq!(out.len(), ops.len());
    for (k, ((key, x), y)) in ops.iter().zip(&out).enumerate() {
        if k == 6 {
            assert_eq!(y.as_ref().unwrap_err(), &Error::OutOfRange);
        } else {
            assert_eq!(
                key.public_key().raw_public(y.as_ref().unwrap()).unwrap(),
                *x,
                "operation {k}"
            );
        }
    }
}

/// PSS through the batch path, one thread and two: every signature
/// verifies with its own digest only, with the salt length asked for, and
/// no two salts repeat.
#[test]
fn pss_batch_signatures_verify_with_their_digest() {
    use redc::padding::SaltLen;
    let key = keygen::generate(2048, 65537, &mut os_rng()).unwrap();
    let public = key.public_key();
    let ds = digests(9);
    let refs: Vec<&[u8]> = ds.iter().map(|d| &d[..]).collect();
    let one = key.sign_pss_batch(&mut os_rng(), HashAlg::Sha256, &refs, Some(20));
    let two = key.sign_pss_batch_threads(HashAlg::Sha256, &refs, Some(20), 2);
    for sigs in [&one, &two] {
        assert_eq!(sigs.len(), ds.len());
        for (k, s) in sigs.iter().enumerate() {
            let s = s.as_ref().unwrap();
            public
                .verify_pss(HashAlg::Sha256, &ds[k], s, SaltLen::Exact(20))
                .unwrap();
            assert!(
                public
                    .verify_pss(HashAlg::Sha256, &ds[(k + 1) % 9], s, SaltLen::Auto)
                    .is_err()
            );
        }
    }
    let mut all: Vec<&Vec<u8>> = one.iter().chain(&two).map(|s| s.as_ref().unwrap()).collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 18, "PSS signatures repeat: salts are not fresh");
}

/// The typed keys' batch method: PKCS#1 v1.5 equal to one-at-a-time
/// signing, and PSS signatures verifying with their own message only.
#[test]
fn typed_keys_sign_batches() {
    use signature::{Signer, Verifier};
    let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    let msgs: Vec<Vec<u8>> = (0..9u8).map(|i| vec![i; i as usize * 7]).collect();
    let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
    let signer = redc::rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new(key.clone());
    for (m, s) in msgs.iter().zip(signer.sign_batch(&refs)) {
        assert_eq!(s.unwrap(), signer.sign(m));
    }
    let pss = redc::rsa::pss::SigningKey::<sha2::Sha256>::new(key);
    let sigs = pss.sign_batch(&refs);
    for (k, s) in sigs.iter().enumerate() {
        let s = s.as_ref().unwrap();
        assert!(pss.verifying_key().verify(&msgs[k], s).is_ok());
        assert!(pss.verifying_key().verify(b"other", s).is_err());
    }
}
