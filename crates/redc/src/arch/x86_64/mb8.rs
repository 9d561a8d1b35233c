//! The eight-lane driver ([`super::ifma::mb8`]): eight exponentiations at
//! once, one per lane (batch signing), and Montgomery's simultaneous
//! inversion in eight chains. Constant time in bases, exponents and moduli.
//!
//! A run takes its moduli as eight lanes ([`Mb8Moduli::Lanes`]: any mix of
//! keys, interleaved for that run) or as one CRT pair's lanes built once
//! per key ([`Mb8Pair`], the batch of one key's operations: p and q in lanes
//! 2k and 2k + 1), as the dual kernel's `DualKey` keeps its pair's.

use zeroize::Zeroize;

use crate::arch::portable52::{self, Modulus52};

use super::*;

/// Whether the eight-lane kernel has an instance for `d` digits (see
/// `with_mb8_digits`).
pub fn mb8_runs(d: usize) -> bool {
    (1..=ifma::mb8::MAX_D).contains(&d) && (d.is_multiple_of(4) || d == 30)
}

/// One CRT pair (p, q) as the eight-lane kernel's moduli, p in the even
/// lanes and q in the odd ones: the interleaved digits, constants and R^2
/// that every run would otherwise rebuild from the two moduli. Built once
/// per key (its first batch run) and read by each run whose four operations
/// are that key's. Secret (the primes): wiped on drop, `Debug` shows
/// nothing of it; only the primes' digit count (public) sets its shape.
pub struct Mb8Pair {
    /// `ifma::mb8::Mb8Mod<D>` for `D = p.d`.
    tables: Box<dyn core::any::Any + Send + Sync>,
    p: Modulus52,
    q: Modulus52,
}

impl core::fmt::Debug for Mb8Pair {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mb8Pair").finish_non_exhaustive()
    }
}

impl Mb8Pair {
    /// The pair's lanes, or None when IFMA is unavailable, p and q have
    /// different digit counts or the kernel has no instance for theirs.
    /// The lanes are built on the stack and moved to the heap; that stack
    /// is wiped before this returns ([`crate::scrub`]).
    pub fn new(p: &Modulus52, q: &Modulus52) -> Option<Mb8Pair> {
        cpu::ifma()?;
        let d = p.d;
        if q.d != d || !mb8_runs(d) {
            return None;
        }
        let tables = crate::scrub::scrubbed_setup(|| {
            with_mb8_digits!(d, D => {
                Box::new(ifma::mb8::Mb8Mod::<D>::new(pair_lanes(p, q))) as Box<dyn core::any::Any + Send + Sync>
            })
        });
        Some(Mb8Pair {
            tables,
            p: p.clone(),
            q: q.clone(),
        })
    }

    /// The eight lanes' moduli, as its tables hold them.
    fn lanes(&self) -> [&Modulus52; ifma::mb8::LANES] {
        pair_lanes(&self.p, &self.q)
    }
}

/// A pair's lanes: p in the even ones, q in the odd ones.
fn pair_lanes<'a>(p: &'a Modulus52, q: &'a Modulus52) -> [&'a Modulus52; ifma::mb8::LANES] {
    core::array::from_fn(|l| if l % 2 == 0 { p } else { q })
}

/// The moduli of an eight-lane run.
#[derive(Clone, Copy, Debug)]
pub enum Mb8Moduli<'a> {
    /// One per lane, of any keys: interleaved for this run.
    Lanes([&'a Modulus52; ifma::mb8::LANES]),
    /// One key's p and q in every pair of lanes, interleaved at its
    /// first run.
    Pair(&'a Mb8Pair),
}

impl<'a> Mb8Moduli<'a> {
    /// Lane by lane.
    fn lanes(self) -> [&'a Modulus52; ifma::mb8::LANES] {
        match self {
            Mb8Moduli::Lanes(m) => m,
            Mb8Moduli::Pair(pair) => pair.lanes(),
        }
    }
}

impl<'a> From<[&'a Modulus52; ifma::mb8::LANES]> for Mb8Moduli<'a> {
    fn from(m: [&'a Modulus52; ifma::mb8::LANES]) -> Self {
        Mb8Moduli::Lanes(m)
    }
}

/// Eight exponentiations at once on the eight-lane kernel ([`ifma::mb8`]):
/// `bases[l]^exps[l] mod moduli[l]`, each fully reduced in its modulus's
/// trimmed limb count. All moduli need the same digit count (at most 40, a
/// multiple of 4 or 30: see `with_mb8_digits`) and
/// all exponents the same limb count (public); bases below their moduli.
/// Constant time in bases, exponents and moduli. None when IFMA is
/// unavailable or the sizes differ.
pub fn pow_mb8<'m>(
    moduli: impl Into<Mb8Moduli<'m>>,
    bases: [&[u64]; ifma::mb8::LANES],
    exps: [&[u64]; ifma::mb8::LANES],
) -> Option<Vec<Vec<u64>>> {
    if exps.iter().any(|e| e.len() != exps[0].len()) {
        return None;
    }
    run_mb8(moduli.into(), bases, None, Mb8Exponent::Secret(&exps))
}

