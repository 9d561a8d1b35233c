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
    for bits in [1024, 2048] {
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
