//! Euclid's bit-serial division (Shand and Vuillemin, "Fast Implementations of RSA Cryptography", section 5,
//! Alg. 4), used as the post-processing reduction of the models whose
//! Montgomery products end above the modulus: the 002 pipeline (which works
//! modulo `M~ = M'·M`, so its result must be reduced modulo `M`) and the
//! quotient-pipelined 003 multiplier (whose output is below `(β^d + 1)·M`).
//!
//! Register invariant: after iteration `i`, `R[i+1] < M` and
//! `R[i+1] ≡ [n_{k+p−1} … n_{p−i}]_2 (mod M)`.  One clock per iteration
//! (a compare-and-subtract of the remainder register), `p + 1` iterations
//! for a `k + p`-bit dividend and a `k`-bit divisor.

use num_bigint::BigUint;

/// `x mod m` by Alg. 4, for a dividend register `width` bits wide
/// (`x < 2^width`).  Returns the remainder and the clocks spent.
pub fn reduce(x: &BigUint, m: &BigUint, width: u64) -> (BigUint, u64) {
    let k = m.bits();
    assert!(x.bits() <= width);
    if width < k {
        // the dividend is already narrower than the divisor: R[0] = x < M
        return (x.clone(), 0);
    }
    let p = width - k;
    // R[0] = the top k - 1 bits of the dividend: [n_{k+p-1} .. n_{p+1}]
    let mut r = x >> (p + 1);
    let mut cycles = 0u64;
    for i in 0..=p {
        cycles += 1;
        let mut s: BigUint = r << 1u32;
        if x.bit(p - i) {
            s.set_bit(0, true);
        }
        r = if s >= *m { s - m } else { s };
    }
    (r, cycles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::RandBigInt;
    use rand::{SeedableRng, rngs::StdRng};

    #[test]
    fn reduces() {
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..300 {
            let kb = rand::Rng::gen_range(&mut rng, 2..200u64);
            let m = rng.gen_biguint(kb) | BigUint::from(1u32) << (kb - 1);
            let width = kb + rand::Rng::gen_range(&mut rng, 0..70u64);
            let x = rng.gen_biguint(width);
            let (r, c) = reduce(&x, &m, width);
            assert_eq!(r, &x % &m);
            assert_eq!(c, width - kb + 1);
        }
    }
}
