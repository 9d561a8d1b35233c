//! [`SingleKey`]: one modulus's tables for the single-modulus IFMA kernel
//! ([`super::ifma::single`]), eight digits a register: public-exponent work
//! on a public modulus (verification), built once per public key, and
//! secret-exponent work on a CRT prime too wide for the dual kernel (41 to
//! 160 digits: RSA-6144's, RSA-8192's and RSA-16384's primes), built once
//! per private key.
//! The modulus's value may be secret: the setup is constant time in it,
//! `Debug` prints nothing of it, and its tables are wiped on drop.

use zeroize::Zeroize;

use crate::arch::portable52::{self, Modulus52};

use super::cpu::Ifma;
use super::*;

/// A modulus prepared for the single-modulus IFMA kernel ([`ifma::single`]:
/// eight digits a register, up to 320 digits, i.e. moduli up to 16638 bits):
/// public-exponent work on a public modulus (verification, encryption), and
/// secret-exponent work on a CRT prime too wide for the dual kernel.
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
    fn pow_secret(&self, base: &[u64], exp: &[u64]) -> Vec<u64>;
}

/// The kernel's tables sit in a box of their own, so that this struct (8-byte
/// aligned, a whole number of words) has no padding in the key's box: a
/// padding byte would carry whatever the stack held into the heap, past the
/// wipe.
struct Single<const NR: usize> {
    m: Box<ifma::single::SingleMod<NR>>,
    md: Modulus52,
    /// The token for the single-modulus kernels: the tables exist only where it did.
    ifma: Ifma,
}

impl<const NR: usize> Single<NR> {
    /// The tables of `md` (8 NR digits) behind the trait.
    fn boxed(md: Modulus52, ifma: Ifma) -> Box<dyn SingleTables> {
        Box::new(Single::<NR> {
            m: ifma::single::SingleMod::boxed(&md),
            md,
            ifma,
        })
    }

    /// `base` (below n) into the kernel's digits, `run` on them, and the
    /// result (at most n) fully reduced back into n's limbs; every copy of
    /// the (secret) values wiped.
    fn run(
        &self,
        base: &[u64],
        run: impl FnOnce(&ifma::single::Digits<NR>) -> ifma::single::Digits<NR>,
    ) -> Vec<u64> {
        check_base_len(&self.md, base);
        let d = self.md.d;
        let mut dg = portable52::to_digits(base, d);
        let mut b = ifma::single::Digits::<NR>::from_slice(&dg);
        let mut y = run(&b);
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

impl<const NR: usize> SingleTables for Single<NR> {
    fn pow_public(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        self.run(base, |b| self.ifma.single_pow_public::<NR>(&self.m, b, exp))
    }

    fn pow_secret(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        self.run(base, |b| self.ifma.single_pow_secret::<NR>(&self.m, b, exp))
    }
}

impl SingleKey {
    /// The single-modulus tables of an odd `n >= 3` (little-endian limbs;
    /// public or secret), or None without IFMA or above 320 digits (16638
    /// bits). Time depends on n's size only.
    pub fn new(n: &[u64]) -> Option<SingleKey> {
        let ifma = cpu::ifma()?;
        let md = ifma::single::modulus(n)?;
        let tables = match md.d / 8 {
            16 => Single::<16>::boxed(md, ifma),
            20 => Single::<20>::boxed(md, ifma),
            40 => Single::<40>::boxed(md, ifma),
            nr => with_nr!(nr, NR => Single::<NR>::boxed(md, ifma)),
        };
        Some(SingleKey { tables })
    }

    /// `base^exp mod n`, fully reduced, in n's trimmed limb count, for a
    /// PUBLIC exponent: variable time in `exp` only, constant time in
    /// `base < n` (which may be secret).
    pub fn pow_public(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        self.tables.pow_public(base, exp)
    }

    /// `base^exp mod n`, fully reduced, in n's trimmed limb count, for a
    /// SECRET exponent (fixed windows): constant time in `base < n`, in
    /// `exp`'s value (its limb count is public) and in n's value.
    pub fn pow_secret(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        self.tables.pow_secret(base, exp)
    }
}
