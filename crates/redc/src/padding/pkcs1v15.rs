//! PKCS#1 v1.5 encodings: EMSA-PKCS1-v1_5 for signatures (RFC 8017 §9.2)
//! and EME-PKCS1-v1_5 for encryption (§7.2), with its strict decoder.
//! The implicit-rejection decoder is in `implicit.rs`.

use rand_core::CryptoRng;
use zeroize::Zeroizing;

use super::PaddingError;
use super::ctbytes::{bytes_eq, eq_u8, lt, select_usize, shift_left};
use crate::ct::Mask;
use crate::hash::HashAlg;

/// EMSA-PKCS1-v1_5 encoding of a message digest (RFC 8017 §9.2):
/// `0x00 0x01 0xff.. 0x00 DigestInfo(hash, digest)`, `em_len` bytes (use
/// `em_len = k`, the modulus length in bytes).
///
/// Errors: the digest is not `hash.output_len()` bytes; `em_len` is below
/// the DigestInfo length + 11.
///
/// ```
/// use redc::{hash::HashAlg, padding::emsa_pkcs1v15_encode};
/// let h = HashAlg::Sha256;
/// let em = emsa_pkcs1v15_encode(h, &h.digest(b"hello"), 256).unwrap();
/// assert_eq!(em.len(), 256);
/// assert_eq!(em[..3], [0x00, 0x01, 0xff]);
/// assert!(em.ends_with(&h.digest(b"hello")));
/// ```
pub fn emsa_pkcs1v15_encode(hash: HashAlg, digest: &[u8], em_len: usize) -> Result<Vec<u8>, PaddingError> {
    let h_len = hash.output_len();
    if digest.len() != h_len {
        return Err(PaddingError::WrongDigestLength {
            len: digest.len(),
            expected: h_len,
        });
    }
    let prefix = hash.digest_info_prefix();
    let t_len = prefix.len() + h_len;
    if em_len < t_len + 11 {
        return Err(PaddingError::EncodingTooShort {
            em_len,
            needed: t_len + 11,
        });
    }
    let mut em = Vec::with_capacity(em_len);
    em.push(0x00);
    em.push(0x01);
    em.resize(em_len - t_len - 1, 0xff);
    em.push(0x00);
    em.extend_from_slice(prefix);
    em.extend_from_slice(digest);
    Ok(em)
}

/// Verify an EMSA-PKCS1-v1_5 encoded message (the `k`-byte RSAVP1 output)
/// against a digest: re-encode and compare in constant time (RFC 8017
/// §8.2.2 step 3-4). Any malformed input is simply `false`.
///
/// ```
/// use redc::{hash::HashAlg, padding::{emsa_pkcs1v15_encode, emsa_pkcs1v15_verify}};
/// let h = HashAlg::Sha1;
/// let d = h.digest(b"m");
/// let em = emsa_pkcs1v15_encode(h, &d, 128).unwrap();
/// assert!(emsa_pkcs1v15_verify(h, &d, &em));
/// assert!(!emsa_pkcs1v15_verify(h, &h.digest(b"n"), &em));
/// ```
pub fn emsa_pkcs1v15_verify(hash: HashAlg, digest: &[u8], em: &[u8]) -> bool {
    match emsa_pkcs1v15_encode(hash, digest, em.len()) {
        // One OR-fold over the bytes (subtle's slice comparison calls an
        // out-of-line barrier per byte: 256 calls per RSA-2048 verification).
        Ok(expected) => bytes_eq(&expected, em).leak_bool(),
        Err(_) => false,
    }
}

/// EMSA-PKCS1-v1_5 without a DigestInfo, the "type 1" block of PKCS#1
/// v1.5 signatures over data the caller encoded (raw signing, as `openssl
/// pkeyutl -sign` without `-digest` does; TLS 1.0 and 1.1's MD5-SHA1):
/// `0x00 0x01 0xff.. 0x00 data`, `em_len` bytes, at least 8 bytes of 0xff
/// (RFC 8017 §9.2 steps 4 and 5 with `T = data`).
///
/// Errors: `data` longer than `em_len - 11`.
///
/// ```
/// use redc::padding::emsa_pkcs1v15_encode_raw;
/// let em = emsa_pkcs1v15_encode_raw(b"abc", 16).unwrap();
/// assert_eq!(em[..2], [0x00, 0x01]);
/// assert!(em[2..12].iter().all(|&b| b == 0xff));
/// assert_eq!(em[12], 0x00);
/// assert_eq!(&em[13..], b"abc");
/// assert!(emsa_pkcs1v15_encode_raw(&[0; 6], 16).is_err());
/// ```
pub fn emsa_pkcs1v15_encode_raw(data: &[u8], em_len: usize) -> Result<Vec<u8>, PaddingError> {
    if data.len() + 11 > em_len {
        return Err(PaddingError::EncodingTooShort {
            em_len,
            needed: data.len() + 11,
        });
    }
    let mut em = vec![0xff; em_len];
    em[0] = 0x00;
    em[1] = 0x01;
    em[em_len - data.len() - 1] = 0x00;
    em[em_len - data.len()..].copy_from_slice(data);
    Ok(em)
}

