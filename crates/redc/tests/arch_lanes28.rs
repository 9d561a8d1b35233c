//! The radix-2^28 lane kernels (`arch::x86_64::lanes28`: four lanes in
//! 256-bit registers, eight in 512-bit ones) against num-bigint: each
//! lane's product and square bit for bit equal to (a b + Y m) / R with
//! Y = -a b m^-1 mod R (the one value REDC's digit quotients give), at
//! every digit count 8 to 80, lanes with different moduli (edge and
//! random) and operands up to 2m - 1; and the lane exponentiation
//! (`pow_lanes28`, with and without factors) against `modpow` at the
//! primes of RSA-2048, 3072 and 4096 and sizes between.
#![cfg(target_arch = "x86_64")]

mod common;

use num_bigint::{BigUint, RandBigInt};
use num_traits::{One, Zero};
use rand::rngs::StdRng;
use redc::arch::portable28::{self, Modulus28};
use redc::arch::x86_64::cpu::{Avx2, Avx512};
use redc::arch::x86_64::lanes28::{self, Mb, MbMod, Scratch, Vector};

fn avx2() -> Option<Avx2> {
    let skip = common::skip_unavailable(
        redc::arch::x86_64::avx2_available(),
        std::is_x86_feature_detected!("avx2"),
        "this CPU has AVX2 but the four-lane kernel is unavailable: refusing to skip under CI",
        "SKIPPED: four-lane kernel tests (CPU lacks AVX2, or REDC_KERNEL/REDC_FORCE_PORTABLE/REDC_CPU_DISABLE excludes it)",
    );
    if skip {
        None
    } else {
        redc::arch::x86_64::cpu::avx2()
    }
}

fn avx512() -> Option<Avx512> {
    let skip = common::skip_unavailable(
        avx2().is_some() && Avx512::get().is_some(),
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx2"),
        "this CPU has AVX-512F but the eight-lane kernel is unavailable: refusing to skip under CI",
        "SKIPPED: eight-lane kernel tests (CPU lacks AVX-512F, or the request or REDC_CPU_DISABLE excludes it)",
    );
    if skip { None } else { Avx512::get() }
}

/// `lanes` odd moduli of exactly `bits` bits: all ones, 2^(bits-1) + 1, the rest random.
fn lane_moduli(rng: &mut StdRng, bits: usize, lanes: usize) -> Vec<BigUint> {
    let one = BigUint::one();
    let mut v = vec![(&one << bits) - 1u8, (&one << (bits - 1)) + 1u8];
    while v.len() < lanes {
        v.push(rng.gen_biguint(bits as u64) | &one | (&one << (bits - 1)));
    }
    v
}

fn modulus28(m: &BigUint, bits: usize) -> Modulus28 {
    Modulus28::new(&common::limbs(m, bits.div_ceil(64))).expect("odd modulus")
}

/// (a b + Y m) / R, Y = -a b m^-1 mod R: the exact almost-Montgomery product.
fn redc_exact(a: &BigUint, b: &BigUint, m: &BigUint, d: usize) -> BigUint {
    let r = BigUint::one() << (28 * d);
    let m_inv = m.modinv(&r).expect("m odd");
    let t = a * b;
    let y = ((&r - (&t % &r)) * m_inv) % &r;
    (t + y * m) >> (28 * d)
}

fn lane_value<V: Vector>(x: &Mb<V>, l: usize) -> BigUint {
    let d = x.digits();
    common::big(&portable28::from_digits(&x.lane(l), (28 * d).div_ceil(64)))
}

fn operand<V: Vector>(vals: &[BigUint], d: usize) -> Mb<V> {
    let limbs: Vec<Vec<u64>> = vals
        .iter()
        .map(|v| common::limbs(v, (28 * d).div_ceil(64)))
        .collect();
    let refs: Vec<&[u64]> = limbs.iter().map(|v| &v[..]).collect();
    Mb::from_limbs(d, &refs)
}

