//! Known-answer tests of the padding encodings against the PKCS #1 v2.1 test
//! vectors of RSA Laboratories (pss-vect.txt, pss-int.txt, oaep-vect.txt;
//! see the headers of tests/data/*_rfc8017_vectors.txt for the copies used).
//! The RSA step is done here with num-bigint, as an independent oracle.

use num_bigint::BigUint;
use redc::hash::HashAlg;
use redc::padding::{
    PaddingError, SaltLen, eme_oaep_decode, eme_oaep_encode, emsa_pkcs1v15_encode, emsa_pkcs1v15_verify,
    emsa_pss_encode, emsa_pss_verify, mgf1,
};

/// Blocks of `key = hex` lines, each headed by `[title]`.
fn blocks(text: &str) -> Vec<(String, std::collections::HashMap<String, Vec<u8>>)> {
    let mut out: Vec<(String, std::collections::HashMap<String, Vec<u8>>)> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(title) = line.strip_prefix('[') {
            out.push((title.trim_end_matches(']').to_string(), Default::default()));
        } else {
            let (k, v) = line.split_once('=').expect("key = value");
            let v = v.trim();
            let bytes = if k.trim() == "bits" {
                v.parse::<u32>().unwrap().to_be_bytes().to_vec()
            } else {
                hex::decode(v).expect("hex")
            };
            out.last_mut()
                .expect("a [title] first")
                .1
                .insert(k.trim().to_string(), bytes);
        }
    }
    out
}

fn i2osp(x: &BigUint, len: usize) -> Vec<u8> {
    let b = x.to_bytes_be();
    assert!(b.len() <= len);
    let mut out = vec![0u8; len - b.len()];
    out.extend_from_slice(&b);
    out
}

fn rsa(x: &[u8], exp: &[u8], n: &[u8]) -> Vec<u8> {
    let n = BigUint::from_bytes_be(n);
    let k = (n.bits() as usize).div_ceil(8);
    i2osp(
        &BigUint::from_bytes_be(x).modpow(&BigUint::from_bytes_be(exp), &n),
        k,
    )
}

fn mod_bits(n: &[u8]) -> usize {
    BigUint::from_bytes_be(n).bits() as usize
}

#[test]
fn pss_vectors() {
    let h = HashAlg::Sha1;
    let data = blocks(include_str!("data/pss_rfc8017_vectors.txt"));
    assert!(data.len() >= 7);
    let mut multiple_of_8 = 0;
    for (title, v) in &data {
        let m_hash = h.digest(&v["msg"]);
        let (em_bits, em_k) = if let Some(sig) = v.get("sig") {
            let n = &v["n"];
            // RSAVP1: the full k-byte output.
            (mod_bits(n) - 1, rsa(sig, &v["e"], n))
        } else {
            let bits = u32::from_be_bytes(v["bits"][..].try_into().unwrap()) as usize;
            (bits - 1, v["em"].clone())
        };
        let em_len = em_bits.div_ceil(8);
        if em_bits % 8 == 0 {
            multiple_of_8 += 1;
            assert_eq!(em_k.len(), em_len + 1, "{title}");
            assert_eq!(em_k[0], 0, "{title}");
        }
        let salt = &v["salt"];
        // Encoder: byte-exact.
        let em = emsa_pss_encode(h, &m_hash, salt, em_bits).unwrap();
        assert_eq!(em.len(), em_len, "{title}");
        assert_eq!(em[..], em_k[em_k.len() - em_len..], "{title}");
        // Verifier: the k-byte output and the emLen-byte encoding, exact and auto salt.
        for input in [&em_k[..], &em[..]] {
            assert!(
                emsa_pss_verify(h, &m_hash, input, em_bits, SaltLen::Exact(salt.len())),
                "{title}"
            );
            assert!(
                emsa_pss_verify(h, &m_hash, input, em_bits, SaltLen::Auto),
                "{title}"
            );
            assert!(
                !emsa_pss_verify(h, &m_hash, input, em_bits, SaltLen::Exact(salt.len() + 1)),
                "{title}"
            );
            assert!(
                !emsa_pss_verify(h, &m_hash, input, em_bits, SaltLen::Exact(0)),
                "{title}"
            );
            assert!(
                !emsa_pss_verify(h, &h.digest(b"other"), input, em_bits, SaltLen::Auto),
                "{title}"
            );
        }
        // Every single-bit flip is rejected.
        for i in 0..em.len() {
            for bit in 0..8 {
                let mut bad = em.clone();
                bad[i] ^= 1 << bit;
                assert!(
                    !emsa_pss_verify(h, &m_hash, &bad, em_bits, SaltLen::Auto),
                    "{title} {i} {bit}"
                );
            }
        }
        // A nonzero byte in front of a k-byte input is rejected.
        let mut front = vec![1u8];
        front.extend_from_slice(&em);
        assert!(!emsa_pss_verify(h, &m_hash, &front, em_bits, SaltLen::Auto));
    }
    assert!(multiple_of_8 >= 3, "the 1025-bit examples have emBits = 1024");
}