/// [`pow_mb8`] of the bases times per-lane factors (blinding factors, each
/// below its modulus): `(bases[l] factors[l])^exps[l] mod moduli[l]`, the
/// factor entering inside the kernel (`ifma::mb8::pow`).
pub fn pow_mb8_blinded<'m>(
    moduli: impl Into<Mb8Moduli<'m>>,
    bases: [&[u64]; ifma::mb8::LANES],
    factors: [&[u64]; ifma::mb8::LANES],
    exps: [&[u64]; ifma::mb8::LANES],
) -> Option<Vec<Vec<u64>>> {
    if exps.iter().any(|e| e.len() != exps[0].len()) {
        return None;
    }
    run_mb8(moduli.into(), bases, Some(factors), Mb8Exponent::Secret(&exps))
}

/// [`pow_mb8`] with one PUBLIC exponent for every lane (its bits choose the
/// steps, `ifma::mb8::pow_public`): `bases[l]^e mod moduli[l]`. Constant
/// time in the bases and moduli.
pub fn pow_public_mb8<'m>(
    moduli: impl Into<Mb8Moduli<'m>>,
    bases: [&[u64]; ifma::mb8::LANES],
    e: &[u64],
) -> Option<Vec<Vec<u64>>> {
    run_mb8(moduli.into(), bases, None, Mb8Exponent::Public(e))
}

/// The exponent(s) of an eight-lane run.
enum Mb8Exponent<'a> {
    /// One per lane, secret bits (fixed windows).
    Secret(&'a [&'a [u64]; ifma::mb8::LANES]),
    /// One for all lanes, public bits (binary, by its bits).
    Public(&'a [u64]),
}

/// Eight values in u64 limbs (each below its lane's modulus, D digits'
/// worth) as one eight-lane operand; the digit copies are wiped.
fn mb8_in<const D: usize>(vals: [&[u64]; ifma::mb8::LANES]) -> ifma::mb8::Mb8<D> {
    let mut digits = vals.map(|v| portable52::to_digits(v, D));
    let x = ifma::mb8::Mb8::<D>::from_lanes(&digits.each_ref().map(|v| &v[..]));
    for v in digits.iter_mut() {
        v.zeroize();
    }
    x
}

/// Lane `l` of `y` (below 2m) fully reduced mod `m`, in m's limb count; the
/// digit copy is wiped.
fn mb8_out<const D: usize>(y: &ifma::mb8::Mb8<D>, l: usize, m: &Modulus52) -> Vec<u64> {
    let mut v = y.lane(l);
    portable52::final_reduce(m, &mut v);
    let r = portable52::from_digits(&v, m.limbs.len());
    v.zeroize();
    r
}

/// The set-up and tear-down both eight-lane powers share: digits in, the
/// kernel, each lane fully reduced and back in u64 limbs, every copy wiped.
fn run_mb8(
    given: Mb8Moduli<'_>,
    bases: [&[u64]; ifma::mb8::LANES],
    factors: Option<[&[u64]; ifma::mb8::LANES]>,
    exp: Mb8Exponent<'_>,
) -> Option<Vec<Vec<u64>>> {
    let moduli = given.lanes();
    let d = moduli[0].d;
    let ifma = cpu::ifma()?;
    if moduli.iter().any(|m| m.d != d) || !mb8_runs(d) {
        return None;
    }
    for (m, b) in moduli.iter().zip(bases) {
        check_base_len(m, b);
    }
    for (m, f) in moduli.iter().zip(factors.iter().flatten()) {
        check_base_len(m, f);
    }
    Some(with_mb8_digits!(d, D => {
        let built;
        let mm = match given {
            Mb8Moduli::Pair(pair) => pair
                .tables
                .downcast_ref::<ifma::mb8::Mb8Mod<D>>()
                .expect("a pair's lanes at its digit count"),
            Mb8Moduli::Lanes(_) => {
                built = ifma::mb8::Mb8Mod::<D>::new(moduli);
                &built
            }
        };
        let mut base = mb8_in::<D>(bases);
        let mut factor = factors.map(mb8_in::<D>);
        let mut y = match exp {
            Mb8Exponent::Secret(exps) => ifma.mb8_pow::<D>(mm, &base, factor.as_ref(), exps),
            Mb8Exponent::Public(e) => ifma.mb8_pow_public::<D>(mm, &base, e),
        };
        let out = (0..ifma::mb8::LANES).map(|l| mb8_out(&y, l, moduli[l])).collect();
        base.zeroize();
        factor.zeroize();
        y.zeroize();
        out
    }))
}