/// Every digit count, with `amm` and `sqr` the width's kernels.
fn products_match<V: Vector>(
    seed: u64,
    amm: impl Fn(&mut Mb<V>, &Mb<V>, &Mb<V>, &MbMod<V>, &mut Scratch<V>),
    sqr: impl Fn(&mut Mb<V>, &Mb<V>, &MbMod<V>, &mut Scratch<V>),
) {
    let lanes = V::LANES;
    let mut rng = common::rng(seed);
    let mut sc = Scratch::<V>::new();
    for d in lanes28::MIN_D..=lanes28::MAX_D {
        // 28 d - 2 bits: the largest modulus with 4m < R at d digits.
        let bits = 28 * d - 2;
        assert_eq!(portable28::digits_for_bits(bits), d);
        let ms = lane_moduli(&mut rng, bits, lanes);
        let mods: Vec<Modulus28> = ms.iter().map(|m| modulus28(m, bits)).collect();
        let refs: Vec<&Modulus28> = mods.iter().collect();
        let mm = MbMod::<V>::new(&refs).expect("one digit count");
        assert_eq!(mm.digits(), d);
        let two_m: Vec<BigUint> = ms.iter().map(|m| m << 1).collect();
        let cases: Vec<Vec<BigUint>> = vec![
            two_m.iter().map(|t| t - 1u8).collect(),
            two_m.iter().map(|t| rng.gen_biguint_below(t)).collect(),
            (0..lanes)
                .map(|l| {
                    if l % 2 == 0 {
                        BigUint::zero()
                    } else {
                        BigUint::one()
                    }
                })
                .collect(),
            two_m.iter().map(|t| rng.gen_biguint_below(t)).collect(),
        ];
        for (i, a) in cases.iter().enumerate() {
            let b = &cases[(i + 1) % cases.len()];
            let (xa, xb) = (operand::<V>(a, d), operand::<V>(b, d));
            let mut out = Mb::<V>::zero(d);
            amm(&mut out, &xa, &xb, &mm, &mut sc);
            let mut sq = Mb::<V>::zero(d);
            sqr(&mut sq, &xa, &mm, &mut sc);
            for l in 0..lanes {
                let want = redc_exact(&a[l], &b[l], &ms[l], d);
                assert!(want < two_m[l]);
                assert_eq!(
                    lane_value(&out, l),
                    want,
                    "{lanes} lanes, product, {d} digits, case {i}, lane {l}"
                );
                assert!(out.lane(l).iter().all(|&x| x < 1 << 28), "normalised digits");
                let want = redc_exact(&a[l], &a[l], &ms[l], d);
                assert_eq!(
                    lane_value(&sq, l),
                    want,
                    "{lanes} lanes, square, {d} digits, case {i}, lane {l}"
                );
            }
        }
        // The exponentiation feeds each output back: 12 squares in a chain.
        let mut vals: Vec<BigUint> = ms.iter().map(|m| rng.gen_biguint_below(m)).collect();
        let mut x = operand::<V>(&vals, d);
        for _ in 0..12 {
            let mut y = Mb::<V>::zero(d);
            sqr(&mut y, &x, &mm, &mut sc);
            x = y;
            vals = vals
                .iter()
                .zip(&ms)
                .map(|(v, m)| redc_exact(v, v, m, d))
                .collect();
        }
        for (l, v) in vals.iter().enumerate() {
            assert_eq!(
                &lane_value(&x, l),
                v,
                "{lanes} lanes, {d} digits, chained squares, lane {l}"
            );
        }
    }
}

#[test]
fn four_lane_products_and_squares_match_bigint_at_every_digit_count() {
    let Some(t) = avx2() else { return };
    products_match::<core::arch::x86_64::__m256i>(
        44,
        |o, a, b, m, sc| t.mb4_amm(o, a, b, m, sc),
        |o, a, m, sc| t.mb4_sqr(o, a, m, sc),
    );
}

#[test]
fn eight_lane_products_and_squares_match_bigint_at_every_digit_count() {
    let Some(t) = avx512() else { return };
    products_match::<core::arch::x86_64::__m512i>(
        45,
        |o, a, b, m, sc| t.mb8z_amm(o, a, b, m, sc),
        |o, a, m, sc| t.mb8z_sqr(o, a, m, sc),
    );
}

