//! EMSA-PSS, the probabilistic signature encoding (RFC 8017 §9.1), with MGF1
//! over the same hash as the message.

use rand_core::CryptoRng;
use subtle::ConstantTimeEq;

use super::PaddingError;
use super::mgf1::mgf1_xor;
use crate::hash::HashAlg;

/// The salt length a PSS verifier expects.
///
/// ```
/// use redc::{hash::HashAlg, padding::{SaltLen, emsa_pss_encode, emsa_pss_verify}};
/// let h = HashAlg::Sha256;
/// let m_hash = h.digest(b"m");
/// let em = emsa_pss_encode(h, &m_hash, &[1u8; 20], 1023).unwrap();
/// assert!(emsa_pss_verify(h, &m_hash, &em, 1023, SaltLen::Exact(20)));
/// assert!(emsa_pss_verify(h, &m_hash, &em, 1023, SaltLen::Auto));
/// assert!(!emsa_pss_verify(h, &m_hash, &em, 1023, SaltLen::Exact(32)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaltLen {
    /// Exactly this many bytes (OpenSSL `rsa_pss_saltlen:N`; the usual
    /// choice is the digest length).
    Exact(usize),
    /// Whatever the signature holds: recovered from the position of the 0x01
    /// separator (OpenSSL `rsa_pss_saltlen:auto`, `-1` in old versions).
    Auto,
    /// Recovered as with [`SaltLen::Auto`], and at least this many bytes:
    /// what an RSA-PSS key's parameters require (RFC 4055 §3.1).
    AtLeast(usize),
}

/// The number of bytes of an EMSA-PSS encoding: `ceil(em_bits / 8)`.
fn em_len_of(em_bits: usize) -> usize {
    em_bits.div_ceil(8)
}

/// The longest salt that fits: `emLen - hLen - 2` with `em_bits =
/// modBits - 1` (OpenSSL `rsa_pss_saltlen:max`); `None` if not even an
/// empty salt fits.
///
/// ```
/// use redc::{hash::HashAlg, padding::pss_max_salt_len};
/// assert_eq!(pss_max_salt_len(HashAlg::Sha256, 2047), Some(222));
/// ```
pub fn pss_max_salt_len(hash: HashAlg, em_bits: usize) -> Option<usize> {
    // The top bits cleared by the encoding must not reach into the 0x01
    // separator: emBits >= 8 hLen + 8 sLen + 9.
    let max_by_bits = em_bits.checked_sub(8 * hash.output_len() + 9)? / 8;
    let max_by_len = em_len_of(em_bits).checked_sub(hash.output_len() + 2)?;
    Some(max_by_bits.min(max_by_len))
}

/// EMSA-PSS encoding (RFC 8017 §9.1.1) of the message digest `m_hash` with
/// the given `salt`, for `em_bits = modBits - 1`. Returns
/// `emLen = ceil(em_bits / 8)` bytes: one fewer than `k` when `modBits - 1`
/// is a multiple of 8; RSASP1 takes it as an integer either way.
///
/// Errors: `m_hash` is not `hash.output_len()` bytes; the salt does not
/// fit (`emBits < 8 hLen + 8 sLen + 9`).
///
/// ```
/// use redc::{hash::HashAlg, padding::{SaltLen, emsa_pss_encode, emsa_pss_verify}};
/// let h = HashAlg::Sha256;
/// let m_hash = h.digest(b"message");
/// let em = emsa_pss_encode(h, &m_hash, &[7u8; 32], 2047).unwrap();
/// assert_eq!(em.len(), 256);
/// assert_eq!(em[255], 0xbc);
/// assert!(emsa_pss_verify(h, &m_hash, &em, 2047, SaltLen::Exact(32)));
/// assert!(emsa_pss_verify(h, &m_hash, &em, 2047, SaltLen::Auto));
/// ```
pub fn emsa_pss_encode(
    hash: HashAlg,
    m_hash: &[u8],
    salt: &[u8],
    em_bits: usize,
) -> Result<Vec<u8>, PaddingError> {
    emsa_pss_encode_mgf1(hash, hash, m_hash, salt, em_bits)
}

