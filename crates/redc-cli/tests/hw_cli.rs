//! `redc hw` as a program: exact results against num-bigint, cycle fields
//! present, and bad input answered with one line and status 2.

mod common;
use common::{fresh, json, redc, scratch_path};

use num_bigint::{BigUint, RandBigInt};
use num_traits::One;
use rand::{SeedableRng, rngs::StdRng};
use std::process::Command;

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

/// Whether Icarus Verilog is installed (`bash scripts/test.sh` installs it).
fn have_iverilog() -> bool {
    Command::new("iverilog")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
        && Command::new("vvp").arg("-V").output().is_ok()
}

/// Generates the RTL of `design` for `bits`-bit moduli, simulates one
/// exponentiation in Icarus and returns the testbench's one line.
fn simulate(design: &str, bits: u64, extra: &[&str], n: &str, b: &str, e: &str) -> String {
    let dir = scratch_path("rtl", &format!("{design}-{bits}{}", extra.concat()));
    let bits_s = bits.to_string();
    let mut args = vec!["hw", "rtl", "--design", design, "--bits", &bits_s];
    args.extend_from_slice(extra);
    let dir_s = dir.to_str().unwrap().to_string();
    args.extend_from_slice(&["-o", &dir_s]);
    let o = redc(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut sources: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|f| f.unwrap().path().to_str().unwrap().to_string())
        .filter(|p| p.ends_with(".v"))
        .collect();
    sources.sort();
    assert!(
        sources.iter().any(|p| p.ends_with("/tb.v")),
        "no tb.v in {sources:?}"
    );
    let sim = dir.join("sim");
    let c = Command::new("iverilog")
        .args(["-g2005", "-o", sim.to_str().unwrap()])
        .args(&sources)
        .output()
        .unwrap();
    assert!(
        c.status.success(),
        "iverilog: {}",
        String::from_utf8_lossy(&c.stderr)
    );
    let r = Command::new("vvp")
        .args(["-n", sim.to_str().unwrap()])
        .arg(format!("+modulus={n}"))
        .arg(format!("+base={b}"))
        .arg(format!("+exp={e}"))
        .output()
        .unwrap();
    assert!(r.status.success());
    let out = String::from_utf8_lossy(&r.stdout).to_string();
    let _ = std::fs::remove_dir_all(&dir);
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with("VCD")).collect();
    assert_eq!(lines.len(), 1, "exactly one line expected, got {out:?}");
    lines[0].to_string()
}

/// The generated Verilog, simulated in Icarus, gives exactly the model's
/// result (checked against num-bigint too) and cycle count.
#[test]
fn rtl_simulates_like_the_model() {
    if !have_iverilog() {
        eprintln!("SKIPPED: rtl_simulates_like_the_model: iverilog is not installed");
        return;
    }
    let mut rng = StdRng::seed_from_u64(12);
    // (design, modulus bits, exponent bits): sizes 8..1024, few cases to stay fast
    let cases: [(&str, u64, u64); 7] = [
        ("csa5to2", 8, 8),
        ("csa5to2", 61, 20),
        ("csa5to2", 256, 6),
        ("csa5to2", 1024, 2),
        ("csa4to2", 9, 9),
        ("csa4to2", 100, 12),
        ("csa4to2", 512, 3),
    ];
    for (design, bits, ebits) in cases {
        let n = rng.gen_biguint(bits) | (BigUint::one() << (bits - 1)) | BigUint::one();
        let base = rng.gen_biguint_below(&n);
        let exp = rng.gen_biguint(ebits);
        let (nh, bh, eh) = (n.to_str_radix(16), base.to_str_radix(16), exp.to_str_radix(16));
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
        let want = base.modpow(&exp, &n);
        assert_eq!(hex_field(&v, "result"), want, "{design} {bits}");
        let line = simulate(design, bits, &[], &nh, &bh, &eh);
        assert_eq!(
            line,
            format!(
                "result={} cycles={}",
                want.to_str_radix(16),
                v["cycles"].as_u64().unwrap()
            ),
            "{design} {bits}-bit n={nh} b={bh} e={eh}"
        );
    }
}