#[test]
fn oaep_vectors() {
    let h = HashAlg::Sha1;
    let data = blocks(include_str!("data/oaep_rfc8017_vectors.txt"));
    assert!(data.len() >= 5);
    for (title, v) in &data {
        let (n, e, d) = (&v["n"], &v["e"], &v["d"]);
        let k = mod_bits(n).div_ceil(8);
        let em = eme_oaep_encode(h, b"", &v["msg"], &v["seed"], k).unwrap();
        assert_eq!(rsa(&em, e, n), v["c"], "{title}: encoder");
        let em_dec = rsa(&v["c"], d, n);
        assert_eq!(em_dec, em, "{title}: RSADP");
        assert_eq!(
            eme_oaep_decode(h, b"", &em_dec, k).unwrap(),
            v["msg"],
            "{title}: decoder"
        );
        assert_eq!(
            eme_oaep_decode(h, b"x", &em_dec, k),
            Err(PaddingError::Decryption)
        );
        for i in 0..k {
            let mut bad = em_dec.clone();
            bad[i] ^= 0x80;
            assert_eq!(
                eme_oaep_decode(h, b"", &bad, k),
                Err(PaddingError::Decryption),
                "{title} byte {i}"
            );
        }
    }
}

/// MGF1 against an example of RFC 8017's test data: pss-int.txt's dbMask is
/// MGF1-SHA1(H, 107).
#[test]
fn mgf1_vector() {
    let h = hex::decode("df1a896f9d8bc816d97cd7a2c43bad546fbe8cfe").unwrap();
    let mask = mgf1(HashAlg::Sha1, &h, 107).unwrap();
    assert_eq!(
        hex::encode(&mask),
        "66e4672e836ad121ba244bed6576b867d9a447c28a6e66a5b87dee7fbc7e65af5057f86fae8984d9ba7f969ad6fe02a4\
         d75f7445fefdd85b6d3a477c28d24ba1e3756f792dd1dce8ca94440ecb5279ecd3183a311fc89739a96643136e8b0f465e\
         87a4535cd4c59b10028d"
    );
}

/// EMSA-PKCS1-v1_5 with SHA-256 of "abc", 1024-bit, against a fixed
/// encoding built by hand from RFC 8017 §9.2.
#[test]
fn emsa_pkcs1v15_layout() {
    for h in HashAlg::ALL {
        let d = h.digest(b"abc");
        let em = emsa_pkcs1v15_encode(h, &d, 128).unwrap();
        let t_len = h.digest_info_prefix().len() + d.len();
        assert_eq!(em[0], 0);
        assert_eq!(em[1], 1);
        assert!(em[2..128 - t_len - 1].iter().all(|&b| b == 0xff));
        assert_eq!(em[128 - t_len - 1], 0);
        assert_eq!(&em[128 - t_len..128 - d.len()], h.digest_info_prefix());
        assert!(emsa_pkcs1v15_verify(h, &d, &em));
        assert!(!emsa_pkcs1v15_verify(h, &d, &em[1..]));
        assert_eq!(
            emsa_pkcs1v15_encode(h, &d, t_len + 10),
            Err(PaddingError::EncodingTooShort {
                em_len: t_len + 10,
                needed: t_len + 11
            })
        );
        assert!(emsa_pkcs1v15_encode(h, &d, t_len + 11).is_ok());
        assert!(matches!(
            emsa_pkcs1v15_encode(h, &d[1..], 128),
            Err(PaddingError::WrongDigestLength { .. })
        ));
    }
    // SHA-256 DigestInfo of "abc": the well-known 51-byte T.
    let d = HashAlg::Sha256.digest(b"abc");
    let em = emsa_pkcs1v15_encode(HashAlg::Sha256, &d, 64).unwrap();
    assert_eq!(
        hex::encode(&em[12..]),
        "003031300d060960864801650304020105000420ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}
