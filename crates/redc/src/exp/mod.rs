//! Modular exponentiation behind one seam, [`MontEngine`].
//!
//! An engine is a public modulus with the Montgomery kernels chosen for it
//! once, at creation, by runtime CPU detection: on x86-64 with AVX-512 IFMA
//! the secret exponentiations run in radix 2^52 ([`crate::arch::x86_64`]);
//! without IFMA but with AVX2 they run in radix 2^28 where that measured
//! faster than MULX/ADX on this CPU (`arch::x86_64::avx2::pays`, moduli
//! of 811 to 1594 bits, to 2154 bits where AVX-512VL gives them 32
//! registers); with BMI2/ADX the products use MULX and two carry
//! chains, and otherwise (or with `REDC_FORCE_PORTABLE=1`) the portable
//! FIPS kernel. The RSA code sees only this seam. On top of it:
//! - [`binary`]: the reference left-to-right and right-to-left methods;
//! - [`window`]: constant-time fixed window, for secret exponents;
//! - [`sliding`]: variable-time sliding window, for public exponents.

pub mod binary;
mod dual;
mod kernels;
pub mod sliding;
pub mod window;

pub use dual::{DualEngine, Factor};
pub use kernels::{Exponentiation, Kernels, Scalar, kernel_name, kernels};

use crate::error::Error;
use crate::limb;
use crate::mont::{Kernel, MontContext, scratch_len};
use zeroize::Zeroize;

/// A Montgomery reduction `out = t R^-1 mod n` of a 2s + 1 limb `t < n R`
/// (`mont::sos::redc` and its ADX twin).
type Redc = fn(out: &mut [u64], t: &mut [u64], n: &[u64], n0: u64);

/// A public odd modulus with its Montgomery kernels.
#[derive(Clone)]
/// ```
/// use redc::exp::MontEngine;
/// let engine = MontEngine::new(&[241]).unwrap();
/// assert_eq!(engine.pow_secret(&[3], &[5]).unwrap(), vec![3u64.pow(5) % 241]);
/// ```
pub struct MontEngine {
    ctx: MontContext,
    mul: Kernel,
    sqr: Kernel,
    /// Montgomery reduction of a double-length value (`mont::sos::redc`'s
    /// contract), on the same backend as `mul`.
    redc: Redc,
    /// The product and squaring of the window exponentiation's loop where
    /// lazy ones serve this modulus: operands and results below R rather
    /// than below N, congruent mod N (`arch::x86_64::adx::mont_mul_lazy`).
    /// None: the loop runs `mul` and `sqr`.
    lazy: Option<(Kernel, Kernel)>,
    /// R mod N (1 in Montgomery form).
    one: Vec<u64>,
    /// Which kernels were chosen.
    kernels: Kernels,
    /// The radix-2^52 form for the IFMA exponentiation, when this CPU has it
    /// and the modulus fits it.
    #[cfg(target_arch = "x86_64")]
    ifma: Option<crate::arch::x86_64::Ifma52Modulus>,
    /// The single-modulus IFMA tables: for public-exponent work, built at
    /// first use; for the secret exponentiations of a modulus too wide for
    /// the dual kernel (41 to 320 digits), built with the engine
    /// (`with_ifma`). Engines without IFMA, portable or ADX by request,
    /// hold None from the start.
    #[cfg(target_arch = "x86_64")]
    ifma_single: std::sync::OnceLock<Option<std::sync::Arc<crate::arch::x86_64::SingleKey>>>,
    /// The radix-2^28 form for the AVX2 exponentiation, where the AVX2
    /// family is chosen (no IFMA) and the modulus fits it.
    #[cfg(target_arch = "x86_64")]
    avx2: Option<std::sync::Arc<crate::arch::x86_64::avx2::Avx2Modulus>>,
    /// Whether a [`DualEngine`] (and the probes' `pow_secret_dual` and
    /// `pow_public_dual`) may run the two halves in one IFMA kernel run
    /// (false only for [`Backend::IfmaSingle`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    dual: bool,
}

