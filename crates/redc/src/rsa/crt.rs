//! The CRT half of a private key as one value (RFC 8017 section 3.2, second
//! representation): the primes, their exponents dP and dQ, qInv, and the
//! per-key arithmetic built from them once, at load: p's and q's Montgomery
//! engines and the dual kernel's tables ([`DualEngine`]), and qInv already in
//! p's Montgomery encoding for Garner's step.
//!
//! Papers: Shand and Vuillemin, "Fast Implementations of RSA Cryptography", Algorithm 1 (CRT: two half-size
//! exponentiations, then recombination); McIvor, McLoone and McCanny, "Modified Montgomery Modular Multiplication and RSA Exponentiation Techniques", section
//! 3.2 (CRT decryption with dP, dQ).
//!
//! # The domain in the types
//!
//! Residues are [`Elem<P|Q, Plain|Mont>`](crate::elem): mixing p and q, or
//! passing a plain value where the Montgomery form is meant, does not
//! compile. Here only [`Crt::reduce_p`] / [`Crt::reduce_q`] make elements
//! from numbers mod n; the dual engine takes and returns [`Halves`], and
//! Garner's step takes exactly (`Elem<P, Plain>`, `Elem<Q, Plain>`) and the
//! key's `Elem<P, Mont>` qInv.
//!
//! # Garner's recombination
//!
//! ```text
//! m = m_q + q * ((m_p - m_q) qInv mod p)
//! ```
//!
//! equals 003's m = (m_p Cp + m_q Cq) mod n, Cp = q (q^-1 mod p),
//! Cq = p (p^-1 mod q): both are below n, both are = m_p (mod p) (as
//! q qInv = 1 mod p) and = m_q (mod q), and the value mod n with those
//! residues is unique. Garner's needs one half-size product and no mod-n
//! reduction.
//!
//! Secrets: everything in a [`Crt`] and every element. Only the primes' limb
//! counts (public in every key format's sizes) steer the work; reductions are
//! Montgomery-based, subtractions masked. Everything is wiped on drop.

use super::Error;
#[cfg(target_arch = "x86_64")]
use crate::arch::portable28::Modulus28;
#[cfg(target_arch = "x86_64")]
use crate::arch::portable52::Modulus52;
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::mb8::{Mb8Moduli, Mb8Pair};
use crate::ct::Mask;
use crate::elem::{Elem, Halves, Mont, P, Plain, Q};
use crate::exp::{DualEngine, Factor, MontEngine};
use crate::limb;
use crate::nat;
use zeroize::{Zeroize, Zeroizing};

/// Secret limbs, wiped on drop.
pub(crate) type Secret = Zeroizing<Vec<u64>>;

/// A blinding factor f = r^e as the private exponentiations take it, made
/// once with its pair ([`Crt::blind_factor`]): its residues, plain (the
/// eight-lane batch path takes those), and f prepared for the key's dual
/// engine ([`DualEngine::factor`]: on the dual kernel, f R^2 and f R^3 in
/// its radix, so a signature neither converts nor multiplies f).
pub(crate) struct BlindFactor {
    /// Read by the eight-lane batch path (x86-64) and the tests.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) halves: Halves,
    prepared: Factor,
}

