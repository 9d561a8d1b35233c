//! Exponentiation against num-bigint's modpow: the constant-time window,
//! the sliding window, the binary references, and wide reduction, on the
//! default dispatch's engine and on every backend this CPU has, forced one
//! by one (`redc::exp::Backend`).

mod common;

use common::*;
use num_bigint::{BigUint, RandBigInt};
use num_traits::{One, Zero};
use redc::exp::{MontEngine, binary, sliding, window};

/// Engines for the `s`-limb modulus `n`: the default dispatch's (named by
/// its kernels), then one per backend this process runs.
fn engines(n: &BigUint, s: usize) -> Vec<(String, MontEngine)> {
    let n = limbs(n, s);
    let default = MontEngine::new(&n).unwrap();
    let mut v = vec![(format!("default ({})", default.kernel_name()), default)];
    for &b in backends() {
        let e = MontEngine::with_backend(&n, b)
            .unwrap()
            .unwrap_or_else(|| panic!("backend {} is available but refused", b.name()));
        v.push((b.name().to_string(), e));
    }
    v
}

fn check(n: &BigUint, base: &BigUint, exp: &BigUint, exp_limbs: usize) {
    let s = n.bits().div_ceil(64) as usize;
    let b = limbs(base, s);
    let e = limbs(exp, exp_limbs);
    let want = base.modpow(exp, n);
    for (name, engine) in engines(n, s) {
        assert_eq!(
            big(&window::pow_secret(&engine, &b, &e)),
            want,
            "{name}: window n={n:x} e={exp:x}"
        );
        assert_eq!(
            big(&engine.pow_secret(&b, &e).unwrap()),
            want,
            "{name}: pow_secret n={n:x} e={exp:x}"
        );
        assert_eq!(
            big(&sliding::pow_public_vartime(&engine, &b, &e)),
            want,
            "{name}: sliding n={n:x} e={exp:x}"
        );
        assert_eq!(
            big(&binary::pow_ltr_vartime(&engine, &b, &e)),
            want,
            "{name}: ltr"
        );
        assert_eq!(
            big(&binary::pow_rtl_vartime(&engine, &b, &e)),
            want,
            "{name}: rtl"
        );
    }
}

#[test]
fn random_sizes_and_exponents() {
    let mut rng = rng(21);
    for s in [1usize, 2, 3, 5, 8, 16, 17, 24, 32] {
        let n = random_modulus(&mut rng, s);
        for exp_limbs in [1usize, 2, s] {
            let e = rng.gen_biguint(64 * exp_limbs as u64);
            let b = random_below(&mut rng, &n);
            check(&n, &b, &e, exp_limbs);
        }
    }
}

#[test]
fn edges() {
    let mut rng = rng(22);
    for s in [1usize, 4, 16] {
        let n = random_modulus(&mut rng, s);
        let all_ones = (BigUint::one() << (64 * s)) - 1u8;
        for base in [
            BigUint::zero(),
            BigUint::one(),
            &n - 1u8,
            random_below(&mut rng, &n),
        ] {
            for exp in [
                BigUint::zero(),
                BigUint::one(),
                BigUint::from(2u8),
                BigUint::from(3u8),
                BigUint::from(65537u32),
                BigUint::from(17u8),
                all_ones.clone(),
            ] {
                check(&n, &base, &exp, s);
            }
        }
    }
    // Moduli of the shapes 2^k - 1 and 2^k + 1.
    for k in [64usize, 127, 1024] {
        for n in [(BigUint::one() << k) - 1u8, (BigUint::one() << k) + 1u8] {
            let b = random_below(&mut rng, &n);
            let e = rng.gen_biguint(k as u64);
            let limbs_e = k.div_ceil(64);
            check(&n, &b, &e, limbs_e);
        }
    }
}

#[test]
fn wide_reduction() {
    let mut rng = rng(23);
    for s in [1usize, 2, 8, 16, 24] {
        let n = random_modulus(&mut rng, s);
        for (name, engine) in engines(&n, s) {
            let mut ws = engine.workspace();
            for len in [1usize, s, s + 1, 2 * s, 2 * s + 3, 5 * s] {
                let x = rng.gen_biguint(64 * len as u64);
                assert_eq!(
                    big(&engine.reduce(&limbs(&x, len), &mut ws)),
                    &x % &n,
                    "{name}: s={s} len={len}"
                );
            }
        }
    }
}

#[cfg(not(feature = "probes"))]
#[test]
fn public_dual_matches_modpow() {
    common::probes_missing("public_dual_matches_modpow (exp::pow_public_dual)");
}

#[cfg(feature = "probes")]
#[test]
fn public_dual_matches_modpow() {
    let mut rng = rng(24);
    for (sp, sq) in [(1usize, 1usize), (8, 8), (16, 16), (16, 17), (24, 24), (32, 32)] {
        let (n1, n2) = (random_modulus(&mut rng, sp), random_modulus(&mut rng, sq));
        // The two moduli's engines of one backend side by side.
        for ((name, e1), (_, e2)) in engines(&n1, sp).into_iter().zip(engines(&n2, sq)) {
            for exp in [
                BigUint::from(65537u32),
                BigUint::from(3u8),
                BigUint::from(2u8),
                BigUint::from(1u8),
                BigUint::from(0u8),
                rng.gen_biguint(100),
            ] {
                let (b1, b2) = (random_below(&mut rng, &n1), random_below(&mut rng, &n2));
                let el = limbs(&exp, 2);
                let (r1, r2) = redc::exp::pow_public_dual(&e1, &limbs(&b1, sp), &e2, &limbs(&b2, sq), &el);
                assert_eq!(big(&r1), b1.modpow(&exp, &n1), "{name}: {sp} limbs, e={exp}");
                assert_eq!(big(&r2), b2.modpow(&exp, &n2), "{name}: {sq} limbs, e={exp}");
            }
        }
    }
}
