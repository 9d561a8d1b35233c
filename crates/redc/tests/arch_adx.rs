//! The MULX/ADX Montgomery kernels (`arch::x86_64::mont_mul_adx`,
//! `mont_sqr_adx`) against the portable `mont::fips::mont_mul` and against
//! num-bigint, at every limb count 1..=64, edge and random operands.
#![cfg(target_arch = "x86_64")]

mod common;
use common::{big, limbs, operands};

use num_bigint::{BigUint, RandBigInt};
use num_traits::{One, Zero};
use rand::{SeedableRng, rngs::StdRng};
use redc::arch::x86_64 as x86;
use redc::mont::{MontContext, fips, scratch_len};

fn moduli(rng: &mut StdRng, s: usize) -> Vec<BigUint> {
    let one = BigUint::one();
    let mut v = vec![
        rng.gen_biguint(64 * s as u64) | &one | (&one << (64 * s - 1)),
        (&one << (64 * s)) - 1u8, // all-ones limbs
    ];
    if s > 1 {
        v.push((&one << (64 * s - 1)) + 1u8);
    }
    v
}

#[test]
fn adx_kernels_match_fips_and_bigint() {
    if common::skip_unavailable(
        x86::adx_available(),
        std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("adx"),
        "this CPU has BMI2/ADX but the ADX kernels are unavailable: refusing to skip under CI",
        "SKIPPED: BMI2/ADX tests (CPU lacks them, or REDC_KERNEL/REDC_FORCE_PORTABLE excludes them)",
    ) {
        return;
    }
    let mut rng = StdRng::seed_from_u64(11);
    for s in 1..=64usize {
        let random = if s <= 8 || s % 8 == 0 { 4 } else { 1 };
        for n in moduli(&mut rng, s) {
            let ctx = MontContext::new(&limbs(&n, s)).unwrap();
            let r_inv = BigUint::one() << (64 * s);
            let r_inv = r_inv.modinv(&n).unwrap();
            let mut scratch = vec![0u64; scratch_len(s)];
            let ops = operands(&mut rng, &n, random);
            for a in &ops {
                let al = limbs(a, s);
                for b in ops.iter().take(3).chain(ops.iter().skip(4)) {
                    let bl = limbs(b, s);
                    let mut got = vec![0u64; s];
                    let mut want = vec![0u64; s];
                    x86::mont_mul_adx(&mut got, &al, &bl, ctx.modulus(), ctx.n0(), &mut scratch);
                    fips::mont_mul(&mut want, &al, &bl, ctx.modulus(), ctx.n0(), &mut scratch);
                    assert_eq!(got, want, "mul vs fips: s={s} n={n:x} a={a:x} b={b:x}");
                    assert_eq!(big(&got), a * b * &r_inv % &n, "mul vs bigint: s={s}");
                }
                let mut got = vec![0u64; s];
                let mut want = vec![0u64; s];
                // The squaring writes its scratch before reading it: no
                // cleared scratch is assumed.
                scratch.fill(u64::MAX);
                x86::mont_sqr_adx(&mut got, &al, &[], ctx.modulus(), ctx.n0(), &mut scratch);
                fips::mont_mul(&mut want, &al, &al, ctx.modulus(), ctx.n0(), &mut scratch);
                assert_eq!(got, want, "sqr vs fips: s={s} n={n:x} a={a:x}");
            }
        }
    }
}