/// The CRT parameters of a key with their per-key arithmetic; see the
/// module documentation.
#[derive(Clone)]
pub(crate) struct Crt {
    p: Secret,
    q: Secret,
    dp: Secret,
    dq: Secret,
    qinv: Secret,
    engines: DualEngine,
    /// qInv R_p mod p: one Montgomery product by it is a product by qInv.
    qinv_mont: Elem<P, Mont>,
    /// Whether q has no more bits than p, so that q < 2p and a value below
    /// q is reduced mod p by one masked subtraction (Garner's step). True
    /// for every key whose primes have equal lengths. Garner's step
    /// declassifies it: one bit per key about the primes' lengths, which
    /// key files give to the byte (docs/CONSTANT_TIME.md, site 10).
    q_below_2p: Mask,
    /// p and q in radix 2^52 at the eight-lane kernel's own digit count
    /// (an even one) where it is below the dual kernel's multiple of 4:
    /// RSA-3072's halves in 30 digits, not 32 ((30/32)^2 of the products).
    /// None where the dual kernel's moduli serve (see [`Crt::mb8_moduli`]).
    #[cfg(target_arch = "x86_64")]
    mb8_own: Option<std::sync::Arc<(Modulus52, Modulus52)>>,
    /// p and q as the eight-lane kernel's lanes ([`Mb8Pair`]), built at
    /// this key's first batch run whose operations are all its own.
    #[cfg(target_arch = "x86_64")]
    mb8_pair: std::sync::OnceLock<Option<std::sync::Arc<Mb8Pair>>>,
    /// p and q in radix 2^28 for the lane kernels, built at this key's
    /// first batch run on them.
    #[cfg(target_arch = "x86_64")]
    lanes28_pair: std::sync::OnceLock<Option<std::sync::Arc<(Modulus28, Modulus28)>>>,
}

impl Crt {
    /// The CRT value from checked parts (the caller checked p q = n, the
    /// exponents and qInv): builds the engines and tables once. Errors only
    /// for an even or too small prime.
    pub(crate) fn new(p: Secret, q: Secret, dp: Secret, dq: Secret, qinv: Secret) -> Result<Crt, Error> {
        let engine_p = MontEngine::new(&p).map_err(|_| Error::InvalidKey("p must be odd"))?;
        let engine_q = MontEngine::new(&q).map_err(|_| Error::InvalidKey("q must be odd"))?;
        let mut ws = engine_p.workspace();
        let mut qinv_red = engine_p.reduce(&qinv, &mut ws);
        let qinv_mont = Elem::assume_reduced(engine_p.to_mont(&qinv_red, &mut ws));
        qinv_red.zeroize();
        #[cfg(target_arch = "x86_64")]
        let mb8_own = mb8_own_moduli(&engine_p, &p, &q);
        let q_below_2p = Mask::from_bit(u64::from(
            q.len() <= p.len() && limb::bit_len_vartime(&q) <= limb::bit_len_vartime(&p),
        ));
        Ok(Crt {
            p,
            q,
            dp,
            dq,
            qinv,
            engines: DualEngine::new(engine_p, engine_q),
            qinv_mont,
            q_below_2p,
            #[cfg(target_arch = "x86_64")]
            mb8_own,
            #[cfg(target_arch = "x86_64")]
            mb8_pair: std::sync::OnceLock::new(),
            #[cfg(target_arch = "x86_64")]
            lanes28_pair: std::sync::OnceLock::new(),
        })
    }

    /// The same CRT value with p's and q's engines on a forced backend (for
    /// tests that reach every backend); None when this process cannot run it.
    pub(crate) fn with_backend(&self, backend: crate::exp::Backend) -> Option<Crt> {
        let ep = MontEngine::with_backend(&self.p, backend).ok()??;
        let eq = MontEngine::with_backend(&self.q, backend).ok()??;
        // qInv R_p mod p depends on p's limb count only, not on the kernels.
        Some(Crt {
            engines: DualEngine::new(ep, eq),
            ..self.clone()
        })
    }

    /// The kernels of p's and q's engines.
    pub(crate) fn kernel_names(&self) -> (&'static str, &'static str) {
        (self.engines.p().kernel_name(), self.engines.q().kernel_name())
    }

    /// p, q, dP, dQ and qInv as limbs (for the key's accessors and encoders).
    pub(crate) fn p(&self) -> &[u64] {
        &self.p
    }
    pub(crate) fn q(&self) -> &[u64] {
        &self.q
    }
    pub(crate) fn dp(&self) -> &[u64] {
        &self.dp
    }
    pub(crate) fn dq(&self) -> &[u64] {
        &self.dq
    }
    pub(crate) fn qinv(&self) -> &[u64] {
        &self.qinv
    }