/// A set of kernels to force on an engine, for tests that must reach every
/// backend this CPU has ([`MontEngine::with_backend`],
/// `RsaPrivateKey::with_backend`). [`MontEngine::new`] is unchanged: it
/// picks the fastest.
///
/// ```
/// use redc::exp::{Backend, MontEngine};
/// let e = MontEngine::with_backend(&[241], Backend::Portable).unwrap().unwrap();
/// assert_eq!(e.kernel_name(), "portable");
/// for b in Backend::ALL {
///     // None exactly when the CPU lacks the backend.
///     let forced = MontEngine::with_backend(&[241], b).unwrap();
///     assert_eq!(forced.is_none(), b.unavailable().is_some());
/// }
/// ```
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The portable FIPS kernels only.
    Portable,
    /// MULX/ADX products and squarings, no IFMA.
    Adx,
    /// AVX2 exponentiations (radix 2^28, `arch::x86_64::avx2`) where the
    /// modulus fits them, MULX/ADX (or portable) kernels for the rest.
    Avx2,
    /// AVX-512 IFMA exponentiations (both CRT halves in one dual run when
    /// their widths match) where the modulus fits them; portable kernels
    /// for everything else.
    Ifma,
    /// As [`Backend::Ifma`] with the dual kernels off: one half at a time.
    IfmaSingle,
}

impl Backend {
    /// Every backend, in order.
    pub const ALL: [Backend; 5] = [
        Backend::Portable,
        Backend::Adx,
        Backend::Avx2,
        Backend::Ifma,
        Backend::IfmaSingle,
    ];

    /// Its name, as [`MontEngine::kernel_name`] reports it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::Adx => "adx",
            Backend::Avx2 => "avx2",
            Backend::Ifma => "ifma",
            Backend::IfmaSingle => "ifma-single",
        }
    }

    /// `None` when this process can run the backend, else what is missing
    /// (a CPU feature, or REDC_FORCE_PORTABLE=1 hiding it).
    pub fn unavailable(self) -> Option<&'static str> {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::arch::x86_64 as x86;
            match self {
                Backend::Portable => None,
                Backend::Adx => {
                    (!x86::adx_available()).then_some("BMI2/ADX, or REDC_FORCE_PORTABLE=1 is set")
                }
                Backend::Avx2 => (!x86::avx2_available()).then_some("AVX2, or REDC_FORCE_PORTABLE=1 is set"),
                Backend::Ifma | Backend::IfmaSingle => (!x86::ifma_available())
                    .then_some("AVX-512F/AVX-512 IFMA, or REDC_FORCE_PORTABLE=1 is set"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        match self {
            Backend::Portable => None,
            _ => Some("x86-64"),
        }
    }
}

impl core::fmt::Debug for MontEngine {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MontEngine")
            .field("bits", &self.ctx.bits())
            .finish()
    }
}

/// R mod p is as secret as p: wipe it (the context wipes p itself).
impl Drop for MontEngine {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.one.zeroize();
    }
}

/// Scratch space for one thread's use of an engine.
/// ```
/// use redc::exp::MontEngine;
/// let engine = MontEngine::new(&[241]).unwrap();
/// let mut ws = engine.workspace();
/// let x = engine.to_mont(&[17], &mut ws);
/// assert_eq!(engine.from_mont(&x, &mut ws), vec![17]);
/// ```
pub struct Workspace {
    scratch: Vec<u64>,
    tmp: Vec<u64>,
}

/// The scratch holds products of secret values mod secret primes (CRT
/// halves, blinded inputs): wiped when the workspace goes.
impl Drop for Workspace {
    fn drop(&mut self) {
        self.scratch.zeroize();
        self.tmp.zeroize();
    }
}

