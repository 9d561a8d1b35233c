//! The pipelined moduli of the dual kernel: `DualMod::pipelined`, whose
//! rows hold S = M + 1 for M = m s = -1 mod 2^104, so that the quotient
//! digit is the position itself (the chain's `true` form in `chain`).
//!
//! # Quotient pipelining (RSA-3072's primes)
//!
//! Shand and Vuillemin, "Fast Implementations of RSA Cryptography" (seed
//! 003), section 8.2, pipelines the quotient by
//! choosing each quotient digit so that it clears d + 1 digits at once; we
//! use the modulus-scaling form of the same idea. For a prime m whose digit
//! count leaves 106 bits of margin (bits + 106 <= 52 d: 1536-bit primes at
//! 32 digits, not 1024 at 20 or 2048 at 40), the run works modulo
//! M = m s, s = -m^-1 mod 2^104 (`Modulus52::pipelined`), so M = -1 mod
//! 2^104 and 4M < R still holds. Then -M^-1 = 1 mod 2^52, and y_i is position
//! i itself: adding y_i M clears position i exactly (carry U_i >> 52, no
//! bias) and adds y_i (M + 1) = y_i S at positions i + 2 and up only. The
//! rows hold S = M + 1, whose digits 0 and 1 are zero. The chain per step
//! is a shift and an add:
//!
//! ```text
//! y_i      = U_i                          (IFMA reads its low 52 bits)
//! U_{i+1}  = bcast(position i + 1) + lo(a0 b_{i+1}) + (U_i >> 52)    product
//! U_{i+1}  = bcast(position i + 1) + lo(s2 y_{i-1}) + (U_i >> 52)    square
//! ```
//!
//! (the square issues step i - 1's N part after the chain of i, so its one
//! term at position i + 1 is computed there). No IFMA waits on y_i within
//! its own step: three IFMAs per step leave the product's chain and four the
//! square's. Y = sum y_i 2^(52 i) is the Montgomery quotient of M with k0 = 1,
//! so the results are bit for bit those of `portable52::amm_mul` mod M.
//! Values stay below 2M, congruent mod m; [`pow_dual`](super::pow::pow_dual) ends with the
//! product by 1 mod m itself ((x + Y m) / R < 1 + m for x < R), which leaves
//! the run's modulus. What the shorter chain gains is measured in
//! docs/PERFORMANCE.md, "IFMA dual kernel: quotient pipelining for RSA-3072".

use crate::arch::portable52::Pipelined52;

use super::lanes::{DualMod, Lanes, Shifted};

impl<const NR: usize> DualMod<NR> {
    /// The pipelined forms of two moduli (`Modulus52::pipelined`), for
    /// `amm_dual` with `PIPE`: the rows hold M + 1 (k0 is not read).
    pub fn pipelined(p: &Pipelined52, q: &Pipelined52) -> Self {
        assert!(p.m.len() == 4 * NR && q.m.len() == 4 * NR);
        let n = Lanes::interleave(&p.m_plus_one, &q.m_plus_one);
        DualMod {
            n,
            k0: Lanes([[1; 8]]),
            d: 4 * NR,
            nsh: Shifted::new(&n),
        }
    }
}
