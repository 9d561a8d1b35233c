//! Montgomery arithmetic: the context for one odd modulus and every
//! multiplication algorithm of the seed papers.
//!
//! Paper: Furukawa, Takenaka and Itoh, "A Fast RSA Implementation on Itanium 2", Algorithms 1 and 2 (REDC and the
//! conversions into and out of the Montgomery domain). For a modulus N of s
//! limbs, R = 2^(64 s), and the Montgomery product of A and B is
//! A B R^-1 mod N. A number x is in Montgomery form as x R mod N:
//! `to_mont(x) = REDC(x, R^2 mod N)`, `from_mont(y) = REDC(y, 1)`.
//!
//! The modulus is public: setting up the context may branch on it. The
//! operands are secret: every kernel runs in time that depends on s only.
//!
//! One file per algorithm; they share one signature, [`Kernel`]:
//! `kernel(out, a, b, n, n0, scratch)` writes `a b R^-1 mod n` to `out`.

mod acc;
pub mod almost;
pub mod bitserial;
pub mod cihs;
pub mod cios;
pub mod fios;
pub mod fips;
pub mod fips_fixed;
pub mod itoh;
pub mod itoh_enhanced;
pub mod karatsuba;
pub mod sos;
pub mod sqr;

use crate::error::Error;
use crate::limb::{self, LIMB_BITS};
pub use crate::variant::Variant;

/// A Montgomery product kernel: `out = a * b * R^-1 mod n` (fully reduced,
/// except [`almost::mont_mul`], whose result is below 2n).
///
/// Preconditions shared by all: `out`, `a`, `b`, `n` of length `s`; `n` odd;
/// `n0 = -n^-1 mod 2^64`; `scratch.len() >= scratch_len(s)`.
///
/// ```
/// use redc::mont::{Kernel, MontContext, Variant};
/// let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
/// let kernel: Kernel = Variant::Cios.kernel();
/// let (a, b) = (ctx.to_mont(&[17]).unwrap(), ctx.to_mont(&[30]).unwrap());
/// let mut out = [0u64; 1];
/// kernel(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![17 * 30 % 241]);
/// ```
pub type Kernel = fn(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]);

/// Scratch limbs every kernel is content with, for an `s`-limb modulus:
/// 2s + 2, or a Karatsuba product's 2s + 1 limbs and the workspace of its
/// recursion with any threshold of at least 16 limbs when that is more
/// (the portable variants split from [`karatsuba::MUL_THRESHOLD`] limbs,
/// the MULX/ADX kernels from 16 at the least).
///
/// ```
/// use redc::mont::{MontContext, scratch_len};
/// assert_eq!(scratch_len(15), 32);
/// assert_eq!(scratch_len(16), 33 + 33); // one split into two 8-limb halves
/// let ctx = MontContext::new(&[1, 1]).unwrap(); // two limbs
/// assert_eq!(ctx.scratch().len(), scratch_len(2));
/// ```
pub fn scratch_len(s: usize) -> usize {
    (2 * s + 2).max(2 * s + 1 + karatsuba::work_len_at(16, s))
}

impl Variant {
    /// The variant with this command-line name.
    ///
    /// ```
    /// use redc::{Error, mont::Variant};
    /// assert_eq!(Variant::from_name("sos"), Ok(Variant::Sos));
    /// assert_eq!(Variant::from_name("toom-cook"), Err(Error::UnknownVariant("toom-cook".into())));
    /// ```
    pub fn from_name(name: &str) -> Result<Variant, Error> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == name)
            .ok_or_else(|| Error::UnknownVariant(name.to_string()))
    }

    /// The kernel. For [`Variant::Sqr`] and [`Variant::KaratsubaSqr`] it
    /// squares `a` and does not read `b`;
    /// for [`Variant::Almost`] the result is only below 2N.
    ///
    /// ```
    /// use redc::mont::{MontContext, Variant};
    /// let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
    /// let a = ctx.to_mont(&[17]).unwrap();
    /// let mut out = [0u64; 1];
    /// // The squaring kernel reads only `a`.
    /// Variant::Sqr.kernel()(&mut out, &a, &a, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
    /// assert_eq!(ctx.from_mont(&out).unwrap(), vec![17 * 17 % 241]);
    /// ```
    pub fn kernel(self) -> Kernel {
        match self {
            Variant::Bitserial => bitserial::mont_mul,
            Variant::Sos => sos::mont_mul,
            Variant::Cios => cios::mont_mul,
            Variant::Fios => fios::mont_mul,
            Variant::Fips => fips::mont_mul,
            Variant::Cihs => cihs::mont_mul,
            Variant::Itoh => itoh::mont_mul,
            Variant::ItohEnhanced => itoh_enhanced::mont_mul,
            Variant::Sqr => sqr::as_kernel,
            Variant::Almost => almost::mont_mul,
            Variant::Karatsuba => karatsuba::mont_mul,
            Variant::KaratsubaSqr => karatsuba::as_kernel,
        }
    }
}

