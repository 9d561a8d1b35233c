//! Entry points for tests and benchmarks: one dual, single or eight-lane
//! product or square per call, and whole dual exponentiations without
//! per-key tables. Not used by the RSA code, which goes through
//! [`super::DualKey`], [`super::SingleKey`] and [`super::mb8`].

use zeroize::Zeroize;

use crate::arch::portable52::{self, Modulus52};
use crate::elem::Elem;

use super::ifma::{self, DualMod, Lanes};
use super::*;

/// The two CRT halves together: (bp^ep mod p, bq^eq mod q), each fully
/// reduced, as p's and q's trimmed limb counts. None when p and q need
/// different digit counts (e.g. 1024 and 1100 bits). Same contract as
/// [`pow_secret`] per half; the exponent lengths (public) may differ. Builds
/// the pair's tables for this one call: a key keeps a [`DualKey`] instead.
pub fn pow_secret_dual(
    p: &Ifma52Modulus,
    bp: &[u64],
    ep: &[u64],
    q: &Ifma52Modulus,
    bq: &[u64],
    eq: &[u64],
) -> Option<(Vec<u64>, Vec<u64>)> {
    if p.m.d != q.m.d {
        return None;
    }
    check_base(p, bp);
    check_base(q, bq);
    if !ifma_available() {
        return Some((portable52::pow(&p.m, bp, ep), portable52::pow(&q.m, bq, eq)));
    }
    let b = (
        Elem::assume_reduced(bp.to_vec()),
        Elem::assume_reduced(bq.to_vec()),
    );
    let (mp, mq) = DualKey::new(p, q)?.pow_secret(&b, ep, eq);
    Some((mp.limbs().to_vec(), mq.limbs().to_vec()))
}

/// `(bp^exp mod p, bq^exp mod q)` for a PUBLIC exponent, both halves in one
/// run of the dual kernel (the fault check and blinding of a CRT private
/// operation). None when p and q need different digit counts. Same contract
/// as [`pow_public`] per half: variable time in `exp` only. Builds the pair's
/// tables for this one call, as [`pow_secret_dual`].
pub fn pow_public_dual(
    p: &Ifma52Modulus,
    bp: &[u64],
    q: &Ifma52Modulus,
    bq: &[u64],
    exp: &[u64],
) -> Option<(Vec<u64>, Vec<u64>)> {
    if p.m.d != q.m.d {
        return None;
    }
    check_base(p, bp);
    check_base(q, bq);
    if !ifma_available() {
        return Some((portable52::pow(&p.m, bp, exp), portable52::pow(&q.m, bq, exp)));
    }
    let b = (
        Elem::assume_reduced(bp.to_vec()),
        Elem::assume_reduced(bq.to_vec()),
    );
    let (mp, mq) = DualKey::new(p, q)?.pow_public(&b, exp);
    Some((mp.limbs().to_vec(), mq.limbs().to_vec()))
}

/// One dual almost-Montgomery product (or dedicated square when `sqr`; then
/// the b operands are ignored) on radix-2^52 digit vectors of length d, repeated
/// `iters` times with the output fed back as the a operand (iters >= 1). For
/// differential tests and benchmarks. Inputs: digits < 2^52, values < 2m.
/// None when the digit counts differ, lengths are wrong or IFMA is unavailable.
#[allow(clippy::too_many_arguments)]
pub fn amm52_dual(
    p: &Ifma52Modulus,
    ap: &[u64],
    bp: &[u64],
    q: &Ifma52Modulus,
    aq: &[u64],
    bq: &[u64],
    sqr: bool,
    iters: usize,
) -> Option<(Vec<u64>, Vec<u64>)> {
    amm52_dual_in(p, ap, bp, q, aq, bq, sqr, iters, Form::Plain)
}

/// As [`amm52_dual`] with the quotient chain in xmm registers
/// (`ifma::amm_dual_xmm`), on any CPU with the IFMA kernels: the same
/// results bit for bit.
#[allow(clippy::too_many_arguments)]
pub fn amm52_dual_xmm(
    p: &Ifma52Modulus,
    ap: &[u64],
    bp: &[u64],
    q: &Ifma52Modulus,
    aq: &[u64],
    bq: &[u64],
    sqr: bool,
    iters: usize,
) -> Option<(Vec<u64>, Vec<u64>)> {
    amm52_dual_in(p, ap, bp, q, aq, bq, sqr, iters, Form::Xmm)
}

/// As [`amm52_dual`] with the quotient-pipelined kernel, mod the pipelined
/// forms M of p and q (`Modulus52::pipelined`; inputs below 2M). Its twin is
/// the portable product mod M with k0 = 1. None also where the moduli have
/// no pipelined form.
#[allow(clippy::too_many_arguments)]
pub fn amm52_dual_pipelined(
    p: &Ifma52Modulus,
    ap: &[u64],
    bp: &[u64],
    q: &Ifma52Modulus,
    aq: &[u64],
    bq: &[u64],
    sqr: bool,
    iters: usize,
) -> Option<(Vec<u64>, Vec<u64>)> {
    amm52_dual_in(p, ap, bp, q, aq, bq, sqr, iters, Form::Pipelined)
}

