//! Every model against an independent oracle (num-bigint's `modpow` and a
//! modular inverse computed here), and every simulated cycle count against
//! the paper's closed form.

use num_bigint::{BigInt, BigUint, RandBigInt};
use num_integer::Integer;
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng, rngs::StdRng};
use redc_hw::csa_mont::CsaDesign;
use redc_hw::{csa_exp, csa_mont, formulas, hrm, qpipe, window};

const DESIGNS: [CsaDesign; 2] = [CsaDesign::FiveToTwo, CsaDesign::FourToTwo];

fn inv(a: &BigUint, m: &BigUint) -> BigUint {
    let (a, m) = (BigInt::from(a.clone()), BigInt::from(m.clone()));
    let g = a.extended_gcd(&m);
    assert!(g.gcd.is_one());
    g.x.mod_floor(&m).to_biguint().unwrap()
}

fn modulus(rng: &mut StdRng, bits: u64) -> BigUint {
    let mut n = rng.gen_biguint(bits);
    n.set_bit(bits - 1, true);
    n.set_bit(0, true);
    if n < BigUint::from(3u32) {
        n = BigUint::from(3u32);
    }
    n
}

/// `(base, exp)` edge cases plus a random pair.
fn cases(rng: &mut StdRng, n: &BigUint, exp_bits: u64) -> Vec<(BigUint, BigUint)> {
    let one = BigUint::one();
    let r = rng.gen_biguint_below(n);
    let e = rng.gen_biguint(exp_bits);
    vec![
        (r.clone(), BigUint::zero()),
        (r.clone(), one.clone()),
        (BigUint::zero(), e.clone()),
        (one.clone(), e.clone()),
        (n - 1u32, e.clone()),
        (r, e),
    ]
}

#[test]
fn csa_montmul_exact_and_cycles() {
    let mut rng = StdRng::seed_from_u64(11);
    for bits in [8u64, 9, 13, 31, 64, 65, 127, 256, 300, 512, 1024, 2048] {
        let n = modulus(&mut rng, bits);
        let k = n.bits();
        let rinv = inv(&((BigUint::one() << (k + 2)) % &n), &n);
        for d in DESIGNS {
            for (a, b) in [
                (rng.gen_biguint_below(&n), rng.gen_biguint_below(&n)),
                (BigUint::zero(), rng.gen_biguint_below(&n)),
                (&n - 1u32, &n - 1u32),
                (BigUint::one(), BigUint::one()),
            ] {
                let rep = csa_mont::montmul(d, &n, &a, &b).unwrap();
                assert_eq!(rep.result, &a * &b * &rinv % &n, "{d:?} {bits}");
                assert_eq!(rep.r_bits as u64, k + 2);
                let four = d == CsaDesign::FourToTwo;
                // one clock more than Table 1: the k + 2 iterations Walter's bound needs
                assert_eq!(rep.cycles, formulas::mcivor_mult_cycles(k, four) + 1);
                assert_eq!(rep.total_cycles, rep.cycles + 1 + k + 1);
            }
        }
    }
}

#[test]
fn csa_modexp_exact_and_cycles() {
    let mut rng = StdRng::seed_from_u64(12);
    // (modulus bits, exponent bits): full-length exponents up to 512 bits,
    // short ones for the large moduli (bit-serial cost is O(k * k_e)).
    for (bits, eb) in [
        (8u64, 8u64),
        (9, 20),
        (17, 17),
        (64, 64),
        (100, 100),
        (256, 256),
        (512, 512),
        (1024, 17),
        (2048, 17),
    ] {
        let n = modulus(&mut rng, bits);
        let k = n.bits();
        for (base, e) in cases(&mut rng, &n, eb) {
            for d in DESIGNS {
                let rep = csa_exp::modexp(d, &n, &base, &e).unwrap();
                assert_eq!(rep.result, base.modpow(&e, &n), "{d:?} n={n} b={base} e={e}");
                let ke = e.bits();
                let four = d == CsaDesign::FourToTwo;
                assert_eq!(rep.cycles, formulas::model_csa_exp_cycles(k, ke, four));
                assert_eq!(rep.total_cycles, rep.cycles);
                if k >= 256 && !four {
                    let paper = formulas::mcivor_exp_cycles(k, ke) as f64;
                    assert!((rep.cycles as f64 / paper - 1.0).abs() < 0.01);
                }
            }
        }
    }
}

