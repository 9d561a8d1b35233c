//! The portable path's Montgomery product: FIPS ([`super::fips`]) with the
//! limb count a compile-time constant, for the sizes RSA uses.
//!
//! Paper: Çelebi, Gözütok and Ertaul, "Implementations of Montgomery Multiplication Algorithms in Machine Languages" (Çelebi et al.), FIPS after Koç, Acar and
//! Kaliski 1996; the column schedule, the accumulator and its bound are
//! [`super::fips`]'s, unchanged. What changes is only what the compiler
//! knows: with `S` constant every column's length is known, the operand
//! rows are arrays (no bounds checks, fixed offsets instead of pointers
//! reloaded from the stack), and LLVM unrolls the inner loops. The result
//! is bit for bit [`super::fips::mont_mul`]'s (tested against it).
//!
//! [`mont_mul`] has the [`super::Kernel`] signature and dispatches on the
//! limb count (public): 8, 12, 16, 24, 32, 48 and 64 limbs (the RSA sizes'
//! CRT halves and moduli from 512 to 4096 bits) take the fixed code, any
//! other size the general [`super::fips::mont_mul`].

use super::acc::Acc;
use crate::limb::reduce_once;
use zeroize::Zeroize;

/// `out = a * b * R^-1 mod n`, fully reduced; the [`super::fips::mont_mul`]
/// contract (`a, b < n`, all of length s, `n0 = -n^-1 mod 2^64`).
///
/// ```
/// use redc::mont::{MontContext, fips, fips_fixed};
/// let n: Vec<u64> = (0..16).map(|i| 0x9e3779b97f4a7c15u64.rotate_left(i) | 1).collect();
/// let ctx = MontContext::new(&n).unwrap();
/// let a = ctx.to_mont(&[12345]).unwrap();
/// let b = ctx.to_mont(&[678]).unwrap();
/// let (mut x, mut y) = (vec![0u64; 16], vec![0u64; 16]);
/// fips_fixed::mont_mul(&mut x, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// fips::mont_mul(&mut y, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// assert_eq!(x, y);
/// assert_eq!(ctx.from_mont(&x).unwrap()[0], 12345 * 678);
/// ```
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    macro_rules! fixed {
        ($($s:literal)*) => {
            match n.len() {
                $($s => {
                    if let (Ok(out), Ok(a), Ok(b), Ok(n)) = (
                        <&mut [u64; $s]>::try_from(&mut *out),
                        <&[u64; $s]>::try_from(a),
                        <&[u64; $s]>::try_from(b),
                        <&[u64; $s]>::try_from(n),
                    ) {
                        let top = core::<$s>(out, a, b, n, n0);
                        reduce_once(out, top, n);
                        return;
                    }
                })*
                _ => {}
            }
        };
    }
    fixed!(8 12 16 24 32 48 64);
    super::fips::mont_mul(out, a, b, n, n0, scratch);
}

/// [`super::fips::core`] for S limbs: `(a b + M n) / R` as (top, out).
#[inline(always)]
fn core<const S: usize>(out: &mut [u64; S], a: &[u64; S], b: &[u64; S], n: &[u64; S], n0: u64) -> u64 {
    // The quotient words: secret-derived, wiped below.
    let mut m = [0u64; S];
    let mut acc = Acc(0, 0, 0);
    let mut red = Acc(0, 0, 0);
    for k in 0..S {
        for j in 0..k {
            acc.mac(a[j], b[k - j]);
            red.mac(m[j], n[k - j]);
        }
        acc.add(red);
        red = Acc::default();
        acc.mac(a[k], b[0]);
        m[k] = acc.0.wrapping_mul(n0);
        acc.mac(m[k], n[0]); // clears t0
        acc.shift();
    }
    for k in S..2 * S {
        for j in k - S + 1..S {
            acc.mac(a[j], b[k - j]);
            red.mac(m[j], n[k - j]);
        }
        acc.add(red);
        red = Acc::default();
        out[k - S] = acc.0;
        acc.shift();
    }
    m.zeroize();
    // The value (acc.0, out) is (AB + MN)/R < 2N: acc.0 is 0 or 1.
    acc.0
}