    /// `x mod p` for `x < n` (or any x below p R_p): the two-operation
    /// reduction when q has no more limbs than p (then n = p q < p R_p),
    /// else the general one. Only limb counts (public) choose.
    pub(crate) fn reduce_p(&self, x: &[u64]) -> Elem<P, Plain> {
        Elem::assume_reduced(reduce_below_n(self.engines.p(), self.q.len(), x))
    }

    /// `x mod p` for `x < 2p` with at most p's limb count: one masked
    /// subtraction ([`limb::reduce_once`]).
    fn below_2p_mod_p(&self, x: &[u64]) -> Elem<P, Plain> {
        let mut v = vec![0u64; self.p.len()];
        v[..x.len()].copy_from_slice(x);
        limb::reduce_once(&mut v, 0, &self.p);
        Elem::assume_reduced(v)
    }

    /// `x mod q` for `x < n`, as [`Crt::reduce_p`] with the roles swapped.
    pub(crate) fn reduce_q(&self, x: &[u64]) -> Elem<Q, Plain> {
        Elem::assume_reduced(reduce_below_n(self.engines.q(), self.p.len(), x))
    }

    /// `(x_p^e mod p, x_q^e mod q)` for residues `(x_p, x_q)` (possibly
    /// secret) and a public exponent `e`: one dual run, constant time in x.
    pub(crate) fn pow_public_halves(&self, x: &Halves, e: &[u64]) -> Halves {
        self.engines.pow_public(x, e)
    }

    /// The blinding factor with residues `f` (below p and q), prepared for
    /// this key's dual engine once (see [`BlindFactor`]).
    pub(crate) fn blind_factor(&self, f: Halves) -> BlindFactor {
        let prepared = self.engines.factor(&f);
        BlindFactor { halves: f, prepared }
    }

    /// `((x f_p)^dP mod p, (x f_q)^dQ mod q)` for `x < n` and a blinding
    /// factor f from [`Crt::blind_factor`] on this key: the private
    /// exponentiations of the blinded input x f mod n, with the blinding
    /// inside the kernel's entry into the Montgomery domain
    /// ([`DualEngine::pow_secret_blinded`]). On the IFMA kernel x itself
    /// enters too, unreduced (x = lo + hi R, two entry products:
    /// [`DualEngine::pow_secret_blinded_wide`]); elsewhere it is reduced
    /// into p and q first.
    pub(crate) fn pow_private_blinded(&self, x: &[u64], f: &BlindFactor) -> Halves {
        // The IFMA kernel takes x whole and reduces it in its entry products.
        if let Some(m) = self
            .engines
            .pow_secret_blinded_wide(x, &f.prepared, &self.dp, &self.dq)
        {
            return m;
        }
        let xs = (self.reduce_p(x), self.reduce_q(x));
        self.engines
            .pow_secret_blinded(&xs, &f.prepared, &self.dp, &self.dq)
    }

    /// `(x^ep mod p, x^eq mod q)` for `x < n` and secret exponents
    /// (constant time; their lengths are public).
    pub(crate) fn pow_secret(&self, x: &[u64], ep: &[u64], eq: &[u64]) -> (Elem<P, Plain>, Elem<Q, Plain>) {
        let xs = (self.reduce_p(x), self.reduce_q(x));
        self.engines.pow_secret(&xs, ep, eq)
    }