#[test]
fn csa_four_to_two_within_one_percent_of_table4_form() {
    // 004 gives no exponentiation count for Alg. 3; its Table 1 says one
    // product takes one clock more than Alg. 2, so (k + 3)(k_e + 3) is the
    // paper-style reference.
    let mut rng = StdRng::seed_from_u64(13);
    let n = modulus(&mut rng, 256);
    let e = rng.gen_biguint(256);
    let b = rng.gen_biguint_below(&n);
    let rep = csa_exp::modexp(CsaDesign::FourToTwo, &n, &b, &e).unwrap();
    let reference = (256 + 3) * (e.bits() + 3);
    assert!((rep.cycles as f64 / reference as f64 - 1.0).abs() < 0.01);
}

#[test]
fn composite_modulus_zero_result_is_reduced() {
    let n = BigUint::from(9u32);
    let b = BigUint::from(3u32);
    let e = BigUint::from(2u32);
    for d in DESIGNS {
        assert_eq!(csa_exp::modexp(d, &n, &b, &e).unwrap().result, BigUint::zero());
    }
    for k in [2, 3, 8, 32] {
        assert_eq!(hrm::modexp(&n, &b, &e, k).unwrap().result, BigUint::zero());
    }
}

#[test]
fn hrm_modexp_exact_and_eq1() {
    let mut rng = StdRng::seed_from_u64(21);
    for (bits, eb, radices) in [
        (8u64, 8u64, vec![2u32, 3, 5, 8, 64]),
        (13, 30, vec![2, 4, 7, 16]),
        (64, 64, vec![2, 8, 32, 63, 64]),
        (200, 100, vec![3, 16, 32]),
        (256, 256, vec![16, 32, 64]),
        (512, 64, vec![8, 32, 64]),
        (1024, 40, vec![32, 64]),
        (2048, 20, vec![32, 64]),
    ] {
        let n = modulus(&mut rng, bits);
        for (base, e) in cases(&mut rng, &n, eb) {
            for &k in &radices {
                let rep = hrm::modexp(&n, &base, &e, k).unwrap();
                assert_eq!(rep.result, base.modpow(&e, &n), "k={k} n={n} b={base} e={e}");
                let m = n.bits().div_ceil(k as u64);
                assert_eq!(rep.m as u64, m);
                assert_eq!(rep.units as u64, m + 3);
                let l = e.bits();
                if l > 0 {
                    assert_eq!(rep.cycles, formulas::zhao_eq1(l, m), "eq. (1), k={k} m={m} l={l}");
                } else {
                    assert_eq!(rep.cycles, 0);
                }
                // pre pass + post pass are each eq. (1) with l = 1
                let red = k as u64 * (m + 1) + 1 - n.bits() + 1;
                assert_eq!(rep.total_cycles, rep.cycles + 2 * formulas::zhao_eq1(1, m) + red);
            }
        }
    }
}

#[test]
fn hrm_montmul_exact() {
    let mut rng = StdRng::seed_from_u64(22);
    for bits in [8u64, 30, 64, 129, 256, 1000, 2048] {
        let n = modulus(&mut rng, bits);
        for k in [2u32, 5, 17, 32, 64] {
            let pipe = hrm::HrmPipeline::new(&n, k).unwrap();
            let rinv = inv(&((BigUint::one() << pipe.r_bits()) % &n), &n);
            let a = rng.gen_biguint_below(&n);
            let b = rng.gen_biguint_below(&n);
            let rep = pipe.montmul(&a, &b).unwrap();
            assert_eq!(rep.result, &a * &b * &rinv % &n);
            assert_eq!(rep.cycles, formulas::zhao_eq1(1, pipe.m() as u64));
        }
    }
}