/// [`emsa_pss_encode`] with MGF1 over `mgf1_hash`, which may differ from `hash`
/// (RFC 8017 §B.2.1; `openssl pkeyutl -pkeyopt rsa_mgf1_md:...`).
pub fn emsa_pss_encode_mgf1(
    hash: HashAlg,
    mgf1_hash: HashAlg,
    m_hash: &[u8],
    salt: &[u8],
    em_bits: usize,
) -> Result<Vec<u8>, PaddingError> {
    let h_len = hash.output_len();
    if m_hash.len() != h_len {
        return Err(PaddingError::WrongDigestLength {
            len: m_hash.len(),
            expected: h_len,
        });
    }
    let em_len = em_len_of(em_bits);
    let s_len = salt.len();
    let needed_bits = 8 * h_len + 8 * s_len + 9;
    if em_bits < needed_bits {
        return Err(PaddingError::EncodingTooShort {
            em_len,
            needed: needed_bits.div_ceil(8),
        });
    }
    // H = Hash(0x00 x 8 || mHash || salt)
    let mut hasher = hash.hasher();
    hasher.update(&[0u8; 8]);
    hasher.update(m_hash);
    hasher.update(salt);
    let h = hasher.finalize();
    // DB = PS || 0x01 || salt, masked with MGF1(H).
    let db_len = em_len - h_len - 1;
    let mut em = vec![0u8; em_len];
    em[db_len - s_len - 1] = 0x01;
    em[db_len - s_len..db_len].copy_from_slice(salt);
    mgf1_xor(mgf1_hash, &h, &mut em[..db_len])?;
    em[0] &= top_byte_mask(em_len, em_bits);
    em[db_len..em_len - 1].copy_from_slice(&h);
    em[em_len - 1] = 0xbc;
    Ok(em)
}

/// [`emsa_pss_encode`] with a fresh random salt of `salt_len` bytes.
///
/// ```
/// use redc::{hash::HashAlg, padding::{SaltLen, emsa_pss_encode_random, emsa_pss_verify}};
/// let h = HashAlg::Sha384;
/// let m_hash = h.digest(b"m");
/// let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
/// let em = emsa_pss_encode_random(h, &m_hash, 48, 3000, &mut rng).unwrap();
/// assert!(emsa_pss_verify(h, &m_hash, &em, 3000, SaltLen::Auto));
/// ```
pub fn emsa_pss_encode_random<R: CryptoRng + ?Sized>(
    hash: HashAlg,
    m_hash: &[u8],
    salt_len: usize,
    em_bits: usize,
    rng: &mut R,
) -> Result<Vec<u8>, PaddingError> {
    emsa_pss_encode_random_mgf1(hash, hash, m_hash, salt_len, em_bits, rng)
}

/// [`emsa_pss_encode_random`] with MGF1 over `mgf1_hash`, which may differ from `hash`
/// (RFC 8017 §B.2.1; `openssl pkeyutl -pkeyopt rsa_mgf1_md:...`).
pub fn emsa_pss_encode_random_mgf1<R: CryptoRng + ?Sized>(
    hash: HashAlg,
    mgf1_hash: HashAlg,
    m_hash: &[u8],
    salt_len: usize,
    em_bits: usize,
    rng: &mut R,
) -> Result<Vec<u8>, PaddingError> {
    // Check the length before allocating a possibly huge salt.
    match pss_max_salt_len(hash, em_bits) {
        Some(max) if salt_len <= max => {}
        _ => {
            let needed = hash.output_len().saturating_add(salt_len).saturating_add(2);
            return Err(PaddingError::EncodingTooShort {
                em_len: em_len_of(em_bits),
                needed,
            });
        }
    }
    let mut salt = vec![0u8; salt_len];
    rng.fill_bytes(&mut salt);
    emsa_pss_encode_mgf1(hash, mgf1_hash, m_hash, &salt, em_bits)
}