    /// Up to four private exponentiations at once on the eight-lane kernel
    /// (lanes 2k and 2k + 1: p and q of operation k, whose key may differ
    /// from the others'): `((x_k f_k)^dP mod p_k, (x_k f_k)^dQ mod q_k)` for
    /// each `(crt_k, x_k, f_k)`, `x_k < n_k`, f_k a blinding factor's residues
    /// (entering inside the kernel, as in [`Crt::pow_private_blinded`]).
    /// None where that kernel does not run: no IFMA, primes of different
    /// digit counts, or more than four operations.
    /// Unused lanes repeat operation 0 and are discarded. Constant time in
    /// every lane's base, exponent and prime; the exponents' limb counts
    /// (public) are zero-extended to the longest.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn pow_private_mb8(ops: &[(&Crt, &[u64], &BlindFactor)]) -> Option<Vec<Halves>> {
        let width = ops.iter().map(|(c, _, _)| c.dp.len().max(c.dq.len())).max()?;
        let padded = |e: &[u64]| {
            let mut v = Zeroizing::new(vec![0u64; width]);
            v[..e.len()].copy_from_slice(e);
            v
        };
        use crate::arch::x86_64::ifma::mb8::LANES;
        let mut exps: Vec<Secret> = Vec::with_capacity(LANES);
        // The lanes of `halves_mb8`: p and q of operation k, unused lanes
        // repeating operation 0.
        let mut factors: Vec<&[u64]> = Vec::with_capacity(LANES);
        for k in 0..LANES / 2 {
            let (crt, _, f) = ops[if k < ops.len() { k } else { 0 }];
            exps.push(padded(&crt.dp));
            exps.push(padded(&crt.dq));
            factors.push(f.halves.0.limbs());
            factors.push(f.halves.1.limbs());
        }
        let reduced: Vec<Halves> = ops
            .iter()
            .map(|(c, x, _)| (c.reduce_p(x), c.reduce_q(x)))
            .collect();
        let lanes: Vec<(&Crt, &Halves)> = ops.iter().zip(&reduced).map(|((c, _, _), h)| (*c, h)).collect();
        Self::halves_mb8(&lanes, |moduli, bases| {
            crate::arch::x86_64::pow_mb8_blinded(
                moduli,
                bases,
                core::array::from_fn(|l| factors[l]),
                core::array::from_fn(|l| &exps[l][..]),
            )
        })
    }

    /// [`Crt::pow_public_halves`] for up to four residue pairs at once on the
    /// eight-lane kernel, one public exponent for every lane (blinding
    /// factors r^e). None where that kernel does not run (as
    /// [`Crt::pow_private_mb8`]). Constant time in every base and prime.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn pow_public_halves_mb8(ops: &[(&Crt, &Halves)], e: &[u64]) -> Option<Vec<Halves>> {
        Self::halves_mb8(ops, |moduli, bases| {
            crate::arch::x86_64::pow_public_mb8(moduli, bases, e)
        })
    }

    /// The lanes both eight-lane powers share: p and q of operation k in
    /// lanes 2k and 2k + 1 with its residues (below p and q), unused lanes
    /// repeating operation 0; `run` gets the eight moduli and bases.
    #[cfg(target_arch = "x86_64")]
    fn halves_mb8(
        ops: &[(&Crt, &Halves)],
        run: impl FnOnce(Mb8Moduli<'_>, [&[u64]; crate::arch::x86_64::ifma::mb8::LANES]) -> Option<Vec<Vec<u64>>>,
    ) -> Option<Vec<Halves>> {
        use crate::arch::x86_64::ifma::mb8::LANES;
        if ops.is_empty() || 2 * ops.len() > LANES {
            return None;
        }
        // Which keys the operations use is public.
        let one_key = ops.iter().all(|(c, _)| core::ptr::eq(*c, ops[0].0));
        let mut moduli: Vec<&Modulus52> = Vec::with_capacity(LANES);
        let mut bases: Vec<&[u64]> = Vec::with_capacity(LANES);
        for k in 0..LANES / 2 {
            let (crt, (xp, xq)) = ops[if k < ops.len() { k } else { 0 }];
            let (mp, mq) = crt.mb8_moduli()?;
            moduli.push(mp);
            moduli.push(mq);
            bases.push(xp.limbs());
            bases.push(xq.limbs());
        }
        let given = match one_key {
            true => Mb8Moduli::Pair(ops[0].0.mb8_pair()?),
            false => Mb8Moduli::Lanes(core::array::from_fn(|l| moduli[l])),
        };
        let out = run(given, core::array::from_fn(|l| bases[l]))?;
        Some(lane_pairs(out, ops.len()))
    }

    /// p and q as the eight-lane kernel's lanes, built at the first call
    /// (None where that kernel does not run for this key).
    #[cfg(target_arch = "x86_64")]
    fn mb8_pair(&self) -> Option<&Mb8Pair> {
        self.mb8_pair
            .get_or_init(|| {
                let (p, q) = self.mb8_moduli()?;
                Mb8Pair::new(p, q).map(std::sync::Arc::new)
            })
            .as_deref()
    }

    /// The digit count of the eight-lane kernel for this key's primes
    /// (None when they differ or the kernel does not run).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn mb8_digits(&self) -> Option<usize> {
        let (p, q) = self.mb8_moduli()?;
        (p.d == q.d && crate::arch::x86_64::mb8_runs(p.d)).then_some(p.d)
    }

    /// p and q as the eight-lane kernel takes them: its own digit count
    /// where one was built, else the dual kernel's moduli (None without
    /// them: no IFMA, or a forced backend without it).
    #[cfg(target_arch = "x86_64")]
    fn mb8_moduli(&self) -> Option<(&Modulus52, &Modulus52)> {
        let (p, q) = (self.engines.p().ifma52()?, self.engines.q().ifma52()?);
        match &self.mb8_own {
            Some(own) => Some((&own.0, &own.1)),
            None => Some((p.radix52(), q.radix52())),
        }
    }

    /// Private exponentiations on the radix-2^28 lane kernels, `lanes` (4 or
    /// 8, [`crate::arch::x86_64::lanes28_available`]) at once: lanes 2k and
    /// 2k + 1 hold p and q of operation k, whose key may differ from the
    /// others'; `((x_k f_k)^dP mod p_k, (x_k f_k)^dQ mod q_k)` for each
    /// `(crt_k, x_k, f_k)`, as [`Crt::pow_private_mb8`] does on IFMA. None
    /// where those kernels do not run (see [`Crt::lanes28_digits`]), for
    /// operations of different digit counts or for more than `lanes / 2`
    /// operations. Unused lanes repeat operation 0 and are discarded.
    /// Constant time in every lane's base, exponent and prime; the
    /// exponents' limb counts (public) are zero-extended to the longest.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn pow_private_lanes28(
        ops: &[(&Crt, &[u64], &BlindFactor)],
        lanes: usize,
    ) -> Option<Vec<Halves>> {
        if ops.is_empty() || 2 * ops.len() > lanes {
            return None;
        }
        let d = ops[0].0.lanes28_digits()?;
        let width = ops.iter().map(|(c, _, _)| c.dp.len().max(c.dq.len())).max()?;
        let padded = |e: &[u64]| {
            let mut v = Zeroizing::new(vec![0u64; width]);
            v[..e.len()].copy_from_slice(e);
            v
        };
        let reduced: Vec<Halves> = ops
            .iter()
            .map(|(c, x, _)| (c.reduce_p(x), c.reduce_q(x)))
            .collect();
        let mut moduli: Vec<&Modulus28> = Vec::with_capacity(lanes);
        let mut bases: Vec<&[u64]> = Vec::with_capacity(lanes);
        let mut factors: Vec<&[u64]> = Vec::with_capacity(lanes);
        let mut exps: Vec<Secret> = Vec::with_capacity(lanes);
        for k in 0..lanes / 2 {
            let k = if k < ops.len() { k } else { 0 };
            let (crt, _, f) = ops[k];
            if crt.lanes28_digits()? != d {
                return None;
            }
            let (mp, mq) = crt.lanes28_pair()?;
            moduli.extend([mp, mq]);
            bases.extend([reduced[k].0.limbs(), reduced[k].1.limbs()]);
            factors.extend([f.halves.0.limbs(), f.halves.1.limbs()]);
            exps.extend([padded(&crt.dp), padded(&crt.dq)]);
        }
        let exps: Vec<&[u64]> = exps.iter().map(|e| &e[..]).collect();
        let out = crate::arch::x86_64::pow_lanes28(&moduli, &bases, Some(&factors), &exps)?;
        Some(lane_pairs(out, ops.len()))
    }

    /// The lane kernels' digit count for this key's primes, where batch
    /// signing takes them: a lane count is available
    /// ([`crate::arch::x86_64::lanes28_available`]), p and q have the same
    /// radix-2^28 digit count and it is at least [`lanes28_min_digits`] for
    /// that lane count. Only the primes' sizes (public) decide.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn lanes28_digits(&self) -> Option<usize> {
        use crate::arch::portable28::digits_for_bits;
        let lanes = crate::arch::x86_64::lanes28_available()?;
        let (dp, dq) = (
            digits_for_bits(limb::bit_len_vartime(&self.p)),
            digits_for_bits(limb::bit_len_vartime(&self.q)),
        );
        let runs = dp == dq && dp >= lanes28_min_digits(lanes) && crate::arch::x86_64::lanes28_runs(dp);
        runs.then_some(dp)
    }

    /// p and q in radix 2^28, built at the first call.
    #[cfg(target_arch = "x86_64")]
    fn lanes28_pair(&self) -> Option<(&Modulus28, &Modulus28)> {
        self.lanes28_pair
            .get_or_init(|| {
                let pair =
                    crate::scrub::scrubbed_setup(|| (Modulus28::new(&self.p), Modulus28::new(&self.q)));
                match pair {
                    (Some(p), Some(q)) => Some(std::sync::Arc::new((p, q))),
                    _ => None,
                }
            })
            .as_deref()
            .map(|(p, q)| (p, q))
    }

    /// Garner's recombination: the value below n that is `mp` mod p and `mq`
    /// mod q. Returns `s_n` limbs (n's limb count).
    pub(crate) fn garner(&self, mp: &Elem<P, Plain>, mq: &Elem<Q, Plain>, s_n: usize) -> Secret {
        let ep = self.engines.p();
        let mut ws = ep.workspace();
        // h = (m_p - m_q mod p) qInv mod p. m_q < q < R_p when q has no more
        // limbs than p: reduce_p's condition; m_q < q < 2p when q has no more
        // bits than p: then one masked subtraction does.
        // Declassified: whether q has no more bits than p (a key's constant).
        let mq_p = if self.q_below_2p.leak_bool() {
            self.below_2p_mod_p(mq.limbs())
        } else {
            self.reduce_p(mq.limbs())
        };
        let mut diff = Zeroizing::new(vec![0u64; ep.limbs()]);
        let borrow = limb::sub(&mut diff, mp.limbs(), mq_p.limbs());
        let mut fix = Zeroizing::new(vec![0u64; ep.limbs()]);
        limb::add(&mut fix, &diff, ep.modulus());
        limb::cond_assign(&mut diff, Mask::from_bit(borrow), &fix);
        // Plain times Montgomery form, one REDC: diff qInv R R^-1 = diff qInv.
        let mut h = Zeroizing::new(vec![0u64; ep.limbs()]);
        ep.mul_into(&mut h, &diff, self.qinv_mont.limbs(), &mut ws);
        // m = m_q + q h < q (h + 1) <= q p = n.
        let mut m = Zeroizing::new(nat::mul(&self.q, &h));
        let mut mq_ext = Zeroizing::new(vec![0u64; m.len()]);
        mq_ext[..mq.limbs().len()].copy_from_slice(mq.limbs());
        limb::add_assign(&mut m, &mq_ext);
        // The limbs above s_n are zero (m < n); lengths are public.
        let mut out = Zeroizing::new(vec![0u64; s_n]);
        let keep = s_n.min(m.len());
        out[..keep].copy_from_slice(&m[..keep]);
        out
    }
}