/// Montgomery arithmetic modulo one odd N >= 3 (public).
///
/// ```
/// use redc::mont::{MontContext, Variant};
/// // N = 2^127 - 1, two limbs; R = 2^128.
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap();
/// assert_eq!((ctx.limbs(), ctx.bits()), (2, 127));
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap(); // 2^65 - 1
/// let ab = ctx.mul(Variant::Fips, &a, &b).unwrap();
/// assert_eq!(ctx.from_mont(&ab).unwrap(), vec![u64::MAX - 2, 5]); // 3 (2^65 - 1)
/// ```
#[derive(Clone, Debug)]
pub struct MontContext {
    /// N, exactly s limbs, top limb non-zero.
    n: Vec<u64>,
    /// -N^-1 mod 2^64.
    n0: u64,
    /// R^2 mod N, s limbs.
    rr: Vec<u64>,
}

impl MontContext {
    /// Set up Montgomery arithmetic modulo `n` (little-endian limbs; high zero
    /// limbs are ignored). Errors: [`Error::EvenModulus`], [`Error::ModulusTooSmall`].
    /// Runs in time that depends on `n`, which is public.
    ///
    /// ```
    /// use redc::{Error, mont::MontContext};
    /// assert_eq!(MontContext::new(&[241, 0]).unwrap().modulus(), [241]);
    /// assert_eq!(MontContext::new(&[240]).unwrap_err(), Error::EvenModulus);
    /// assert_eq!(MontContext::new(&[1]).unwrap_err(), Error::ModulusTooSmall);
    /// ```
    pub fn new(n: &[u64]) -> Result<MontContext, Error> {
        let n = limb::trim_vartime(n).to_vec();
        if n.is_empty() || (n.len() == 1 && n[0] < 3) {
            return Err(Error::ModulusTooSmall);
        }
        if n[0] & 1 == 0 {
            return Err(Error::EvenModulus);
        }
        let n0 = neg_inv_word(n[0]);
        let rr = r_squared(&n, n0);
        Ok(MontContext { n, n0, rr })
    }

    /// Parse a hex modulus and set up the context.
    ///
    /// ```
    /// use redc::{Error, mont::MontContext};
    /// assert_eq!(MontContext::from_hex("0xF1").unwrap().modulus(), [241]);
    /// assert_eq!(MontContext::from_hex("g").unwrap_err(), Error::InvalidHex);
    /// ```
    pub fn from_hex(hex: &str) -> Result<MontContext, Error> {
        MontContext::new(&limb::from_hex(hex)?)
    }

    /// s, the number of 64-bit limbs of N.
    ///
    /// ```
    /// use redc::mont::MontContext;
    /// assert_eq!(MontContext::new(&[1, 1]).unwrap().limbs(), 2); // 2^64 + 1
    /// ```
    pub fn limbs(&self) -> usize {
        self.n.len()
    }

    /// Bit length of N.
    ///
    /// ```
    /// use redc::mont::MontContext;
    /// assert_eq!(MontContext::from_hex("f1").unwrap().bits(), 8);
    /// ```
    pub fn bits(&self) -> usize {
        limb::bit_len_vartime(&self.n)
    }

    /// N, s limbs.
    ///
    /// ```
    /// use redc::mont::MontContext;
    /// assert_eq!(MontContext::new(&[241, 0, 0]).unwrap().modulus(), [241]);
    /// ```
    pub fn modulus(&self) -> &[u64] {
        &self.n
    }

    /// n0' = -N^-1 mod 2^64.
    ///
    /// ```
    /// use redc::mont::MontContext;
    /// let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
    /// assert_eq!(241u64.wrapping_mul(ctx.n0()), u64::MAX); // N n0' = -1 mod 2^64
    /// ```
    pub fn n0(&self) -> u64 {
        self.n0
    }

    /// R^2 mod N, s limbs.
    ///
    /// ```
    /// use redc::mont::MontContext;
    /// let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
    /// let r = ((1u128 << 64) % 241) as u64; // R mod N
    /// assert_eq!(ctx.r_squared(), [r * r % 241]);
    /// ```
    pub fn r_squared(&self) -> &[u64] {
        &self.rr
    }