/// `0xff >> (8 emLen - emBits)`: the bits of the first byte that belong to
/// the encoding.
fn top_byte_mask(em_len: usize, em_bits: usize) -> u8 {
    0xffu8 >> (8 * em_len - em_bits)
}

/// EMSA-PSS verification (RFC 8017 §9.1.2) of the message digest `m_hash`
/// against `em`, for `em_bits = modBits - 1`.
///
/// `em` is either the `emLen = ceil(em_bits / 8)`-byte encoding or the full
/// `k`-byte RSAVP1 output: when `modBits - 1` is a multiple of 8 the latter
/// is one byte longer, and this function checks that its first byte is zero
/// and strips it (any other length is rejected). Any malformed input is simply `false`. The inputs are
/// public, so this makes no effort to be constant time.
///
/// ```
/// use redc::{hash::HashAlg, padding::{SaltLen, emsa_pss_encode, emsa_pss_verify}};
/// let h = HashAlg::Sha1;
/// let m_hash = h.digest(b"x");
/// // A 1025-bit modulus: emBits = 1024, emLen = 128, k = 129.
/// let em = emsa_pss_encode(h, &m_hash, b"salt", 1024).unwrap();
/// assert_eq!(em.len(), 128);
/// let mut k_bytes = vec![0u8];
/// k_bytes.extend_from_slice(&em);
/// assert!(emsa_pss_verify(h, &m_hash, &k_bytes, 1024, SaltLen::Exact(4)));
/// assert!(emsa_pss_verify(h, &m_hash, &em, 1024, SaltLen::Auto));
/// assert!(!emsa_pss_verify(h, &m_hash, &em, 1024, SaltLen::Exact(5)));
/// ```
pub fn emsa_pss_verify(hash: HashAlg, m_hash: &[u8], em: &[u8], em_bits: usize, salt_len: SaltLen) -> bool {
    emsa_pss_verify_mgf1(hash, hash, m_hash, em, em_bits, salt_len)
}

/// [`emsa_pss_verify`] with MGF1 over `mgf1_hash`, which may differ from `hash`
/// (RFC 8017 §B.2.1; `openssl pkeyutl -pkeyopt rsa_mgf1_md:...`).
pub fn emsa_pss_verify_mgf1(
    hash: HashAlg,
    mgf1_hash: HashAlg,
    m_hash: &[u8],
    em: &[u8],
    em_bits: usize,
    salt_len: SaltLen,
) -> bool {
    let h_len = hash.output_len();
    let em_len = em_len_of(em_bits);
    if m_hash.len() != h_len || em_bits < 8 * h_len + 9 {
        return false;
    }
    let em = match em.len() {
        n if n == em_len => em,
        n if n == em_len + 1 && em_bits.is_multiple_of(8) && em[0] == 0 => &em[1..],
        _ => return false,
    };
    if em[em_len - 1] != 0xbc {
        return false;
    }
    let db_len = em_len - h_len - 1;
    let top = top_byte_mask(em_len, em_bits);
    if em[0] & !top != 0 {
        return false;
    }
    let h = &em[db_len..em_len - 1];
    let mut db = em[..db_len].to_vec();
    if mgf1_xor(mgf1_hash, h, &mut db).is_err() {
        return false;
    }
    db[0] &= top;
    // DB = PS (zeros) || 0x01 || salt
    let Some(one) = db.iter().position(|&b| b != 0) else {
        return false;
    };
    if db[one] != 0x01 {
        return false;
    }
    let salt = &db[one + 1..];
    match salt_len {
        SaltLen::Exact(s) if s != salt.len() => return false,
        SaltLen::AtLeast(s) if salt.len() < s => return false,
        _ => {}
    }
    let mut hasher = hash.hasher();
    hasher.update(&[0u8; 8]);
    hasher.update(m_hash);
    hasher.update(salt);
    bool::from(hasher.finalize().ct_eq(h))
}
