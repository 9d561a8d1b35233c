//! The radix-2^52 kernels: the portable twin (`arch::portable52`) against
//! num-bigint, and the AVX-512 IFMA kernels (`arch::x86_64`) bit for bit
//! against the twin (almost-reduced outputs) and against num-bigint (final
//! results), at every digit count the dispatch can pick (1..=40 digits: every
//! register count 1..=10), for mul, the dedicated square, pow and the dual pow.
#![cfg(target_arch = "x86_64")]

mod common;
use common::{big, halves, halves_limbs, limbs};

use num_bigint::{BigUint, RandBigInt};
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng, rngs::StdRng};
use redc::arch::portable52::{self, Modulus52};
use redc::arch::x86_64::{self as x86, Ifma52Modulus};

fn digits_big(x: &[u64]) -> BigUint {
    x.iter()
        .rev()
        .fold(BigUint::zero(), |acc, &d| (acc << 52u32) + BigUint::from(d))
}

fn to_digits(x: &BigUint, d: usize) -> Vec<u64> {
    portable52::to_digits(&limbs(x, (52 * d).div_ceil(64) + 1), d)
}

/// A random odd modulus of exactly `bits` bits.
fn modulus_of_bits(rng: &mut StdRng, bits: u64) -> BigUint {
    let n = rng.gen_biguint(bits) | BigUint::one() | (BigUint::one() << (bits - 1));
    if n <= BigUint::from(3u8) {
        BigUint::from(5u8)
    } else {
        n
    }
}

/// Moduli worth trying at `bits`: random, 2^bits - 1, 2^(bits-1) + 1.
fn moduli(rng: &mut StdRng, bits: u64) -> Vec<BigUint> {
    let one = BigUint::one();
    let mut v = vec![modulus_of_bits(rng, bits), (&one << bits) - 1u8];
    if bits > 2 {
        v.push((&one << (bits - 1)) + 1u8);
    }
    v
}

/// Almost-Montgomery inputs below 2m: edges and random values.
fn amm_inputs(rng: &mut StdRng, m: &BigUint, random: usize) -> Vec<BigUint> {
    let two_m = m << 1u32;
    let mut v = vec![BigUint::zero(), BigUint::one(), m - 1u8, m.clone(), &two_m - 1u8];
    let top = BigUint::one() << (m.bits() - 1);
    v.push(&top - 1u8); // all-ones digits below 2^(bits - 1)
    for _ in 0..random {
        v.push(rng.gen_biguint_below(&two_m));
    }
    v
}

/// True (with a visible SKIPPED line) when the IFMA kernels cannot run here.
/// Under CI, a CPU with IFMA whose kernels were not requested away must run them.
fn skip() -> bool {
    common::skip_unavailable(
        x86::ifma_available(),
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512ifma"),
        "this CPU has AVX-512 IFMA but the IFMA kernels are unavailable: refusing to skip under CI",
        "SKIPPED: AVX-512 IFMA tests (CPU lacks IFMA, or REDC_KERNEL/REDC_FORCE_PORTABLE excludes it)",
    )
}

/// Bit sizes that reach every digit count 1..=40 and the RSA CRT sizes.
#[cfg(feature = "probes")]
fn sizes() -> Vec<u64> {
    let mut v: Vec<u64> = (1..=40u64).map(|d| 52 * d - 2).collect(); // largest for d digits
    v.extend([5, 64, 100, 512, 1000, 1023, 1024, 1535, 1536, 2047, 2048, 2078]);
    v
}

/// The per-call kernel tests below need the `probes` feature.
#[cfg(not(feature = "probes"))]
#[test]
fn per_call_kernel_tests_need_probes() {
    common::probes_missing("the per-call IFMA kernel tests (dual, pipelined, single, eight-lane)");
}

#[test]
fn portable_amm_matches_bigint() {
    let mut rng = StdRng::seed_from_u64(1);
    for bits in [5u64, 50, 64, 200, 1024, 1536, 2048] {
        for n in moduli(&mut rng, bits) {
            let md = Modulus52::new(&limbs(&n, (bits as usize).div_ceil(64))).unwrap();
            let d = md.d;
            assert!(BigUint::from(4u8) * &n < BigUint::one() << (52 * d));
            let r = BigUint::one() << (52 * d);
            assert_eq!(digits_big(&md.rr), (&r * &r) % &n, "R^2 mod n");
            for a in amm_inputs(&mut rng, &n, 3) {
                for b in amm_inputs(&mut rng, &n, 1) {
                    let mut out = vec![0u64; d];
                    portable52::amm_mul(&mut out, &to_digits(&a, d), &to_digits(&b, d), &md.m, md.k0);
                    let g = digits_big(&out);
                    assert!(g < (&n << 1u32), "almost bound");
                    assert_eq!((&g * &r) % &n, (&a * &b) % &n, "amm value");
                }
            }
        }
    }
}

#[cfg(feature = "probes")]
fn check_kernel(rng: &mut StdRng, n1: &BigUint, n2: &BigUint, random: usize) {
    let s = (n1.bits().max(n2.bits()) as usize).div_ceil(64);
    let (p, q) = (
        Ifma52Modulus::new(&limbs(n1, s)).unwrap(),
        Ifma52Modulus::new(&limbs(n2, s)).unwrap(),
    );
    let (mp, mq) = (p.radix52(), q.radix52());
    let d = mp.d;
    assert_eq!(d, mq.d);
    let ins_p = amm_inputs(rng, n1, random);
    let ins_q = amm_inputs(rng, n2, random);
    for (i, a) in ins_p.iter().enumerate() {
        for (j, b) in ins_p.iter().enumerate().step_by(2) {
            let (aq, bq) = (&ins_q[(i + j) % ins_q.len()], &ins_q[j]);
            let (ap, bp, aqd, bqd) = (
                to_digits(a, d),
                to_digits(b, d),
                to_digits(aq, d),
                to_digits(bq, d),
            );
            // Multiplication.
            let (gp, gq) = x86::amm52_dual(&p, &ap, &bp, &q, &aqd, &bqd, false, 1).unwrap();
            let mut ep = vec![0; d];
            let mut eq = vec![0; d];
            portable52::amm_mul(&mut ep, &ap, &bp, &mp.m, mp.k0);
            portable52::amm_mul(&mut eq, &aqd, &bqd, &mq.m, mq.k0);
            assert_eq!(gp, ep, "mul p: d={d} n={n1:x} a={a:x} b={b:x}");
            assert_eq!(gq, eq, "mul q: d={d} n={n2:x} a={aq:x} b={bq:x}");
            // The same product with the quotient chain in xmm registers.
            let xmm = x86::amm52_dual_xmm(&p, &ap, &bp, &q, &aqd, &bqd, false, 1).unwrap();
            assert_eq!(
                xmm,
                (ep.clone(), eq.clone()),
                "xmm mul: d={d} n={n1:x} a={a:x} b={b:x}"
            );
            // Dedicated squaring (b ignored).
            if j == 0 {
                let (sp, sq) = x86::amm52_dual(&p, &ap, &bp, &q, &aqd, &bqd, true, 1).unwrap();
                portable52::amm_sqr(&mut ep, &ap, &mp.m, mp.k0);
                portable52::amm_sqr(&mut eq, &aqd, &mq.m, mq.k0);
                assert_eq!(sp, ep, "sqr p: d={d} n={n1:x} a={a:x}");
                assert_eq!(sq, eq, "sqr q: d={d} n={n2:x} a={aq:x}");
                let xmm = x86::amm52_dual_xmm(&p, &ap, &bp, &q, &aqd, &bqd, true, 1).unwrap();
                assert_eq!(xmm, (ep.clone(), eq.clone()), "xmm sqr: d={d} n={n1:x} a={a:x}");
                assert!(sp.iter().chain(&sq).all(|&x| x <= portable52::MASK));
            }
        }
    }
}

