//! # redc-hw — golden-reference models of the seed papers' Montgomery hardware
//!
//! Every model in this crate computes the exact result bit for bit and counts
//! the clock cycles its circuit would spend, by advancing a simulated clock
//! (one counter increment per simulated cycle; no closed form is used to
//! produce a cycle count).  The closed forms of the papers live in
//! [`formulas`] and are only used by the tests and by [`reproduce`] to compare
//! against.
//!
//! | module | seed | what it models |
//! |---|---|---|
//! | [`cs`] | 004 §2.2–2.3 | bit vectors, carry-save adders, the barrel-register full adder |
//! | [`csa_mont`] | 004 Alg. 2, Alg. 3 | five-to-two and four-to-two (+ multiplexer) radix-2 Montgomery multipliers |
//! | [`csa_exp`] | 004 Alg. 5, Table 4 | the exponentiator with squaring and multiplication on two multipliers in parallel |
//! | [`hrm`] | 002 Alg. 2, §3 | the radix-2^k column-sharing super-pipeline (m + 3 PUs) |
//! | [`rtl`], [`rtl_hrm`] | 004, 002 | Verilog-2005 generators of the csa and hrm designs with Icarus testbenches |
//! | [`euclid`] | 003 Alg. 4 | bit-serial Euclidean reduction used by the post-processing units |
//! | [`qpipe`] | 003 Alg. 6, §8.2 | radix-2^p Hensel product with quotient pipelining of depth d |
//! | [`carry`] | 003 §8.1 | the asynchronous carry-completion adder |
//! | [`karatsuba_digit`] | 003 §7.1, §9 | 64 x 64 digit products from 32 x 32 multiplies, schoolbook and Karatsuba, counted in Alg. 6 |
//! | [`window`] | 003 §4.2 | β-ary exponentiation with odd powers, product counting |
//! | [`operands`] | all | random moduli and exponents of an exact bit length |
//! | [`reproduce`] | all | the papers' table rows against the models |
//!
//! docs/HARDWARE.md describes each model, its register invariants and its
//! departures from the papers.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod carry;
pub mod cs;
pub mod csa_exp;
pub mod csa_mont;
pub mod euclid;
pub mod formulas;
pub mod hrm;
pub mod karatsuba_digit;
pub mod operands;
pub mod qpipe;
pub mod reproduce;
pub mod rtl;
pub mod rtl_hrm;
pub mod window;

/// Re-exported so that users (the `redc hw` command) name the same `BigUint`.
pub use num_bigint;

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::One;
use std::fmt;

/// Reasons a model refuses its input.  Every public entry point validates its
/// operands and returns one of these instead of panicking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HwError {
    /// The modulus is even; Montgomery reduction needs an odd modulus.
    EvenModulus,
    /// The modulus is smaller than 3.
    ModulusTooSmall,
    /// An operand is not reduced (`name` >= modulus).
    OperandNotReduced(&'static str),
    /// The radix exponent is outside the range the model supports.
    RadixOutOfRange {
        /// the requested number of bits per digit
        bits: u32,
        /// smallest accepted value
        min: u32,
        /// largest accepted value
        max: u32,
    },
    /// The quotient-pipelining depth is outside the supported range.
    DepthOutOfRange {
        /// the requested depth
        depth: u32,
        /// largest accepted value
        max: u32,
    },
    /// A model's register overflowed or its schedule read a value before it
    /// was written: a broken invariant of the model, reported as an error in
    /// release builds too rather than a wrong result.
    Overflow(&'static str),
}

impl fmt::Display for HwError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HwError::EvenModulus => write!(f, "the modulus must be odd"),
            HwError::ModulusTooSmall => write!(f, "the modulus must be at least 3"),
            HwError::OperandNotReduced(name) => {
                write!(f, "{name} must be smaller than the modulus")
            }
            HwError::RadixOutOfRange { bits, min, max } => write!(
                f,
                "radix of {bits} bits is out of range (accepted: {min} to {max})"
            ),
            HwError::DepthOutOfRange { depth, max } => write!(
                f,
                "quotient-pipelining depth {depth} is out of range (accepted: 0 to {max})"
            ),
            HwError::Overflow(what) => write!(f, "internal overflow in the hardware model ({what})"),
        }
    }
}

impl std::error::Error for HwError {}

/// Checks that `n` is an odd modulus of at least 3.
pub fn check_modulus(n: &BigUint) -> Result<(), HwError> {
    if n < &BigUint::from(3u32) {
        return Err(HwError::ModulusTooSmall);
    }
    if n.is_even() {
        return Err(HwError::EvenModulus);
    }
    Ok(())
}

/// Checks `x < n`, naming the operand in the error.
pub fn check_reduced(x: &BigUint, n: &BigUint, name: &'static str) -> Result<(), HwError> {
    if x >= n {
        Err(HwError::OperandNotReduced(name))
    } else {
        Ok(())
    }
}

/// The bits of `e` from least to most significant, without leading zeros
/// (empty for `e = 0`).
pub fn exponent_bits_lsb_first(e: &BigUint) -> Vec<bool> {
    (0..e.bits()).map(|i| e.bit(i)).collect()
}

/// Modular inverse of `a` modulo `m`; used by the models' set-up, never as an
/// oracle. `a` not invertible (the callers check the modulus is odd, so
/// this is a broken invariant) is an error in every build.
pub(crate) fn mod_inverse(a: &BigUint, m: &BigUint) -> Result<BigUint, HwError> {
    use num_bigint::BigInt;
    let (a, m) = (BigInt::from(a.clone()), BigInt::from(m.clone()));
    let ext = a.extended_gcd(&m);
    if !ext.gcd.is_one() {
        return Err(HwError::Overflow(
            "set-up: the modulus has no inverse modulo the radix",
        ));
    }
    ext.x
        .mod_floor(&m)
        .to_biguint()
        .ok_or(HwError::Overflow("set-up: negative inverse"))
}
