//! PKCS#1 v1.5 decryption with implicit rejection: an invalid padding
//! yields a deterministic pseudo-random "synthetic" message instead of an
//! error, so that a server that decrypts attacker-chosen ciphertexts offers
//! no Bleichenbacher oracle.
//!
//! The construction is the one of the IETF draft "Implementation Guidance
//! for the PKCS #1 RSA Cryptography Specification"
//! (draft-kario-rsa-guidance, now draft-irtf-cfrg-rsa-guidance), as
//! OpenSSL 3.2+ implements it, so both return the same synthetic message
//! for the same key and ciphertext:
//!
//! - `KDK = HMAC-SHA256(key = SHA256(d as k big-endian bytes), C as k bytes)`;
//! - `PRF(label, bits)` = concatenated `HMAC-SHA256(KDK, I || label || bits)`
//!   with `I` a 16-bit big-endian counter from 0 and `bits` the output
//!   length in bits, 16-bit big-endian; truncated to `bits / 8` bytes;
//! - the synthetic message is the last `L` bytes of `PRF("message", 8k)`,
//!   where `L` is the last of the 128 16-bit big-endian candidates of
//!   `PRF("length", 2048)`, each masked to the bit width of `k - 10`, that
//!   is below `k - 10` (0 if none is). So `L <= k - 11`, the longest real
//!   message.

use hmac::{KeyInit, Mac};
use sha2::Digest;
use zeroize::Zeroizing;

use super::ctbytes::{lt, select_u8, select_usize, shift_left};
use super::pkcs1v15::check_type2;
use super::plaintext::Plaintext;
use crate::ct::Mask;

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// Candidate lengths drawn for the synthetic message.
const LENGTH_CANDIDATES: usize = 128;

fn hmac_sha256(key: &[u8]) -> HmacSha256 {
    // HMAC takes keys of any length: this cannot fail.
    <HmacSha256 as KeyInit>::new_from_slice(key).expect("HMAC accepts any key length")
}

/// `bytes` as a `k`-byte big-endian string: right-aligned with zeros in
/// front. No byte value is examined (d is secret: its leading zero bytes
/// must not steer a branch); only the public input length is. An input
/// longer than `k` keeps its low `k` bytes when the excess is all zero, and
/// is kept whole otherwise (the excess of a valid input is zero).
fn left_pad(bytes: &[u8], k: usize) -> Zeroizing<Vec<u8>> {
    if bytes.len() <= k {
        let mut out = Zeroizing::new(vec![0u8; k - bytes.len()]);
        out.extend_from_slice(bytes);
        return out;
    }
    let (excess, low) = bytes.split_at(bytes.len() - k);
    let excess_zero = excess.iter().fold(0u8, |acc, &b| acc | b) == 0;
    Zeroizing::new(if excess_zero { low.to_vec() } else { bytes.to_vec() })
}

/// The key derivation key of implicit rejection:
/// `HMAC-SHA256(key = SHA256(d), message = C)`, with the private exponent
/// `d` and the ciphertext `C` both as `k`-byte big-endian strings (shorter
/// inputs are left-padded with zeros, leading zeros are ignored).
///
/// ```
/// use redc::padding::implicit_rejection_kdk;
/// let a = implicit_rejection_kdk(&[0x01, 0x23], &[0x45], 64);
/// assert_eq!(a, implicit_rejection_kdk(&[0, 0, 0x01, 0x23], &[0, 0x45], 64));
/// assert_ne!(a, implicit_rejection_kdk(&[0x01, 0x23], &[0x46], 64));
/// ```
pub fn implicit_rejection_kdk(d_be: &[u8], ciphertext: &[u8], k: usize) -> [u8; 32] {
    let d = left_pad(d_be, k);
    let mut d_hash: Zeroizing<[u8; 32]> = Zeroizing::new(sha2::Sha256::digest(&d[..]).into());
    let mut mac = hmac_sha256(&d_hash[..]);
    let c = left_pad(ciphertext, k);
    mac.update(&c);
    let kdk: [u8; 32] = mac.finalize().into_bytes().into();
    d_hash.fill(0);
    kdk
}

/// The draft's PRF: `out_len` bytes of HMAC-SHA256(KDK, I || label || bits).
fn prf(kdk: &[u8; 32], label: &[u8], out_len: usize) -> Zeroizing<Vec<u8>> {
    // The bit length is a 16-bit field (as in OpenSSL): moduli up to 65528 bits.
    let bits = ((out_len * 8) as u16).to_be_bytes();
    let mut out = Zeroizing::new(Vec::with_capacity(out_len + 32));
    let base = hmac_sha256(kdk);
    let mut counter = 0u16;
    while out.len() < out_len {
        let mut mac = base.clone();
        mac.update(&counter.to_be_bytes());
        mac.update(label);
        mac.update(&bits);
        out.extend_from_slice(&mac.finalize().into_bytes());
        counter = counter.wrapping_add(1);
    }
    out.truncate(out_len);
    out
}