/// The first `ops` pairs of lanes (p, then q, of each operation, fully
/// reduced) as residue pairs; the lanes after them (unused) are dropped.
#[cfg(target_arch = "x86_64")]
fn lane_pairs(out: Vec<Vec<u64>>, ops: usize) -> Vec<Halves> {
    let mut lanes = out.into_iter();
    (0..ops)
        .map(|_| {
            let mp = lanes.next().expect("a lane per prime");
            let mq = lanes.next().expect("a lane per prime");
            (Elem::assume_reduced(mp), Elem::assume_reduced(mq))
        })
        .collect()
}

/// The fewest radix-2^28 digits per prime at which batch signing takes the
/// lane kernels rather than one operation at a time, by lane count:
/// measured (docs/PERFORMANCE.md, "Batch signing without IFMA: the
/// radix-2^28 lane kernels"). Eight lanes beat the one-modulus AVX2 kernel
/// at RSA-2048's 37 digits; four are level there and take over from 38.
#[cfg(target_arch = "x86_64")]
pub(crate) fn lanes28_min_digits(lanes: usize) -> usize {
    if lanes >= 8 {
        crate::arch::x86_64::lanes28::MIN_D
    } else {
        38
    }
}

/// p and q at the least even digit count with 4m < R, when the eight-lane
/// kernel runs it and it is below the dual kernel's (a multiple of 4); else
/// None. Only sizes (public) choose.
#[cfg(target_arch = "x86_64")]
fn mb8_own_moduli(
    engine_p: &MontEngine,
    p: &[u64],
    q: &[u64],
) -> Option<std::sync::Arc<(Modulus52, Modulus52)>> {
    let dual_d = engine_p.ifma52()?.digits();
    let (mp, mq) = (
        Modulus52::with_digit_multiple(p, 2)?,
        Modulus52::with_digit_multiple(q, 2)?,
    );
    let useful = mp.d == mq.d && mp.d < dual_d && crate::arch::x86_64::mb8_runs(mp.d);
    useful.then(|| std::sync::Arc::new((mp, mq)))
}

