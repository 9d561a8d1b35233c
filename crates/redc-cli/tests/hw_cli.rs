//! `redc hw` as a program: exact results against num-bigint, cycle fields
//! present, and bad input answered with one line and status 2.

use num_bigint::{BigUint, RandBigInt};
use num_traits::One;
use rand::{SeedableRng, rngs::StdRng};
use std::process::{Command, Output};

fn redc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_redc"))
        .args(args)
        .output()
        .expect("run redc")
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

fn hex_field(v: &serde_json::Value, key: &str) -> BigUint {
    BigUint::parse_bytes(v[key].as_str().expect("hex string").as_bytes(), 16).expect("hex")
}

#[test]
fn modexp_every_design_matches_modpow() {
    let mut rng = StdRng::seed_from_u64(5);
    for bits in [16u64, 130, 256] {
        let n = rng.gen_biguint(bits) | (BigUint::one() << (bits - 1)) | BigUint::one();
        let base = rng.gen_biguint_below(&n);
        let exp = rng.gen_biguint(bits / 2);
        let (nh, bh, eh) = (n.to_str_radix(16), base.to_str_radix(16), exp.to_str_radix(16));
        for design in ["csa5to2", "csa4to2", "hrm"] {
            let v = json(&redc(&[
                "hw",
                "modexp",
                "--design",
                design,
                "--modulus",
                &nh,
                "--base",
                &bh,
                "--exp",
                &eh,
                "--json",
            ]));
            assert_eq!(
                hex_field(&v, "result"),
                base.modpow(&exp, &n),
                "{design} at {bits} bits"
            );
            let cycles = v["cycles"].as_u64().expect("cycles");
            let total = v["total_cycles"].as_u64().expect("total_cycles");
            assert!(cycles > 0 && total >= cycles, "{design}: {cycles} / {total}");
        }
    }
}

#[test]
fn montmul_reports_its_r() {
    let n = BigUint::from(0xf1u32);
    for design in ["csa5to2", "csa4to2", "hrm", "qpipe"] {
        let v = json(&redc(&[
            "hw",
            "montmul",
            "--design",
            design,
            "--modulus",
            "f1",
            "--a",
            "11",
            "--b",
            "1e",
            "--json",
        ]));
        let got = hex_field(&v, "result");
        assert!(got < n);
        // result * R = a * b (mod n), whatever R the design used, if R is reported as hex or bits.
        let r = match &v["r"] {
            serde_json::Value::String(s) => BigUint::parse_bytes(s.as_bytes(), 16).unwrap(),
            _ => BigUint::one() << v["r_bits"].as_u64().expect("r or r_bits"),
        };
        assert_eq!((&got * &r) % &n, BigUint::from(17u32 * 30) % &n, "{design}: {v}");
    }
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let cases: &[&[&str]] = &[
        &[
            "hw",
            "modexp",
            "--design",
            "nope",
            "--modulus",
            "f1",
            "--base",
            "2",
            "--exp",
            "3",
            "--json",
        ],
        &[
            "hw",
            "modexp",
            "--design",
            "hrm",
            "--modulus",
            "f0",
            "--base",
            "2",
            "--exp",
            "3",
            "--json",
        ],
        &[
            "hw",
            "modexp",
            "--design",
            "hrm",
            "--modulus",
            "zz",
            "--base",
            "2",
            "--exp",
            "3",
            "--json",
        ],
        &[
            "hw",
            "montmul",
            "--design",
            "qpipe",
            "--modulus",
            "f1",
            "--a",
            "",
            "--b",
            "3",
            "--json",
        ],
    ];
    for args in cases {
        let o = redc(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}