impl MontEngine {
    /// An engine for odd `n >= 3` with the fastest kernels this CPU runs
    /// (see the module documentation); [`MontEngine::portable`] otherwise.
    /// ```
    /// use redc::exp::MontEngine;
    /// assert!(MontEngine::new(&[241]).is_ok());
    /// assert!(MontEngine::new(&[240]).is_err()); // even
    /// ```
    pub fn new(n: &[u64]) -> Result<MontEngine, Error> {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::arch::x86_64 as x86;
            let mut engine = Self::scalar(n)?;
            if !engine.with_ifma(Exponentiation::Ifma)
                && x86::avx2_family_available()
                && x86::avx2::pays(engine.ctx.bits())
            {
                engine.with_avx2();
            }
            Ok(engine)
        }
        #[cfg(not(target_arch = "x86_64"))]
        Self::portable(n)
    }

    /// An engine with the portable kernels only: FIPS with the limb count
    /// fixed at compile time for the RSA sizes (`mont::fips_fixed`: no
    /// bounds checks, fixed offsets), for products and squarings alike
    /// (docs/PERFORMANCE.md, "Portable engine: FIPS with the limb count
    /// fixed").
    /// ```
    /// use redc::exp::MontEngine;
    /// assert_eq!(MontEngine::portable(&[241]).unwrap().kernel_name(), "portable");
    /// ```
    pub fn portable(n: &[u64]) -> Result<MontEngine, Error> {
        let (mul, sqr) = portable_kernels(n.len());
        Self::with_kernels(n, mul, sqr)
    }

    /// An engine with the given kernels (both must compute `a b R^-1 mod n`,
    /// fully reduced, for R = 2^(64 s)).
    /// ```
    /// use redc::{exp::MontEngine, mont::Variant};
    /// let e = MontEngine::with_kernels(&[241], Variant::Cios.kernel(), Variant::Sqr.kernel()).unwrap();
    /// assert_eq!(e.pow_secret(&[2], &[10]).unwrap(), vec![1024 % 241]);
    /// ```
    pub fn with_kernels(n: &[u64], mul: Kernel, sqr: Kernel) -> Result<MontEngine, Error> {
        let ctx = MontContext::new(n)?;
        let mut one = vec![0u64; ctx.limbs()];
        let mut scratch = ctx.scratch();
        // R mod N = REDC(R^2 mod N, 1).
        let mut unit = vec![0u64; ctx.limbs()];
        unit[0] = 1;
        mul(
            &mut one,
            ctx.r_squared(),
            &unit,
            ctx.modulus(),
            ctx.n0(),
            &mut scratch,
        );
        scratch.zeroize();
        Ok(MontEngine {
            ctx,
            mul,
            sqr,
            redc: crate::mont::sos::redc,
            lazy: None,
            one,
            kernels: Kernels::PORTABLE,
            #[cfg(target_arch = "x86_64")]
            ifma: None,
            #[cfg(target_arch = "x86_64")]
            ifma_single: std::sync::OnceLock::from(None),
            #[cfg(target_arch = "x86_64")]
            avx2: None,
            dual: true,
        })
    }

    /// An engine on the scalar kernels: MULX/ADX where they may run, the
    /// portable ones elsewhere.
    #[cfg(target_arch = "x86_64")]
    fn scalar(n: &[u64]) -> Result<MontEngine, Error> {
        use crate::arch::x86_64 as x86;
        if !x86::adx_available() {
            return Self::portable(n);
        }
        let mut e = Self::with_kernels(n, x86::adx::mont_mul, adx_sqr_kernel)?;
        e.kernels = Kernels::ADX;
        e.redc = x86::adx::redc;
        if x86::adx::lazy_serves(e.limbs()) {
            e.lazy = Some((x86::adx::mont_mul_lazy, adx_sqr_lazy_kernel));
        }
        Ok(e)
    }

    /// Add the AVX2 exponentiation where the modulus fits it, naming the
    /// engine "avx2+adx" (or "avx2" over the portable kernels).
    #[cfg(target_arch = "x86_64")]
    fn with_avx2(&mut self) {
        self.avx2 = crate::arch::x86_64::avx2::Avx2Modulus::new(self.modulus()).map(std::sync::Arc::new);
        if self.avx2.is_some() {
            self.kernels.exp = Exponentiation::Avx2;
        }
    }

    /// Add the IFMA exponentiation where this CPU has IFMA and the modulus
    /// fits it: the dual kernel's radix-2^52 form up to 40 digits (2078
    /// bits), else the single-modulus kernel's tables up to 320 (16638 bits),
    /// built now, as the secret exponentiations of a CRT prime that wide run
    /// on them. False, and the engine unchanged, where neither fits.
    #[cfg(target_arch = "x86_64")]
    fn with_ifma(&mut self, exp: Exponentiation) -> bool {
        use crate::arch::x86_64 as x86;
        let ifma = x86::Ifma52Modulus::new(self.modulus());
        let single = match ifma {
            Some(_) => std::sync::OnceLock::new(),
            None => match x86::SingleKey::new(self.modulus()) {
                Some(k) => std::sync::OnceLock::from(Some(std::sync::Arc::new(k))),
                None => return false,
            },
        };
        self.ifma = ifma;
        self.ifma_single = single;
        self.kernels.exp = exp;
        true
    }

    /// The radix-2^52 IFMA form of the modulus, when the engine has it.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn ifma52(&self) -> Option<&crate::arch::x86_64::Ifma52Modulus> {
        self.ifma.as_ref()
    }

    /// An engine on the given backend's kernels, or `Ok(None)` when this
    /// process cannot run it ([`Backend::unavailable`]). For [`Backend::Ifma`]
    /// and [`Backend::IfmaSingle`], a modulus too large for the IFMA code
    /// gets the portable kernels, as [`MontEngine::new`] would give it the
    /// scalar ones. Errors as [`MontEngine::new`].
    #[doc(hidden)]
    pub fn with_backend(n: &[u64], backend: Backend) -> Result<Option<MontEngine>, Error> {
        if backend.unavailable().is_some() {
            return Ok(None);
        }
        #[cfg(target_arch = "x86_64")]
        {
            let mut engine = match backend {
                Backend::Portable => return Self::portable(n).map(Some),
                // Available, so the scalar kernels are the ADX ones.
                Backend::Adx => return Self::scalar(n).map(Some),
                Backend::Avx2 => {
                    let mut e = Self::scalar(n)?;
                    e.with_avx2();
                    return Ok(Some(e));
                }
                Backend::Ifma | Backend::IfmaSingle => Self::portable(n)?,
            };
            let exp = match backend {
                Backend::Ifma => Exponentiation::Ifma,
                _ => Exponentiation::IfmaSingle,
            };
            if engine.with_ifma(exp) {
                engine.dual = backend == Backend::Ifma;
            }
            Ok(Some(engine))
        }
        #[cfg(not(target_arch = "x86_64"))]
        Self::portable(n).map(Some)
    }

    /// Which kernels this engine uses: "portable", "adx", "avx2", "avx2+adx",
    /// "ifma" or "ifma+adx" (AVX2 or IFMA for secret exponentiations, ADX for
    /// the rest).
    /// ```
    /// use redc::exp::MontEngine;
    /// let name = MontEngine::new(&[241]).unwrap().kernel_name();
    /// assert!(["portable", "adx", "ifma", "ifma+adx"].contains(&name));
    /// ```
    pub fn kernel_name(&self) -> &'static str {
        self.kernels.name()
    }

    /// Which kernels this engine uses, as a value.
    /// ```
    /// use redc::exp::{Kernels, MontEngine};
    /// assert_eq!(MontEngine::portable(&[241]).unwrap().kernels(), Kernels::PORTABLE);
    /// ```
    pub fn kernels(&self) -> Kernels {
        self.kernels
    }

    /// The Montgomery context.
    /// ```
    /// use redc::exp::MontEngine;
    /// assert_eq!(MontEngine::new(&[241]).unwrap().context().bits(), 8);
    /// ```
    pub fn context(&self) -> &MontContext {
        &self.ctx
    }

    /// s, the modulus's limb count.
    /// ```
    /// use redc::exp::MontEngine;
    /// assert_eq!(MontEngine::new(&[1, 1]).unwrap().limbs(), 2);
    /// ```
    pub fn limbs(&self) -> usize {
        self.ctx.limbs()
    }

    /// N.
    /// ```
    /// use redc::exp::MontEngine;
    /// assert_eq!(MontEngine::new(&[241, 0]).unwrap().modulus(), &[241]); // high zeros dropped
    /// ```
    pub fn modulus(&self) -> &[u64] {
        self.ctx.modulus()
    }

    /// Fresh scratch space.
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap();
    /// let mut ws = engine.workspace();
    /// assert_eq!(engine.reduce(&[1000], &mut ws), vec![1000 % 241]);
    /// ```
    pub fn workspace(&self) -> Workspace {
        Workspace {
            scratch: vec![0; scratch_len(self.limbs())],
            tmp: vec![0; self.limbs()],
        }
    }

    /// 1 in Montgomery form (R mod N).
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap();
    /// let mut ws = engine.workspace();
    /// assert_eq!(engine.from_mont(&engine.one_mont(), &mut ws), vec![1]);
    /// ```
    pub fn one_mont(&self) -> Vec<u64> {
        self.one.clone()
    }

    /// `out = a b R^-1 mod N`; all s limbs, reduced.
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap();
    /// let mut ws = engine.workspace();
    /// let (a, b) = (engine.to_mont(&[17], &mut ws), engine.to_mont(&[30], &mut ws));
    /// let mut ab = vec![0];
    /// engine.mul_into(&mut ab, &a, &b, &mut ws);
    /// assert_eq!(engine.from_mont(&ab, &mut ws), vec![17 * 30 % 241]);
    /// ```
    pub fn mul_into(&self, out: &mut [u64], a: &[u64], b: &[u64], ws: &mut Workspace) {
        (self.mul)(out, a, b, self.ctx.modulus(), self.ctx.n0(), &mut ws.scratch);
    }

    /// `out = a^2 R^-1 mod N`; all s limbs, reduced (the squaring kernel).
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap();
    /// let mut ws = engine.workspace();
    /// let a = engine.to_mont(&[17], &mut ws);
    /// let mut aa = vec![0];
    /// engine.sqr_into(&mut aa, &a, &mut ws);
    /// assert_eq!(engine.from_mont(&aa, &mut ws), vec![17 * 17 % 241]);
    /// ```
    pub fn sqr_into(&self, out: &mut [u64], a: &[u64], ws: &mut Workspace) {
        (self.sqr)(out, a, a, self.ctx.modulus(), self.ctx.n0(), &mut ws.scratch);
    }

    /// `out = a b R^-1` mod N for the window exponentiation's loop: with
    /// lazy kernels, `a` and `b` may be any values below R and `out` is
    /// below R, congruent mod N; without them, as [`MontEngine::mul_into`].
    /// [`MontEngine::from_mont`] fully reduces such a value.
    pub(crate) fn mul_loop_into(&self, out: &mut [u64], a: &[u64], b: &[u64], ws: &mut Workspace) {
        let mul = self.lazy.map_or(self.mul, |(mul, _)| mul);
        mul(out, a, b, self.ctx.modulus(), self.ctx.n0(), &mut ws.scratch);
    }

    /// `out = a^2 R^-1` mod N for the loop, as [`MontEngine::mul_loop_into`].
    pub(crate) fn sqr_loop_into(&self, out: &mut [u64], a: &[u64], ws: &mut Workspace) {
        let sqr = self.lazy.map_or(self.sqr, |(_, sqr)| sqr);
        sqr(out, a, a, self.ctx.modulus(), self.ctx.n0(), &mut ws.scratch);
    }

    /// `acc = acc b R^-1 mod N`.
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap();
    /// let mut ws = engine.workspace();
    /// let mut acc = engine.to_mont(&[17], &mut ws);
    /// engine.mul_in_place(&mut acc, &engine.to_mont(&[30], &mut ws), &mut ws);
    /// assert_eq!(engine.from_mont(&acc, &mut ws), vec![17 * 30 % 241]);
    /// ```
    pub fn mul_in_place(&self, acc: &mut [u64], b: &[u64], ws: &mut Workspace) {
        (self.mul)(
            &mut ws.tmp,
            acc,
            b,
            self.ctx.modulus(),
            self.ctx.n0(),
            &mut ws.scratch,
        );
        acc.copy_from_slice(&ws.tmp);
    }

    /// `acc = acc^2 R^-1 mod N`.
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap();
    /// let mut ws = engine.workspace();
    /// let mut acc = engine.to_mont(&[17], &mut ws);
    /// engine.sqr_in_place(&mut acc, &mut ws);
    /// assert_eq!(engine.from_mont(&acc, &mut ws), vec![17 * 17 % 241]);
    /// ```
    pub fn sqr_in_place(&self, acc: &mut [u64], ws: &mut Workspace) {
        (self.sqr)(
            &mut ws.tmp,
            acc,
            acc,
            self.ctx.modulus(),
            self.ctx.n0(),
            &mut ws.scratch,
        );
        acc.copy_from_slice(&ws.tmp);
    }

    /// `x R mod N` for `x < N` of s limbs.
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap(); // R = 2^64
    /// let mut ws = engine.workspace();
    /// let want = ((5u128 << 64) % 241) as u64;
    /// assert_eq!(engine.to_mont(&[5], &mut ws), vec![want]);
    /// ```
    pub fn to_mont(&self, x: &[u64], ws: &mut Workspace) -> Vec<u64> {
        let mut out = vec![0u64; self.limbs()];
        self.mul_into(&mut out, x, self.ctx.r_squared(), ws);
        out
    }

    /// `y R^-1 mod N`, fully reduced, for `y` below N or a value of the
    /// window loop's kernels (below R, `MontEngine::mul_loop_into`).
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap();
    /// let mut ws = engine.workspace();
    /// let y = engine.to_mont(&[200], &mut ws);
    /// assert_eq!(engine.from_mont(&y, &mut ws), vec![200]);
    /// ```
    pub fn from_mont(&self, y: &[u64], ws: &mut Workspace) -> Vec<u64> {
        let mut unit = vec![0u64; self.limbs()];
        unit[0] = 1;
        let mut out = vec![0u64; self.limbs()];
        self.mul_into(&mut out, y, &unit, ws);
        out
    }

    /// `base^exp mod N` for a secret `exp` (and base): constant time
    /// ([`window::pow_secret`]). `base < N`, any limb count up to s.
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap();
    /// assert_eq!(engine.pow_secret(&[7], &[240]).unwrap(), vec![1]); // Fermat: 241 is prime
    /// assert!(engine.pow_secret(&[241], &[2]).is_err()); // base not reduced
    /// ```
    pub fn pow_secret(&self, base: &[u64], exp: &[u64]) -> Result<Vec<u64>, Error> {
        let base = zeroize::Zeroizing::new(self.ctx.reduced(base)?);
        Ok(self.pow_secret_reduced(&base, exp))
    }

    /// [`MontEngine::pow_secret`] for a base already reduced to s limbs:
    /// the IFMA exponentiation when the engine has it, else the window
    /// method on this engine's kernels.
    pub(crate) fn pow_secret_reduced(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        #[cfg(target_arch = "x86_64")]
        if let Some(m) = &self.ifma {
            return crate::arch::x86_64::pow_secret(m, base, exp);
        }
        // The single-modulus IFMA tables, where the modulus is too wide for
        // the dual kernel (`with_ifma` built them; only IFMA engines hold any).
        #[cfg(target_arch = "x86_64")]
        if let (Exponentiation::Ifma | Exponentiation::IfmaSingle, Some(Some(single))) =
            (self.kernels.exp, self.ifma_single.get())
        {
            return single.pow_secret(base, exp);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(m) = &self.avx2 {
            return m.pow_secret(base, exp);
        }
        window::pow_secret(self, base, exp)
    }

    /// `base^exp mod N` for a public `exp`: variable time in `exp` only
    /// ([`sliding::pow_public_vartime`]).
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap();
    /// assert_eq!(engine.pow_public_vartime(&[7], &[240]).unwrap(), vec![1]);
    /// ```
    pub fn pow_public_vartime(&self, base: &[u64], exp: &[u64]) -> Result<Vec<u64>, Error> {
        let base = zeroize::Zeroizing::new(self.ctx.reduced(base)?); // may be secret
        Ok(self.pow_public_reduced(&base, exp))
    }

    /// [`MontEngine::pow_public_vartime`] for a base already reduced to s
    /// limbs, which may be secret (variable time in `exp` only): the IFMA
    /// kernel when the engine has it, else the sliding window.
    pub(crate) fn pow_public_reduced(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        #[cfg(target_arch = "x86_64")]
        if let Some(single) = self
            .ifma_single
            .get_or_init(|| crate::arch::x86_64::SingleKey::new(self.modulus()).map(std::sync::Arc::new))
        {
            return single.pow_public(base, exp);
        }
        sliding::pow_public_vartime(self, base, exp)
    }

    /// `x mod N` for `x < N R` of at most 2s limbs: one REDC gives
    /// `x R^-1 mod N` (its precondition is exactly `x < N R`), one product by
    /// R^2 mod N gives `x`. Two Montgomery operations instead of
    /// [`MontEngine::reduce`]'s five. The bound is the caller's public
    /// knowledge (for CRT: any x < n = p q reduced mod p when q < R_p, that
    /// is, when q has no more limbs than p); it is not checked, as checking
    /// would compare secret values.
    ///
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap(); // R = 2^64
    /// let mut ws = engine.workspace();
    /// let x = [7, 200]; // 200 * 2^64 + 7 < 241 * 2^64
    /// let want = ((200u128 << 64) + 7) % 241;
    /// assert_eq!(engine.reduce_below_nr(&x, &mut ws), vec![want as u64]);
    /// ```
    pub fn reduce_below_nr(&self, x: &[u64], ws: &mut Workspace) -> Vec<u64> {
        let s = self.limbs();
        assert!(x.len() <= 2 * s, "x has more than 2s limbs");
        let mut t = vec![0u64; 2 * s + 1];
        t[..x.len()].copy_from_slice(x);
        let mut x_over_r = vec![0u64; s];
        (self.redc)(&mut x_over_r, &mut t, self.ctx.modulus(), self.ctx.n0());
        let mut out = vec![0u64; s];
        self.mul_into(&mut out, &x_over_r, self.ctx.r_squared(), ws);
        t.zeroize();
        x_over_r.zeroize();
        out
    }

    /// `x mod N` for `x` of any length, constant time in `x`'s value:
    /// chunks of s limbs from the top, `r = r R + c mod N`, with
    /// `r R = REDC(r, R^2)` and `c mod N = REDC(REDC(c), R^2)` (`c < R <= N R`).
    /// ```
    /// use redc::exp::MontEngine;
    /// let engine = MontEngine::new(&[241]).unwrap();
    /// let mut ws = engine.workspace();
    /// let x = [u64::MAX, u64::MAX, 3]; // any length
    /// let want = ((((3u128 << 64) + u64::MAX as u128) % 241 * ((1u128 << 64) % 241) + u64::MAX as u128) % 241) as u64;
    /// assert_eq!(engine.reduce(&x, &mut ws), vec![want]);
    /// ```
    pub fn reduce(&self, x: &[u64], ws: &mut Workspace) -> Vec<u64> {
        let s = self.limbs();
        let mut r = vec![0u64; s];
        let mut t = vec![0u64; 2 * s + 1];
        let mut c_red = vec![0u64; s];
        let mut shifted = vec![0u64; s];
        let chunks = x.len().div_ceil(s).max(1);
        for ci in (0..chunks).rev() {
            let lo = ci * s;
            let hi = (lo + s).min(x.len());
            // r = r R mod N (skipped for the top chunk, where r = 0: public position)
            if ci + 1 < chunks {
                self.mul_into(&mut shifted, &r, self.ctx.r_squared(), ws);
                r.copy_from_slice(&shifted);
            }
            t.fill(0);
            if lo < x.len() {
                t[..hi - lo].copy_from_slice(&x[lo..hi]);
            }
            (self.redc)(&mut c_red, &mut t, self.ctx.modulus(), self.ctx.n0());
            self.mul_into(&mut shifted, &c_red, self.ctx.r_squared(), ws);
            let carry = limb::add_assign(&mut r, &shifted);
            limb::reduce_once(&mut r, carry, self.ctx.modulus());
        }
        t.zeroize();
        c_red.zeroize();
        shifted.zeroize();
        r
    }
}

