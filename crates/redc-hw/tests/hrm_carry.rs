//! Regression tests of issue 12: the top processing unit of 002's
//! super-pipeline must keep its carry (hrm.rs header).  Many random moduli per
//! size at every radix 2..=64, biased towards the cases that overflowed a row
//! (top bits of M set, M = 1 mod 4, bit lengths multiples of k), each result
//! checked against num-bigint's `modpow` (independent oracle).

use num_bigint::{BigUint, RandBigInt};
use num_traits::Num;
use rand::{Rng, SeedableRng, rngs::StdRng};
use redc_hw::hrm;

fn hex(s: &str) -> BigUint {
    BigUint::from_str_radix(s, 16).unwrap()
}

/// The failing example of issue 12 (k = 2, 512 bits): wrong before the fix.
#[test]
fn issue12_example_k2() {
    let n = hex(
        "f1b807e8004f1ab8a203be079d9c814d8dc01d0d5021ce74831197f250c930c5c2b540fd655591a491179b3034c1bc91a0bf647b189fa7450fdff0bd2c8457cd",
    );
    let b = hex(
        "8afe0919ca64729a7ff897fd36c91715625355bced973c00dec7e585b90dbb69746d527fc210f5738caf009199abcec71eb1775184ff82371cc94b9c054578b7",
    );
    let e = hex(
        "81ee0ee3d86675997f39738cb13bdd23187d56e607716dd82d493988360d714d759964f7dc0d6f5f577ddc414074d31b7e51efb2d19eaa5ce0d297ec6963ee7e",
    );
    for k in [2, 3, 4] {
        let rep = hrm::modexp(&n, &b, &e, k).unwrap();
        assert_eq!(rep.result, b.modpow(&e, &n), "k={k}");
    }
}

/// A modulus of `bits` bits with its top `top` bits set, odd, and
/// `M = 1 mod 4` when `one_mod_4`.
fn biased_modulus(rng: &mut StdRng, bits: u64, top: u64, one_mod_4: bool) -> BigUint {
    let mut n = rng.gen_biguint(bits);
    for i in 0..top.min(bits) {
        n.set_bit(bits - 1 - i, true);
    }
    n.set_bit(0, true);
    if bits > 2 {
        n.set_bit(1, !one_mod_4);
    }
    if n < BigUint::from(3u32) {
        n = BigUint::from(3u32);
    }
    n
}

/// Bases that make `B = Z` large early: `M − 1`, `M − 2` and a random one.
fn run_radix(k: u32, rng: &mut StdRng, moduli_per_size: usize) {
    let k64 = k as u64;
    // bit lengths: multiples of k near 16, 128 and 512 bits (the first at least 2k)
    let sizes = [16u64, 128, 512].map(|b| (b.div_ceil(k64)).max(2) * k64);
    for &bits in &sizes {
        for c in 0..moduli_per_size {
            let top = [1u64, 2, 8, k64, bits / 2][c % 5];
            let n = biased_modulus(rng, bits, top, c % 4 != 3);
            let b = match c % 3 {
                0 => &n - 1u32,
                1 => &n - 2u32,
                _ => rng.gen_biguint_below(&n),
            };
            let mut e = rng.gen_biguint(24);
            e.set_bit(23, true);
            let rep =
                hrm::modexp(&n, &b, &e, k).unwrap_or_else(|err| panic!("k={k} bits={bits} n={n:x}: {err}"));
            assert_eq!(
                rep.result,
                b.modpow(&e, &n),
                "k={k} bits={bits} n={n:x} b={b:x} e={e:x}"
            );
        }
    }
}

#[test]
fn every_radix_small_k_many_moduli() {
    let mut rng = StdRng::seed_from_u64(0x12_0002);
    for k in 2..=8 {
        run_radix(k, &mut rng, 20);
    }
}

#[test]
fn every_radix_large_k() {
    let mut rng = StdRng::seed_from_u64(0x12_0009);
    for k in 9..=64 {
        run_radix(k, &mut rng, 5);
    }
}

/// Top-carry rows are frequent at k = 2 with all top bits set and
/// M = 1 mod 4 (95% of exponentiations failed before the fix); 64 of them.
#[test]
fn k2_top_bits_set_one_mod_4() {
    let mut rng = StdRng::seed_from_u64(0x12_0004);
    for _ in 0..64 {
        let bits = 2 * rng.gen_range(4u64..=128);
        let n = biased_modulus(&mut rng, bits, 8, true);
        let b = rng.gen_biguint_below(&n);
        let e = rng.gen_biguint(32);
        let rep = hrm::modexp(&n, &b, &e, 2).unwrap();
        assert_eq!(rep.result, b.modpow(&e, &n), "n={n:x} b={b:x} e={e:x}");
    }
}