/// The data of an EMSA-PKCS1-v1_5 block without a DigestInfo (what
/// [`emsa_pkcs1v15_encode_raw`] encoded; the RSAVP1 output of a raw
/// signature, for verify-recover): everything after `0x00 0x01`, at least
/// 8 bytes of 0xff and a `0x00`. `None` when `em` has another shape or is
/// shorter than 11 bytes.
///
/// A signature and what it recovers are public: this check is not
/// constant time.
///
/// ```
/// use redc::padding::{emsa_pkcs1v15_decode_raw, emsa_pkcs1v15_encode_raw};
/// let em = emsa_pkcs1v15_encode_raw(b"abc", 64).unwrap();
/// assert_eq!(emsa_pkcs1v15_decode_raw(&em), Some(&b"abc"[..]));
/// let mut bad = em.clone();
/// bad[1] = 0x02;
/// assert_eq!(emsa_pkcs1v15_decode_raw(&bad), None);
/// ```
pub fn emsa_pkcs1v15_decode_raw(em: &[u8]) -> Option<&[u8]> {
    if em.len() < 11 || em[0] != 0x00 || em[1] != 0x01 {
        return None;
    }
    let sep = em[2..].iter().position(|&b| b != 0xff)? + 2;
    if em[sep] != 0x00 || sep < 10 {
        return None;
    }
    Some(&em[sep + 1..])
}

/// The longest message EME-PKCS1-v1_5 fits in a `k`-byte modulus: `k - 11`
/// (`None` when `k < 11`).
///
/// ```
/// assert_eq!(redc::padding::pkcs1v15_max_message_len(256), Some(245));
/// ```
pub fn pkcs1v15_max_message_len(k: usize) -> Option<usize> {
    k.checked_sub(11)
}

/// EME-PKCS1-v1_5 encoding for encryption (RFC 8017 §7.2.1):
/// `0x00 0x02 PS 0x00 M`, `k` bytes, PS at least 8 random nonzero bytes.
///
/// This scheme is kept for interoperability; prefer OAEP for new designs.
///
/// ```
/// use redc::padding::eme_pkcs1v15_encode;
/// let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
/// let em = eme_pkcs1v15_encode(b"secret", 128, &mut rng).unwrap();
/// assert_eq!(em.len(), 128);
/// assert_eq!(em[..2], [0, 2]);
/// assert!(em[2..121].iter().all(|&b| b != 0));
/// assert_eq!(&em[122..], b"secret");
/// ```
pub fn eme_pkcs1v15_encode<R: CryptoRng + ?Sized>(
    msg: &[u8],
    k: usize,
    rng: &mut R,
) -> Result<Vec<u8>, PaddingError> {
    let max = pkcs1v15_max_message_len(k).ok_or(PaddingError::EncodingTooShort {
        em_len: k,
        needed: 11,
    })?;
    if msg.len() > max {
        return Err(PaddingError::MessageTooLong { len: msg.len(), max });
    }
    let ps_len = k - msg.len() - 3;
    let mut em = vec![0u8; k];
    em[1] = 0x02;
    let ps = &mut em[2..2 + ps_len];
    rng.fill_bytes(ps);
    for b in ps.iter_mut() {
        // Redraw zero bytes one at a time: uniform over 1..=255.
        while *b == 0 {
            let mut one = [0u8; 1];
            rng.fill_bytes(&mut one);
            *b = one[0];
        }
    }
    em[2 + ps_len] = 0x00;
    em[3 + ps_len..].copy_from_slice(msg);
    Ok(em)
}

