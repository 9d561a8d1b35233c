//! Every Montgomery variant against num-bigint: every limb count from 1 to
//! 64, sizes up to 16384 bits, random moduli and operands, and the edges
//! (0, 1, N-1, all-ones limbs, N = 2^k - 1, N = 2^k + 1, top limb 1).

mod common;

use common::*;
use num_bigint::BigUint;
use num_traits::One;
use redc::Error;
use redc::mont::{MontContext, Variant, almost};

/// Check every variant on modulus n with the given operands.
fn check_all_variants(n: &BigUint, ops: &[BigUint]) {
    let s = n.bits().div_ceil(64) as usize;
    let ctx = MontContext::new(&limbs(n, s)).unwrap();
    assert_eq!(ctx.limbs(), s);
    for v in Variant::ALL {
        for (i, a) in ops.iter().enumerate() {
            let al = limbs(a, s);
            // Squares for every variant (the only form sqr and karatsuba-sqr have).
            let got = ctx.square(v, &al);
            if v == Variant::Almost && !almost::bound_holds(ctx.modulus()) {
                assert_eq!(got, Err(Error::AlmostBound));
                continue;
            }
            assert_mont_product(&got.unwrap(), a, a, n, &format!("{v} square"));
            if v.squares_only() {
                continue;
            }
            // Products with the next few operands (cyclically), not all pairs.
            for b in ops.iter().cycle().skip(i + 1).take(3) {
                let got = ctx.mul(v, &al, &limbs(b, s)).unwrap();
                assert_mont_product(&got, a, b, n, &format!("{v} s={s}"));
            }
        }
    }
}

#[test]
fn every_limb_count_1_to_64() {
    let mut rng = rng(1);
    for s in 1..=64 {
        for _ in 0..2 {
            let n = random_modulus(&mut rng, s);
            let ops = operands(&mut rng, &n, 4);
            check_all_variants(&n, &ops);
        }
        // A modulus whose top two bits are clear, so `almost` runs at every size.
        let n = random_modulus(&mut rng, s) >> 2u8 | (BigUint::one() << (64 * s - 3)) | BigUint::one();
        let ops = operands(&mut rng, &n, 3);
        check_all_variants(&n, &ops);
    }
}

#[test]
fn large_sizes_up_to_16384_bits() {
    let mut rng = rng(2);
    for bits in [2048usize, 3072, 4096, 8192, 16384] {
        let s = bits / 64;
        let n = random_modulus(&mut rng, s);
        let ops = operands(&mut rng, &n, 1);
        check_all_variants(&n, &ops[..3]);
        let n = (random_modulus(&mut rng, s) >> 2u8) | (BigUint::one() << (bits - 3)) | BigUint::one();
        check_all_variants(&n, &operands(&mut rng, &n, 1)[..3]);
    }
}

#[test]
fn edge_moduli() {
    let mut rng = rng(3);
    let mut moduli: Vec<BigUint> = vec![BigUint::from(3u8), BigUint::from(5u8), BigUint::from(u64::MAX)];
    for k in [
        2usize, 63, 64, 65, 127, 128, 129, 512, 1023, 1024, 1025, 2048, 4096,
    ] {
        let p = BigUint::one() << k;
        moduli.push(&p - 1u8); // 2^k - 1: all-ones limbs when 64 | k
        moduli.push(&p + 1u8); // just above a power of two
        if k >= 64 {
            // Top limb equal to 1, random below it.
            let low = random_modulus(&mut rng, k / 64);
            moduli.push((BigUint::one() << (64 * (k / 64))) + low);
        }
    }
    for n in &moduli {
        let ops = operands(&mut rng, n, 3);
        check_all_variants(n, &ops);
    }
}

#[test]
fn almost_keeps_outputs_below_2n_when_fed_back() {
    // The raw kernel, without the extra reduction: inputs and outputs < 2N.
    let mut rng = rng(4);
    for s in [1usize, 2, 5, 16, 32] {
        let n = (random_modulus(&mut rng, s) >> 2u8) | (BigUint::one() << (64 * s - 3)) | BigUint::one();
        let nl = limbs(&n, s);
        let ctx = MontContext::new(&nl).unwrap();
        let two_n = &n << 1u8;
        let mut x = &two_n - 1u8; // worst case input
        let mut scratch = ctx.scratch();
        for _ in 0..50 {
            let y = random_below(&mut rng, &two_n);
            let mut out = vec![0; s];
            almost::mont_mul(
                &mut out,
                &limbs(&x, s),
                &limbs(&y, s),
                &nl,
                ctx.n0(),
                &mut scratch,
            );
            let got = big(&out);
            assert!(got < two_n, "almost output {got:x} >= 2N");
            let r = BigUint::one() << (64 * s);
            assert_eq!((&got * r) % &n, (&x * &y) % &n);
            x = got;
        }
    }
}

#[test]
fn conversions_and_r_squared() {
    let mut rng = rng(5);
    for s in [1usize, 2, 3, 8, 33, 64] {
        let n = random_modulus(&mut rng, s);
        let ctx = MontContext::new(&limbs(&n, s)).unwrap();
        let r = BigUint::one() << (64 * s);
        assert_eq!(big(ctx.r_squared()), (&r * &r) % &n);
        let x = random_below(&mut rng, &n);
        let xm = ctx.to_mont(&limbs(&x, s)).unwrap();
        assert_eq!(big(&xm), (&x * &r) % &n);
        assert_eq!(big(&ctx.from_mont(&xm).unwrap()), x);
    }
}

#[test]
fn unreduced_operands_are_errors() {
    let ctx = MontContext::from_hex("f1").unwrap();
    for v in Variant::ALL {
        assert_eq!(ctx.square(v, &[241]), Err(Error::OperandNotReduced));
        assert_eq!(ctx.square(v, &[5, 1]), Err(Error::OperandNotReduced));
    }
    assert_eq!(
        ctx.mul(Variant::Cios, &[1], &[241]),
        Err(Error::OperandNotReduced)
    );
    assert_eq!(ctx.mul(Variant::Sqr, &[1], &[1]), Err(Error::SquareOnly));
    assert_eq!(ctx.mul(Variant::KaratsubaSqr, &[1], &[1]), Err(Error::SquareOnly));
    // High zero limbs are fine.
    assert!(ctx.mul(Variant::Cios, &[5, 0, 0], &[7]).is_ok());
}

/// The portable path's product (`mont::fips_fixed`: FIPS with the limb
/// count a compile-time constant) against num-bigint at every size it fixes
/// and at sizes it leaves to the general code, edge operands included.
#[test]
fn fips_fixed_at_every_fixed_size() {
    let mut rng = rng(7);
    for s in [8usize, 12, 16, 24, 32, 48, 64, 5, 20, 40] {
        for _ in 0..3 {
            let n = random_modulus(&mut rng, s);
            let ctx = MontContext::new(&limbs(&n, s)).unwrap();
            let ops = operands(&mut rng, &n, 3);
            for (i, a) in ops.iter().enumerate() {
                for b in ops.iter().cycle().skip(i).take(3) {
                    let mut out = vec![0u64; s];
                    redc::mont::fips_fixed::mont_mul(
                        &mut out,
                        &limbs(a, s),
                        &limbs(b, s),
                        ctx.modulus(),
                        ctx.n0(),
                        &mut ctx.scratch(),
                    );
                    assert_mont_product(&out, a, b, &n, &format!("fips_fixed s={s}"));
                }
            }
        }
    }
}
