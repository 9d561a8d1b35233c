//! EME-OAEP (RFC 8017 §7.1), with MGF1 over the same hash as the label.

use rand_core::CryptoRng;
use zeroize::Zeroizing;

use super::PaddingError;
use super::Plaintext;
use super::ctbytes::{bytes_eq, eq_u8, select_usize, shift_left};
use super::mgf1::mgf1_xor;
use crate::ct::Mask;
use crate::hash::HashAlg;

/// The longest message OAEP with `hash` fits in a `k`-byte modulus:
/// `k - 2 hLen - 2` (`None` when the modulus is too small for the hash).
///
/// ```
/// use redc::{hash::HashAlg, padding::oaep_max_message_len};
/// assert_eq!(oaep_max_message_len(HashAlg::Sha256, 256), Some(190));
/// assert_eq!(oaep_max_message_len(HashAlg::Sha512, 128), None);
/// ```
pub fn oaep_max_message_len(hash: HashAlg, k: usize) -> Option<usize> {
    k.checked_sub(2 * hash.output_len() + 2)
}

/// EME-OAEP encoding (RFC 8017 §7.1.1 step 2) of `msg` with `label` into
/// `k` bytes: `0x00 || maskedSeed || maskedDB`. The `seed` (hLen random
/// bytes) is the caller's, which makes the encoding reproducible in tests;
/// [`eme_oaep_encode_random`] draws it.
///
/// Errors: the seed is not `hLen` bytes; the modulus is too small for the
/// hash; the message is longer than `k - 2 hLen - 2`.
///
/// ```
/// use redc::{hash::HashAlg, padding::{eme_oaep_decode, eme_oaep_encode}};
/// let h = HashAlg::Sha256;
/// let em = eme_oaep_encode(h, b"label", b"msg", &[9u8; 32], 256).unwrap();
/// assert_eq!(em.len(), 256);
/// assert_eq!(eme_oaep_decode(h, b"label", &em, 256).unwrap(), b"msg");
/// assert!(eme_oaep_decode(h, b"other", &em, 256).is_err());
/// ```
pub fn eme_oaep_encode(
    hash: HashAlg,
    label: &[u8],
    msg: &[u8],
    seed: &[u8],
    k: usize,
) -> Result<Vec<u8>, PaddingError> {
    eme_oaep_encode_mgf1(hash, hash, label, msg, seed, k)
}

/// [`eme_oaep_encode`] with MGF1 over `mgf1_hash`, which may differ from `hash`
/// (RFC 8017 §B.2.1; `openssl pkeyutl -pkeyopt rsa_mgf1_md:...`).
pub fn eme_oaep_encode_mgf1(
    hash: HashAlg,
    mgf1_hash: HashAlg,
    label: &[u8],
    msg: &[u8],
    seed: &[u8],
    k: usize,
) -> Result<Vec<u8>, PaddingError> {
    let h_len = hash.output_len();
    if seed.len() != h_len {
        return Err(PaddingError::WrongDigestLength {
            len: seed.len(),
            expected: h_len,
        });
    }
    let max = oaep_max_message_len(hash, k).ok_or(PaddingError::EncodingTooShort {
        em_len: k,
        needed: 2 * h_len + 2,
    })?;
    if msg.len() > max {
        return Err(PaddingError::MessageTooLong { len: msg.len(), max });
    }
    let mut em = vec![0u8; k];
    let (_, rest) = em.split_at_mut(1);
    let (masked_seed, db) = rest.split_at_mut(h_len);
    // DB = lHash || PS || 0x01 || M
    db[..h_len].copy_from_slice(&hash.digest(label));
    let one = db.len() - msg.len() - 1;
    db[one] = 0x01;
    db[one + 1..].copy_from_slice(msg);
    masked_seed.copy_from_slice(seed);
    mgf1_xor(mgf1_hash, masked_seed, db)?;
    mgf1_xor(mgf1_hash, db, masked_seed)?;
    Ok(em)
}

/// [`eme_oaep_encode`] with a fresh random seed.
///
/// ```
/// use redc::{hash::HashAlg, padding::{eme_oaep_decode, eme_oaep_encode_random}};
/// let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
/// let em = eme_oaep_encode_random(HashAlg::Sha1, b"", b"m", 128, &mut rng).unwrap();
/// assert_eq!(eme_oaep_decode(HashAlg::Sha1, b"", &em, 128).unwrap(), b"m");
/// ```
pub fn eme_oaep_encode_random<R: CryptoRng + ?Sized>(
    hash: HashAlg,
    label: &[u8],
    msg: &[u8],
    k: usize,
    rng: &mut R,
) -> Result<Vec<u8>, PaddingError> {
    eme_oaep_encode_random_mgf1(hash, hash, label, msg, k, rng)
}