    /// Scratch of the right size for [`MontContext::mul_into`].
    ///
    /// ```
    /// use redc::mont::{MontContext, scratch_len};
    /// let ctx = MontContext::new(&[1, 1]).unwrap();
    /// assert_eq!(ctx.scratch().len(), scratch_len(2));
    /// ```
    pub fn scratch(&self) -> Vec<u64> {
        vec![0; scratch_len(self.limbs())]
    }

    /// Copy `x` (any number of limbs) into s limbs, checking `x < N`.
    /// The check's outcome is revealed (it is an input-validation error).
    ///
    /// ```
    /// use redc::{Error, mont::MontContext};
    /// let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
    /// assert_eq!(ctx.reduced(&[17, 0, 0]).unwrap(), vec![17]);
    /// assert_eq!(ctx.reduced(&[241]), Err(Error::OperandNotReduced));
    /// assert_eq!(ctx.reduced(&[1, 1]), Err(Error::OperandNotReduced));
    /// ```
    pub fn reduced(&self, x: &[u64]) -> Result<Vec<u64>, Error> {
        let x = limb::resize(x, self.limbs()).map_err(|_| Error::OperandNotReduced)?;
        if !limb::ct_lt(&x, &self.n).leak_bool() {
            return Err(Error::OperandNotReduced);
        }
        Ok(x)
    }

    /// `out = a * b * R^-1 mod N`, fully reduced, with the given variant;
    /// no allocation. For the squaring variants ([`Variant::squares_only`])
    /// it is `a * a * R^-1` and `b` is not read.
    ///
    /// Panics unless `a, b, out` have s limbs and `scratch` has
    /// [`scratch_len`]`(s)`: lengths are a programming contract. Values must
    /// be reduced (`< N`); the result is then exact.
    ///
    /// ```
    /// use redc::mont::{MontContext, Variant};
    /// let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
    /// let (a, b) = (ctx.to_mont(&[17]).unwrap(), ctx.to_mont(&[30]).unwrap());
    /// let (mut out, mut scratch) = ([0u64; 1], ctx.scratch());
    /// for v in [Variant::Sos, Variant::Almost] {
    ///     ctx.mul_into(v, &mut out, &a, &b, &mut scratch);
    ///     assert_eq!(ctx.from_mont(&out).unwrap(), vec![17 * 30 % 241]);
    /// }
    /// ```
    pub fn mul_into(&self, v: Variant, out: &mut [u64], a: &[u64], b: &[u64], scratch: &mut [u64]) {
        assert!(scratch.len() >= scratch_len(self.limbs()));
        if v == Variant::Almost {
            assert!(almost::bound_holds(&self.n), "almost-Montgomery needs 4N < R");
        }
        v.kernel()(out, a, b, &self.n, self.n0, scratch);
        if v == Variant::Almost {
            // Below 2N: one more subtraction reduces it fully.
            limb::reduce_once(out, 0, &self.n);
        }
    }

    /// `a * b * R^-1 mod N`, fully reduced. `a` and `b` may have any length
    /// but must be below N. [`Variant::Sqr`] and [`Variant::KaratsubaSqr`]
    /// are [`Error::SquareOnly`]: use [`MontContext::square`]. [`Variant::Almost`] needs 4N < R.
    ///
    /// ```
    /// use redc::{Error, mont::{MontContext, Variant}};
    /// let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
    /// let (a, b) = (ctx.to_mont(&[17]).unwrap(), ctx.to_mont(&[30]).unwrap());
    /// let ab = ctx.mul(Variant::Cihs, &a, &b).unwrap();
    /// assert_eq!(ctx.from_mont(&ab).unwrap(), vec![17 * 30 % 241]);
    /// assert_eq!(ctx.mul(Variant::Sqr, &a, &b), Err(Error::SquareOnly));
    /// assert_eq!(ctx.mul(Variant::KaratsubaSqr, &a, &b), Err(Error::SquareOnly));
    /// ```
    pub fn mul(&self, v: Variant, a: &[u64], b: &[u64]) -> Result<Vec<u64>, Error> {
        if v.squares_only() {
            return Err(Error::SquareOnly);
        }
        self.product(v, a, b)
    }

    /// `a * a * R^-1 mod N`, fully reduced, with any variant.
    ///
    /// ```
    /// use redc::mont::{MontContext, Variant};
    /// let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
    /// let a = ctx.to_mont(&[17]).unwrap();
    /// let aa = ctx.square(Variant::Sqr, &a).unwrap();
    /// assert_eq!(ctx.from_mont(&aa).unwrap(), vec![17 * 17 % 241]);
    /// ```
    pub fn square(&self, v: Variant, a: &[u64]) -> Result<Vec<u64>, Error> {
        self.product(v, a, a)
    }

