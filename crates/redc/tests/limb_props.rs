//! Property tests of the limb primitives against num-bigint.

mod common;

use common::{big, limbs};
use num_bigint::BigUint;
use num_traits::One;
use proptest::prelude::*;
use redc::ct::Mask;
use redc::limb;

fn pair() -> impl Strategy<Value = (Vec<u64>, Vec<u64>)> {
    (1usize..12).prop_flat_map(|s| {
        (
            prop::collection::vec(any::<u64>(), s),
            prop::collection::vec(any::<u64>(), s),
        )
    })
}

proptest! {
    #[test]
    fn add_matches_oracle((a, b) in pair()) {
        let s = a.len();
        let mut out = vec![0; s];
        let carry = limb::add(&mut out, &a, &b);
        let want = big(&a) + big(&b);
        prop_assert_eq!(big(&out) + (BigUint::from(carry) << (64 * s)), want);
        let mut x = a.clone();
        prop_assert_eq!(limb::add_assign(&mut x, &b), carry);
        prop_assert_eq!(x, out);
    }

    #[test]
    fn sub_matches_oracle((a, b) in pair()) {
        let s = a.len();
        let mut out = vec![0; s];
        let borrow = limb::sub(&mut out, &a, &b);
        let r = BigUint::one() << (64 * s);
        prop_assert_eq!(borrow == 1, big(&a) < big(&b));
        prop_assert_eq!(big(&out), (big(&a) + &r - big(&b)) % &r);
        let mut x = a.clone();
        prop_assert_eq!(limb::sub_assign(&mut x, &b), borrow);
        prop_assert_eq!(x, out);
    }

    #[test]
    fn compare_matches_oracle((a, b) in pair(), same in any::<bool>()) {
        let b = if same { a.clone() } else { b };
        prop_assert_eq!(limb::ct_lt(&a, &b).leak_bool(), big(&a) < big(&b));
        prop_assert_eq!(limb::ct_eq(&a, &b).leak_bool(), big(&a) == big(&b));
        prop_assert_eq!(limb::ct_is_zero(&a).leak_bool(), big(&a) == BigUint::ZERO);
    }

    #[test]
    fn select_picks_one((a, b) in pair(), bit in 0u64..2) {
        let mut out = vec![0; a.len()];
        limb::select(&mut out, Mask::from_bit(bit), &a, &b);
        prop_assert_eq!(&out, if bit == 1 { &a } else { &b });
        let mut x = b.clone();
        limb::cond_assign(&mut x, Mask::from_bit(bit), &a);
        prop_assert_eq!(x, out);
    }

    #[test]
    fn reduce_once_matches_oracle((x, n) in pair(), top in 0u64..2) {
        let mut n = n;
        n[0] |= 1;
        let s = n.len();
        let value = big(&x) + (BigUint::from(top) << (64 * s));
        prop_assume!(value < big(&n) * 2u8);
        let mut got = x.clone();
        limb::reduce_once(&mut got, top, &n);
        prop_assert_eq!(big(&got), value % big(&n));
    }

    #[test]
    fn bytes_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..100)) {
        let x = limb::from_be_bytes(&bytes);
        prop_assert_eq!(big(&x), BigUint::from_bytes_be(&bytes));
        let mut back = vec![0u8; bytes.len()];
        limb::to_be_bytes_into(&mut back, &x).unwrap();
        prop_assert_eq!(&back, &bytes);
        // Wider output pads with zeros; narrower fails unless the value fits.
        let mut wide = vec![0xaau8; bytes.len() + 9];
        limb::to_be_bytes_into(&mut wide, &x).unwrap();
        prop_assert_eq!(BigUint::from_bytes_be(&wide), big(&x));
    }

    #[test]
    fn to_bytes_any_width(x in prop::collection::vec(any::<u64>(), 0..6), len in 0usize..50) {
        // num-bigint's bytes, left-padded to len; the write fails exactly when they do not fit.
        let value = big(&x);
        let want = if value.bits() == 0 { vec![] } else { value.to_bytes_be() };
        let mut out = vec![0xaau8; len];
        let got = limb::to_be_bytes_into(&mut out, &x);
        prop_assert_eq!(got.is_ok(), want.len() <= len);
        if got.is_ok() {
            let mut padded = vec![0u8; len - want.len()];
            padded.extend_from_slice(&want);
            prop_assert_eq!(out, padded);
        }
    }

    #[test]
    fn hex_round_trip(x in prop::collection::vec(any::<u64>(), 1..10)) {
        let hex = limb::to_hex_vartime(&x);
        prop_assert_eq!(&hex, &big(&x).to_str_radix(16));
        let back = limb::from_hex(&hex).unwrap();
        prop_assert_eq!(big(&back), big(&x));
        prop_assert_eq!(big(&limb::from_hex(&hex.to_uppercase()).unwrap()), big(&x));
    }

    #[test]
    fn fits_checks(x in prop::collection::vec(any::<u64>(), 1..6), len in 1usize..6) {
        let fits = big(&x).bits() as usize <= 64 * len;
        prop_assert_eq!(limb::resize(&x, len).is_ok(), fits);
        let bytes = limb::to_be_bytes(&x);
        let mut out = vec![0; len];
        prop_assert_eq!(limb::from_be_bytes_into(&mut out, &bytes).is_ok(), fits);
        if fits {
            prop_assert_eq!(big(&out), big(&x));
            prop_assert_eq!(limbs(&big(&x), len), out);
        }
    }
}

#[test]
fn hex_rejects_garbage() {
    for bad in ["", "0x", "xyz", "12 34", "-5", "0x1g"] {
        assert!(limb::from_hex(bad).is_err(), "{bad:?}");
    }
    assert_eq!(limb::to_hex_vartime(&[0, 0]), "0");
    assert_eq!(limb::from_hex("0X00ff").unwrap(), vec![255]);
}
