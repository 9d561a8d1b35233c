//! Properties of the paddings over random inputs: every encoding decodes
//! back, every emBits residue mod 8 works for PSS, the length limits are
//! exact, and no input makes a decoder panic.

use proptest::prelude::*;
use redc::hash::HashAlg;
use redc::padding::{
    PaddingError, SaltLen, eme_oaep_decode, eme_oaep_encode, eme_pkcs1v15_decode_implicit,
    eme_pkcs1v15_decode_strict, eme_pkcs1v15_encode, emsa_pkcs1v15_encode, emsa_pkcs1v15_verify,
    emsa_pss_encode, emsa_pss_verify, mgf1, oaep_max_message_len, pss_max_salt_len,
};

fn hash() -> impl Strategy<Value = HashAlg> {
    prop::sample::select(HashAlg::ALL.to_vec())
}

fn rng() -> rand_core::UnwrapErr<getrandom::SysRng> {
    rand_core::UnwrapErr(getrandom::SysRng)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn pss_round_trip(h in hash(), em_bits in 600usize..1100, salt_seed in any::<u64>(), m in any::<Vec<u8>>()) {
        let m_hash = h.digest(&m);
        let max = pss_max_salt_len(h, em_bits).unwrap();
        let salt_len = (salt_seed as usize) % (max + 1);
        let salt: Vec<u8> = (0..salt_len).map(|i| (i as u64 ^ salt_seed) as u8).collect();
        let em = emsa_pss_encode(h, &m_hash, &salt, em_bits).unwrap();
        prop_assert_eq!(em.len(), em_bits.div_ceil(8));
        // The bits above emBits are clear.
        prop_assert_eq!(u32::from(em[0]) >> (em_bits - 8 * (em.len() - 1)).min(8), 0);
        prop_assert!(emsa_pss_verify(h, &m_hash, &em, em_bits, SaltLen::Exact(salt_len)));
        prop_assert!(emsa_pss_verify(h, &m_hash, &em, em_bits, SaltLen::Auto));
        let mut k_bytes = vec![0u8];
        k_bytes.extend_from_slice(&em);
        // Only a (modBits - 1) multiple of 8 has a k one byte longer than emLen.
        prop_assert_eq!(emsa_pss_verify(h, &m_hash, &k_bytes, em_bits, SaltLen::Auto), em_bits % 8 == 0);
        // One salt byte too many does not fit.
        let too_long = vec![0u8; max + 1];
        let too_long_is_short = matches!(
            emsa_pss_encode(h, &m_hash, &too_long, em_bits),
            Err(PaddingError::EncodingTooShort { .. })
        );
        prop_assert!(too_long_is_short);
    }

    #[test]
    fn oaep_round_trip(h in hash(), k in 64usize..300, seed in any::<[u8; 64]>(), m in any::<Vec<u8>>(), label in any::<Vec<u8>>()) {
        let seed = &seed[..h.output_len()];
        match oaep_max_message_len(h, k) {
            None => {
                let too_short =
                    matches!(eme_oaep_encode(h, &label, b"", seed, k), Err(PaddingError::EncodingTooShort { .. }));
                prop_assert!(too_short);
            }
            Some(max) => {
                let m = &m[..m.len().min(max)];
                let em = eme_oaep_encode(h, &label, m, seed, k).unwrap();
                prop_assert_eq!(em.len(), k);
                prop_assert_eq!(em[0], 0);
                prop_assert_eq!(eme_oaep_decode(h, &label, &em, k).unwrap(), m);
                let long = vec![1u8; max + 1];
                prop_assert_eq!(
                    eme_oaep_encode(h, &label, &long, seed, k),
                    Err(PaddingError::MessageTooLong { len: max + 1, max })
                );
            }
        }
    }

    #[test]
    fn pkcs1v15_round_trip(k in 11usize..300, m in any::<Vec<u8>>(), kdk in any::<[u8; 32]>()) {
        let m = &m[..m.len().min(k - 11)];
        let em = eme_pkcs1v15_encode(m, k, &mut rng()).unwrap();
        prop_assert_eq!(em.len(), k);
        prop_assert!(em[2..k - m.len() - 1].iter().all(|&b| b != 0));
        prop_assert_eq!(eme_pkcs1v15_decode_strict(&em, k).unwrap(), m);
        prop_assert_eq!(eme_pkcs1v15_decode_implicit(&em, k, &kdk), m);
        let long = vec![1u8; k - 10];
        prop_assert_eq!(
            eme_pkcs1v15_encode(&long, k, &mut rng()),
            Err(PaddingError::MessageTooLong { len: k - 10, max: k - 11 })
        );
    }

    #[test]
    fn decoders_never_panic(h in hash(), em in any::<Vec<u8>>(), k in 0usize..300, kdk in any::<[u8; 32]>()) {
        let _ = eme_oaep_decode(h, b"", &em, k);
        let _ = eme_oaep_decode(h, b"", &em, em.len());
        let _ = eme_pkcs1v15_decode_strict(&em, k);
        let _ = eme_pkcs1v15_decode_strict(&em, em.len());
        let out = eme_pkcs1v15_decode_implicit(&em, em.len(), &kdk);
        prop_assert!(out.len() <= em.len().saturating_sub(11));
        let _ = eme_pkcs1v15_decode_implicit(&em, k, &kdk);
        let m_hash = h.digest(&em);
        for bits in [k, 8 * em.len(), 8 * em.len() + 1, (8 * em.len()).saturating_sub(1)] {
            let _ = emsa_pss_verify(h, &m_hash, &em, bits, SaltLen::Auto);
            let _ = emsa_pss_verify(h, &m_hash, &em, bits, SaltLen::Exact(k));
        }
        let _ = emsa_pkcs1v15_verify(h, &m_hash, &em);
        let _ = emsa_pkcs1v15_encode(h, &m_hash, k);
    }
}

#[test]
fn error_messages() {
    let e = PaddingError::MessageTooLong { len: 300, max: 245 };
    assert_eq!(
        e.to_string(),
        "message too long: 300 bytes, at most 245 fit this key and padding"
    );
    assert_eq!(PaddingError::Decryption.to_string(), "decryption error");
    assert!(matches!(
        emsa_pss_encode(HashAlg::Sha256, &[0u8; 31], b"", 2047),
        Err(PaddingError::WrongDigestLength {
            len: 31,
            expected: 32
        })
    ));
    // SHA-512 with a 64-byte salt needs emBits >= 8 hLen + 8 sLen + 9 = 1033.
    let h = HashAlg::Sha512;
    let d = h.digest(b"");
    assert!(emsa_pss_encode(h, &d, &[0u8; 64], 1033).is_ok());
    assert_eq!(
        emsa_pss_encode(h, &d, &[0u8; 64], 1032),
        Err(PaddingError::EncodingTooShort {
            em_len: 129,
            needed: 130
        })
    );
    assert_eq!(pss_max_salt_len(h, 1033), Some(64));
    assert_eq!(pss_max_salt_len(h, 1032), Some(63));
    assert_eq!(pss_max_salt_len(h, 8 * 64 + 8), None);
    assert_eq!(pss_max_salt_len(h, 8 * 64 + 9), Some(0));
    assert_eq!(mgf1(h, b"", 0).unwrap(), Vec::<u8>::new());
}