#[cfg(feature = "probes")]
#[test]
fn ifma_mul_and_sqr_match_portable_every_size() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(2);
    for bits in sizes() {
        let ms = moduli(&mut rng, bits);
        for (k, n1) in ms.iter().enumerate() {
            let n2 = &ms[(k + 1) % ms.len()];
            check_kernel(&mut rng, n1, n2, 2);
        }
    }
}

#[cfg(feature = "probes")]
#[test]
fn ifma_sqr_chains_match_portable() {
    // Long chains of squarings and products at the RSA sizes: outputs feed inputs,
    // so every reachable almost-reduced value shape is exercised.
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(3);
    for bits in [1024u64, 1536, 2048] {
        let (n1, n2) = (
            modulus_of_bits(&mut rng, bits),
            modulus_of_bits(&mut rng, bits - 1),
        );
        let s = (bits as usize).div_ceil(64);
        let (p, q) = (
            Ifma52Modulus::new(&limbs(&n1, s)).unwrap(),
            Ifma52Modulus::new(&limbs(&n2, s)).unwrap(),
        );
        let (mp, mq) = (p.radix52(), q.radix52());
        let d = mp.d;
        let ap = to_digits(&rng.gen_biguint_below(&n1), d);
        let aq = to_digits(&rng.gen_biguint_below(&n2), d);
        for sqr in [true, false] {
            let (gp, gq) = x86::amm52_dual(&p, &ap, &ap, &q, &aq, &aq, sqr, 50).unwrap();
            let (mut xp, mut xq) = (ap.clone(), aq.clone());
            let mut t = vec![0; d];
            for _ in 0..50 {
                portable52::amm_mul(&mut t, &xp.clone(), &ap, &mp.m, mp.k0);
                if sqr {
                    portable52::amm_sqr(&mut t, &xp, &mp.m, mp.k0);
                }
                xp.copy_from_slice(&t);
                portable52::amm_mul(&mut t, &xq.clone(), &aq, &mq.m, mq.k0);
                if sqr {
                    portable52::amm_sqr(&mut t, &xq, &mq.m, mq.k0);
                }
                xq.copy_from_slice(&t);
            }
            let xmm = x86::amm52_dual_xmm(&p, &ap, &ap, &q, &aq, &aq, sqr, 50).unwrap();
            assert_eq!(xmm, (xp.clone(), xq.clone()), "xmm chain bits={bits} sqr={sqr}");
            assert_eq!((gp, gq), (xp, xq), "chain bits={bits} sqr={sqr}");
        }
    }
}