/// Which dual kernel [`amm52_dual_in`] runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `ifma::amm_dual`, not pipelined.
    Plain,
    /// `ifma::amm_dual` on the pipelined moduli.
    Pipelined,
    /// `ifma::amm_dual_xmm` (not pipelined).
    Xmm,
}

#[allow(clippy::too_many_arguments)]
fn amm52_dual_in(
    p: &Ifma52Modulus,
    ap: &[u64],
    bp: &[u64],
    q: &Ifma52Modulus,
    aq: &[u64],
    bq: &[u64],
    sqr: bool,
    iters: usize,
    form: Form,
) -> Option<(Vec<u64>, Vec<u64>)> {
    let d = p.m.d;
    let ifma = cpu::ifma()?;
    if q.m.d != d || iters == 0 {
        return None;
    }
    if [ap, bp, aq, bq]
        .iter()
        .any(|x| x.len() != d || x.iter().any(|&v| v > portable52::MASK))
    {
        return None;
    }
    let pipe = if form == Form::Pipelined {
        Some((p.m.pipelined()?, q.m.pipelined()?))
    } else {
        None
    };
    Some(with_nr!(d.div_ceil(4), NR => {
        let dm = match &pipe {
            Some((pp, pq)) => DualMod::<NR>::pipelined(pp, pq),
            None => DualMod::<NR>::new(&p.m, &q.m),
        };
        let mut x = Lanes::<NR>::interleave(ap, aq);
        let b = Lanes::<NR>::interleave(bp, bq);
        let mut y = Lanes::<NR>::ZERO;
        for _ in 0..iters {
            match (sqr, form) {
                (true, Form::Plain) => ifma.amm_dual::<NR, true, false>(&mut y, &x, &x, &dm),
                (false, Form::Plain) => ifma.amm_dual::<NR, false, false>(&mut y, &x, &b, &dm),
                (true, Form::Pipelined) => ifma.amm_dual::<NR, true, true>(&mut y, &x, &x, &dm),
                (false, Form::Pipelined) => ifma.amm_dual::<NR, false, true>(&mut y, &x, &b, &dm),
                (true, Form::Xmm) => ifma.amm_dual_xmm::<NR, true>(&mut y, &x, &x, &dm),
                (false, Form::Xmm) => ifma.amm_dual_xmm::<NR, false>(&mut y, &x, &b, &dm),
            }
            x = y;
        }
        (x.half(0, d), x.half(1, d))
    }))
}

/// One single-modulus almost-Montgomery product ([`ifma::single`]) on
/// radix-2^52 digit vectors of length d (the modulus's digit count for that
/// kernel, a multiple of 8: `Modulus52::with_digit_multiple(n, 8)`), repeated
/// `iters` times with the output fed back as the a operand. For differential
/// tests and benchmarks. Inputs: digits < 2^52, values < 2m. None when the
/// lengths are wrong, the modulus is unsupported or IFMA is unavailable.
pub fn amm52_single(n: &[u64], a: &[u64], b: &[u64], iters: usize) -> Option<Vec<u64>> {
    single_run(n, a, Some(b), iters)
}

/// [`amm52_single`] for the dedicated squaring: `iters` successive squares
/// of `a` (each output squared next). Same inputs and None cases.
pub fn sqr52_single(n: &[u64], a: &[u64], iters: usize) -> Option<Vec<u64>> {
    single_run(n, a, None, iters)
}

/// [`amm52_single`] by the wide form (`ifma::single::wide`) at the
/// modulus's register count, also where the register window serves it
/// (from 2 registers): for the differential test and the benchmark that
/// choose the register counts each form serves. Same inputs and None cases.
pub fn amm52_single_wide(n: &[u64], a: &[u64], b: &[u64], iters: usize) -> Option<Vec<u64>> {
    single_run_as(n, a, Some(b), iters, true)
}

/// `iters` products by `b` (Some) or dedicated squarings (None), each
/// output fed back as the a operand: [`amm52_single`], [`sqr52_single`].
fn single_run(n: &[u64], a: &[u64], b: Option<&[u64]>, iters: usize) -> Option<Vec<u64>> {
    single_run_as(n, a, b, iters, false)
}