/// The two CRT halves of one private operation: `(bp^ep mod p, bq^eq mod q)`,
/// constant time in bases and exponents. The software form of 003 fig. 1's
/// two half-size multipliers; on the portable path they run one after the
/// other, and a CPU-specific kernel may run them interleaved.
///
/// Preconditions: `bp < p` in p's limb count, `bq < q` in q's.
///
/// For tests and benchmarks (the `probes` feature): an RSA key runs its
/// halves through a [`DualEngine`], which keeps the pair's tables.
/// ```
/// use redc::exp::{MontEngine, pow_secret_dual};
/// let (p, q) = (MontEngine::new(&[241]).unwrap(), MontEngine::new(&[251]).unwrap());
/// let (a, b) = pow_secret_dual(&p, &[7], &[240], &q, &[9], &[250]);
/// assert_eq!((a, b), (vec![1], vec![1])); // Fermat in both halves
/// ```
#[cfg(feature = "probes")]
pub fn pow_secret_dual(
    p: &MontEngine,
    bp: &[u64],
    ep: &[u64],
    q: &MontEngine,
    bq: &[u64],
    eq: &[u64],
) -> (Vec<u64>, Vec<u64>) {
    #[cfg(target_arch = "x86_64")]
    if let (Some(mp), Some(mq)) = (&p.ifma, &q.ifma)
        && p.dual
        && q.dual
        && let Some(both) = crate::arch::x86_64::pow_secret_dual(mp, bp, ep, mq, bq, eq)
    {
        return both;
    }
    (p.pow_secret_reduced(bp, ep), q.pow_secret_reduced(bq, eq))
}