fn exponents(rng: &mut StdRng, limbs_: usize) -> Vec<Vec<u64>> {
    let mut v = vec![vec![0u64; limbs_], vec![u64::MAX; limbs_]];
    let mut one = vec![0u64; limbs_];
    one[0] = 1;
    v.push(one);
    v.push((0..limbs_).map(|_| rng.r#gen()).collect());
    v
}

#[test]
fn pow_secret_matches_bigint_and_portable() {
    let mut rng = StdRng::seed_from_u64(4);
    let ifma = !skip();
    for bits in [5u64, 64, 100, 520, 1024, 1100, 1536, 2048, 2078] {
        let n = modulus_of_bits(&mut rng, bits);
        let s = (bits as usize).div_ceil(64);
        let m = Ifma52Modulus::new_unchecked_cpu(&limbs(&n, s)).unwrap();
        let mut bases = vec![
            BigUint::zero(),
            BigUint::one(),
            &n - 1u8,
            rng.gen_biguint_below(&n),
        ];
        if bits == 2078 {
            bases.truncate(2);
        }
        for base in &bases {
            let elen = if bits > 1000 { s } else { rng.gen_range(1..=s + 1) };
            for e in exponents(&mut rng, elen) {
                let want = limbs(&base.modpow(&big(&e), &n), s);
                let b = limbs(base, s);
                assert_eq!(
                    portable52::pow(m.radix52(), &b, &e),
                    want,
                    "portable pow bits={bits}"
                );
                if ifma {
                    assert_eq!(
                        x86::pow_secret(&m, &b, &e),
                        want,
                        "ifma pow bits={bits} base={base:x}"
                    );
                }
            }
        }
    }
}

#[test]
fn pow_public_matches_bigint() {
    let mut rng = StdRng::seed_from_u64(6);
    for bits in [5u64, 64, 200, 1024, 1536, 2048, 2078] {
        let n = modulus_of_bits(&mut rng, bits);
        let s = (bits as usize).div_ceil(64);
        let m = Ifma52Modulus::new_unchecked_cpu(&limbs(&n, s)).unwrap();
        let exps: Vec<Vec<u64>> = vec![
            vec![0],
            vec![1],
            vec![3],
            vec![65537],
            vec![0, 0],
            vec![rng.r#gen(), rng.r#gen()],
            vec![u64::MAX; 3],
        ];
        for base in [
            BigUint::zero(),
            BigUint::one(),
            &n - 1u8,
            rng.gen_biguint_below(&n),
        ] {
            for e in &exps {
                let want = limbs(&base.modpow(&big(e), &n), s);
                assert_eq!(
                    x86::pow_public(&m, &limbs(&base, s), e),
                    want,
                    "pow_public bits={bits} e={e:?}"
                );
            }
        }
    }
}

#[cfg(feature = "probes")]
#[test]
fn pow_secret_dual_matches_bigint() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(5);
    for (bp_bits, bq_bits) in [
        (1024u64, 1024u64),
        (1024, 1020),
        (1536, 1535),
        (2048, 2047),
        (300, 310),
        (64, 60),
    ] {
        let (np, nq) = (
            modulus_of_bits(&mut rng, bp_bits),
            modulus_of_bits(&mut rng, bq_bits),
        );
        let (sp, sq) = ((bp_bits as usize).div_ceil(64), (bq_bits as usize).div_ceil(64));
        let p = Ifma52Modulus::new(&limbs(&np, sp)).unwrap();
        let q = Ifma52Modulus::new(&limbs(&nq, sq)).unwrap();
        for k in 0..3 {
            let bp = if k == 0 {
                BigUint::zero()
            } else {
                rng.gen_biguint_below(&np)
            };
            let bq = if k == 1 {
                &nq - 1u8
            } else {
                rng.gen_biguint_below(&nq)
            };
            let ep: Vec<u64> = (0..sp).map(|_| rng.r#gen()).collect();
            let eq: Vec<u64> = if k == 2 {
                vec![u64::MAX; sq + 1]
            } else {
                (0..sq).map(|_| rng.r#gen()).collect()
            };
            let (gp, gq) = x86::pow_secret_dual(&p, &limbs(&bp, sp), &ep, &q, &limbs(&bq, sq), &eq).unwrap();
            assert_eq!(gp, limbs(&bp.modpow(&big(&ep), &np), sp), "dual p {bp_bits}");
            assert_eq!(gq, limbs(&bq.modpow(&big(&eq), &nq), sq), "dual q {bq_bits}");
        }
    }
    // Different digit counts are refused.
    let p = Ifma52Modulus::new(&limbs(&modulus_of_bits(&mut rng, 1024), 16)).unwrap();
    let q = Ifma52Modulus::new(&limbs(&modulus_of_bits(&mut rng, 1100), 18)).unwrap();
    assert!(x86::DualKey::new(&p, &q).is_none());
    let q = Ifma52Modulus::new(&limbs(&modulus_of_bits(&mut rng, 1100), 18)).unwrap();
    assert!(x86::pow_secret_dual(&p, &[1], &[1], &q, &[1], &[1]).is_none());
}

#[test]
fn unsupported_moduli_are_refused() {
    if skip() {
        return;
    }
    assert!(Ifma52Modulus::new(&[]).is_none());
    assert!(Ifma52Modulus::new(&[1]).is_none());
    assert!(Ifma52Modulus::new(&[10, 0]).is_none());
    assert!(Ifma52Modulus::new(&[3, 0, 0]).is_some());
    let mut big_n = vec![u64::MAX; 33];
    big_n[32] = 1 << 30; // 2079 bits: 41 digits
    assert!(Ifma52Modulus::new(&big_n).is_none());
    big_n[32] = (1 << 30) - 1; // 2078 bits: 40 digits
    assert!(Ifma52Modulus::new(&big_n).is_some());
}

/// The pipelined form M of a modulus against num-bigint: M = 0 mod m,
/// M = -1 mod 2^104, 4M < R, R^2 mod M; and where it exists (the sizes
/// that leave 106 bits of margin in their digit count).
#[test]
fn pipelined_modulus_matches_bigint() {
    let mut rng = StdRng::seed_from_u64(31);
    let mut bits: Vec<u64> = (1..=10u64)
        .flat_map(|nr| [208 * nr - 106, 208 * nr - 105])
        .collect();
    bits.extend([60, 512, 1000, 1024, 1535, 1536, 2048]);
    for b in bits {
        if b < 2 {
            continue;
        }
        for n in moduli(&mut rng, b) {
            let md = Modulus52::new(&limbs(&n, (b as usize).div_ceil(64))).unwrap();
            let d = md.d;
            let fits = b as usize + 106 <= 52 * d;
            let Some(pm) = md.pipelined() else {
                assert!(!fits, "{b} bits: a pipelined form was expected");
                continue;
            };
            assert!(fits, "{b} bits: no pipelined form expected at {d} digits");
            let big_m = digits_big(&pm.m);
            let r = BigUint::one() << (52 * d);
            assert!(BigUint::from(4u8) * &big_m < r, "{b} bits: 4M < R");
            assert!((&big_m % &n).is_zero(), "{b} bits: M is a multiple of m");
            let low = BigUint::one() << 104u32;
            assert_eq!(&big_m % &low, &low - 1u8, "{b} bits: M = -1 mod 2^104");
            assert_eq!(digits_big(&pm.m_plus_one), &big_m + 1u8);
            assert_eq!(digits_big(&pm.rr), (&r * &r) % &big_m, "{b} bits: R^2 mod M");
        }
    }
}

/// The quotient-pipelined dual kernel (product and dedicated square, and
/// feedback chains) bit for bit against the portable product mod M with
/// k0 = 1, at every register count, on edge and random inputs below 2M.
#[cfg(feature = "probes")]
#[test]
fn ifma_pipelined_matches_portable() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(32);
    let mut bits: Vec<u64> = (1..=10u64).map(|nr| 208 * nr - 106).collect();
    bits.extend([900, 1535, 1536]);
    for b in bits {
        let ms = moduli(&mut rng, b);
        for (k, n1) in ms.iter().enumerate() {
            let n2 = &ms[(k + 1) % ms.len()];
            let s = (b as usize).div_ceil(64);
            let (p, q) = (
                Ifma52Modulus::new(&limbs(n1, s)).unwrap(),
                Ifma52Modulus::new(&limbs(n2, s)).unwrap(),
            );
            let (pp, pq) = (p.radix52().pipelined().unwrap(), q.radix52().pipelined().unwrap());
            let d = p.digits();
            let (bm_p, bm_q) = (digits_big(&pp.m), digits_big(&pq.m));
            let ins_p = amm_inputs(&mut rng, &bm_p, 3);
            let ins_q = amm_inputs(&mut rng, &bm_q, 3);
            for (i, a) in ins_p.iter().enumerate() {
                for (j, bb) in ins_p.iter().enumerate() {
                    let (aq, bq) = (&ins_q[(i + j) % ins_q.len()], &ins_q[j]);
                    let (ap, bpd, aqd, bqd) = (
                        to_digits(a, d),
                        to_digits(bb, d),
                        to_digits(aq, d),
                        to_digits(bq, d),
                    );
                    let (gp, gq) =
                        x86::amm52_dual_pipelined(&p, &ap, &bpd, &q, &aqd, &bqd, false, 1).unwrap();
                    let (mut ep, mut eq) = (vec![0; d], vec![0; d]);
                    portable52::amm_mul(&mut ep, &ap, &bpd, &pp.m, 1);
                    portable52::amm_mul(&mut eq, &aqd, &bqd, &pq.m, 1);
                    assert_eq!(gp, ep, "pipelined mul p: {b} bits a={a:x} b={bb:x}");
                    assert_eq!(gq, eq, "pipelined mul q: {b} bits a={aq:x} b={bq:x}");
                    if j == 0 {
                        let (sp, sq) =
                            x86::amm52_dual_pipelined(&p, &ap, &bpd, &q, &aqd, &bqd, true, 1).unwrap();
                        portable52::amm_sqr(&mut ep, &ap, &pp.m, 1);
                        portable52::amm_sqr(&mut eq, &aqd, &pq.m, 1);
                        assert_eq!(sp, ep, "pipelined sqr p: {b} bits a={a:x}");
                        assert_eq!(sq, eq, "pipelined sqr q: {b} bits a={aq:x}");
                    }
                }
            }
            // Chains of 50, fed back (the value stays below 2M throughout).
            let (a, aq) = (rng.gen_biguint_below(&bm_p), rng.gen_biguint_below(&bm_q));
            let (ap, aqd) = (to_digits(&a, d), to_digits(&aq, d));
            for sqr in [true, false] {
                let (gp, gq) = x86::amm52_dual_pipelined(&p, &ap, &ap, &q, &aqd, &aqd, sqr, 50).unwrap();
                let (mut xp, mut xq) = (ap.clone(), aqd.clone());
                for _ in 0..50 {
                    let (mut yp, mut yq) = (vec![0; d], vec![0; d]);
                    portable52::amm_mul(&mut yp, &xp, &ap, &pp.m, 1);
                    portable52::amm_mul(&mut yq, &xq, &aqd, &pq.m, 1);
                    if sqr {
                        portable52::amm_sqr(&mut yp, &xp, &pp.m, 1);
                        portable52::amm_sqr(&mut yq, &xq, &pq.m, 1);
                    }
                    (xp, xq) = (yp, yq);
                }
                assert_eq!((gp, gq), (xp, xq), "pipelined chain, {b} bits, sqr {sqr}");
            }
        }
    }
}

/// The unreduced input x < p q taken whole by the kernel (x = lo + hi R on
/// entry), against num-bigint: ((x f mod p)^ep, (x f mod q)^eq), for edge
/// inputs (0, 1, p, q, a multiple of p, n - 1) and random ones, every kernel
/// choice, at the RSA CRT sizes and every register count with the 5-bit
/// margin; refused (None) where the margin is missing.
#[test]
fn dual_key_wide_input_matches_bigint() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(33);
    // 208 nr - 108: pipelined, but a wide input too large for M (runs plain);
    // 208 nr - 110: pipelined with a wide input.
    let mut bits: Vec<u64> = (1..=10)
        .flat_map(|nr| [208 * nr - 5, 208 * nr - 4, 208 * nr - 108, 208 * nr - 110])
        .collect();
    bits.extend([1024, 1536, 2048]);
    for b in bits {
        let (np, nq) = (modulus_of_bits(&mut rng, b), modulus_of_bits(&mut rng, b));
        let n = &np * &nq;
        let s = (b as usize).div_ceil(64);
        let sn = (2 * b as usize).div_ceil(64);
        let p = Ifma52Modulus::new(&limbs(&np, s)).unwrap();
        let q = Ifma52Modulus::new(&limbs(&nq, s)).unwrap();
        let key = x86::DualKey::new(&p, &q).unwrap();
        let d = p.digits() as u64;
        let fits = b + 5 <= 52 * d;
        let ep: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
        let eq: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
        let (fp, fq) = (rng.gen_biguint_below(&np), rng.gen_biguint_below(&nq));
        let xs = [
            BigUint::zero(),
            BigUint::one(),
            np.clone(),
            nq.clone(),
            &np * 3u8,
            &n - 1u8,
            rng.gen_biguint_below(&n),
            rng.gen_biguint_below(&n),
        ];
        for x in &xs {
            let want = (
                limbs(&(x * &fp % &np).modpow(&big(&ep), &np), s),
                limbs(&(x * &fq % &nq).modpow(&big(&eq), &nq), s),
            );
            let xl = limbs(x, sn);
            let f = key.factor(&halves(&fp, &fq, s));
            let got = key.pow_secret_blinded_wide(&xl, &f, &ep, &eq);
            assert_eq!(got.is_some(), fits, "{b} bits: wide input accepted");
            if let Some(got) = got {
                assert_eq!(halves_limbs(&got), want, "{b} bits, x = {x:x}");
            }
            for dedicated in [true, false] {
                for pipelined in [true, false] {
                    let choices = x86::Choices {
                        dedicated,
                        pipelined,
                        ..key.choices()
                    };
                    let got = key.pow_secret_chosen(x86::Input::Wide(&xl), &ep, &eq, Some(&f), choices);
                    assert_eq!(got.is_some(), fits, "{b} bits, pipelined {pipelined}: accepted");
                    if let Some(got) = got {
                        assert_eq!(
                            halves_limbs(&got),
                            want,
                            "{b} bits, x = {x:x}, dedicated {dedicated}, pipelined {pipelined}"
                        );
                    }
                }
            }
        }
    }
}

/// A blinding factor is taken only by the key that made it: another key of
/// the same size refuses it (its f R^2 mod the other primes would give wrong
/// halves), in every entry that takes one.
#[test]
fn a_factor_of_another_key_is_refused() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(23);
    let (bits, s) = (1024u64, 16usize);
    let mut key = || {
        let (np, nq) = (modulus_of_bits(&mut rng, bits), modulus_of_bits(&mut rng, bits));
        let p = Ifma52Modulus::new(&limbs(&np, s)).unwrap();
        let q = Ifma52Modulus::new(&limbs(&nq, s)).unwrap();
        (np, nq, x86::DualKey::new(&p, &q).unwrap())
    };
    let ((np, nq, mine), (_, _, other)) = (key(), key());
    let f = mine.factor(&halves(&BigUint::one(), &BigUint::one(), s));
    let three = BigUint::from(3u8);
    let (b, e) = (halves(&three, &three, s), [5u64]);
    let want = (
        limbs(&three.modpow(&BigUint::from(5u8), &np), s),
        limbs(&three.modpow(&BigUint::from(5u8), &nq), s),
    );
    assert_eq!(halves_limbs(&mine.pow_secret_blinded(&b, &f, &e, &e)), want);
    let refused = |run: &dyn Fn()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).is_err();
    assert!(refused(&|| drop(other.pow_secret_blinded(&b, &f, &e, &e))));
    assert!(refused(&|| drop(other.pow_secret_blinded_wide(
        b.0.limbs(),
        &f,
        &e,
        &e
    ))));
    assert!(refused(&|| {
        drop(other.pow_secret_chosen(x86::Input::Halves(&b), &e, &e, Some(&f), other.choices()))
    }));
}