/// Montgomery's simultaneous inversion in eight chains at once, every lane
/// on the one modulus `m` (n of an RSA key: the blinding factors' inverses).
/// `xs` (each below m, invertible, m's limb count or fewer) are dealt to
/// the lanes in turn (lane l takes x_l, x_(l+8), ...; a short last round
/// is padded with 1); each lane forms its prefix products
/// P_k = x_l x_(l+8) ... in the Montgomery domain, the eight totals leave
/// it and go to `invert8` (the caller's one real inversion, which needs the
/// key's factors), and each lane walks back: x_k^-1 = P_k^-1 P_(k-1), then
/// P_(k-1)^-1 = P_k^-1 x_k. Results are `x^-1 scale mod m`, fully reduced
/// (`scale` below m: R mod m gives the inverses in a radix-2^64 Montgomery
/// form). Five eight-lane products per value, against the three radix-2^64
/// products and two conversions of the walk on one modulus.
///
/// Constant time in the values (every lane runs the same products; only the
/// count, public, sets the rounds). None without IFMA, for a digit count the
/// kernel lacks, or when `invert8` gives None.
pub fn invert_many_mb8(
    m: &Modulus52,
    xs: &[&[u64]],
    scale: &[u64],
    invert8: impl FnOnce(&[Vec<u64>]) -> Option<Vec<Vec<u64>>>,
) -> Option<Vec<Vec<u64>>> {
    let d = m.d;
    let ifma = cpu::ifma()?;
    if !mb8_runs(d) || xs.is_empty() {
        return None;
    }
    for x in xs.iter().chain([&scale]) {
        check_base_len(m, x);
    }
    const L: usize = ifma::mb8::LANES;
    let rounds = xs.len().div_ceil(L);
    with_mb8_digits!(d, D => {
        use ifma::mb8::Mb8;
        let mm = ifma::mb8::Mb8Mod::<D>::new([m; L]);
        let mut sc = ifma::mb8::Scratch::new();
        let mut one = Mb8::<D>::ZERO;
        one.0[0] = [1; L];
        let mut amm = |a: &Mb8<D>, b: &Mb8<D>| {
            let mut out = Mb8::<D>::ZERO;
            ifma.mb8_amm_scratch::<D>(&mut out, a, b, &mm, &mut sc);
            out
        };
        // x in the Montgomery domain per round, and the running prefixes.
        let mut xm: Vec<Mb8<D>> = Vec::with_capacity(rounds);
        let mut prefix: Vec<Mb8<D>> = Vec::with_capacity(rounds);
        for k in 0..rounds {
            let mut x = mb8_in::<D>(core::array::from_fn(|l| xs.get(k * L + l).copied().unwrap_or(&[1])));
            let x_r = amm(&x, mm.rr());
            x.zeroize();
            let p = match prefix.last() {
                Some(prev) => amm(prev, &x_r),
                None => x_r,
            };
            xm.push(x_r);
            prefix.push(p);
        }
        // The eight totals, out of the Montgomery domain and fully reduced.
        let mut total = amm(&prefix[rounds - 1], &one);
        let mut totals: Vec<Vec<u64>> = (0..L).map(|l| mb8_out(&total, l, m)).collect();
        total.zeroize();
        let inverses = invert8(&totals);
        for v in totals.iter_mut() {
            v.zeroize();
        }
        let mut inverses = inverses?;
        if inverses.len() != L {
            return None;
        }
        let mut inv_plain = mb8_in::<D>(core::array::from_fn(|l| &inverses[l][..]));
        for v in inverses.iter_mut() {
            v.zeroize();
        }
        // P_k^-1 in the Montgomery domain, walking down.
        let mut inv = amm(&inv_plain, mm.rr());
        inv_plain.zeroize();
        let scale_lanes = mb8_in::<D>([scale; L]);
        let mut out: Vec<Vec<u64>> = vec![Vec::new(); xs.len()];
        for k in (0..rounds).rev() {
            let mut u = if k > 0 {
                let u = amm(&inv, &prefix[k - 1]);
                inv = amm(&inv, &xm[k]);
                u
            } else {
                inv
            };
            let mut y = amm(&u, &scale_lanes);
            for l in 0..L {
                if let Some(slot) = out.get_mut(k * L + l) {
                    *slot = mb8_out(&y, l, m);
                }
            }
            u.zeroize();
            y.zeroize();
        }
        inv.zeroize();
        for v in xm.iter_mut().chain(prefix.iter_mut()) {
            v.zeroize();
        }
        sc.wipe();
        Some(out)
    })
}