/// [`eme_oaep_encode_random`] with MGF1 over `mgf1_hash`, which may differ from `hash`
/// (RFC 8017 §B.2.1; `openssl pkeyutl -pkeyopt rsa_mgf1_md:...`).
pub fn eme_oaep_encode_random_mgf1<R: CryptoRng + ?Sized>(
    hash: HashAlg,
    mgf1_hash: HashAlg,
    label: &[u8],
    msg: &[u8],
    k: usize,
    rng: &mut R,
) -> Result<Vec<u8>, PaddingError> {
    let mut seed = Zeroizing::new(vec![0u8; hash.output_len()]);
    rng.fill_bytes(&mut seed);
    eme_oaep_encode_mgf1(hash, mgf1_hash, label, msg, &seed, k)
}

/// EME-OAEP decoding (RFC 8017 §7.1.2 step 3) of the `k`-byte RSADP output.
///
/// Constant time: after the public length checks, no branch and no memory
/// index depends on the decrypted bytes until the single final decision,
/// and every failure (leading byte, label hash, separator) is the same
/// opaque [`PaddingError::Decryption`], so that it is no Manger oracle.
///
/// The message comes back in a [`Plaintext`] over a k-byte buffer, so that
/// a valid decryption and a rejected one cost the same: both make one
/// k-byte copy of `em` and wipe it whole once (the rejected one here, the
/// valid one when its result drops), and no allocation or wipe is sized by
/// the message's length.
///
/// ```
/// use redc::{hash::HashAlg, padding::{PaddingError, eme_oaep_decode}};
/// assert_eq!(eme_oaep_decode(HashAlg::Sha256, b"", &[0u8; 256], 256), Err(PaddingError::Decryption));
/// ```
pub fn eme_oaep_decode(hash: HashAlg, label: &[u8], em: &[u8], k: usize) -> Result<Plaintext, PaddingError> {
    eme_oaep_decode_mgf1(hash, hash, label, em, k)
}

/// [`eme_oaep_decode`] with MGF1 over `mgf1_hash`, which may differ from `hash`
/// (RFC 8017 §B.2.1; `openssl pkeyutl -pkeyopt rsa_mgf1_md:...`).
pub fn eme_oaep_decode_mgf1(
    hash: HashAlg,
    mgf1_hash: HashAlg,
    label: &[u8],
    em: &[u8],
    k: usize,
) -> Result<Plaintext, PaddingError> {
    let h_len = hash.output_len();
    // Public checks.
    if k < 2 * h_len + 2 || em.len() != k {
        return Err(PaddingError::Decryption);
    }
    let l_hash = hash.digest(label);
    let mut buf = Zeroizing::new(em.to_vec());
    let (y, rest) = buf.split_at_mut(1);
    let (seed, db) = rest.split_at_mut(h_len);
    mgf1_xor(mgf1_hash, db, seed)?;
    mgf1_xor(mgf1_hash, seed, db)?;
    let mut good = eq_u8(y[0], 0) & bytes_eq(&db[..h_len], &l_hash);
    // DB = lHash' || PS (zeros) || 0x01 || M: find the 0x01, rejecting any
    // other nonzero byte before it.
    let ps_and_msg = &mut db[h_len..];
    let mut looking = Mask::TRUE;
    let mut one_index = 0usize;
    let mut bad = Mask::FALSE;
    for (i, &b) in ps_and_msg.iter().enumerate() {
        let is_zero = eq_u8(b, 0);
        let is_one = eq_u8(b, 1);
        one_index = select_usize(looking & is_one, i, one_index);
        bad = bad | (looking & !is_zero & !is_one);
        looking = looking & !is_one;
    }
    good = good & !bad & !looking;
    let msg_start = one_index + 1;
    shift_left(ps_and_msg, msg_start);
    let msg_len = ps_and_msg.len() - msg_start;
    // The message to the buffer's front (a public offset, 2 hLen + 1), so
    // that the result is its first msg_len bytes.
    buf.copy_within(1 + 2 * h_len.., 0);
    // The one decision. Either way the k-byte buffer is wiped once, whole.
    if good.leak_bool() {
        Ok(Plaintext::new(buf, msg_len))
    } else {
        drop(buf);
        Err(PaddingError::Decryption)
    }
}
