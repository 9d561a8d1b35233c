//! The key-generation helpers against num-bigint.

mod common;

use common::{big, limbs, rng};
use num_bigint::{BigUint, RandBigInt};
use num_integer::Integer;
use num_traits::Zero;
use redc::nat;

#[test]
fn mul_div_rem_gcd_match_oracle() {
    let mut rng = rng(11);
    for _ in 0..300 {
        let la = rng.gen_range_u(1, 9);
        let lb = rng.gen_range_u(1, 9);
        let (cut_a, cut_b) = (rng.gen_range_u(0, 64) as u64, rng.gen_range_u(0, 64) as u64);
        let a = rng.gen_biguint(64 * la as u64 - cut_a);
        let mut b = rng.gen_biguint(64 * lb as u64 - cut_b);
        if b.is_zero() {
            b = BigUint::from(7u8);
        }
        let (al, bl) = (limbs(&a, la), limbs(&b, lb));
        assert_eq!(big(&nat::mul(&al, &bl)), &a * &b);
        let (q, r) = nat::div_rem(&al, &bl);
        assert_eq!((big(&q), big(&r)), a.div_rem(&b), "a={a:x} b={b:x}");
        if !a.is_zero() {
            // Shared factors, including powers of two, to exercise gcd.
            let shift = rng.gen_range_u(0, 6);
            let k = rng.gen_biguint(70) << shift;
            let k = if k.is_zero() { BigUint::from(4u8) } else { k };
            let (x, y) = (&a * &k, &b * &k);
            let len = limbs_of(&x).max(limbs_of(&y));
            assert_eq!(big(&nat::gcd(&limbs(&x, len), &limbs(&y, len))), x.gcd(&y));
        }
    }
}

fn limbs_of(x: &BigUint) -> usize {
    (x.bits() as usize).div_ceil(64).max(1)
}

trait RangeU {
    fn gen_range_u(&mut self, lo: usize, hi: usize) -> usize;
}
impl<R: rand::Rng> RangeU for R {
    fn gen_range_u(&mut self, lo: usize, hi: usize) -> usize {
        self.gen_range(lo..hi)
    }
}