/// Both kernel candidates of the dual exponentiation (dedicated squaring and
/// squaring as a product) against num-bigint, at the RSA CRT sizes and at
/// every register count, whatever the calibration picked.
#[test]
fn dual_key_both_squarings_match_bigint() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(17);
    let mut bits: Vec<u64> = (1..=10).map(|nr| 208 * nr - 2).collect();
    bits.extend([1024, 1536, 2048]);
    for b in bits {
        let (np, nq) = (modulus_of_bits(&mut rng, b), modulus_of_bits(&mut rng, b));
        let s = (b as usize).div_ceil(64);
        let p = Ifma52Modulus::new(&limbs(&np, s)).unwrap();
        let q = Ifma52Modulus::new(&limbs(&nq, s)).unwrap();
        let key = x86::DualKey::new(&p, &q).unwrap();
        let (bp, bq) = (rng.gen_biguint_below(&np), rng.gen_biguint_below(&nq));
        let ep: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
        let eq: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
        let want = (
            limbs(&bp.modpow(&big(&ep), &np), s),
            limbs(&bq.modpow(&big(&eq), &nq), s),
        );
        let base = halves(&bp, &bq, s);
        for dedicated in [true, false] {
            let choices = x86::Choices {
                dedicated,
                ..key.choices()
            };
            let got = key.pow_secret_chosen(x86::Input::Halves(&base), &ep, &eq, None, choices);
            assert_eq!(
                got.as_ref().map(halves_limbs),
                Some(want.clone()),
                "{b} bits, dedicated squaring {dedicated}"
            );
        }
        // The pipelined and plain runs, where the size allows the former
        // (RSA-3072's primes: yes; RSA-2048's and RSA-4096's: no).
        let fits = b as usize + 106 <= 52 * p.digits();
        assert_eq!(key.pipelined(), fits, "{b} bits: pipelined form");
        match b {
            1536 => assert!(fits),
            1024 | 2048 => assert!(!fits),
            _ => {}
        }
        let one = key.factor(&halves(&BigUint::one(), &BigUint::one(), s));
        // Both forms of the quotient chain (xmm runs the plain form only).
        for dedicated in [true, false] {
            for (pipelined, xmm) in [(true, false), (false, false), (false, true)] {
                let choices = x86::Choices {
                    dedicated,
                    pipelined,
                    xmm,
                };
                let got = key.pow_secret_chosen(x86::Input::Halves(&base), &ep, &eq, Some(&one), choices);
                assert_eq!(
                    got.as_ref().map(halves_limbs),
                    Some(want.clone()),
                    "{b} bits, dedicated {dedicated}, pipelined {pipelined}, xmm chain {xmm}"
                );
            }
        }
        // Blinding factors entering inside the kernel: (b f)^e per half,
        // factors 1, n - 1 (edge) and random.
        for (fp, fq) in [
            (BigUint::one(), BigUint::one()),
            (&np - 1u8, &nq - 1u8),
            (rng.gen_biguint_below(&np), rng.gen_biguint_below(&nq)),
        ] {
            let f = key.factor(&halves(&fp, &fq, s));
            let got = halves_limbs(&key.pow_secret_blinded(&base, &f, &ep, &eq));
            let want = (
                limbs(&(&bp * &fp % &np).modpow(&big(&ep), &np), s),
                limbs(&(&bq * &fq % &nq).modpow(&big(&eq), &nq), s),
            );
            assert_eq!(got, want, "{b} bits, blinded by {fp:x}, {fq:x}");
        }
        let e = [65537u64];
        let (gp, gq) = halves_limbs(&key.pow_public(&base, &e));
        assert_eq!(gp, limbs(&bp.modpow(&big(&e), &np), s), "public p {b}");
        assert_eq!(gq, limbs(&bq.modpow(&big(&e), &nq), s), "public q {b}");
    }
    // The calibration measures both candidates and names one.
    for nr in 1..=10 {
        let (d, p) = x86::calibrate_sqr(nr);
        assert!(d > 0.0 && p > 0.0, "calibration at {nr} registers timed nothing");
    }
}

