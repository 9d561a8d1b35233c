//! The hardware models against the software library (`redc::mont`): a
//! square-and-multiply exponentiation in the library's Montgomery domain,
//! and Montgomery products compared through `x·R_hw ≡ y·R_sw (mod n)`.

use num_bigint::{BigUint, RandBigInt};
use rand::{SeedableRng, rngs::StdRng};
use redc::mont::{MontContext, Variant};
use redc_hw::csa_mont::CsaDesign;
use redc_hw::{csa_exp, csa_mont, hrm, qpipe};

fn limbs(x: &BigUint) -> Vec<u64> {
    let mut v = x.to_u64_digits();
    if v.is_empty() {
        v.push(0);
    }
    v
}

fn big(x: &[u64]) -> BigUint {
    BigUint::from_bytes_le(&x.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>())
}

/// `b^e mod n` with the software library's Montgomery products.
fn sw_pow(ctx: &MontContext, b: &BigUint, e: &BigUint) -> BigUint {
    let mut acc = ctx.to_mont(&[1]).unwrap();
    let mut p = ctx.to_mont(&limbs(b)).unwrap();
    for i in 0..e.bits() {
        if e.bit(i) {
            acc = ctx.mul(Variant::DEFAULT, &acc, &p).unwrap();
        }
        p = ctx.square(Variant::DEFAULT, &p).unwrap();
    }
    big(&ctx.from_mont(&acc).unwrap())
}

fn modulus(rng: &mut StdRng, bits: u64) -> BigUint {
    let mut n = rng.gen_biguint(bits);
    n.set_bit(bits - 1, true);
    n.set_bit(0, true);
    n
}

#[test]
fn modexp_matches_software_library() {
    let mut rng = StdRng::seed_from_u64(61);
    for (bits, eb) in [
        (8u64, 8u64),
        (61, 61),
        (130, 64),
        (256, 256),
        (521, 100),
        (1024, 24),
        (2048, 12),
    ] {
        let n = modulus(&mut rng, bits);
        let ctx = MontContext::new(&limbs(&n)).unwrap();
        let b = rng.gen_biguint_below(&n);
        let e = rng.gen_biguint(eb);
        let want = sw_pow(&ctx, &b, &e);
        for d in [CsaDesign::FiveToTwo, CsaDesign::FourToTwo] {
            assert_eq!(
                csa_exp::modexp(d, &n, &b, &e).unwrap().result,
                want,
                "{d:?} {bits}"
            );
        }
        for k in [2u32, 16, 32, 64] {
            assert_eq!(
                hrm::modexp(&n, &b, &e, k).unwrap().result,
                want,
                "hrm k={k} {bits}"
            );
        }
    }
}

#[test]
fn montmul_matches_software_library() {
    let mut rng = StdRng::seed_from_u64(62);
    for bits in [8u64, 64, 65, 200, 512, 1024, 2048] {
        let n = modulus(&mut rng, bits);
        let ctx = MontContext::new(&limbs(&n)).unwrap();
        let r_sw = BigUint::from(1u32) << (64 * ctx.limbs());
        let a = rng.gen_biguint_below(&n);
        let b = rng.gen_biguint_below(&n);
        let sw = big(&ctx.mul(Variant::DEFAULT, &limbs(&a), &limbs(&b)).unwrap());
        let lhs = |x: &BigUint, r_bits: u64| x * ((BigUint::from(1u32) << r_bits) % &n) % &n;
        let rhs = &sw * (&r_sw % &n) % &n;
        for d in [CsaDesign::FiveToTwo, CsaDesign::FourToTwo] {
            let rep = csa_mont::montmul(d, &n, &a, &b).unwrap();
            assert_eq!(lhs(&rep.result, rep.r_bits as u64), rhs);
        }
        let rep = hrm::montmul(&n, &a, &b, 32).unwrap();
        assert_eq!(lhs(&rep.result, rep.r_bits), rhs);
        for d in 0..=4 {
            let rep = qpipe::montmul(&n, &a, &b, 4, d).unwrap();
            assert_eq!(lhs(&rep.result, rep.r_bits), rhs);
        }
    }
}
