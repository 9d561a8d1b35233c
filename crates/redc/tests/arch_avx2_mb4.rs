//! The four-lane AVX2 kernel (`arch::x86_64::avx2::mb4`) against
//! num-bigint: each lane's product and square bit for bit equal to
//! (a b + Y m) / R with Y = -a b m^-1 mod R (the one value REDC's digit
//! quotients give), at every digit count 8 to 80, lanes with different
//! moduli (edge and random) and operands up to 2m - 1; and the four-lane
//! exponentiation (`pow_mb4`, `pow_mb4_blinded`) against `modpow` at the
//! primes of RSA-2048, 3072 and 4096 and sizes between.
#![cfg(target_arch = "x86_64")]

mod common;

use num_bigint::{BigUint, RandBigInt};
use num_traits::{One, Zero};
use rand::rngs::StdRng;
use redc::arch::portable28::{self, Modulus28};
use redc::arch::x86_64::avx2::mb4::{self, Mb4, Mb4Mod, Scratch};

fn token() -> Option<redc::arch::x86_64::cpu::Avx2> {
    let skip = common::skip_unavailable(
        redc::arch::x86_64::avx2_available(),
        std::is_x86_feature_detected!("avx2"),
        "this CPU has AVX2 but the four-lane kernel is unavailable: refusing to skip under CI",
        "SKIPPED: four-lane AVX2 kernel tests (CPU lacks AVX2, or REDC_KERNEL/REDC_FORCE_PORTABLE/REDC_CPU_DISABLE excludes it)",
    );
    if skip {
        None
    } else {
        redc::arch::x86_64::cpu::avx2()
    }
}

