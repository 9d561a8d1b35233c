//! `redc mont` as a program: answers checked against num-bigint, and every
//! kind of bad input answered with one line on stderr and exit status 2.

use num_bigint::{BigUint, RandBigInt};
use num_traits::One;
use rand::{SeedableRng, rngs::StdRng};

mod common;
use common::{redc, stdout};

const VARIANTS: [&str; 12] = [
    "bitserial",
    "sos",
    "cios",
    "fios",
    "fips",
    "cihs",
    "itoh",
    "itoh-enhanced",
    "sqr",
    "almost",
    "karatsuba",
    "karatsuba-sqr",
];

/// The variants that square `--a` and take no `--b`.
fn squares_only(v: &str) -> bool {
    v == "sqr" || v == "karatsuba-sqr"
}

#[test]
fn list_prints_every_variant_one_per_line() {
    let o = redc(&["mont", "--list"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), VARIANTS.join("\n") + "\n");
}

#[test]
fn products_match_the_oracle() {
    let mut rng = StdRng::seed_from_u64(7);
    for bits in [8u64, 64, 65, 200, 1024, 2048] {
        // Clear the top two bits of the top limb so `almost` accepts the modulus.
        let limbs = bits.div_ceil(64);
        let top_limb_bits = bits - 64 * (limbs - 1);
        let n = if top_limb_bits <= 62 {
            rng.gen_biguint(bits) | (BigUint::one() << (bits - 1)) | BigUint::one()
        } else {
            rng.gen_biguint(bits - 2) | (BigUint::one() << (bits - 3)) | BigUint::one()
        };
        let r = BigUint::one() << (64 * limbs);
        let a = rng.gen_biguint_below(&n);
        let b = rng.gen_biguint_below(&n);
        let (nh, ah, bh) = (n.to_str_radix(16), a.to_str_radix(16), b.to_str_radix(16));
        for v in VARIANTS {
            let o = if squares_only(v) {
                redc(&["mont", "--variant", v, "--modulus", &nh, "--a", &ah])
            } else {
                redc(&["mont", "--variant", v, "--modulus", &nh, "--a", &ah, "--b", &bh])
            };
            assert!(o.status.success(), "{v}: {}", String::from_utf8_lossy(&o.stderr));
            let text = stdout(&o);
            let hex = text.trim_end_matches('\n');
            assert_eq!(text, format!("{hex}\n"), "one line");
            assert!(hex == "0" || !hex.starts_with('0'), "no leading zeros: {hex}");
            assert_eq!(hex, hex.to_lowercase());
            let got = BigUint::parse_bytes(hex.as_bytes(), 16).unwrap();
            let other = if squares_only(v) { &a } else { &b };
            assert!(got < n, "{v} not reduced");
            assert_eq!((&got * &r) % &n, (&a * other) % &n, "{v} at {bits} bits");
        }
    }
}

/// Karatsuba prints what CIOS prints, and karatsuba-sqr what sqr prints,
/// at sizes below and above the recursion threshold; both are listed.
#[test]
fn karatsuba_matches_cios_and_sqr() {
    let list = stdout(&redc(&["mont", "--list"]));
    assert!(list.lines().any(|l| l == "karatsuba"));
    assert!(list.lines().any(|l| l == "karatsuba-sqr"));
    let mut rng = StdRng::seed_from_u64(41);
    for bits in [64u64, 1000, 4096, 8191] {
        let n = rng.gen_biguint(bits) | (BigUint::one() << (bits - 1)) | BigUint::one();
        let (a, b) = (rng.gen_biguint_below(&n), rng.gen_biguint_below(&n));
        let (nh, ah, bh) = (n.to_str_radix(16), a.to_str_radix(16), b.to_str_radix(16));
        let run = |v: &str, with_b: bool| {
            let mut args = vec!["mont", "--variant", v, "--modulus", &nh, "--a", &ah];
            if with_b {
                args.extend(["--b", &bh]);
            }
            let o = redc(&args);
            assert!(o.status.success(), "{v}: {}", String::from_utf8_lossy(&o.stderr));
            stdout(&o)
        };
        assert_eq!(run("karatsuba", true), run("cios", true), "{bits} bits");
        assert_eq!(run("karatsuba-sqr", false), run("sqr", false), "{bits} bits");
    }
}

#[test]
fn zero_prints_as_0() {
    let o = redc(&[
        "mont",
        "--variant",
        "cios",
        "--modulus",
        "0xF1",
        "--a",
        "0",
        "--b",
        "1e",
    ]);
    assert_eq!(stdout(&o), "0\n");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let cases: &[&[&str]] = &[
        &[
            "mont",
            "--variant",
            "nope",
            "--modulus",
            "f1",
            "--a",
            "1",
            "--b",
            "2",
        ],
        &[
            "mont",
            "--variant",
            "cios",
            "--modulus",
            "f0",
            "--a",
            "1",
            "--b",
            "2",
        ],
        &[
            "mont",
            "--variant",
            "cios",
            "--modulus",
            "1",
            "--a",
            "1",
            "--b",
            "2",
        ],
        &[
            "mont",
            "--variant",
            "cios",
            "--modulus",
            "0",
            "--a",
            "0",
            "--b",
            "0",
        ],
        &[
            "mont",
            "--variant",
            "cios",
            "--modulus",
            "f1",
            "--a",
            "f1",
            "--b",
            "2",
        ],
        &[
            "mont",
            "--variant",
            "cios",
            "--modulus",
            "f1",
            "--a",
            "1",
            "--b",
            "100",
        ],
        &[
            "mont",
            "--variant",
            "cios",
            "--modulus",
            "zz",
            "--a",
            "1",
            "--b",
            "2",
        ],
        &[
            "mont",
            "--variant",
            "cios",
            "--modulus",
            "f1",
            "--a",
            "",
            "--b",
            "2",
        ],
        &["mont", "--variant", "cios", "--modulus", "f1", "--a", "1"],
        &[
            "mont",
            "--variant",
            "almost",
            "--modulus",
            "ffffffffffffffff",
            "--a",
            "1",
            "--b",
            "2",
        ],
        &[
            "mont",
            "--variant",
            "sqr",
            "--modulus",
            "f1",
            "--a",
            "1",
            "--b",
            "2",
        ],
        &[
            "mont",
            "--variant",
            "cios",
            "--modulus",
            "f1",
            "--a",
            "1",
            "--b",
            "2",
            "--bogus",
        ],
        &["mont", "--modulus", "f1"],
        &["mont"],
        &["nosuchcommand"],
    ];
    for args in cases {
        let o = redc(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        // One line, or (issue 11) a parse error's line followed by clap's
        // tip and usage block.
        assert!(
            err.lines().count() == 1 || err.contains("\nUsage: redc") || err.contains("For more information"),
            "{args:?}: {err}"
        );
        assert!(err.starts_with("redc"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(!err.contains("panicked"));
    }
}