/// The single-modulus kernel (eight digits a register) against the portable
/// twin, bit for bit, at every register count 1..=10 (d = 8..80 digits) and
/// the wide form's 16, 20 and 40 (d = 128, 160 and 320), each at the top and bottom
/// of the sizes it serves, on edge and random operands below 2m, and in
/// feedback chains.
#[cfg(feature = "probes")]
#[test]
fn ifma_single_matches_portable_every_size() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(23);
    // (register count, the largest count below it that the kernel serves)
    let counts = (1..=10u64)
        .map(|nr| (nr, nr - 1))
        .chain([(16, 10), (20, 16), (40, 20)]);
    for (nr, below) in counts {
        for bits in [416 * nr - 2, 416 * nr - 60, 416 * below + 3] {
            if bits < 8 {
                continue;
            }
            for m in moduli(&mut rng, bits) {
                let s = (bits as usize).div_ceil(64);
                let md = x86::ifma::single::modulus(&limbs(&m, s)).unwrap();
                assert_eq!(md.d as u64, 8 * nr, "{bits} bits");
                let d = md.d;
                let ops = amm_inputs(&mut rng, &m, 2);
                for a in &ops {
                    for b in ops.iter().take(4) {
                        let (da, db) = (to_digits(a, d), to_digits(b, d));
                        let mut want = vec![0u64; d];
                        portable52::amm_mul(&mut want, &da, &db, &md.m, md.k0);
                        let got = x86::amm52_single(&limbs(&m, s), &da, &db, 1).unwrap();
                        assert_eq!(got, want, "single amm, {bits} bits");
                        // The wide form's product at this register count too.
                        let wide = x86::amm52_single_wide(&limbs(&m, s), &da, &db, 1);
                        assert_eq!(wide, (nr >= 2).then_some(want), "wide amm, {bits} bits");
                    }
                    // The dedicated squaring, bit for bit the product a a.
                    let da = to_digits(a, d);
                    let mut want = vec![0u64; d];
                    portable52::amm_mul(&mut want, &da, &da, &md.m, md.k0);
                    let got = x86::sqr52_single(&limbs(&m, s), &da, 1).unwrap();
                    assert_eq!(got, want, "single sqr, {bits} bits");
                }
                // A feedback chain of 20 products stays exact and below 2m.
                let (da, db) = (
                    to_digits(&ops[ops.len() - 1], d),
                    to_digits(&ops[ops.len() - 2], d),
                );
                // The portable twin's chain: 20 products by b, or squarings (None).
                let portable_chain = |b: Option<&[u64]>| {
                    let mut x = da.clone();
                    for _ in 0..20 {
                        let mut t = vec![0u64; d];
                        portable52::amm_mul(&mut t, &x, b.unwrap_or(&x), &md.m, md.k0);
                        x = t;
                    }
                    x
                };
                let want = portable_chain(Some(&db[..]));
                assert_eq!(
                    x86::amm52_single(&limbs(&m, s), &da, &db, 20).unwrap(),
                    want,
                    "chain {bits}"
                );
                assert!(digits_big(&want) < (&m << 1u8));
                // And 20 dedicated squarings in feedback.
                assert_eq!(
                    x86::sqr52_single(&limbs(&m, s), &da, 20).unwrap(),
                    portable_chain(None),
                    "square chain {bits}"
                );
            }
        }
    }
}