/// A modulus of exactly `bits` bits with its top `top` bits set, odd, and
/// `M = 1 mod 4` when `one_mod_4` (the rows that overflowed the top PU before
/// issue 12's fix).
fn biased_modulus(rng: &mut StdRng, bits: u64, top: u64, one_mod_4: bool) -> BigUint {
    let mut n = rng.gen_biguint(bits);
    for i in 0..top.min(bits) {
        n.set_bit(bits - 1 - i, true);
    }
    n.set_bit(0, true);
    n.set_bit(1, !one_mod_4);
    n
}

/// 002's pipeline in Verilog (`--design hrm`), simulated in Icarus, gives
/// num-bigint's `modpow` and exactly the model's result and clock count: the
/// testbench counts pre-processing, the exponent loop, post-processing and the
/// reduction mod M, i.e. the model's `total_cycles`, which is its `cycles`
/// (002 eq. (1)) plus 6(m+3) + k(m+1) + 2 - N.
#[test]
fn rtl_hrm_simulates_like_the_model() {
    if !have_iverilog() {
        eprintln!("SKIPPED: rtl_hrm_simulates_like_the_model: iverilog is not installed");
        return;
    }
    let mut rng = StdRng::seed_from_u64(1202);
    // (k, modulus bits, top bits set, M = 1 mod 4, exponent bits, base: 0 random, 1 M-1, 2 M-2)
    let mut cases: Vec<(u32, u64, u64, bool, u64, u8)> = vec![
        (2, 8, 8, true, 8, 1),
        (2, 10, 2, true, 0, 0),
        (3, 12, 3, false, 12, 2),
        (4, 16, 8, true, 16, 0),
        (5, 33, 1, true, 6, 1),
        (8, 64, 8, true, 5, 2),
        (13, 100, 13, false, 4, 0),
        (16, 128, 16, true, 4, 1),
        (32, 256, 1, true, 3, 0),
        (64, 192, 8, true, 2, 1),
        (24, 384, 4, true, 1, 2),
    ];
    // Icarus spends about 5 s on a 1024-bit run at any k (the work grows
    // with N^2): one such case always (the issue's 1024-bit end), a second
    // by hand with REDC_RTL_LONG=1.
    cases.push((64, 1024, 4, true, 2, 2));
    if std::env::var_os("REDC_RTL_LONG").is_some() {
        cases.push((16, 1024, 8, true, 2, 0));
    } else {
        eprintln!(
            "SKIPPED: rtl_hrm_simulates_like_the_model: the second 1024-bit case (k = 16; set REDC_RTL_LONG=1)"
        );
    }
    for (k, bits, top, one_mod_4, ebits, bsel) in cases {
        let n = biased_modulus(&mut rng, bits, top, one_mod_4);
        let base = match bsel {
            0 => rng.gen_biguint_below(&n),
            1 => &n - 1u32,
            _ => &n - 2u32,
        };
        let mut exp = rng.gen_biguint(ebits);
        if ebits > 0 {
            exp.set_bit(ebits - 1, true); // l = ebits exponent steps
        }
        let (nh, bh, eh) = (n.to_str_radix(16), base.to_str_radix(16), exp.to_str_radix(16));
        let ks = k.to_string();
        let v = json(&redc(&[
            "hw",
            "modexp",
            "--design",
            "hrm",
            "--radix-bits",
            &ks,
            "--modulus",
            &nh,
            "--base",
            &bh,
            "--exp",
            &eh,
            "--json",
        ]));
        let want = base.modpow(&exp, &n);
        assert_eq!(hex_field(&v, "result"), want, "model, k={k} {bits} bits");
        hrm_sim_matches(k, bits, &nh, &bh, &eh, &v);
    }
    // Rows that carry out of the top PU (issue 12): these fail when the RTL
    // drops that carry (found by simulating such a mutant on random moduli).
    for (k, bits, nh, bh, eh) in [
        (2u32, 24u64, "ff4ce5", "1012f0", "8f4205"),
        (3, 48, "ffdb9c9c2d91", "ffdb9c9c2d8f", "a8f51ac5"),
    ] {
        let ks = k.to_string();
        let v = json(&redc(&[
            "hw",
            "modexp",
            "--design",
            "hrm",
            "--radix-bits",
            &ks,
            "--modulus",
            nh,
            "--base",
            bh,
            "--exp",
            eh,
            "--json",
        ]));
        let hex = |s: &str| BigUint::parse_bytes(s.as_bytes(), 16).unwrap();
        assert_eq!(hex_field(&v, "result"), hex(bh).modpow(&hex(eh), &hex(nh)));
        hrm_sim_matches(k, bits, nh, bh, eh, &v);
    }
}