/// `x mod m` for `x < n = m * other`: two Montgomery operations when the
/// other prime has no more limbs than m (then x < m R_m), else the general
/// reduction. Only limb counts (public) choose.
fn reduce_below_n(engine: &MontEngine, other_limbs: usize, x: &[u64]) -> Vec<u64> {
    let mut ws = engine.workspace();
    if other_limbs <= engine.limbs() && x.len() <= 2 * engine.limbs() {
        engine.reduce_below_nr(x, &mut ws)
    } else {
        engine.reduce(x, &mut ws)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsa::{big, fermat::inverse_mod_prime, keygen, os_rng};
    use num_bigint::BigUint;

    /// Garner's step against the residues it was given, with q > p of equal
    /// length (so m_q mod p is the one masked subtraction) and p > q, at the
    /// edges where m_q - m_p exceeds p: m_q = q - 1 with m_p = 0, and the
    /// other corners. Without the reduction of m_q the first case wraps.
    #[test]
    fn garner_recombines_every_corner_in_both_prime_orders() {
        let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
        let (a, b) = (key.crt().p().to_vec(), key.crt().q().to_vec());
        for (p, q) in [(a.clone(), b.clone()), (b, a)] {
            let qinv = inverse_mod_prime(&p, &q).unwrap();
            let some = || Zeroizing::new(vec![1u64]);
            let crt = Crt::new(
                Zeroizing::new(p.clone()),
                Zeroizing::new(q.clone()),
                some(),
                some(),
                qinv,
            )
            .unwrap();
            assert!(crt.q_below_2p.leak_bool(), "equal-length primes");
            let (bp, bq) = (big(&p), big(&q));
            let one = BigUint::from(1u8);
            for (mp, mq) in [
                (BigUint::ZERO, &bq - &one),
                (&bp - &one, BigUint::ZERO),
                (&bp - &one, &bq - &one),
                (BigUint::ZERO, BigUint::ZERO),
            ] {
                let limbs = |x: &BigUint, len: usize| {
                    let mut v = x.to_u64_digits();
                    v.resize(len, 0);
                    v
                };
                let m = crt.garner(
                    &Elem::assume_reduced(limbs(&mp, p.len())),
                    &Elem::assume_reduced(limbs(&mq, q.len())),
                    p.len() + q.len(),
                );
                let m = big(&m);
                assert!(m < &bp * &bq);
                assert_eq!(&m % &bp, mp, "m mod p");
                assert_eq!(&m % &bq, mq, "m mod q");
            }
        }
    }
}