/// The MULX/ADX SOS form with its product half by Karatsuba over bands
/// (`adx::mont_mul_by`, `mont_sqr_by`) against num-bigint, at every banded
/// limb count 8..=256 and at 384 and 512, with the splits at every count
/// that can (multiples of 16), at the chosen thresholds and never; edge
/// operands (zero, one, n - 1, n / 2, all-ones limbs: halves equal, or
/// either half the larger) and random ones, from a scratch left dirty.
#[test]
fn adx_karatsuba_matches_bigint() {
    if !x86::adx_available() {
        // adx_kernels_match_fips_and_bigint reports the skip (and refuses it under CI).
        return;
    }
    use x86::adx::{Bands, mont_mul_by, mont_sqr_by};
    let mut rng = StdRng::seed_from_u64(17);
    let sizes = (8..=256usize).step_by(8).chain([384, 512]);
    for s in sizes {
        let random = if s % 16 == 0 { 3 } else { 1 };
        for n in moduli(&mut rng, s) {
            let ctx = MontContext::new(&limbs(&n, s)).unwrap();
            let r_inv = (BigUint::one() << (64 * s)).modinv(&n).unwrap();
            let mut scratch = vec![u64::MAX; scratch_len(s)];
            let ops = operands(&mut rng, &n, random);
            for bands in [Bands::ALWAYS, Bands::CHOSEN, Bands::NEVER] {
                for a in &ops {
                    let al = limbs(a, s);
                    for b in ops.iter().rev().take(3) {
                        let mut got = vec![0u64; s];
                        mont_mul_by(
                            bands,
                            &mut got,
                            &al,
                            &limbs(b, s),
                            ctx.modulus(),
                            ctx.n0(),
                            &mut scratch,
                        );
                        assert_eq!(
                            big(&got),
                            a * b * &r_inv % &n,
                            "mul {bands:?}: s={s} n={n:x} a={a:x} b={b:x}"
                        );
                    }
                    let mut got = vec![0u64; s];
                    mont_sqr_by(bands, &mut got, &al, ctx.modulus(), ctx.n0(), &mut scratch);
                    assert_eq!(
                        big(&got),
                        a * a * &r_inv % &n,
                        "sqr {bands:?}: s={s} n={n:x} a={a:x}"
                    );
                }
            }
        }
    }
}

/// The ADX Montgomery reduction of a double-length value against its
/// portable twin `mont::sos::redc` and num-bigint (t R^-1 mod n), at every
/// limb count 1..=64, for t = 0, 1, n R - 1 (the largest allowed) and random
/// t below n R.
#[test]
fn adx_redc_matches_sos_and_bigint() {
    if !x86::adx_available() {
        // adx_kernels_match_fips_and_bigint reports the skip (and refuses it under CI).
        return;
    }
    let mut rng = StdRng::seed_from_u64(13);
    for s in 1..=64usize {
        for n in moduli(&mut rng, s) {
            let ctx = MontContext::new(&limbs(&n, s)).unwrap();
            let r = BigUint::one() << (64 * s);
            let r_inv = r.modinv(&n).unwrap();
            let nr = &n * &r;
            let ts = [
                BigUint::zero(),
                BigUint::one(),
                &nr - 1u8,
                rng.gen_biguint_below(&nr),
                rng.gen_biguint_below(&nr),
            ];
            for t in ts {
                let mut t_adx = limbs(&t, 2 * s + 1);
                let mut t_sos = t_adx.clone();
                let (mut got, mut want) = (vec![0u64; s], vec![0u64; s]);
                x86::adx::redc(&mut got, &mut t_adx, ctx.modulus(), ctx.n0());
                redc::mont::sos::redc(&mut want, &mut t_sos, ctx.modulus(), ctx.n0());
                assert_eq!(got, want, "redc vs sos: s={s} n={n:x} t={t:x}");
                assert_eq!(big(&got), &t * &r_inv % &n, "redc vs bigint: s={s}");
            }
        }
    }
}

#[test]
fn adx_reduce_into_matches_reduce_once_and_bigint() {
    if !x86::adx_available() {
        // adx_kernels_match_fips_and_bigint reports the skip (and refuses it under CI).
        return;
    }
    let mut rng = StdRng::seed_from_u64(29);
    for s in 1..=64usize {
        let r = BigUint::one() << (64 * s);
        for n in moduli(&mut rng, s) {
            let nl = limbs(&n, s);
            // Every value below 2n, around the boundaries: 0, n - 1, n, n + 1,
            // 2n - 1, the largest x below R, R itself (top = 1) when below 2n.
            let two_n = &n << 1;
            let mut vs = vec![
                BigUint::zero(),
                &n - 1u8,
                n.clone(),
                &n + 1u8,
                &two_n - 1u8,
                &r - 1u8,
                r.clone(),
            ];
            for _ in 0..4 {
                vs.push(rng.gen_biguint_below(&two_n));
            }
            for v in vs.into_iter().filter(|v| v < &two_n) {
                let x = limbs(&(&v % &r), s);
                let top = if v >= r { 1 } else { 0 };
                let mut got = vec![0u64; s];
                x86::adx::reduce_into(&mut got, &x, top, &nl);
                let mut want = x.clone();
                redc::limb::reduce_once(&mut want, top, &nl);
                assert_eq!(got, want, "reduce_into vs reduce_once: s={s} n={n:x} v={v:x}");
                assert_eq!(big(&got), &v % &n, "reduce_into vs bigint: s={s} n={n:x} v={v:x}");
            }
        }
    }
}