/// [`single_run`], by the wide form's product where `wide` holds.
fn single_run_as(n: &[u64], a: &[u64], b: Option<&[u64]>, iters: usize, wide: bool) -> Option<Vec<u64>> {
    let md = ifma::single::modulus(n)?;
    let (d, nr) = (md.d, md.d / 8);
    let ifma = cpu::ifma()?;
    if iters == 0 || (wide && (b.is_none() || nr < 2)) {
        return None;
    }
    if [Some(a), b]
        .iter()
        .flatten()
        .any(|x| x.len() != d || x.iter().any(|&v| v > portable52::MASK))
    {
        return None;
    }
    Some(match nr {
        16 => single_chain::<16>(ifma, &md, a, b, iters, wide),
        20 => single_chain::<20>(ifma, &md, a, b, iters, wide),
        40 => single_chain::<40>(ifma, &md, a, b, iters, wide),
        nr => with_nr!(nr, NR => single_chain::<NR>(ifma, &md, a, b, iters, wide)),
    })
}

/// [`single_run`] at a fixed register count.
fn single_chain<const NR: usize>(
    ifma: cpu::Ifma,
    md: &Modulus52,
    a: &[u64],
    b: Option<&[u64]>,
    iters: usize,
    wide: bool,
) -> Vec<u64> {
    let m = ifma::single::SingleMod::<NR>::boxed(md);
    let mut x = ifma::single::Digits::<NR>::from_slice(a);
    let b = b.map(ifma::single::Digits::<NR>::from_slice);
    let mut y = ifma::single::Digits::<NR>::ZERO;
    let mut scratch = ifma::single::AScratch::<NR>::ZERO;
    for _ in 0..iters {
        match &b {
            Some(b) if wide => ifma.single_amm_wide_with::<NR>(&mut y, &x, b, &m, &mut scratch),
            Some(b) => ifma.single_amm_with::<NR>(&mut y, &x, b, &m, &mut scratch),
            None => ifma.single_sqr_with::<NR>(&mut y, &x, &m, &mut scratch),
        }
        x = y;
    }
    scratch.zeroize();
    x.to_vec(md.d)
}

/// One eight-lane almost-Montgomery product (`ifma::mb8::amm`) per lane on
/// radix-2^52 digit vectors of each modulus's digit count d (the same for
/// all), for differential tests and benchmarks, repeated `iters` times with
/// the output fed back as a. None on wrong lengths or without IFMA.
pub fn amm52_mb8(
    moduli: [&Ifma52Modulus; ifma::mb8::LANES],
    a: [&[u64]; ifma::mb8::LANES],
    b: [&[u64]; ifma::mb8::LANES],
    iters: usize,
) -> Option<Vec<Vec<u64>>> {
    let d = moduli[0].m.d;
    let ifma = cpu::ifma()?;
    if iters == 0 || moduli.iter().any(|m| m.m.d != d) {
        return None;
    }
    if a.iter()
        .chain(&b)
        .any(|x| x.len() != d || x.iter().any(|&v| v > portable52::MASK))
    {
        return None;
    }
    Some(with_nr!(d / 4, NR => {
        const D: usize = 4 * NR;
        let mm = ifma::mb8::Mb8Mod::<D>::new(moduli.map(|m| &m.m));
        let mut x = ifma::mb8::Mb8::<D>::from_lanes(&a);
        let b = ifma::mb8::Mb8::<D>::from_lanes(&b);
        let mut y = ifma::mb8::Mb8::<D>::ZERO;
        for _ in 0..iters {
            ifma.mb8_amm::<D>(&mut y, &x, &b, &mm);
            x = y;
        }
        (0..ifma::mb8::LANES).map(|l| x.lane(l)).collect()
    }))
}

/// Eight-lane dedicated squarings (`ifma::mb8::sqr` up to
/// [`ifma::mb8::REG_MAX_D`] digits, `ifma::mb8::sqr_cols` above) repeated
/// `iters` times (a -> a^2 R^-1), for differential tests and benchmarks.
/// None on wrong lengths or without IFMA.
pub fn sqr52_mb8(
    moduli: [&Ifma52Modulus; ifma::mb8::LANES],
    a: [&[u64]; ifma::mb8::LANES],
    iters: usize,
) -> Option<Vec<Vec<u64>>> {
    let d = moduli[0].m.d;
    let ifma = cpu::ifma()?;
    if iters == 0 || moduli.iter().any(|m| m.m.d != d) {
        return None;
    }
    if a.iter()
        .any(|x| x.len() != d || x.iter().any(|&v| v > portable52::MASK))
    {
        return None;
    }
    Some(with_nr!(d / 4, NR => {
        const D: usize = 4 * NR;
        let mm = ifma::mb8::Mb8Mod::<D>::new(moduli.map(|m| &m.m));
        let mut x = ifma::mb8::Mb8::<D>::from_lanes(&a);
        let mut y = ifma::mb8::Mb8::<D>::ZERO;
        let mut scratch = ifma::mb8::Scratch::new();
        for _ in 0..iters {
            ifma.mb8_sqr_any::<D>(&mut y, &x, &mm, &mut scratch);
            x = y;
        }
        (0..ifma::mb8::LANES).map(|l| x.lane(l)).collect()
    }))
}
