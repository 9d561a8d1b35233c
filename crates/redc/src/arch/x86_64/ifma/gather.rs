//! The dual exponentiation's constant-time table read: every entry is
//! loaded, masked blends keep entry `wp` in the p lanes and `wq` in the q
//! lanes; no address depends on the (secret) window digits. The window
//! method of Shand and Vuillemin, "Fast Implementations of RSA
//! Cryptography", section 4.2, read in constant time.

use core::arch::x86_64::*;

use super::lanes::Lanes;

/// Constant-time table read: every entry is loaded; lanes of the p half keep
/// entry `wp`, lanes of the q half entry `wq` (masked blends, no secret index).
#[target_feature(enable = "avx512f")]
pub(super) fn gather<const NR: usize>(out: &mut Lanes<NR>, table: &[Lanes<NR>], wp: u64, wq: u64) {
    let idx = _mm512_set_epi64(
        wq as i64, wp as i64, wq as i64, wp as i64, wq as i64, wp as i64, wq as i64, wp as i64,
    );
    let zero = _mm512_setzero_si512();
    let mut acc = [zero; NR];
    let mut kv = zero;
    let one = _mm512_set1_epi64(1);
    for entry in table {
        let k = _mm512_cmpeq_epu64_mask(idx, kv);
        for r in 0..NR {
            acc[r] = _mm512_mask_mov_epi64(acc[r], k, ld!(&entry.0[r]));
        }
        kv = _mm512_add_epi64(kv, one);
    }
    for r in 0..NR {
        // SAFETY: the row is 64 bytes inside a 64-byte aligned `Lanes`.
        unsafe { _mm512_store_si512(out.0[r].as_mut_ptr().cast(), acc[r]) };
    }
}
