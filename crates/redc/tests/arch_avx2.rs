//! The AVX2 radix-2^28 kernel (`arch::x86_64::avx2`: the product, also
//! the exponentiation's squaring) against its portable
//! twin (`arch::portable28`, itself checked against num-bigint here) and the
//! AVX2 exponentiation against num-bigint's `modpow`, at every digit count
//! the kernels serve (30 to 57 digits, moduli of 811 to 1594 bits, every
//! register count 9 to 15; where AVX-512VL is present and not masked, also
//! 58 to 77 digits, moduli to 2154 bits, 16 to 20 registers), at every
//! remainder of s mod 4, with edge and random operands.
#![cfg(target_arch = "x86_64")]

mod common;

use num_bigint::{BigUint, RandBigInt};
use num_traits::One;
use rand::rngs::StdRng;
use redc::arch::portable28::{self, Modulus28};
use redc::arch::x86_64::avx2::{self, Avx2Modulus};

fn skip() -> bool {
    common::skip_unavailable(
        redc::arch::x86_64::avx2_available(),
        std::is_x86_feature_detected!("avx2"),
        "this CPU has AVX2 but the AVX2 kernels are unavailable: refusing to skip under CI",
        "SKIPPED: AVX2 kernel tests (CPU lacks AVX2, or REDC_KERNEL/REDC_FORCE_PORTABLE/REDC_CPU_DISABLE excludes it)",
    )
}

/// Odd moduli of exactly `bits` bits: random, all ones, 2^(bits-1) + 1.
fn moduli(rng: &mut StdRng, bits: usize) -> Vec<BigUint> {
    let one = BigUint::one();
    vec![
        rng.gen_biguint(bits as u64) | &one | (&one << (bits - 1)),
        (&one << bits) - 1u8,
        (&one << (bits - 1)) + 1u8,
    ]
}

/// Whether the instances above 15 registers may run here (AVX-512VL
/// present and not masked), from detection independent of the kernels'.
fn wide() -> bool {
    *common::avx2_prime_bits().end() > 1594
}

/// The largest digit count the kernels serve here.
fn max_digits() -> usize {
    portable28::digits_for_bits(*common::avx2_prime_bits().end())
}

/// Bit sizes that reach every digit count s the kernels serve at both ends
/// of s's range of sizes (28 s - 29 and 28 s - 2 bits give s digits).
fn sizes() -> Vec<usize> {
    let mut v: Vec<usize> = (30..=max_digits())
        .flat_map(|s| [28 * s - 29, 28 * s - 2])
        .collect();
    v.extend([1024, 1536]);
    if wide() {
        v.push(2048);
    }
    v.retain(|&b| Avx2Modulus::fits(b));
    v
}

#[test]
fn the_kernels_serve_the_primes_of_their_range_and_no_more() {
    assert!(Avx2Modulus::fits(1024) && Avx2Modulus::fits(1536));
    assert!(Avx2Modulus::fits(811) && Avx2Modulus::fits(1594));
    assert!(!Avx2Modulus::fits(810) && !Avx2Modulus::fits(2155));
    // RSA-4096's primes only where the 32-register instances may run.
    assert_eq!(Avx2Modulus::fits(1595), wide());
    assert_eq!(Avx2Modulus::fits(2048) && Avx2Modulus::fits(2154), wide());
    assert_eq!(avx2::max_vectors(), if wide() { 20 } else { 15 });
    assert_eq!(portable28::digits_for_bits(1024), 37);
    assert_eq!(portable28::digits_for_bits(1536), 55);
    assert_eq!(portable28::digits_for_bits(2154), 77);
    // Every digit count the kernels serve is reached by sizes().
    let mut s: Vec<usize> = sizes().into_iter().map(portable28::digits_for_bits).collect();
    s.sort_unstable();
    s.dedup();
    assert_eq!(s, (30..=max_digits()).collect::<Vec<_>>());
}

#[test]
fn portable_twin_matches_bigint() {
    let mut rng = common::rng(28);
    for bits in [838, 1024, 1500] {
        for m in moduli(&mut rng, bits) {
            let md = Modulus28::new(&common::limbs(&m, bits.div_ceil(64))).unwrap();
            let s = md.digits();
            let r = BigUint::one() << (28 * s);
            let r_inv = r.modinv(&m).unwrap();
            let two_m = &m << 1;
            for a in [&two_m - 1u8, rng.gen_biguint_below(&two_m), BigUint::one()] {
                let b = rng.gen_biguint_below(&two_m);
                let mut out = vec![0u64; s];
                let da = portable28::to_digits(&common::limbs(&a, s), s);
                let db = portable28::to_digits(&common::limbs(&b, s), s);
                portable28::amm_mul(&mut out, &da, &db, &md);
                let got = common::big(&portable28::from_digits(&out, (28 * s).div_ceil(64)));
                assert!(got < two_m, "{bits} bits: amm output not below 2m");
                assert_eq!(&got % &m, (&a * &b * &r_inv) % &m, "{bits} bits: amm value");
            }
        }
    }
}

