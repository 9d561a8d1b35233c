//! The two CRT halves of a private key as one engine: p's and q's
//! [`MontEngine`]s plus, where the CPU has a dual kernel, that kernel's
//! per-key tables, built once when the key is loaded (seed
//! Shand and Vuillemin, "Fast Implementations of RSA Cryptography", Algorithm 1: the two half-size
//! exponentiations of CRT, here run interleaved in one instruction stream).
//!
//! The bases and results are [`Halves`]: residues typed by their prime
//! ([`crate::elem`]), in radix 2^64. The dual kernel converts them to its
//! own radix on the way in and back on the way out, once each; the one
//! value of its radix that crosses this seam, a prepared blinding factor,
//! is a type of its own ([`Factor`]).
//!
//! Secrets: the primes (inside the engines and tables, wiped on drop), the
//! bases and the exponents of [`DualEngine::pow_secret`]. Only the primes'
//! sizes steer the work.

use super::MontEngine;
use crate::elem::{Elem, Halves};

/// p's and q's engines with the dual kernel's per-key tables.
///
/// ```
/// use redc::elem::Elem;
/// use redc::exp::{DualEngine, MontEngine};
/// let pair = DualEngine::new(MontEngine::new(&[241]).unwrap(), MontEngine::new(&[251]).unwrap());
/// let b = (Elem::assume_reduced(vec![7]), Elem::assume_reduced(vec![9]));
/// let (mp, mq) = pair.pow_secret(&b, &[240], &[250]);
/// assert_eq!((mp.limbs(), mq.limbs()), (&[1][..], &[1][..])); // Fermat
/// ```
pub struct DualEngine {
    p: MontEngine,
    q: MontEngine,
    #[cfg(target_arch = "x86_64")]
    tables: Option<crate::arch::x86_64::DualKey>,
}

impl core::fmt::Debug for DualEngine {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DualEngine").finish_non_exhaustive()
    }
}

impl Clone for DualEngine {
    fn clone(&self) -> Self {
        DualEngine::new(self.p.clone(), self.q.clone())
    }
}

impl DualEngine {
    /// The pair, with the dual kernel's tables when both engines have the
    /// IFMA form at the same digit count.
    pub fn new(p: MontEngine, q: MontEngine) -> DualEngine {
        #[cfg(target_arch = "x86_64")]
        // Both engines must allow the dual run (not `Backend::IfmaSingle`).
        let tables = match (&p.ifma, &q.ifma) {
            (Some(mp), Some(mq)) if p.dual && q.dual => crate::arch::x86_64::DualKey::new(mp, mq),
            _ => None,
        };
        DualEngine {
            p,
            q,
            #[cfg(target_arch = "x86_64")]
            tables,
        }
    }

    /// p's engine.
    pub fn p(&self) -> &MontEngine {
        &self.p
    }

    /// q's engine.
    pub fn q(&self) -> &MontEngine {
        &self.q
    }

    /// `(b_p^ep mod p, b_q^eq mod q)` for `b = (b_p, b_q)`: constant time in
    /// bases and exponents (only the exponents' lengths, which are public,
    /// steer the work).
    pub fn pow_secret(&self, b: &Halves, ep: &[u64], eq: &[u64]) -> Halves {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = &self.tables {
            return t.pow_secret(b, ep, eq);
        }
        (
            Elem::assume_reduced(self.p.pow_secret_reduced(b.0.limbs(), ep)),
            Elem::assume_reduced(self.q.pow_secret_reduced(b.1.limbs(), eq)),
        )
    }

    /// A blinding factor's residues `f` prepared once for the
    /// exponentiations it blinds: in the dual kernel's own form where that
    /// kernel runs (f R^2 and f R^3 per half, so that a signature neither
    /// converts nor multiplies it again), else as copies. Constant time in
    /// the factor's value.
    pub fn factor(&self, f: &Halves) -> Factor {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = &self.tables {
            return Factor(FactorForm::Dual(t.factor(f)));
        }
        Factor(FactorForm::Plain(f.clone()))
    }

