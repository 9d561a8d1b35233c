//! [`SingleKey`]: one PUBLIC modulus's tables for the single-modulus IFMA
//! kernel ([`super::ifma::single`]), eight digits a register, for
//! public-exponent work (verification). Built once per public key.

use zeroize::Zeroize;

use crate::arch::portable52::{self, Modulus52};

use super::cpu::Ifma;
use super::*;

/// A PUBLIC modulus prepared for the single-modulus IFMA kernel
/// ([`ifma::single`]: eight digits a register, up to 80 digits, i.e. moduli up
/// to 4158 bits): public-exponent work on it (verification, encryption).
pub struct SingleKey {
    tables: Box<dyn SingleTables>,
}

impl core::fmt::Debug for SingleKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SingleKey").finish_non_exhaustive()
    }
}

trait SingleTables: Send + Sync {
    fn pow_public(&self, base: &[u64], exp: &[u64]) -> Vec<u64>;
}

struct Single<const NR: usize> {
    m: ifma::single::SingleMod<NR>,
    md: Modulus52,
    /// The token for the single-modulus kernels: the tables exist only where it did.
    ifma: Ifma,
}

impl<const NR: usize> SingleTables for Single<NR> {
    fn pow_public(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        check_base_len(&self.md, base);
        let d = self.md.d;
        let mut dg = portable52::to_digits(base, d);
        let mut b = ifma::single::Digits::<NR>::from_slice(&dg);
        let mut y = self.ifma.single_pow_public::<NR>(&self.m, &b, exp);
        let mut yd = y.to_vec(d);
        portable52::final_reduce(&self.md, &mut yd);
        let out = portable52::from_digits(&yd, self.md.limbs.len());
        dg.zeroize();
        b.zeroize();
        y.zeroize();
        yd.zeroize();
        out
    }
}

impl SingleKey {
    /// The single-modulus tables of an odd public `n >= 3` (little-endian
    /// limbs), or None without IFMA or above 80 digits.
    pub fn new(n: &[u64]) -> Option<SingleKey> {
        let ifma = cpu::ifma()?;
        let md = Modulus52::with_digit_multiple(n, 8)?;
        let nr = md.d / 8;
        if nr == 0 || nr > ifma::single::MAX_NR {
            return None;
        }
        let tables: Box<dyn SingleTables> = with_nr!(nr, NR => Box::new(Single::<NR> {
            m: ifma::single::SingleMod::new(&md),
            md,
            ifma,
        }));
        Some(SingleKey { tables })
    }

    /// `base^exp mod n`, fully reduced, in n's trimmed limb count, for a
    /// PUBLIC exponent: variable time in `exp` only, constant time in
    /// `base < n` (which may be secret).
    pub fn pow_public(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        self.tables.pow_public(base, exp)
    }
}