fn pow_case(rng: &mut StdRng, lanes: usize, bits: usize, exp_limbs: usize, blinded: bool) {
    let ms = lane_moduli(rng, bits, lanes);
    let s = bits.div_ceil(64);
    let mods: Vec<Modulus28> = ms.iter().map(|m| modulus28(m, bits)).collect();
    let bases: Vec<BigUint> = ms.iter().map(|m| rng.gen_biguint_below(m)).collect();
    let factors: Vec<BigUint> = ms.iter().map(|m| rng.gen_biguint_below(m)).collect();
    let mut exps: Vec<BigUint> = (0..lanes)
        .map(|_| rng.gen_biguint(64 * exp_limbs as u64))
        .collect();
    exps[1] = BigUint::zero();
    exps[2] = (BigUint::one() << (64 * exp_limbs)) - 1u8;
    let bl: Vec<Vec<u64>> = bases.iter().map(|b| common::limbs(b, s)).collect();
    let fl: Vec<Vec<u64>> = factors.iter().map(|f| common::limbs(f, s)).collect();
    let el: Vec<Vec<u64>> = exps.iter().map(|e| common::limbs(e, exp_limbs)).collect();
    let moduli: Vec<&Modulus28> = mods.iter().collect();
    let br: Vec<&[u64]> = bl.iter().map(|v| &v[..]).collect();
    let fr: Vec<&[u64]> = fl.iter().map(|v| &v[..]).collect();
    let er: Vec<&[u64]> = el.iter().map(|v| &v[..]).collect();
    let got = redc::arch::x86_64::pow_lanes28(&moduli, &br, blinded.then_some(&fr[..]), &er)
        .expect("the lane kernel runs");
    for l in 0..lanes {
        let base = if blinded {
            &bases[l] * &factors[l]
        } else {
            bases[l].clone()
        };
        let want = base.modpow(&exps[l], &ms[l]);
        assert_eq!(got[l].len(), s, "limb count");
        assert_eq!(
            common::big(&got[l]),
            want,
            "{lanes} lanes, {bits} bits, lane {l}, blinded {blinded}"
        );
    }
}

fn exponentiation_matches_modpow(lanes: usize, seed: u64) {
    let mut rng = common::rng(seed);
    for bits in [1024, 1536, 2048, 1022, 1530, 2238, 222] {
        pow_case(&mut rng, lanes, bits, bits.div_ceil(64), false);
        pow_case(&mut rng, lanes, bits, bits.div_ceil(64), true);
    }
    // Short exponents (public length) and one limb.
    pow_case(&mut rng, lanes, 1024, 1, true);
    pow_case(&mut rng, lanes, 1024, 3, false);
}

#[test]
fn four_lane_exponentiation_matches_modpow() {
    if avx2().is_some() {
        exponentiation_matches_modpow(4, 46);
    }
}

#[test]
fn eight_lane_exponentiation_matches_modpow() {
    if avx512().is_some() {
        exponentiation_matches_modpow(8, 48);
    }
}

#[test]
fn sizes_outside_the_kernels_are_refused() {
    let mut rng = common::rng(47);
    let small = modulus28(&lane_moduli(&mut rng, 100, 4)[2], 100);
    let large = modulus28(&lane_moduli(&mut rng, 2239, 4)[2], 2239);
    let mid = modulus28(&lane_moduli(&mut rng, 1024, 4)[2], 1024);
    assert_eq!(portable28::digits_for_bits(2239), 81);
    assert!(!redc::arch::x86_64::lanes28_runs(81) && redc::arch::x86_64::lanes28_runs(80));
    assert!(!redc::arch::x86_64::lanes28_runs(7) && redc::arch::x86_64::lanes28_runs(8));
    type Ymm = core::arch::x86_64::__m256i;
    assert!(MbMod::<Ymm>::new(&[&large; 4]).is_none(), "81 digits");
    assert!(
        MbMod::<Ymm>::new(&[&mid, &mid, &mid, &small]).is_none(),
        "mixed digit counts"
    );
    assert!(MbMod::<Ymm>::new(&[&mid; 4]).is_some());
    // Neither three nor five lanes is a width.
    let x = [1u64; 16];
    assert!(redc::arch::x86_64::pow_lanes28(&[&mid; 3], &[&x[..]; 3], None, &[&x[..]; 3]).is_none());
}