/// Simulates `--design hrm` and requires the model's result and `total_cycles`.
fn hrm_sim_matches(k: u32, bits: u64, nh: &str, bh: &str, eh: &str, model: &serde_json::Value) {
    let ks = k.to_string();
    let line = simulate("hrm", bits, &["--radix-bits", &ks], nh, bh, eh);
    assert_eq!(
        line,
        format!(
            "result={} cycles={}",
            model["result"].as_str().unwrap(),
            model["total_cycles"].as_u64().unwrap()
        ),
        "k={k} {bits}-bit n={nh} b={bh} e={eh}"
    );
}

#[test]
fn rtl_bad_arguments_exit_2() {
    let dir = scratch_path("rtl", "bad");
    let d = dir.to_str().unwrap();
    for args in [
        vec!["hw", "rtl", "--design", "nope", "--bits", "16", "-o", d],
        vec!["hw", "rtl", "--design", "csa5to2", "--bits", "2", "-o", d],
        vec![
            "hw",
            "rtl",
            "--design",
            "csa5to2",
            "--bits",
            "16",
            "--radix-bits",
            "4",
            "-o",
            d,
        ],
        vec![
            "hw",
            "rtl",
            "--design",
            "hrm",
            "--bits",
            "16",
            "--radix-bits",
            "1",
            "-o",
            d,
        ],
        vec![
            "hw",
            "rtl",
            "--design",
            "hrm",
            "--bits",
            "16",
            "--radix-bits",
            "65",
            "-o",
            d,
        ],
        vec![
            "hw",
            "rtl",
            "--design",
            "hrm",
            "--bits",
            "3",
            "--radix-bits",
            "2",
            "-o",
            d,
        ],
    ] {
        let o = redc(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1, "{args:?}");
        assert!(!dir.exists(), "no output for bad arguments");
    }
}