/// Public-exponent exponentiation on the single kernel against num-bigint,
/// at RSA modulus sizes up to 4096 bits and small e, 65537 and a wide e.
#[test]
fn ifma_single_pow_public_matches_bigint() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(29);
    for bits in [
        512u64, 1024, 2047, 2048, 3072, 4096, 4158, 4159, 6144, 6654, 6655, 8192, 8318, 8319, 15360, 16384,
        16638,
    ] {
        let n = modulus_of_bits(&mut rng, bits);
        let s = (bits as usize).div_ceil(64);
        let key = x86::SingleKey::new(&limbs(&n, s)).unwrap();
        // e = 0, 1 and 2 reach the edges of the top-bit start (no squaring; no
        // loop; a loop of one squaring and no multiply).
        let wide = vec![rng.r#gen(), rng.r#gen::<u64>() | 1];
        for e in [vec![0u64], vec![1], vec![2], vec![3], vec![65537], wide] {
            for base in [
                BigUint::zero(),
                BigUint::one(),
                &n - 1u8,
                rng.gen_biguint_below(&n),
            ] {
                let got = key.pow_public(&limbs(&base, s), &e);
                assert_eq!(got, limbs(&base.modpow(&big(&e), &n), s), "{bits} bits, e {e:?}");
            }
        }
    }
    // Above 320 digits (16638 bits) there is no single-kernel form.
    let n = modulus_of_bits(&mut rng, 16639);
    assert!(x86::SingleKey::new(&limbs(&n, 260)).is_none());
}

/// Secret-exponent exponentiation on the single kernel (the CRT primes too
/// wide for the dual kernel: RSA-6144's and RSA-8192's) against num-bigint,
/// at the largest size of every register count 1..=10, the sizes either
/// side of the dual kernel's end (2078 bits) and of the RSA primes, the
/// wide form's register counts (16 and 20) at their ends, with
/// edge moduli, edge bases, and exponents of the modulus's limb count whose
/// windows are all zero, all ones, one, and random.
#[test]
fn ifma_single_pow_secret_matches_bigint() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(37);
    // 8 NR digits hold moduli up to 416 NR - 2 bits (4m < R).
    let mut sizes: Vec<u64> = (1..=10u64).map(|nr| 416 * nr - 2).collect();
    sizes.extend([2078, 2079, 3071, 3072, 4095, 4096]);
    // The wide form: 16 registers from 4159 bits, 20 from 6655 to 8318.
    sizes.extend([4159, 6654, 6655, 8192, 8318]);
    for bits in sizes {
        let s = bits.div_ceil(64) as usize;
        for n in moduli(&mut rng, bits) {
            let key = x86::SingleKey::new(&limbs(&n, s)).unwrap();
            let mut one = vec![0u64; s];
            one[0] = 1;
            let random: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
            for e in [vec![0u64; s], vec![u64::MAX; s], one, random] {
                for base in [
                    BigUint::zero(),
                    BigUint::one(),
                    &n - 1u8,
                    rng.gen_biguint_below(&n),
                ] {
                    let got = key.pow_secret(&limbs(&base, s), &e);
                    assert_eq!(got, limbs(&base.modpow(&big(&e), &n), s), "{bits} bits, n {n:x}");
                }
            }
        }
    }
    // 40 registers (moduli of 8319 to 16638 bits: no RSA prime, but a
    // secret exponent of a modulus that wide reaches them): one random
    // exponent and base at each end, as num-bigint's modpow takes seconds there.
    for bits in [8319u64, 16638] {
        let s = bits.div_ceil(64) as usize;
        let n = modulus_of_bits(&mut rng, bits);
        let key = x86::SingleKey::new(&limbs(&n, s)).unwrap();
        let e: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
        let base = rng.gen_biguint_below(&n);
        let got = key.pow_secret(&limbs(&base, s), &e);
        assert_eq!(got, limbs(&base.modpow(&big(&e), &n), s), "{bits} bits");
    }
}

/// The eight-lane kernel against the portable twin, lane by lane and bit for
/// bit, at every digit count 4..=40, with a different modulus (and edge
/// operands) in every lane, and in feedback chains.
#[cfg(feature = "probes")]
#[test]
fn ifma_mb8_matches_portable_every_size() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(31);
    for nr in 1..=10u64 {
        let bits = 208 * nr - 2 - rng.gen_range(0..40);
        let s = (bits as usize).div_ceil(64);
        // Eight moduli of this digit count, edges among them.
        let mut ns = moduli(&mut rng, bits);
        while ns.len() < 8 {
            ns.push(modulus_of_bits(&mut rng, bits));
        }
        let mods: Vec<Ifma52Modulus> = ns
            .iter()
            .map(|n| Ifma52Modulus::new(&limbs(n, s)).unwrap())
            .collect();
        let d = mods[0].digits();
        // Lane l: operands below 2m_l, edge values in the first lanes.
        let pick = |rng: &mut StdRng, m: &BigUint, l: usize, k: usize| {
            let ops = amm_inputs(rng, m, 1);
            to_digits(&ops[(l + k) % ops.len()], d)
        };
        let a: Vec<Vec<u64>> = (0..8).map(|l| pick(&mut rng, &ns[l], l, 0)).collect();
        let b: Vec<Vec<u64>> = (0..8).map(|l| pick(&mut rng, &ns[l], l, 3)).collect();
        let ar: [&[u64]; 8] = core::array::from_fn(|l| &a[l][..]);
        let br: [&[u64]; 8] = core::array::from_fn(|l| &b[l][..]);
        let mr: [&Ifma52Modulus; 8] = core::array::from_fn(|l| &mods[l]);
        for iters in [1usize, 7] {
            let got = x86::amm52_mb8(mr, ar, br, iters).unwrap();
            for l in 0..8 {
                let md = mods[l].radix52();
                let mut want = a[l].clone();
                for _ in 0..iters {
                    let mut t = vec![0u64; d];
                    portable52::amm_mul(&mut t, &want, &b[l], &md.m, md.k0);
                    want = t;
                }
                assert_eq!(got[l], want, "mb8 lane {l}, {bits} bits, {iters} iterations");
            }
            // The dedicated squaring (register window up to 20 digits, column
            // blocks above) against the portable product of a with itself.
            {
                let got = x86::sqr52_mb8(mr, ar, iters).expect("squaring at every digit count");
                for l in 0..8 {
                    let md = mods[l].radix52();
                    let mut want = a[l].clone();
                    for _ in 0..iters {
                        let mut t = vec![0u64; d];
                        portable52::amm_mul(&mut t, &want, &want, &md.m, md.k0);
                        want = t;
                    }
                    assert_eq!(
                        got[l], want,
                        "mb8 squaring lane {l}, {bits} bits, {iters} iterations"
                    );
                }
            }
        }
    }
}