    /// `((b_p f_p)^ep mod p, (b_q f_q)^eq mod q)`: [`DualEngine::pow_secret`]
    /// of the bases times a factor f from [`DualEngine::factor`] on this pair
    /// (a blinding factor). The dual kernel takes f inside the
    /// exponentiation, in the product that enters the Montgomery domain;
    /// the other engines multiply first (a Montgomery product by x R gives
    /// x f). Panics for a factor another pair's dual kernel made.
    ///
    /// ```
    /// use redc::elem::Elem;
    /// use redc::exp::{DualEngine, MontEngine};
    /// let pair = DualEngine::new(MontEngine::new(&[241]).unwrap(), MontEngine::new(&[251]).unwrap());
    /// // (7 * 3)^5 mod 241 and (9 * 4)^2 mod 251.
    /// let f = pair.factor(&(Elem::assume_reduced(vec![3]), Elem::assume_reduced(vec![4])));
    /// let b = (Elem::assume_reduced(vec![7]), Elem::assume_reduced(vec![9]));
    /// let (mp, mq) = pair.pow_secret_blinded(&b, &f, &[5], &[2]);
    /// assert_eq!((mp.limbs(), mq.limbs()), (&[21u64.pow(5) % 241][..], &[36 * 36 % 251][..]));
    /// ```
    pub fn pow_secret_blinded(&self, b: &Halves, f: &Factor, ep: &[u64], eq: &[u64]) -> Halves {
        let (fp, fq) = match &f.0 {
            #[cfg(target_arch = "x86_64")]
            FactorForm::Dual(k) => {
                let t = self
                    .tables
                    .as_ref()
                    .expect("a dual factor comes from this pair's tables");
                return t.pow_secret_blinded(b, k, ep, eq);
            }
            FactorForm::Plain((fp, fq)) => (fp.limbs(), fq.limbs()),
        };
        let times = |e: &MontEngine, x: &[u64], f: &[u64]| {
            let mut ws = e.workspace();
            let xr = zeroize::Zeroizing::new(e.to_mont(x, &mut ws));
            let mut out = zeroize::Zeroizing::new(vec![0u64; e.limbs()]);
            e.mul_into(&mut out, &xr, f, &mut ws);
            out
        };
        let (xp, xq) = (times(&self.p, b.0.limbs(), fp), times(&self.q, b.1.limbs(), fq));
        (
            Elem::assume_reduced(self.p.pow_secret_reduced(&xp, ep)),
            Elem::assume_reduced(self.q.pow_secret_reduced(&xq, eq)),
        )
    }

    /// As [`DualEngine::pow_secret_blinded`] with the base given once, as
    /// `x < p q` not yet reduced into p and q: the IFMA kernel reduces it on
    /// entry (`DualKey::pow_secret_blinded_wide`). None where that path does
    /// not run (a factor not in the dual kernel's form, or primes without
    /// the margin it needs): the caller reduces x itself then.
    pub fn pow_secret_blinded_wide(&self, x: &[u64], f: &Factor, ep: &[u64], eq: &[u64]) -> Option<Halves> {
        match &f.0 {
            #[cfg(target_arch = "x86_64")]
            FactorForm::Dual(k) => self.tables.as_ref()?.pow_secret_blinded_wide(x, k, ep, eq),
            FactorForm::Plain(..) => {
                let _ = (x, ep, eq);
                None
            }
        }
    }

    /// `(b_p^exp mod p, b_q^exp mod q)` for a PUBLIC `exp`: variable time in
    /// `exp` only, constant time in the bases.
    ///
    /// ```
    /// use redc::elem::Elem;
    /// use redc::exp::{DualEngine, MontEngine};
    /// let (p, q) = (MontEngine::new(&[1_000_003]).unwrap(), MontEngine::new(&[998_244_353]).unwrap());
    /// let pair = DualEngine::new(p.clone(), q.clone());
    /// let (a, b) = pair.pow_public(&(Elem::assume_reduced(vec![5]), Elem::assume_reduced(vec![7])), &[65537]);
    /// assert_eq!(a.limbs(), p.pow_public_vartime(&[5], &[65537]).unwrap());
    /// assert_eq!(b.limbs(), q.pow_public_vartime(&[7], &[65537]).unwrap());
    /// ```
    pub fn pow_public(&self, b: &Halves, exp: &[u64]) -> Halves {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = &self.tables {
            return t.pow_public(b, exp);
        }
        (
            Elem::assume_reduced(self.p.pow_public_reduced(b.0.limbs(), exp)),
            Elem::assume_reduced(self.q.pow_public_reduced(b.1.limbs(), exp)),
        )
    }
}

/// A blinding factor prepared by [`DualEngine::factor`] for that pair's
/// blinded exponentiations. Secret: wiped on drop, `Debug` prints nothing
/// of it.
pub struct Factor(FactorForm);

impl core::fmt::Debug for Factor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Factor").finish_non_exhaustive()
    }
}

enum FactorForm {
    /// The dual kernel's form (its tables made it).
    #[cfg(target_arch = "x86_64")]
    Dual(crate::arch::x86_64::DualFactor),
    /// (f mod p, f mod q), plain, for the per-half engines.
    Plain(Halves),
}