/// [`moduli`] and one whose top limb is 1, below which most values below R
/// are above n: the lazy kernels' subtraction then runs often.
fn lazy_moduli(rng: &mut StdRng, s: usize) -> Vec<BigUint> {
    let mut v = moduli(rng, s);
    v.push((BigUint::one() << (64 * (s - 1))) + 1u8);
    v
}

/// The lazy kernels (`adx::mont_mul_lazy`, `mont_sqr_lazy`: operands and
/// results below R, not n) against num-bigint, bit for bit: with V = (a b +
/// M n) / R, M = -a b n^-1 mod R, the result is V - n where V >= R and V
/// otherwise. At every banded limb count 8..=128 and at 192 and 256 (the
/// Karatsuba splits from 64 and 96 included), moduli with the top bit set
/// and one whose top limb is 1 (most values below R are then above n),
/// operands at the edges of [0, R) and random ones. The 16-limb end runs
/// in one call (`band::reduce16_lazy`), the others by bands.
#[test]
fn adx_lazy_kernels_match_bigint() {
    if !x86::adx_available() {
        // adx_kernels_match_fips_and_bigint reports the skip (and refuses it under CI).
        return;
    }
    let mut rng = StdRng::seed_from_u64(31);
    for s in (8..=128usize).step_by(8).chain([192, 256]) {
        assert!(x86::adx::lazy_serves(s));
        let mut subtracted = 0;
        let r = BigUint::one() << (64 * s);
        for n in lazy_moduli(&mut rng, s) {
            let ctx = MontContext::new(&limbs(&n, s)).unwrap();
            let n_inv = n.modinv(&r).unwrap();
            let mut scratch = vec![0u64; scratch_len(s)];
            scratch.fill(u64::MAX);
            let mut ops = vec![BigUint::zero(), BigUint::one(), &n - 1u8, n.clone(), &r - 1u8];
            for _ in 0..if s <= 64 { 3 } else { 1 } {
                ops.push(rng.gen_biguint_below(&r));
                ops.push(rng.gen_biguint_below(&n));
            }
            let want = |t: BigUint| {
                let m = (&r - (&t * &n_inv) % &r) % &r;
                let v = (t + m * &n) >> (64 * s);
                assert!(v < &r + &n);
                if v >= r { (v - &n, true) } else { (v, false) }
            };
            for (i, a) in ops.iter().enumerate() {
                let al = limbs(a, s);
                for b in ops.iter().skip(i).take(4) {
                    let mut got = vec![0u64; s];
                    x86::adx::mont_mul_lazy(
                        &mut got,
                        &al,
                        &limbs(b, s),
                        ctx.modulus(),
                        ctx.n0(),
                        &mut scratch,
                    );
                    let (v, sub) = want(a * b);
                    subtracted += sub as usize;
                    assert_eq!(big(&got), v, "lazy mul: s={s} n={n:x} a={a:x} b={b:x}");
                }
                let mut got = vec![0u64; s];
                x86::adx::mont_sqr_lazy(&mut got, &al, ctx.modulus(), ctx.n0(), &mut scratch);
                let (v, sub) = want(a * a);
                subtracted += sub as usize;
                assert_eq!(big(&got), v, "lazy sqr: s={s} n={n:x} a={a:x}");
            }
        }
        // The top-bit subtraction ran at this size, not only the pass-through.
        assert!(
            subtracted >= 5,
            "s={s}: only {subtracted} results needed the subtraction"
        );
    }
}