/// (bits, digit multiple) of the eight-lane power tests: multiple 4 (the
/// dual kernel's sizes) and 2 (1536 bits: 30 digits, RSA-3072's halves at the
/// eight-lane kernel's own size).
const MB8_SIZES: [(u64, usize); 5] = [(512, 4), (1024, 4), (1536, 4), (1536, 2), (2048, 4)];

/// Eight random moduli of `bits` bits at the given digit multiple (their
/// digit count checked), and a base per lane below its modulus: 0, 1, n - 1,
/// then random. Returns the limb count, the moduli, their radix-2^52 forms
/// and the bases.
fn mb8_lanes(
    rng: &mut StdRng,
    bits: u64,
    multiple: usize,
) -> (usize, Vec<BigUint>, Vec<Modulus52>, Vec<Vec<u64>>) {
    let s = (bits as usize).div_ceil(64);
    let ns: Vec<BigUint> = (0..8).map(|_| modulus_of_bits(rng, bits)).collect();
    let mods: Vec<Modulus52> = ns
        .iter()
        .map(|n| Modulus52::with_digit_multiple(&limbs(n, s), multiple).unwrap())
        .collect();
    let want_d = if multiple == 2 {
        30
    } else {
        (bits as usize + 2).div_ceil(208) * 4
    };
    assert_eq!(mods[0].d, want_d, "{bits} bits at digit multiple {multiple}");
    let bases: Vec<Vec<u64>> = ns
        .iter()
        .enumerate()
        .map(|(l, n)| match l {
            0 => vec![0; s],
            1 => limbs(&BigUint::one(), s),
            2 => limbs(&(n - 1u8), s),
            _ => limbs(&rng.gen_biguint_below(n), s),
        })
        .collect();
    (s, ns, mods, bases)
}

/// Eight exponentiations at once against num-bigint: different moduli,
/// bases and exponents per lane (p and q of several keys), RSA CRT sizes.
#[test]
fn ifma_mb8_pow_matches_bigint() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(37);
    for (bits, multiple) in MB8_SIZES {
        let (s, ns, mods, bases) = mb8_lanes(&mut rng, bits, multiple);
        let exps: Vec<Vec<u64>> = (0..8)
            .map(|l| match l {
                3 => vec![0; s],
                4 => vec![u64::MAX; s],
                _ => (0..s).map(|_| rng.r#gen()).collect(),
            })
            .collect();
        let got = x86::pow_mb8(
            core::array::from_fn(|l| &mods[l]),
            core::array::from_fn(|l| &bases[l][..]),
            core::array::from_fn(|l| &exps[l][..]),
        )
        .unwrap();
        for l in 0..8 {
            let want = limbs(&big(&bases[l]).modpow(&big(&exps[l]), &ns[l]), s);
            assert_eq!(
                got[l], want,
                "mb8 pow lane {l}, {bits} bits, {} digits",
                mods[l].d
            );
        }
        // With a blinding factor per lane (1, n - 1, random), entering
        // inside the kernel: (base f)^exp.
        let factors: Vec<Vec<u64>> = (0..8)
            .map(|l| match l % 3 {
                0 => limbs(&BigUint::one(), s),
                1 => limbs(&(&ns[l] - 1u8), s),
                _ => limbs(&rng.gen_biguint_below(&ns[l]), s),
            })
            .collect();
        let got = x86::pow_mb8_blinded(
            core::array::from_fn(|l| &mods[l]),
            core::array::from_fn(|l| &bases[l][..]),
            core::array::from_fn(|l| &factors[l][..]),
            core::array::from_fn(|l| &exps[l][..]),
        )
        .unwrap();
        for l in 0..8 {
            let blinded = big(&bases[l]) * big(&factors[l]) % &ns[l];
            let want = limbs(&blinded.modpow(&big(&exps[l]), &ns[l]), s);
            assert_eq!(
                got[l], want,
                "mb8 blinded pow lane {l}, {bits} bits, {} digits",
                mods[l].d
            );
        }
    }
}

/// The eight-lane power by one public exponent against num-bigint: several
/// exponents (0, 1, 3, 65537, a two-limb one), edge bases, RSA CRT and
/// modulus sizes up to 40 digits.
#[test]
fn ifma_mb8_pow_public_matches_bigint() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(41);
    let exps: [&[u64]; 5] = [&[0], &[1], &[3], &[65537], &[0x8000_0000_0000_0001, 0x1_0001]];
    for (bits, multiple) in MB8_SIZES {
        let (s, ns, mods, bases) = mb8_lanes(&mut rng, bits, multiple);
        for e in exps {
            let got = x86::pow_public_mb8(
                core::array::from_fn(|l| &mods[l]),
                core::array::from_fn(|l| &bases[l][..]),
                e,
            )
            .unwrap();
            for l in 0..8 {
                let want = limbs(&big(&bases[l]).modpow(&big(e), &ns[l]), s);
                assert_eq!(
                    got[l], want,
                    "mb8 public pow lane {l}, {bits} bits, {} digits, e {e:x?}",
                    mods[l].d
                );
            }
        }
    }
}