/// Four odd moduli of exactly `bits` bits: all ones, 2^(bits-1) + 1, two random.
fn lane_moduli(rng: &mut StdRng, bits: usize) -> [BigUint; 4] {
    let one = BigUint::one();
    let random = |rng: &mut StdRng| rng.gen_biguint(bits as u64) | &one | (&one << (bits - 1));
    [
        (&one << bits) - 1u8,
        (&one << (bits - 1)) + 1u8,
        random(rng),
        random(rng),
    ]
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

fn lane_value(x: &Mb4, l: usize) -> BigUint {
    let d = x.digits();
    common::big(&portable28::from_digits(&x.lane(l), (28 * d).div_ceil(64)))
}

fn operand(vals: &[BigUint; 4], d: usize) -> Mb4 {
    let limbs: Vec<Vec<u64>> = vals
        .iter()
        .map(|v| common::limbs(v, (28 * d).div_ceil(64)))
        .collect();
    Mb4::from_limbs(d, core::array::from_fn(|l| &limbs[l][..]))
}

#[test]
fn product_and_square_match_bigint_at_every_digit_count() {
    let Some(avx2) = token() else { return };
    let mut sc = Scratch::new();
    let mut rng = common::rng(44);
    for d in mb4::MIN_D..=mb4::MAX_D {
        // 28 d - 2 bits: the largest modulus with 4m < R at d digits.
        let bits = 28 * d - 2;
        assert_eq!(portable28::digits_for_bits(bits), d);
        let ms = lane_moduli(&mut rng, bits);
        let mods: Vec<Modulus28> = ms.iter().map(|m| modulus28(m, bits)).collect();
        let mm = Mb4Mod::new(core::array::from_fn(|l| &mods[l])).expect("one digit count");
        assert_eq!(mm.digits(), d);
        let two_m: [BigUint; 4] = core::array::from_fn(|l| &ms[l] << 1);
        let cases: Vec<[BigUint; 4]> = vec![
            core::array::from_fn(|l| &two_m[l] - 1u8),
            core::array::from_fn(|l| rng.gen_biguint_below(&two_m[l])),
            core::array::from_fn(|l| {
                if l % 2 == 0 {
                    BigUint::zero()
                } else {
                    BigUint::one()
                }
            }),
            core::array::from_fn(|l| rng.gen_biguint_below(&two_m[l])),
        ];
        for (i, a) in cases.iter().enumerate() {
            let b = &cases[(i + 1) % cases.len()];
            let (xa, xb) = (operand(a, d), operand(b, d));
            let mut out = Mb4::zero(d);
            avx2.mb4_amm(&mut out, &xa, &xb, &mm, &mut sc);
            let mut sq = Mb4::zero(d);
            avx2.mb4_sqr(&mut sq, &xa, &mm, &mut sc);
            for l in 0..4 {
                let want = redc_exact(&a[l], &b[l], &ms[l], d);
                assert!(want < two_m[l]);
                assert_eq!(
                    lane_value(&out, l),
                    want,
                    "product, {d} digits, case {i}, lane {l}"
                );
                assert!(out.lane(l).iter().all(|&x| x < 1 << 28), "normalised digits");
                let want = redc_exact(&a[l], &a[l], &ms[l], d);
                assert_eq!(lane_value(&sq, l), want, "square, {d} digits, case {i}, lane {l}");
            }
        }
    }
}

#[test]
fn chained_squares_stay_exact() {
    // The exponentiation feeds each output back: 40 squares then a product.
    let Some(avx2) = token() else { return };
    let mut sc = Scratch::new();
    let mut rng = common::rng(45);
    for bits in [1024, 1536, 2048, 1000, 1530] {
        let d = portable28::digits_for_bits(bits);
        let ms = lane_moduli(&mut rng, bits);
        let mods: Vec<Modulus28> = ms.iter().map(|m| modulus28(m, bits)).collect();
        let mm = Mb4Mod::new(core::array::from_fn(|l| &mods[l])).unwrap();
        let mut vals: [BigUint; 4] = core::array::from_fn(|l| rng.gen_biguint_below(&ms[l]));
        let mut x = operand(&vals, d);
        for _ in 0..40 {
            let mut y = Mb4::zero(d);
            avx2.mb4_sqr(&mut y, &x, &mm, &mut sc);
            x = y;
            vals = core::array::from_fn(|l| redc_exact(&vals[l], &vals[l], &ms[l], d));
        }
        for (l, v) in vals.iter().enumerate() {
            assert_eq!(&lane_value(&x, l), v, "{bits} bits, lane {l}");
        }
    }
}

fn pow_case(rng: &mut StdRng, bits: usize, exp_limbs: usize, blinded: bool) {
    let ms = lane_moduli(rng, bits);
    let s = bits.div_ceil(64);
    let mods: Vec<Modulus28> = ms.iter().map(|m| modulus28(m, bits)).collect();
    let bases: Vec<BigUint> = ms.iter().map(|m| rng.gen_biguint_below(m)).collect();
    let factors: Vec<BigUint> = ms.iter().map(|m| rng.gen_biguint_below(m)).collect();
    let mut exps: Vec<BigUint> = (0..4).map(|_| rng.gen_biguint(64 * exp_limbs as u64)).collect();
    exps[1] = BigUint::zero();
    exps[2] = (BigUint::one() << (64 * exp_limbs)) - 1u8;
    let bl: Vec<Vec<u64>> = bases.iter().map(|b| common::limbs(b, s)).collect();
    let fl: Vec<Vec<u64>> = factors.iter().map(|f| common::limbs(f, s)).collect();
    let el: Vec<Vec<u64>> = exps.iter().map(|e| common::limbs(e, exp_limbs)).collect();
    let moduli = core::array::from_fn(|l| &mods[l]);
    let got = if blinded {
        redc::arch::x86_64::pow_mb4_blinded(
            moduli,
            core::array::from_fn(|l| &bl[l][..]),
            core::array::from_fn(|l| &fl[l][..]),
            core::array::from_fn(|l| &el[l][..]),
        )
    } else {
        redc::arch::x86_64::pow_mb4(
            moduli,
            core::array::from_fn(|l| &bl[l][..]),
            core::array::from_fn(|l| &el[l][..]),
        )
    }
    .expect("the four-lane kernel runs");
    for l in 0..4 {
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
            "{bits} bits, lane {l}, blinded {blinded}"
        );
    }
}

#[test]
fn exponentiation_matches_modpow() {
    if token().is_none() {
        return;
    }
    let mut rng = common::rng(46);
    for bits in [1024, 1536, 2048, 1022, 1530, 2238, 222] {
        pow_case(&mut rng, bits, bits.div_ceil(64), false);
        pow_case(&mut rng, bits, bits.div_ceil(64), true);
    }
    // Short exponents (public length) and one limb.
    pow_case(&mut rng, 1024, 1, true);
    pow_case(&mut rng, 1024, 3, false);
}

#[test]
fn sizes_outside_the_kernel_are_refused() {
    let mut rng = common::rng(47);
    let small = modulus28(&lane_moduli(&mut rng, 100)[2], 100);
    let large = modulus28(&lane_moduli(&mut rng, 2239)[2], 2239);
    let mid = modulus28(&lane_moduli(&mut rng, 1024)[2], 1024);
    assert_eq!(portable28::digits_for_bits(2239), 81);
    assert!(!redc::arch::x86_64::mb4_runs(81) && redc::arch::x86_64::mb4_runs(80));
    assert!(!redc::arch::x86_64::mb4_runs(7) && redc::arch::x86_64::mb4_runs(8));
    assert!(Mb4Mod::new([&large; 4]).is_none(), "81 digits");
    assert!(
        Mb4Mod::new([&mid, &mid, &mid, &small]).is_none(),
        "mixed digit counts"
    );
    assert!(Mb4Mod::new([&mid; 4]).is_some());
}