/// EME-PKCS1-v1_5 decoding with implicit rejection of the `k`-byte RSADP
/// output `em`: the message if the padding is valid, otherwise the
/// synthetic message determined by `kdk` (from [`implicit_rejection_kdk`]
/// for this key and ciphertext). Never fails, and no branch or memory index
/// depends on whether the padding was valid: the check, the choice between
/// real and synthetic message and their extraction all go through masks and
/// a constant-time shift over all `k` positions. The length of the result
/// (at most `k - 11`) is visible, as it must be.
///
/// Degenerate public inputs: `k < 11` gives an empty message, and an `em`
/// that is not `k` bytes long gives the synthetic message.
///
/// ```
/// use redc::padding::{eme_pkcs1v15_decode_implicit, eme_pkcs1v15_encode, implicit_rejection_kdk};
/// let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
/// let em = eme_pkcs1v15_encode(b"secret", 128, &mut rng).unwrap();
/// let kdk = implicit_rejection_kdk(&[0x42; 128], &[0x17; 128], 128);
/// assert_eq!(eme_pkcs1v15_decode_implicit(&em, 128, &kdk), b"secret");
/// // A bad padding: a deterministic synthetic message, no error.
/// let bad = eme_pkcs1v15_decode_implicit(&[0u8; 128], 128, &kdk);
/// assert_eq!(bad, eme_pkcs1v15_decode_implicit(&[0u8; 128], 128, &kdk));
/// assert!(bad.len() <= 128 - 11);
/// ```
pub fn eme_pkcs1v15_decode_implicit(em: &[u8], k: usize, kdk: &[u8; 32]) -> Plaintext {
    if k < 11 {
        return Plaintext::new(Zeroizing::new(Vec::new()), 0);
    }
    let synthetic = prf(kdk, b"message", k);
    let candidates = prf(kdk, b"length", 2 * LENGTH_CANDIDATES);
    // The real message starts at index >= 11: its length is below k - 10.
    let max_sep_offset = k - 10;
    let mut len_mask = max_sep_offset;
    let mut s = 1;
    while s < usize::BITS {
        len_mask |= len_mask >> s;
        s <<= 1;
    }
    let mut synthetic_len = 0usize;
    for pair in candidates.chunks_exact(2) {
        let candidate = usize::from(u16::from_be_bytes([pair[0], pair[1]])) & len_mask;
        synthetic_len = select_usize(lt(candidate, max_sep_offset), candidate, synthetic_len);
    }
    // A public length mismatch is simply an invalid padding.
    let mut buf = Zeroizing::new(vec![0u8; k]);
    let length_ok = em.len() == k;
    if length_ok {
        buf.copy_from_slice(em);
    }
    let (good, msg_index) = check_type2(&buf);
    let good = good & Mask::from_bit(u64::from(length_ok));
    let start = select_usize(good, msg_index, k - synthetic_len);
    for (b, s) in buf.iter_mut().zip(synthetic.iter()) {
        *b = select_u8(good, *b, *s);
    }
    shift_left(&mut buf, start);
    // The result is the k-byte buffer itself, the message at its front
    // (the bytes past it are the zeros `shift_left` filled in): nothing is
    // allocated, copied or wiped by the message's length. A copy of the
    // message alone would allocate nothing for an empty message, and a
    // k-byte copy truncated to the length would take longer to wipe the
    // longer the message ([`Plaintext`]); both showed in the timing test
    // (docs/CONSTANT_TIME.md, "Findings on other CPUs").
    Plaintext::new(buf, k - start)
}

/// One-stop implicit-rejection decryption decoding: derives the KDK from
/// the private exponent `d_be` and the ciphertext, then decodes `em` (the
/// `k`-byte RSADP output of that ciphertext) with
/// [`eme_pkcs1v15_decode_implicit`].
///
/// ```
/// use redc::padding::pkcs1v15_decrypt_implicit;
/// let out = pkcs1v15_decrypt_implicit(&[0u8; 64], 64, &[3; 64], &[5; 64]);
/// assert!(out.len() <= 53);
/// ```
pub fn pkcs1v15_decrypt_implicit(em: &[u8], k: usize, d_be: &[u8], ciphertext: &[u8]) -> Plaintext {
    let kdk = Zeroizing::new(implicit_rejection_kdk(d_be, ciphertext, k));
    eme_pkcs1v15_decode_implicit(em, k, &kdk)
}