/// `(bp^exp mod p, bq^exp mod q)` for a public `exp`, the two halves
/// together when both engines have the IFMA form of the same width (one dual
/// run), else one after the other. Bases reduced, in each engine's limb
/// count; constant time in them, variable time in `exp`. For tests and
/// benchmarks (the `probes` feature), as [`pow_secret_dual`].
///
/// ```
/// use redc::exp::{MontEngine, pow_public_dual};
/// let (p, q) = (MontEngine::new(&[1_000_003]).unwrap(), MontEngine::new(&[998_244_353]).unwrap());
/// let (a, b) = pow_public_dual(&p, &[5], &q, &[7], &[65537]);
/// assert_eq!(a, p.pow_public_vartime(&[5], &[65537]).unwrap());
/// assert_eq!(b, q.pow_public_vartime(&[7], &[65537]).unwrap());
/// ```
#[cfg(feature = "probes")]
pub fn pow_public_dual(
    p: &MontEngine,
    bp: &[u64],
    q: &MontEngine,
    bq: &[u64],
    exp: &[u64],
) -> (Vec<u64>, Vec<u64>) {
    #[cfg(target_arch = "x86_64")]
    if let (Some(mp), Some(mq)) = (&p.ifma, &q.ifma)
        && p.dual
        && q.dual
        && let Some(both) = crate::arch::x86_64::pow_public_dual(mp, bp, mq, bq, exp)
    {
        return both;
    }
    (p.pow_public_reduced(bp, exp), q.pow_public_reduced(bq, exp))
}