/// Strict EME-PKCS1-v1_5 decoding (RFC 8017 §7.2.2 step 3) of the `k`-byte
/// RSADP output: the message, or the opaque [`PaddingError::Decryption`].
///
/// Constant time until the final decision, but the decision itself (error
/// or not) is visible to the caller and whoever it tells: that is the
/// Bleichenbacher oracle. Servers decrypting attacker-chosen ciphertexts
/// should use [`super::eme_pkcs1v15_decode_implicit`] instead.
///
/// ```
/// use redc::padding::{eme_pkcs1v15_decode_strict, eme_pkcs1v15_encode};
/// let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
/// let em = eme_pkcs1v15_encode(b"hi", 64, &mut rng).unwrap();
/// assert_eq!(eme_pkcs1v15_decode_strict(&em, 64).unwrap(), b"hi");
/// assert!(eme_pkcs1v15_decode_strict(&[0u8; 64], 64).is_err());
/// ```
pub fn eme_pkcs1v15_decode_strict(em: &[u8], k: usize) -> Result<Vec<u8>, PaddingError> {
    // Public checks.
    if k < 11 || em.len() != k {
        return Err(PaddingError::Decryption);
    }
    let mut buf = Zeroizing::new(em.to_vec());
    let (good, msg_index) = check_type2(&buf);
    shift_left(&mut buf, msg_index);
    let msg_len = k - msg_index;
    // The one decision.
    if good.leak_bool() {
        Ok(buf[..msg_len].to_vec())
    } else {
        Err(PaddingError::Decryption)
    }
}

/// The constant-time EME-PKCS1-v1_5 check shared with the implicit-rejection
/// decoder: `(good, index of the first message byte)`. When not good, the
/// index is still in `2..=em.len()`. Precondition: `em.len() >= 11`.
pub(super) fn check_type2(em: &[u8]) -> (Mask, usize) {
    let mut good = eq_u8(em[0], 0) & eq_u8(em[1], 2);
    let mut found = Mask::FALSE;
    let mut zero_index = 0usize;
    for (i, &b) in em.iter().enumerate().skip(2) {
        let is_zero = eq_u8(b, 0);
        zero_index = select_usize(!found & is_zero, i, zero_index);
        found = found | is_zero;
    }
    // PS is at least 8 bytes: the separator sits at index 10 or later. If
    // no zero byte was found, zero_index is 0 and this fails too.
    good = good & found & !lt(zero_index, 10);
    (good, select_usize(found, zero_index + 1, em.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The raw block's layout, and its parse: the data back, every length
    /// from empty to the longest; at the boundaries (exactly 8 bytes of
    /// 0xff; 7) and for each malformed shape, None.
    #[test]
    fn raw_type1_blocks_encode_and_parse() {
        for len in 0..=53 {
            let data: Vec<u8> = (0..len as u8).map(|i| i.wrapping_mul(37)).collect();
            let em = emsa_pkcs1v15_encode_raw(&data, 64).unwrap();
            assert_eq!(em.len(), 64);
            assert_eq!(em[..2], [0x00, 0x01]);
            assert!(em[2..64 - len - 1].iter().all(|&b| b == 0xff));
            assert_eq!(em[64 - len - 1], 0x00);
            assert_eq!(emsa_pkcs1v15_decode_raw(&em), Some(&data[..]), "length {len}");
        }
        assert_eq!(
            emsa_pkcs1v15_encode_raw(&[0; 54], 64),
            Err(PaddingError::EncodingTooShort {
                em_len: 64,
                needed: 65
            })
        );
        // Exactly 8 bytes of 0xff: the shortest padding.
        let mut em = vec![0x00, 0x01];
        em.extend([0xff; 8]);
        em.push(0x00);
        assert_eq!(emsa_pkcs1v15_decode_raw(&em), Some(&[][..]));
        em.extend(b"xy");
        assert_eq!(emsa_pkcs1v15_decode_raw(&em), Some(&b"xy"[..]));
        // 7 bytes of 0xff.
        let mut short = vec![0x00, 0x01];
        short.extend([0xff; 7]);
        short.extend([0x00, 1, 2]);
        assert_eq!(emsa_pkcs1v15_decode_raw(&short), None);
        let good = emsa_pkcs1v15_encode_raw(b"data", 32).unwrap();
        let broken = |i: usize, b: u8| {
            let mut e = good.clone();
            e[i] = b;
            e
        };
        assert_eq!(emsa_pkcs1v15_decode_raw(&broken(0, 0x01)), None);
        assert_eq!(emsa_pkcs1v15_decode_raw(&broken(1, 0x02)), None);
        // A byte neither 0xff nor 0x00 inside the padding.
        assert_eq!(emsa_pkcs1v15_decode_raw(&broken(5, 0x7f)), None);
        // No separator at all.
        let mut all_ff = vec![0x00, 0x01];
        all_ff.extend([0xff; 30]);
        assert_eq!(emsa_pkcs1v15_decode_raw(&all_ff), None);
        assert_eq!(emsa_pkcs1v15_decode_raw(&good[..10]), None);
        assert_eq!(emsa_pkcs1v15_decode_raw(&[]), None);
    }
}