/// `redc hw reproduce --plot FILE.svg`: an SVG with one point per row
/// (the paper's figure against the model's) beside the line of exact
/// agreement, the table still
/// printed; an unwritable path: exit 2 and no table.
#[test]
fn reproduce_plot_writes_an_svg() {
    let dir = fresh("hw", "plot");
    let svg = dir.join("reproduce.svg");
    let o = redc(&["hw", "reproduce", "--progress", "--plot", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The models take seconds: --progress shows it off a terminal too.
    assert!(String::from_utf8_lossy(&o.stderr).contains("running the models"));
    let table = String::from_utf8_lossy(&o.stdout);
    let rows = table.lines().filter(|l| l.starts_with("00")).count();
    assert!(rows > 10, "{table}");
    // Papers by their authors: a clone has no seed files to name.
    assert!(!table.contains(".txt") && table.contains("McIvor"), "{table}");
    // 003 section 9's Karatsuba row, and the model's counts behind it.
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("003") && l.contains("Karatsuba multiplication")),
        "{table}"
    );
    assert!(
        table.contains("  schoolbook_muls_per_digit_product = 4\n")
            && table.contains("  karatsuba_muls_per_digit_product = 3\n"),
        "{table}"
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    // The paper's figure against the model's, the agreement line, and the
    // stamp that says where the image came from.
    assert!(
        text.starts_with("<svg")
            && text.contains("the paper&apos;s figure")
            && text.contains("model = paper")
            && text.contains("CPU: "),
        "{text}"
    );
    // One marker per row with a finite ratio, plus the two ends of the exact line.
    assert!(
        text.matches("<circle").count() >= rows,
        "{} circles for {rows} rows",
        text.matches("<circle").count()
    );
    let o = redc(&[
        "hw",
        "reproduce",
        "--plot",
        dir.join("missing/x.svg").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no such directory"));
}

/// The text form says which numbers are hexadecimal (0x) and leaves the
/// counts decimal; the JSON form keeps bare lowercase hex.
#[test]
fn text_output_marks_hexadecimal_numbers() {
    let args = [
        "hw",
        "modexp",
        "--design",
        "csa5to2",
        "--modulus",
        "f1",
        "--base",
        "11",
        "--exp",
        "1e",
    ];
    let o = redc(&args);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    // 0x11^0x1e mod 0xf1 = 0xe9 (num-bigint below), in hex; cycles in decimal.
    let want = num_bigint::BigUint::from(0x11u32).modpow(&0x1eu32.into(), &0xf1u32.into());
    assert!(text.contains(&format!("result: 0x{want:x}\n")), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("cycles: ") && l[8..].bytes().all(|c| c.is_ascii_digit()))
    );
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let o = redc(&json_args);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["result"], format!("{want:x}"));
}

/// `redc hw reproduce --json`: 003 section 9's Karatsuba row at 512-bit
/// keys beside the paper's 1.22, with the model's counts under `detail`
/// (4 against 3 multiplies per 64x64 digit product, 528 / 544 / 408
/// multiplies per 512-bit Montgomery product); the other rows keep their
/// fields and have no `detail`.
#[test]
fn reproduce_json_has_the_karatsuba_row() {
    let v = json(&redc(&["hw", "reproduce", "--json"]));
    let rows = v.as_array().expect("an array of rows");
    let k = rows
        .iter()
        .find(|r| {
            r["table"] == "section 9"
                && r["row"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("Karatsuba") && s.contains("512-bit"))
        })
        .expect("the Karatsuba row");
    assert_eq!(k["paper_value"], 1.22);
    assert_eq!(k["paper_source"], "printed");
    assert!(k["same_formula"].is_null());
    assert_eq!(k["within_2pct"], true, "{k}");
    let d = &k["detail"];
    assert_eq!(d["schoolbook_muls_per_digit_product"], 4.0, "{d}");
    assert_eq!(d["karatsuba_muls_per_digit_product"], 3.0, "{d}");
    assert_eq!(d["radix32_muls"], 528.0, "{d}");
    assert_eq!(d["radix64_schoolbook_muls"], 544.0, "{d}");
    assert_eq!(d["radix64_karatsuba_muls"], 408.0, "{d}");
    let ratio = d["radix32_cycles"].as_f64().unwrap() / d["radix64_karatsuba_cycles"].as_f64().unwrap();
    assert_eq!(k["model_value"].as_f64(), Some(ratio));
    for key in [
        "paper",
        "table",
        "row",
        "quantity",
        "paper_value",
        "model_value",
        "ratio",
        "within_2pct",
        "paper_source",
        "same_formula",
    ] {
        assert!(rows.iter().all(|r| r.get(key).is_some()), "{key}");
    }
    assert!(
        rows.iter()
            .filter(|r| r.get("detail").is_some())
            .all(|r| r["row"].as_str().is_some_and(|s| s.starts_with("Karatsuba")))
    );
}