/// The smallest modulus, in limbs, whose portable products run the
/// Karatsuba variant (`mont::karatsuba`: three half-size products per
/// level over schoolbook leaves, then the SOS reduction) rather than FIPS
/// (with a fixed limb count where it has one). Measured with `redc bench
/// mont --variants portable-fixed,karatsuba,sqr,karatsuba-sqr`
/// (docs/PERFORMANCE.md, "Karatsuba on the scalar paths").
pub const PORTABLE_KARATSUBA_FROM: usize = 192;

/// The smallest modulus, in limbs, whose portable squares run the dedicated
/// squaring (`mont::sqr`) rather than the product; it measured faster than
/// both FIPS and the Karatsuba squaring at every size from 64 limbs to 256
/// (the same measurement).
pub const PORTABLE_SQR_FROM: usize = 64;

/// The portable path's product and square kernels for an `s`-limb modulus
/// (`s` public): FIPS with a fixed limb count, then Karatsuba's product
/// from [`PORTABLE_KARATSUBA_FROM`] limbs and the dedicated squaring from
/// [`PORTABLE_SQR_FROM`].
///
/// ```
/// use redc::mont::MontContext;
/// let ctx = MontContext::new(&[241]).unwrap();
/// let (_, sqr) = redc::exp::portable_kernels(1);
/// let a = ctx.to_mont(&[17]).unwrap();
/// let mut out = [0u64];
/// sqr(&mut out, &a, &a, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![17 * 17 % 241]);
/// ```
pub fn portable_kernels(s: usize) -> (Kernel, Kernel) {
    use crate::mont::{Variant, fips_fixed};
    let mul = if s >= PORTABLE_KARATSUBA_FROM {
        Variant::Karatsuba.kernel()
    } else {
        fips_fixed::mont_mul
    };
    let sqr = if s >= PORTABLE_SQR_FROM {
        Variant::Sqr.kernel()
    } else {
        fips_fixed::mont_mul
    };
    (mul, sqr)
}

/// The lazy ADX squaring in the [`Kernel`] form (`b` is `a` and is not read).
#[cfg(target_arch = "x86_64")]
fn adx_sqr_lazy_kernel(out: &mut [u64], a: &[u64], _b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    crate::arch::x86_64::adx::mont_sqr_lazy(out, a, n, n0, scratch)
}

/// The ADX squaring in the [`Kernel`] form (`b` is `a` and is not read).
#[cfg(target_arch = "x86_64")]
fn adx_sqr_kernel(out: &mut [u64], a: &[u64], _b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    crate::arch::x86_64::adx::mont_sqr(out, a, n, n0, scratch)
}