/// Long chains of lazy squarings and products (values below R throughout)
/// end, after one full product by 1, at base^e mod n by num-bigint.
#[test]
fn adx_lazy_chain_reduces_to_bigint() {
    if !x86::adx_available() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(32);
    for s in [8usize, 16, 24, 32, 64] {
        let r = BigUint::one() << (64 * s);
        for n in lazy_moduli(&mut rng, s) {
            let ctx = MontContext::new(&limbs(&n, s)).unwrap();
            let mut scratch = vec![0u64; scratch_len(s)];
            let base = rng.gen_biguint_below(&n);
            // x = base R mod n, in Montgomery form.
            let mut x = limbs(&((&base << (64 * s)) % &n), s);
            let xm = x.clone();
            let mut t = vec![0u64; s];
            let mut e = BigUint::one();
            for k in 0..300 {
                if k % 5 == 4 {
                    x86::adx::mont_mul_lazy(&mut t, &x, &xm, ctx.modulus(), ctx.n0(), &mut scratch);
                    e += 1u8;
                } else {
                    x86::adx::mont_sqr_lazy(&mut t, &x, ctx.modulus(), ctx.n0(), &mut scratch);
                    e <<= 1;
                }
                x.copy_from_slice(&t);
                assert!(big(&x) < r);
            }
            let mut unit = vec![0u64; s];
            unit[0] = 1;
            x86::mont_mul_adx(&mut t, &x, &unit, ctx.modulus(), ctx.n0(), &mut scratch);
            assert_eq!(big(&t), base.modpow(&e, &n), "lazy chain: s={s} n={n:x}");
        }
    }
}

#[test]
fn adx_kernels_chain() {
    // Long chains: the output feeds the next input, through both kernels.
    if !x86::adx_available() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(12);
    for s in [16usize, 24, 32] {
        let n = rng.gen_biguint(64 * s as u64) | BigUint::one() | (BigUint::one() << (64 * s - 1));
        let ctx = MontContext::new(&limbs(&n, s)).unwrap();
        let mut scratch = vec![0u64; scratch_len(s)];
        let a = limbs(&rng.gen_biguint_below(&n), s);
        let (mut x, mut y) = (a.clone(), a.clone());
        let mut t = vec![0u64; s];
        for k in 0..200 {
            if k % 3 == 0 {
                x86::mont_mul_adx(&mut t, &x, &a, ctx.modulus(), ctx.n0(), &mut scratch);
            } else {
                x86::mont_sqr_adx(&mut t, &x, &a, ctx.modulus(), ctx.n0(), &mut scratch);
            }
            x.copy_from_slice(&t);
            let b = if k % 3 == 0 { a.clone() } else { y.clone() };
            fips::mont_mul(&mut t, &y, &b, ctx.modulus(), ctx.n0(), &mut scratch);
            y.copy_from_slice(&t);
        }
        assert_eq!(x, y, "chain s={s}");
    }
}

#[test]
#[should_panic]
fn adx_rejects_wrong_lengths() {
    if !x86::adx_available() {
        panic!("skipped: no ADX (the should_panic contract holds trivially)");
    }
    let n = [0xffff_ffff_ffff_fff1u64, 1];
    let mut out = [0u64; 2];
    let mut scratch = [0u64; 6];
    x86::mont_mul_adx(&mut out, &[1], &[1, 0], &n, 1, &mut scratch);
}