#[test]
fn kernel_matches_twin_at_every_digit_count() {
    if skip() {
        return;
    }
    let mut rng = common::rng(29);
    for bits in sizes() {
        for m in moduli(&mut rng, bits) {
            let limbs = common::limbs(&m, bits.div_ceil(64));
            let key = Avx2Modulus::new(&limbs).expect("size fits");
            // The kernels run over m or over m' = k0 m = -1 mod 2^28; the twin
            // runs over the same modulus, whose form is checked here.
            let md = key.kernel_modulus();
            let s = md.digits();
            let km = common::big(&portable28::from_digits(&md.m, (28 * s).div_ceil(64)));
            assert!(md.m.iter().all(|&d| d < 1 << 28));
            // k0 m has one digit more than m (k0 may be 1: m = -1 mod 2^28).
            let multiple = s != portable28::digits_for_bits(bits);
            if multiple {
                assert_eq!(s, portable28::digits_for_bits(bits + 28));
                assert_eq!(&km % &m, BigUint::from(0u8), "{bits} bits: not a multiple of m");
                assert_eq!(
                    (&km + 1u8) % (1u64 << 28),
                    BigUint::from(0u8),
                    "{bits} bits: k0 m"
                );
                assert!(km < (&m << 28), "{bits} bits: k0 m too large");
                assert_eq!(md.k0, 1);
            } else {
                assert_eq!(km, m);
            }
            // Only m's size decides the form: the same for every modulus of this size.
            let registers = |b: usize| (portable28::digits_for_bits(b) + 3).div_ceil(4);
            assert_eq!(multiple, registers(bits + 28) == registers(bits), "{bits} bits");
            let m = km;
            let two_m = &m << 1;
            let mut values = vec![&two_m - 1u8, &m - 1u8, BigUint::one(), BigUint::from(0u8)];
            values.extend((0..6).map(|_| rng.gen_biguint_below(&two_m)));
            for (i, a) in values.iter().enumerate() {
                let b = &values[(i * 7 + 3) % values.len()];
                let da = portable28::to_digits(&common::limbs(a, s), s);
                let db = portable28::to_digits(&common::limbs(b, s), s);
                let mut want = vec![0u64; s];
                portable28::amm_mul(&mut want, &da, &db, md);
                assert_eq!(
                    key.amm_digits(&da, &db),
                    want,
                    "{bits}-bit modulus {m:x}, operands {i}"
                );
                // Squares fed back, as the exponentiation chains them.
                let mut x = da.clone();
                for _ in 0..3 {
                    let mut y = vec![0u64; s];
                    portable28::amm_mul(&mut y, &x, &x, md);
                    x = y;
                }
                assert_eq!(
                    key.chain_digits(&da, None, 3),
                    x,
                    "{bits}-bit modulus {m:x}, three squares of operand {i}"
                );
            }
        }
    }
}

#[test]
fn the_choice_against_adx_is_measured() {
    if skip() {
        return;
    }
    assert!(!avx2::pays(810) && !avx2::pays(2155));
    if !wide() {
        assert!(!avx2::pays(1595) && !avx2::pays(2048));
    }
    if !redc::arch::x86_64::adx_available() {
        println!("SKIPPED: the AVX2/ADX calibration (no ADX path to compare with)");
        return;
    }
    for v in avx2::MIN_VECTORS..=avx2::max_vectors() {
        let (t_avx2, t_adx) = avx2::calibrate(v);
        assert!(
            t_avx2 > 0.0 && t_adx > 0.0,
            "{v} registers: {t_avx2} ns, {t_adx} ns"
        );
        // Per call at most a few microseconds (2154-bit modulus): a figure
        // far outside means the loop measured something else.
        assert!(
            t_avx2 < 50_000.0 && t_adx < 50_000.0,
            "{v} registers: {t_avx2} ns, {t_adx} ns"
        );
    }
    assert_eq!(avx2::calibrate(avx2::max_vectors() + 1), (0.0, 0.0));
}

#[test]
fn both_kernel_moduli_are_exercised() {
    if skip() {
        return;
    }
    // RSA-2048's primes run over m (k0 m would need an 11th register),
    // RSA-3072's over k0 m (56 digits, the same 15 registers as m's 55).
    let mut rng = common::rng(31);
    let mut cases = vec![(1024usize, false), (1536, true), (1594, false), (811, true)];
    if wide() {
        // RSA-4096's primes over k0 m (75 digits, the same 20 registers as
        // m's 74); 2154 bits over m.
        cases.extend([(2048, true), (2154, false)]);
    }
    for (bits, multiple) in cases {
        let m = rng.gen_biguint(bits as u64) | BigUint::one() | (BigUint::one() << (bits - 1));
        let key = Avx2Modulus::new(&common::limbs(&m, bits.div_ceil(64))).unwrap();
        let md = key.kernel_modulus();
        let km = common::big(&portable28::from_digits(&md.m, (28 * md.digits()).div_ceil(64)));
        assert_eq!(km != m, multiple, "{bits} bits");
        assert_eq!(
            md.digits() != portable28::digits_for_bits(bits),
            multiple,
            "{bits} bits"
        );
    }
}

#[test]
fn exponentiation_matches_bigint() {
    if skip() {
        return;
    }
    let mut rng = common::rng(30);
    for bits in sizes()
        .into_iter()
        .step_by(5)
        .chain([1024, 1536])
        .chain(wide().then_some(2048))
    {
        let m = rng.gen_biguint(bits as u64) | BigUint::one() | (BigUint::one() << (bits - 1));
        let s = bits.div_ceil(64);
        let key = Avx2Modulus::new(&common::limbs(&m, s)).unwrap();
        for (base, exp_limbs) in [
            (&m - 1u8, s),
            (rng.gen_biguint_below(&m), s),
            (rng.gen_biguint_below(&m), 1),
            (BigUint::from(0u8), 3),
        ] {
            let e = rng.gen_biguint(64 * exp_limbs as u64);
            for e in [e, BigUint::from(0u8), BigUint::one()] {
                let got = key.pow_secret(&common::limbs(&base, s), &common::limbs(&e, exp_limbs));
                assert_eq!(got.len(), s);
                assert_eq!(
                    common::big(&got),
                    base.modpow(&e, &m),
                    "{bits} bits, exponent {e:x}"
                );
            }
        }
    }
}
