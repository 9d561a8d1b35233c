//! The Karatsuba product and squaring against num-bigint (the oracle) at
//! every limb count from 1 to 256 and at random sizes of 300 to 600 limbs,
//! with the recursion forced down to 2 limbs as well as at the library's
//! threshold; and the Karatsuba Montgomery variants against num-bigint and
//! against the schoolbook variants (CIOS, dedicated squaring).

mod common;

use common::*;
use num_bigint::BigUint;
use num_traits::One;
use proptest::prelude::*;
use rand::Rng;
use rand::rngs::StdRng;
use redc::mont::karatsuba::{self, MUL_THRESHOLD, SQR_THRESHOLD};
use redc::mont::{MontContext, Variant};

/// Operand pairs at n limbs: all ones (every carry at its bound), equal
/// halves (a zero |A0 - A1|), and random pairs.
fn pairs(rng: &mut StdRng, n: usize, random: usize) -> Vec<(Vec<u64>, Vec<u64>)> {
    let ones = vec![u64::MAX; n];
    let mut halves: Vec<u64> = (0..n).map(|_| rng.r#gen()).collect();
    let h = n / 2;
    halves.copy_within(0..h, n - h);
    let mut v = vec![
        (ones.clone(), ones.clone()),
        (halves.clone(), ones),
        (halves.clone(), halves),
    ];
    for _ in 0..random {
        let a = (0..n).map(|_| rng.r#gen()).collect();
        let b = (0..n).map(|_| rng.r#gen()).collect();
        v.push((a, b));
    }
    v
}

/// Karatsuba product and square of `a`, `b` at the given threshold, each
/// checked against num-bigint.
fn check_product(threshold: usize, a: &[u64], b: &[u64]) {
    let n = a.len();
    let mut work = vec![0u64; karatsuba::work_len_at(threshold, n)];
    let mut r = vec![0u64; 2 * n];
    karatsuba::mul_at(threshold, &mut r, a, b, &mut work);
    assert_eq!(big(&r), big(a) * big(b), "product, n={n} threshold={threshold}");
    karatsuba::square_at(threshold, &mut r, a, &mut work);
    assert_eq!(big(&r), big(a) * big(a), "square, n={n} threshold={threshold}");
}

#[test]
fn products_at_every_limb_count_1_to_256() {
    let mut rng = rng(41);
    for n in 1..=256 {
        for (a, b) in pairs(&mut rng, n, 2) {
            for threshold in [2, 3, MUL_THRESHOLD, SQR_THRESHOLD] {
                check_product(threshold, &a, &b);
            }
        }
    }
}

#[test]
fn products_at_random_sizes_300_to_600() {
    let mut rng = rng(42);
    for _ in 0..6 {
        let n = rng.gen_range(300..=600);
        for (a, b) in pairs(&mut rng, n, 1) {
            for threshold in [2, MUL_THRESHOLD, SQR_THRESHOLD] {
                check_product(threshold, &a, &b);
            }
        }
    }
}

/// Both Karatsuba variants on modulus `n` against num-bigint, CIOS and the
/// dedicated squaring.
fn check_montgomery(n: &BigUint, ops: &[BigUint]) {
    let s = n.bits().div_ceil(64) as usize;
    let ctx = MontContext::new(&limbs(n, s)).unwrap();
    for (i, a) in ops.iter().enumerate() {
        let al = limbs(a, s);
        let sq = ctx.square(Variant::KaratsubaSqr, &al).unwrap();
        assert_mont_product(&sq, a, a, n, &format!("karatsuba-sqr s={s}"));
        assert_eq!(
            sq,
            ctx.square(Variant::Sqr, &al).unwrap(),
            "karatsuba-sqr = sqr, s={s}"
        );
        let b = &ops[(i + 1) % ops.len()];
        let bl = limbs(b, s);
        let ab = ctx.mul(Variant::Karatsuba, &al, &bl).unwrap();
        assert_mont_product(&ab, a, b, n, &format!("karatsuba s={s}"));
        assert_eq!(
            ab,
            ctx.mul(Variant::Cios, &al, &bl).unwrap(),
            "karatsuba = cios, s={s}"
        );
    }
}

#[test]
fn montgomery_at_every_limb_count_1_to_256() {
    let mut rng = rng(43);
    for s in 1..=256 {
        let n = random_modulus(&mut rng, s);
        let mut ops = vec![&n - 1u8];
        ops.extend((0..2).map(|_| random_below(&mut rng, &n)));
        check_montgomery(&n, &ops);
    }
}

#[test]
fn montgomery_at_random_sizes_300_to_600() {
    let mut rng = rng(44);
    for _ in 0..4 {
        let s = rng.gen_range(300..=600);
        // N = W^s - 1: every limb of N full, and of N - 1 all but the lowest.
        let n = (BigUint::one() << (64 * s)) - 1u8;
        check_montgomery(&n, &[&n - 1u8, random_below(&mut rng, &n)]);
        let n = random_modulus(&mut rng, s);
        check_montgomery(&n, &operands(&mut rng, &n, 1));
    }
}

fn sized_pair() -> impl Strategy<Value = (usize, Vec<u64>, Vec<u64>)> {
    (2usize..9, 1usize..80).prop_flat_map(|(t, n)| {
        (
            Just(t),
            prop::collection::vec(any::<u64>(), n),
            prop::collection::vec(any::<u64>(), n),
        )
    })
}

proptest! {
    #[test]
    fn product_matches_oracle_at_any_threshold((t, a, b) in sized_pair()) {
        let n = a.len();
        let mut work = vec![0u64; karatsuba::work_len_at(t, n)];
        let mut r = vec![0u64; 2 * n];
        karatsuba::mul_at(t, &mut r, &a, &b, &mut work);
        prop_assert_eq!(big(&r), big(&a) * big(&b));
        karatsuba::square_at(t, &mut r, &b, &mut work);
        prop_assert_eq!(big(&r), big(&b) * big(&b));
    }
}

/// The two kernels drive an exponentiation (the engine's scratch is
/// `scratch_len`, which holds the Karatsuba workspace) below, at and above
/// both thresholds.
#[test]
fn exponentiation_with_the_karatsuba_kernels() {
    let mut rng = rng(45);
    for s in [1usize, 23, 24, 39, 40, 64, 97] {
        let n = random_modulus(&mut rng, s);
        let e = redc::exp::MontEngine::with_kernels(
            &limbs(&n, s),
            Variant::Karatsuba.kernel(),
            Variant::KaratsubaSqr.kernel(),
        )
        .unwrap();
        let (x, d) = (random_below(&mut rng, &n), random_below(&mut rng, &n));
        let got = e.pow_secret(&limbs(&x, s), &limbs(&d, s)).unwrap();
        assert_eq!(big(&got), x.modpow(&d, &n), "s={s}");
    }
}