/// One CRT pair's lanes built once ([`x86::Mb8Pair`]: p in the even lanes,
/// q in the odd ones) against num-bigint, through the secret, blinded and
/// public powers, at the RSA CRT sizes (the eight-lane kernel's own 30
/// digits included), and run twice to show the stored lanes are reused
/// unchanged. Primes of different digit counts are refused.
#[test]
fn ifma_mb8_pair_matches_bigint() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(43);
    for (bits, multiple) in MB8_SIZES {
        let (s, ns, mods, bases) = mb8_lanes(&mut rng, bits, multiple);
        let pair = x86::Mb8Pair::new(&mods[0], &mods[1]).unwrap();
        let n = |l: usize| &ns[l % 2];
        let exps: Vec<Vec<u64>> = (0..8).map(|_| (0..s).map(|_| rng.r#gen()).collect()).collect();
        let factors: Vec<Vec<u64>> = (0..8).map(|l| limbs(&rng.gen_biguint_below(n(l)), s)).collect();
        // The bases of `mb8_lanes` are below their own lane's modulus:
        // reduce them into this pair's.
        let bases: Vec<Vec<u64>> = (0..8).map(|l| limbs(&(big(&bases[l]) % n(l)), s)).collect();
        for run in 0..2 {
            let got = x86::pow_mb8_blinded(
                x86::Mb8Moduli::Pair(&pair),
                core::array::from_fn(|l| &bases[l][..]),
                core::array::from_fn(|l| &factors[l][..]),
                core::array::from_fn(|l| &exps[l][..]),
            )
            .unwrap();
            let public = x86::pow_public_mb8(
                x86::Mb8Moduli::Pair(&pair),
                core::array::from_fn(|l| &bases[l][..]),
                &[65537],
            )
            .unwrap();
            for l in 0..8 {
                let blinded = big(&bases[l]) * big(&factors[l]) % n(l);
                let want = limbs(&blinded.modpow(&big(&exps[l]), n(l)), s);
                assert_eq!(got[l], want, "pair lane {l}, {bits} bits, run {run}");
                let want = limbs(&big(&bases[l]).modpow(&BigUint::from(65537u32), n(l)), s);
                assert_eq!(public[l], want, "pair public lane {l}, {bits} bits, run {run}");
            }
        }
        let secret = x86::pow_mb8(
            x86::Mb8Moduli::Pair(&pair),
            core::array::from_fn(|l| &bases[l][..]),
            core::array::from_fn(|l| &exps[l][..]),
        )
        .unwrap();
        for l in 0..8 {
            let want = limbs(&big(&bases[l]).modpow(&big(&exps[l]), n(l)), s);
            assert_eq!(secret[l], want, "pair secret lane {l}, {bits} bits");
        }
    }
    let mut rng = StdRng::seed_from_u64(44);
    let (short, long) = (modulus_of_bits(&mut rng, 1024), modulus_of_bits(&mut rng, 1300));
    let short = Modulus52::new(&limbs(&short, 16)).unwrap();
    let long = Modulus52::new(&limbs(&long, 21)).unwrap();
    assert!(x86::Mb8Pair::new(&short, &long).is_none());
}

/// Montgomery's simultaneous inversion in eight lanes on one modulus
/// against num-bigint's `modinv`: counts that fill no lane, one round, a
/// round and one, several rounds with a short last one; results scaled by
/// 1 and by a random factor. The eight totals are inverted by num-bigint
/// too (the function leaves that inversion to its caller).
#[test]
fn ifma_mb8_invert_many_matches_bigint() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(41);
    for (bits, multiple) in [(1024u64, 4usize), (1536, 2), (2048, 4)] {
        let s = (bits as usize).div_ceil(64);
        let n = modulus_of_bits(&mut rng, bits);
        let m = Modulus52::with_digit_multiple(&limbs(&n, s), multiple).unwrap();
        let invertible = |rng: &mut StdRng| loop {
            let x = rng.gen_biguint_below(&n);
            if x.modinv(&n).is_some() {
                return x;
            }
        };
        for count in [1usize, 8, 9, 17, 40] {
            let mut xs: Vec<BigUint> = (0..count).map(|_| invertible(&mut rng)).collect();
            xs[0] = BigUint::one();
            if count > 1 {
                xs[1] = &n - 1u8;
            }
            let xl: Vec<Vec<u64>> = xs.iter().map(|x| limbs(x, s)).collect();
            let refs: Vec<&[u64]> = xl.iter().map(|v| &v[..]).collect();
            for scale in [BigUint::one(), rng.gen_biguint_below(&n)] {
                let mut totals_seen = 0;
                let got = x86::invert_many_mb8(&m, &refs, &limbs(&scale, s), |totals| {
                    totals_seen = totals.len();
                    Some(
                        totals
                            .iter()
                            .map(|t| limbs(&big(t).modinv(&n).unwrap(), s))
                            .collect(),
                    )
                })
                .expect("IFMA runs these sizes");
                assert_eq!(totals_seen, 8);
                assert_eq!(got.len(), count);
                for (i, x) in xs.iter().enumerate() {
                    let want = (x.modinv(&n).unwrap() * &scale) % &n;
                    assert_eq!(big(&got[i]), want, "{bits} bits, {count} values, value {i}");
                    assert_eq!(got[i].len(), m.limbs.len());
                }
            }
        }
        // The caller's inversion failing fails the whole call.
        let x = limbs(&invertible(&mut rng), s);
        assert!(x86::invert_many_mb8(&m, &[&x[..]], &limbs(&BigUint::one(), s), |_| None).is_none());
    }
}

/// The exponentiation (window table, gather, chains of squares and products,
/// the normalisation's carry resolution between them) at every register
/// count 1..=10, the largest prime of each, on bases whose digits are all
/// ones (where the carry resolution ripples), n - 1 and random ones, against
/// num-bigint (the RSA sizes alone reach 5, 6, 8 and 10 registers).
#[test]
fn pow_secret_every_register_count_matches_bigint() {
    if skip() {
        return;
    }
    let mut rng = StdRng::seed_from_u64(12);
    for nr in 1..=10u64 {
        let bits = 208 * nr - 2; // the largest prime of this register count
        let s = (bits as usize).div_ceil(64);
        for n in moduli(&mut rng, bits) {
            let m = Ifma52Modulus::new_unchecked_cpu(&limbs(&n, s)).unwrap();
            let top = BigUint::one() << (bits - 1);
            let bases = [&n - 1u8, &top - 1u8, rng.gen_biguint_below(&n)];
            for base in &bases {
                let e: Vec<u64> = (0..2).map(|_| rng.r#gen()).collect();
                let want = limbs(&base.modpow(&big(&e), &n), s);
                assert_eq!(
                    x86::pow_secret(&m, &limbs(base, s), &e),
                    want,
                    "nr={nr} base={base:x}"
                );
            }
        }
    }
}