/// One eight-row band (`adx::band::band_chained` with no carry-in, its carry
/// run up t by `carry_up`) against num-bigint: a product band
/// adds m n 2^(64 i0) (m of eight limbs) to t; a reduction band adds M n
/// 2^(64 i0) with M = (t's eight limbs from i0) (-n^-1) mod 2^512, so that
/// those eight limbs become zero, and leaves M's limbs there. Operands with
/// all-ones limbs drive every carry chain, including the carry pending past
/// the band, which `carry_up` must run through the rest of t.
#[test]
fn adx_band_matches_bigint() {
    use redc::arch::x86_64::adx::band::{Band, band_chained, carry_up};
    // The band, its carry run up t; returns the carry out of t's top limb.
    let band = |t: &mut [u64], i0: usize, n: &[u64], how: Band<'_>| {
        let c = band_chained(t, i0, n, how, 0);
        carry_up(&mut t[i0 + n.len() + 8..], c)
    };
    if !x86::adx_available() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(14);
    let ones = |len: usize| vec![u64::MAX; len];
    for s in [8usize, 16, 24, 32, 64] {
        for i0 in [0usize, 8, 3] {
            let len = i0 + s + 8 + 3;
            for case in 0..6 {
                let (n, m, t) = match case {
                    0 => (ones(s), ones(8), ones(len)),
                    1 => (ones(s), ones(8), vec![0; len]),
                    _ => (
                        limbs(&(rng.gen_biguint(64 * s as u64) | BigUint::one()), s),
                        limbs(&rng.gen_biguint(512), 8),
                        limbs(&rng.gen_biguint(64 * len as u64 - 1), len),
                    ),
                };
                // Keep t + m n 2^(64 i0) below 2^(64 len): the top limb stays clear.
                let mut t = t;
                t[len - 1] = 0;
                let shift = BigUint::one() << (64 * i0);
                let mut got = t.clone();
                assert_eq!(band(&mut got, i0, &n, Band::Product(&m)), 0);
                let want = big(&t) + big(&m) * big(&n) * &shift;
                assert_eq!(big(&got), want, "product band s={s} i0={i0} case={case}");

                let n = {
                    let mut n = n;
                    n[0] |= 1;
                    n
                };
                let r8 = BigUint::one() << 512;
                let n0 = (&r8 - big(&n).modinv(&r8).unwrap()) % &r8;
                let n0_64 = limbs(&n0, 8)[0];
                let mut got = t.clone();
                assert_eq!(band(&mut got, i0, &n, Band::Reduce(n0_64)), 0);
                let low = big(&t[i0..i0 + 8]);
                let mm = (&low * &n0) % &r8;
                let sum = big(&t) + &mm * big(&n) * &shift;
                // The eight limbs from i0 are zero in the sum and hold M's limbs in t.
                let mask = (&r8 - 1u8) << (64 * i0);
                assert_eq!(
                    &sum & &mask,
                    BigUint::zero(),
                    "reduction clears: s={s} i0={i0} case={case}"
                );
                assert_eq!(
                    big(&got[i0..i0 + 8]),
                    mm,
                    "multipliers: s={s} i0={i0} case={case}"
                );
                let mut rest = got.clone();
                rest[i0..i0 + 8].fill(0);
                assert_eq!(big(&rest), sum, "reduction band s={s} i0={i0} case={case}");
            }
        }
    }
}

/// A band with a carry-in (`adx::band::band_chained`) against num-bigint: it
/// adds m n 2^(64 i0) plus the carry-in at limb i0 + s, and returns the
/// carry for limb i0 + s + 8 without running it up t, so t plus that carry
/// there is the sum. All-ones operands drive the carry-in through the whole
/// window; then a chain of product bands as the kernels run them (each
/// ending where the one before left its carry), finished by `carry_up`.
#[test]
fn adx_chained_bands_match_bigint() {
    use redc::arch::x86_64::adx::band::{Band, band_chained, carry_up};
    if !x86::adx_available() {
        println!("SKIPPED: no BMI2/ADX");
        return;
    }
    let mut rng = StdRng::seed_from_u64(16);
    let ones = |len: usize| vec![u64::MAX; len];
    for s in [8usize, 16, 32] {
        for i0 in [0usize, 8, 3] {
            let len = i0 + s + 8 + 3;
            for case in 0..4 {
                let (n, m, mut t) = match case {
                    0 => (ones(s), ones(8), ones(len)),
                    1 => (ones(s), ones(8), vec![0; len]),
                    _ => (
                        limbs(&rng.gen_biguint(64 * s as u64), s),
                        limbs(&rng.gen_biguint(512), 8),
                        limbs(&rng.gen_biguint(64 * len as u64), len),
                    ),
                };
                t[len - 1] = 0;
                for carry_in in [0u64, 1, 2] {
                    let mut got = t.clone();
                    let out = band_chained(&mut got, i0, &n, Band::Product(&m), carry_in);
                    assert!(out < 3, "carry out {out}");
                    let want = big(&t)
                        + big(&m) * big(&n) * (BigUint::one() << (64 * i0))
                        + BigUint::from(carry_in) * (BigUint::one() << (64 * (i0 + s)));
                    let have = big(&got) + BigUint::from(out) * (BigUint::one() << (64 * (i0 + s + 8)));
                    assert_eq!(have, want, "s={s} i0={i0} case={case} carry in {carry_in}");
                }
            }
        }
        // The product's chain: band k at limb 8k over s limbs of a.
        for case in 0..3 {
            let (a, b) = if case == 0 {
                (ones(s), ones(s))
            } else {
                (
                    limbs(&rng.gen_biguint(64 * s as u64), s),
                    limbs(&rng.gen_biguint(64 * s as u64), s),
                )
            };
            let mut r = vec![0u64; 2 * s + 8];
            let mut carry = 0;
            for (k, bk) in b.chunks_exact(8).enumerate() {
                carry = band_chained(&mut r, 8 * k, &a, Band::Product(bk), carry);
            }
            assert_eq!(carry_up(&mut r[2 * s..], carry), 0);
            assert_eq!(big(&r), big(&a) * big(&b), "chained product s={s} case={case}");
        }
    }
}