#[test]
fn qpipe_depths_0_to_4() {
    let mut rng = StdRng::seed_from_u64(31);
    for bits in [8u64, 15, 64, 200, 256, 512, 1024, 2048] {
        let n = modulus(&mut rng, bits);
        for p in [1u32, 2, 3, 4, 8, 16, 32] {
            if bits >= 1024 && p < 4 {
                continue; // keep test time modest
            }
            for d in 0..=4u32 {
                let a = rng.gen_biguint_below(&n);
                let b = if d == 4 {
                    &n - 1u32
                } else {
                    rng.gen_biguint_below(&n)
                };
                let rep = qpipe::montmul(&n, &a, &b, p, d).unwrap();
                let digits = (n.bits() + 2).div_ceil(p as u64);
                assert_eq!(rep.digits, digits);
                let rinv = inv(&((BigUint::one() << rep.r_bits) % &n), &n);
                assert_eq!(rep.result, &a * &b * &rinv % &n, "p={p} d={d} n={n}");
                assert_eq!(rep.cycles, formulas::shand_qpipe_iterations(digits, d as u64));
                assert_eq!(rep.realign_cycles, d as u64);
            }
        }
    }
}

#[test]
fn window_pow_exact_and_cost_near_formula() {
    let mut rng = StdRng::seed_from_u64(41);
    let n = modulus(&mut rng, 128);
    for p in 1..=7u32 {
        for _ in 0..5 {
            let a = rng.gen_biguint_below(&n);
            let eb: u64 = rng.gen_range(1..200);
            let e = rng.gen_biguint(eb);
            let (x, count) = window::pow(&a, &e, &n, p);
            assert_eq!(x, a.modpow(&e, &n));
            assert_eq!(count, window::products(&e, p));
        }
    }
    for (k, p) in [(256u64, 5u32), (512, 4), (512, 8)] {
        let mean = window::mean_products(k, p, 3000, &mut rng);
        let formula = formulas::shand_beta_ary(k, p);
        assert!(
            (mean / formula - 1.0).abs() < 0.002,
            "k={k} p={p} {mean} {formula}"
        );
    }
}

#[test]
fn carry_completion_adds() {
    let mut rng = StdRng::seed_from_u64(51);
    for _ in 0..200 {
        let s = rng.gen_biguint(300);
        let c = rng.gen_biguint(300);
        let (v, cycles) = redc_hw::carry::complete(&s, &c);
        assert_eq!(v, &s + &c);
        assert!(cycles <= 301);
    }
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let even = BigUint::from(10u32);
    let one = BigUint::one();
    assert!(csa_exp::modexp(CsaDesign::FiveToTwo, &even, &one, &one).is_err());
    assert!(csa_mont::montmul(CsaDesign::FourToTwo, &BigUint::one(), &one, &one).is_err());
    assert!(hrm::modexp(&BigUint::from(11u32), &BigUint::from(11u32), &one, 32).is_err());
    assert!(hrm::modexp(&BigUint::from(11u32), &one, &one, 1).is_err());
    assert!(hrm::modexp(&BigUint::from(11u32), &one, &one, 65).is_err());
    assert!(qpipe::montmul(&BigUint::from(11u32), &one, &one, 2, 99).is_err());
    assert!(qpipe::montmul(&BigUint::from(11u32), &one, &one, 0, 1).is_err());
    assert!(qpipe::montmul(&BigUint::from(11u32), &BigUint::from(12u32), &one, 2, 1).is_err());
}

#[test]
fn hrm_eq1_every_radix_at_1024_bits() {
    // Every radix from 2 to 64 bits, n = 1024: the simulated loop count is
    // exactly eq. (1) and the result (checked through modexp) is exact.
    let mut rng = StdRng::seed_from_u64(23);
    let n = modulus(&mut rng, 1024);
    let e = rng.gen_biguint(16) | BigUint::one() << 15u32;
    let b = rng.gen_biguint_below(&n);
    let want = b.modpow(&e, &n);
    for k in 2..=64u32 {
        let rep = hrm::modexp(&n, &b, &e, k).unwrap();
        assert_eq!(rep.result, want, "k={k}");
        assert_eq!(
            rep.cycles,
            formulas::zhao_eq1(16, 1024u64.div_ceil(k as u64)),
            "k={k}"
        );
    }
}