    fn product(&self, v: Variant, a: &[u64], b: &[u64]) -> Result<Vec<u64>, Error> {
        if v == Variant::Almost && !almost::bound_holds(&self.n) {
            return Err(Error::AlmostBound);
        }
        let a = self.reduced(a)?;
        let b = self.reduced(b)?;
        let mut out = vec![0; self.limbs()];
        self.mul_into(v, &mut out, &a, &b, &mut self.scratch());
        Ok(out)
    }

    /// x R mod N: into Montgomery form. `x < N`.
    ///
    /// ```
    /// use redc::mont::MontContext;
    /// let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
    /// // 1 in Montgomery form is R mod N.
    /// assert_eq!(ctx.to_mont(&[1]).unwrap(), vec![((1u128 << 64) % 241) as u64]);
    /// ```
    pub fn to_mont(&self, x: &[u64]) -> Result<Vec<u64>, Error> {
        self.mul(Variant::DEFAULT, x, &self.rr)
    }

    /// y R^-1 mod N: out of Montgomery form. `y < N`.
    ///
    /// ```
    /// use redc::mont::MontContext;
    /// let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
    /// let x = ctx.to_mont(&[42]).unwrap();
    /// assert_eq!(ctx.from_mont(&x).unwrap(), vec![42]);
    /// ```
    pub fn from_mont(&self, y: &[u64]) -> Result<Vec<u64>, Error> {
        self.mul(Variant::DEFAULT, y, &[1])
    }
}

/// The moduli of CRT halves are secret primes: wipe them with the context.
impl Drop for MontContext {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.n.zeroize();
        self.rr.zeroize();
        self.n0.zeroize();
    }
}

/// -x^-1 mod 2^64 for odd x (Newton's iteration; each step doubles the
/// number of correct low bits, starting from 3 because x*x = 1 mod 8).
fn neg_inv_word(x: u64) -> u64 {
    let mut inv = x;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(x.wrapping_mul(inv)));
    }
    debug_assert_eq!(x.wrapping_mul(inv), 1);
    inv.wrapping_neg()
}

/// R^2 mod N without division: double 2^(bits-1) up to 2^s R mod N, which
/// is 2^s in Montgomery form, then square it six times in the Montgomery
/// domain: (2^s)^(2^6) = 2^(64 s) = R, in Montgomery form R * R mod N.
fn r_squared(n: &[u64], n0: u64) -> Vec<u64> {
    let s = n.len();
    let bits = limb::bit_len_vartime(n);
    let mut x = vec![0u64; s];
    // 2^(bits-1) < N because N is odd and >= 3.
    x[(bits - 1) / LIMB_BITS] = 1 << ((bits - 1) % LIMB_BITS);
    let mut doubled = vec![0u64; s];
    for _ in (bits - 1)..(s * LIMB_BITS + s) {
        let top = limb::add(&mut doubled, &x, &x);
        limb::reduce_once(&mut doubled, top, n);
        std::mem::swap(&mut x, &mut doubled);
    }
    let mut scratch = vec![0; scratch_len(s)];
    let mut sq = vec![0u64; s];
    for _ in 0..6 {
        sqr::mont_sqr(&mut sq, &x, n, n0, &mut scratch);
        std::mem::swap(&mut x, &mut sq);
    }
    // N may be a secret prime: its powers of two mod N are as secret.
    zeroize::Zeroize::zeroize(&mut doubled);
    zeroize::Zeroize::zeroize(&mut scratch);
    zeroize::Zeroize::zeroize(&mut sq);
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in Variant::ALL {
            assert_eq!(Variant::from_name(v.name()), Ok(v));
        }
        assert!(Variant::from_name("nope").is_err());
    }

    #[test]
    fn bad_moduli_are_errors() {
        assert_eq!(MontContext::new(&[4]).unwrap_err(), Error::EvenModulus);
        assert_eq!(MontContext::new(&[1]).unwrap_err(), Error::ModulusTooSmall);
        assert_eq!(MontContext::new(&[0, 0]).unwrap_err(), Error::ModulusTooSmall);
        assert_eq!(MontContext::new(&[2, 5]).unwrap_err(), Error::EvenModulus);
        assert!(MontContext::new(&[3]).is_ok());
    }

    #[test]
    fn n0_is_negative_inverse() {
        for x in [1u64, 3, 5, 0xffff_ffff_ffff_ffff, 0x1234_5678_9abc_def1] {
            assert_eq!(x.wrapping_mul(neg_inv_word(x)), u64::MAX);
        }
    }
}