/// At a multiple of 8 limbs the ADX product runs banded SOS when the scratch
/// holds 2s + 1 limbs and CIOS rows when it holds only s + 3 (the kernel's
/// minimum): both against num-bigint.
#[test]
fn adx_product_banded_and_rows_agree() {
    if !x86::adx_available() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(15);
    for s in [8usize, 16, 32] {
        for n in moduli(&mut rng, s) {
            let ctx = MontContext::new(&limbs(&n, s)).unwrap();
            let r_inv = (BigUint::one() << (64 * s)).modinv(&n).unwrap();
            for a in operands(&mut rng, &n, 3) {
                let b = rng.gen_biguint_below(&n);
                let want = &a * &b * &r_inv % &n;
                for scratch_len in [2 * s + 2, s + 3] {
                    let mut scratch = vec![0u64; scratch_len];
                    let mut got = vec![0u64; s];
                    x86::mont_mul_adx(
                        &mut got,
                        &limbs(&a, s),
                        &limbs(&b, s),
                        ctx.modulus(),
                        ctx.n0(),
                        &mut scratch,
                    );
                    assert_eq!(big(&got), want, "s={s} scratch={scratch_len}");
                }
            }
        }
    }
}

/// The AVX2 build of the window gather against the portable one (and the
/// table itself) at block-boundary sizes, every digit.
#[test]
fn gather_avx2_matches_portable() {
    // The probe, a one-entry table, runs the AVX2 gather where it is available.
    if common::skip_unavailable(
        x86::gather_avx2(&mut [0], &[7], 0, 1),
        std::is_x86_feature_detected!("avx2"),
        "this CPU has AVX2 but the AVX2 gather is unavailable: refusing to skip under CI",
        "SKIPPED: AVX2 gather test (CPU lacks AVX2, or REDC_KERNEL/REDC_FORCE_PORTABLE excludes it)",
    ) {
        return;
    }
    let mut rng = StdRng::seed_from_u64(31);
    for s in [1usize, 7, 8, 15, 16, 17, 24, 32, 40, 48, 64] {
        for entries in [1usize, 16, 32, 64] {
            let table: Vec<u64> = (0..entries * s)
                .map(|_| rand::RngCore::next_u64(&mut rng))
                .collect();
            for d in 0..entries {
                let mut got = vec![0u64; s];
                assert!(
                    x86::gather_avx2(&mut got, &table, d as u64, s),
                    "the AVX2 gather, available at the probe, did not run"
                );
                let mut want = vec![0u64; s];
                redc::exp::window::gather(&mut want, &table, d as u64, s);
                assert_eq!(got, want, "avx2 vs portable: s={s} entries={entries} digit={d}");
                assert_eq!(got, &table[d * s..(d + 1) * s], "avx2 vs table: s={s} digit={d}");
            }
        }
    }
}
