//! Random operands of an exact bit length, drawn from the caller's
//! generator (the models seed it, so their means are reproducible).

use num_bigint::{BigUint, RandBigInt};

/// A random odd modulus of exactly `bits` bits.
pub fn random_modulus<R: rand::Rng>(bits: u64, rng: &mut R) -> BigUint {
    let mut n = rng.gen_biguint(bits);
    n.set_bit(bits - 1, true);
    n.set_bit(0, true);
    n
}

/// A random exponent of exactly `bits` bits.
pub fn random_exponent<R: rand::Rng>(bits: u64, rng: &mut R) -> BigUint {
    let mut e = rng.gen_biguint(bits);
    e.set_bit(bits - 1, true);
    e
}
