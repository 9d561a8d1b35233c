//! Finely Integrated Product Scanning (FIPS) Montgomery multiplication.
//!
//! Seed: 001_e5e1fe9f4329e3ab.txt (Çelebi et al., the five algorithms), after
//! Koç, Acar and Kaliski 1996. The result is built column by column (product
//! scanning): column k sums every a_j b_{k-j} and m_j n_{k-j} into a
//! three-word accumulator (t0, t1, t2); in the low columns the quotient word
//! m_k is chosen to clear t0, in the high columns t0 is the result word:
//!
//! ```text
//! for k in 0..s:   acc += sum_{j<k} (a_j b_{k-j} + m_j n_{k-j}) + a_k b_0
//!                  m_k = t0 n0' mod W;  acc += m_k n_0;  acc >>= W
//! for k in s..2s:  acc += sum_{j=k-s+1}^{s-1} (a_j b_{k-j} + m_j n_{k-j})
//!                  u_{k-s} = t0;  acc >>= W
//! u = (t0, u_{s-1} .. u_0);  if u >= N: u = u - N
//! ```
//!
//! Bound: a column adds at most 2s double words, so the accumulator stays
//! below 2s * 2^128 + 2^128 and three words hold it for any s < 2^62.

use crate::limb::{adc, mac, reduce_once};

/// Three-word column accumulator: value t0 + t1 W + t2 W^2.
struct Acc(u64, u64, u64);

impl Acc {
    /// acc += x * y, Koç's `(C,S) = t0 + x y; ADD(t1, C)`.
    #[inline(always)]
    fn mac(&mut self, x: u64, y: u64) {
        let (lo, hi) = mac(self.0, x, y, 0);
        let c;
        self.0 = lo;
        (self.1, c) = adc(self.1, hi, 0);
        self.2 += c;
    }

    /// acc >>= W.
    #[inline(always)]
    fn shift(&mut self) {
        *self = Acc(self.1, self.2, 0);
    }
}

/// `out = a * b * R^-1 mod n`, fully reduced.
///
/// Preconditions: `a, b < n`; `out`, `a`, `b`, `n` of length `s`;
/// `n0 = -n^-1 mod 2^64`. `scratch` at least `s` limbs (it holds the m_j).
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && out.len() == s && scratch.len() >= s);
    let m = &mut scratch[..s];
    let mut acc = Acc(0, 0, 0);
    for k in 0..s {
        for j in 0..k {
            acc.mac(a[j], b[k - j]);
            acc.mac(m[j], n[k - j]);
        }
        acc.mac(a[k], b[0]);
        m[k] = acc.0.wrapping_mul(n0);
        acc.mac(m[k], n[0]); // clears t0
        acc.shift();
    }
    for k in s..2 * s {
        for j in k - s + 1..s {
            acc.mac(a[j], b[k - j]);
            acc.mac(m[j], n[k - j]);
        }
        out[k - s] = acc.0;
        acc.shift();
    }
    // The value (acc.0, out) is (AB + MN)/R < 2N: acc.0 is 0 or 1.
    reduce_once(out, acc.0, n);
}
