//! MGF1, the mask generation function of RFC 8017 §B.2.1.

use super::PaddingError;
use crate::hash::HashAlg;

/// MGF1 with `hash`: `mask_len` bytes of `Hash(seed || C)` for the 32-bit
/// big-endian counters `C = 0, 1, ...`.
///
/// ```
/// use redc::{hash::HashAlg, padding::mgf1};
/// let m = mgf1(HashAlg::Sha256, b"seed", 40).unwrap();
/// assert_eq!(m.len(), 40);
/// assert_eq!(m[..32], HashAlg::Sha256.digest(b"seed\0\0\0\0")[..]);
/// ```
pub fn mgf1(hash: HashAlg, seed: &[u8], mask_len: usize) -> Result<Vec<u8>, PaddingError> {
    let mut out = vec![0u8; mask_len];
    mgf1_xor(hash, seed, &mut out)?;
    Ok(out)
}

/// XOR the MGF1 mask of `seed` into `out` (the mask is `out.len()` bytes):
/// the form every scheme uses, without a mask buffer.
///
/// ```
/// use redc::{hash::HashAlg, padding::{mgf1, mgf1_xor}};
/// let mut buf = vec![0x55u8; 7];
/// mgf1_xor(HashAlg::Sha1, b"s", &mut buf).unwrap();
/// let m = mgf1(HashAlg::Sha1, b"s", 7).unwrap();
/// assert!(buf.iter().zip(&m).all(|(b, m)| b ^ m == 0x55));
/// ```
pub fn mgf1_xor(hash: HashAlg, seed: &[u8], out: &mut [u8]) -> Result<(), PaddingError> {
    let h_len = hash.output_len();
    // RFC 8017: maskLen <= 2^32 hLen.
    if (out.len() as u128) > (1u128 << 32) * h_len as u128 {
        return Err(PaddingError::MaskTooLong);
    }
    let mut prefix = hash.hasher();
    prefix.update(seed);
    for (counter, chunk) in out.chunks_mut(h_len).enumerate() {
        let mut h = prefix.clone();
        h.update(&(counter as u32).to_be_bytes());
        let block = h.finalize_array();
        for (o, m) in chunk.iter_mut().zip(&block[..h_len]) {
            *o ^= m;
        }
    }
    Ok(())
}
