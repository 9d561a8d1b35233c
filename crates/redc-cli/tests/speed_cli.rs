//! `redc speed` and `redc bench mont` as programs: threads, the spread, the
//! anchor protocol (through a stand-in anchor whose figures are fixed, so
//! every number it reports has a known place in redc's output), the plots,
//! and the missing-anchor error. Short runs (0.05 s per row, 1024 bits).

mod common;
use common::{fresh, json, json_rows, openssl_if_installed, redc_env, s};

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn threads_spread_and_plot() {
    let dir = fresh("speed-cli", "plot");
    let svg = dir.join("speed.svg");
    let o = redc_env(
        &[
            "speed",
            "--bits",
            "1024",
            "--seconds",
            "0.05",
            "--threads",
            "2",
            "--json",
            "--plot",
            svg.to_str().unwrap(),
        ],
        &[("REDC_PLOT_COMMIT", "abc1234")],
    );
    let rows = json_rows(&o);
    assert_eq!(
        rows.iter().map(|r| r["op"].as_str().unwrap()).collect::<Vec<_>>(),
        ["sign", "verify"]
    );
    for r in &rows {
        assert_eq!(r["threads"], 2);
        assert_eq!(r["bits"], 1024);
        let (min, med, max) = (
            r["min_ops_per_sec"].as_f64().unwrap(),
            r["ops_per_sec"].as_f64().unwrap(),
            r["max_ops_per_sec"].as_f64().unwrap(),
        );
        assert!(0.0 < min && min <= med && med <= max, "{r}");
        assert!(r["batches"].as_u64().unwrap() >= 3);
        assert!(r.get("openssl_ops_per_sec").is_none());
    }
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..40.min(text.len())]);
    assert!(text.contains("redc sign") && text.contains("redc verify"));
    assert!(text.contains("2 threads"));
    // The stamp: the CPU, today's date (as the Markdown sections give it)
    // and the commit the caller named.
    assert!(
        text.contains("CPU: ") && text.contains("(commit abc1234)"),
        "{text}"
    );
    assert!(text.contains("\u{b7} 20"), "{text}");
}

/// A stand-in anchor: records its arguments and stdin, reports fixed figures.
fn fake_anchor(dir: &Path) -> PathBuf {
    let path = dir.join("fake-anchor");
    let script = format!(
        r#"#!/bin/sh
if [ "$1" = --version ]; then
  echo '{{"version":"OpenSSL 9.9.9 test","build":"system test","method":"stand-in"}}'
  exit 0
fi
echo "$@" > {dir}/args
echo called >> {dir}/calls
cat > {dir}/key.der
echo '{{"version":"OpenSSL 9.9.9 test","build":"system test","method":"stand-in","threads":2,
 "sign":{{"median":100,"min":90,"max":130,"batches":5}},
 "verify":{{"median":1000,"min":990,"max":1010,"batches":5}}}}'
"#,
        dir = dir.display()
    );
    std::fs::write(&path, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

#[test]
fn compare_runs_the_anchor_with_the_key_and_threads() {
    let dir = fresh("speed-cli", "anchor");
    let anchor = fake_anchor(&dir);
    let o = redc_env(
        &[
            "speed",
            "--bits",
            "1024",
            "--seconds",
            "0.05",
            "--threads",
            "2",
            "--rounds",
            "2",
            "--compare",
            "--json",
        ],
        &[("REDC_OPENSSL_ANCHORS", anchor.to_str().unwrap())],
    );
    let rows = json_rows(&o);
    let sign = &rows[0];
    assert_eq!(sign["op"], "sign");
    assert_eq!(sign["openssl_version"], "OpenSSL 9.9.9 test");
    assert_eq!(sign["openssl_ops_per_sec"], 100.0);
    assert_eq!(sign["openssl_min_ops_per_sec"], 90.0);
    assert_eq!(sign["openssl_max_ops_per_sec"], 130.0);
    assert_eq!(sign["openssl_anchor_method"], "stand-in");
    let ratio = sign["ratio"].as_f64().unwrap();
    let expect = sign["ops_per_sec"].as_f64().unwrap() / 100.0;
    assert!(
        (ratio - expect).abs() < 0.002 * expect.max(1.0),
        "{ratio} {expect}"
    );
    assert_eq!(rows[1]["openssl_ops_per_sec"], 1000.0);
    assert!(sign.get("newest_openssl_version").is_none());
    // The ratio's range over the rounds: with the anchor's figure fixed,
    // redc's slowest and fastest rounds.
    assert_eq!(sign["rounds"], 2);
    let (lo, hi) = (
        sign["ratio_min"].as_f64().unwrap(),
        sign["ratio_max"].as_f64().unwrap(),
    );
    assert!(lo <= ratio && ratio <= hi && lo > 0.0, "{lo} {ratio} {hi}");
    // The anchor was asked once per round, for the round's share of the
    // time, and the same threads...
    let args = std::fs::read_to_string(dir.join("args")).unwrap();
    assert_eq!(args.trim(), "--seconds 0.025 --threads 2");
    let calls = std::fs::read_to_string(dir.join("calls")).unwrap();
    assert_eq!(calls.lines().count(), 2, "{calls}");
    // ...and got a 1024-bit PKCS#8 DER private key (read back by OpenSSL).
    let der = s(&dir.join("key.der"));
    match openssl_if_installed(&["pkey", "-inform", "DER", "-noout", "-text", "-in", &der]) {
        Some(out) => {
            assert!(out.status.success());
            assert!(String::from_utf8_lossy(&out.stdout).contains("(1024 bit"));
        }
        None => eprintln!("SKIPPED: the openssl binary is missing; key.der not checked"),
    }
    // The verdict, on stderr beside the JSON: one line for the size.
    let stderr = String::from_utf8_lossy(&o.stderr);
    let verdicts: Vec<&str> = stderr.lines().filter(|l| l.contains("RSA-1024")).collect();
    assert_eq!(verdicts.len(), 1, "{stderr}");
    // Its figures are the JSON's: the verdict rounds to 2 decimals, the
    // JSON to 3, so each may differ from the other by 0.0055.
    let shown = verdicts[0]
        .strip_prefix("redc speed: RSA-1024 sign: redc ")
        .and_then(|r| r.split_once("x OpenSSL 9.9.9 on this CPU (rounds "))
        .and_then(|(median, r)| {
            let (lo, r) = r.split_once('-')?;
            Some([median, lo, r.split_once('x')?.0])
        })
        .unwrap_or_else(|| panic!("{stderr}"));
    for (text, json) in shown.iter().zip([ratio, lo, hi]) {
        let v: f64 = text.parse().unwrap_or_else(|_| panic!("{stderr}"));
        assert!((v - json).abs() <= 0.0055 + 1e-9, "{v} against {json}: {stderr}");
    }
    assert!(verdicts[0].contains("; verify "), "{stderr}");
    // The spreads (the anchor's sign figure: 40% of its median) in one
    // warning line.
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("spread by more than 10%"), "{stderr}");
}

#[test]
fn the_table_ends_with_one_verdict_line_per_size() {
    let dir = fresh("speed-cli", "verdict");
    let anchor = fake_anchor(&dir);
    let o = redc_env(
        &[
            "speed",
            "--bits",
            "1024",
            "--seconds",
            "0.06",
            "--rounds",
            "3",
            "--compare",
        ],
        &[("REDC_OPENSSL_ANCHORS", anchor.to_str().unwrap())],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with("RSA-1024 sign: redc ") && last.contains("x OpenSSL 9.9.9 on this CPU (rounds "),
        "{stdout}"
    );
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("RSA-")).count(),
        1,
        "{stdout}"
    );
    // Three rounds, three calls; the warnings went to stderr, not the table.
    let calls = std::fs::read_to_string(dir.join("calls")).unwrap();
    assert_eq!(calls.lines().count(), 3);
    assert!(!stdout.contains("warning"), "{stdout}");
    assert!(stdout.contains("in 3 rounds"), "{stdout}");
}

#[test]
fn markdown_is_a_section_for_the_performance_page() {
    let dir = fresh("speed-cli", "markdown");
    let anchor = fake_anchor(&dir);
    let o = redc_env(
        &[
            "speed",
            "--bits",
            "1024",
            "--seconds",
            "0.04",
            "--rounds",
            "2",
            "--compare",
            "--markdown",
        ],
        &[("REDC_OPENSSL_ANCHORS", anchor.to_str().unwrap())],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = md.lines().collect();
    assert!(
        lines[0].starts_with("### ") && lines[0].contains(": redc kernel "),
        "{md}"
    );
    // The command that made it, as typed.
    assert!(
        md.contains("`redc speed --bits 1024 --seconds 0.04 --rounds 2 --compare --markdown`"),
        "{md}"
    );
    assert!(
        md.contains("| bits | op | redc ops/s | OpenSSL 9.9.9 ops/s | redc / OpenSSL 9.9.9 |"),
        "{md}"
    );
    // The anchor's fixed figures, and a ratio with its round range.
    let sign = lines
        .iter()
        .find(|l| l.starts_with("| 1024 | sign |"))
        .expect("sign row");
    assert!(
        sign.contains("| 100.0 | ") && sign.contains("x (") && sign.ends_with("x) |"),
        "{md}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("| 1024 | verify |") && l.contains("| 1000.0 | ")),
        "{md}"
    );
    assert!(
        lines.last().unwrap().starts_with("- RSA-1024 sign: redc "),
        "{md}"
    );
    // --json and --markdown are two answers to one question.
    let both = redc_env(
        &["speed", "--bits", "1024", "--json", "--markdown"],
        &[("REDC_OPENSSL_ANCHORS", anchor.to_str().unwrap())],
    );
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn compare_without_an_anchor_fails_with_one_clear_line() {
    let dir = fresh("speed-cli", "missing");
    let svg = dir.join("never.svg");
    let o = redc_env(
        &[
            "speed",
            "--bits",
            "1024",
            "--seconds",
            "0.05",
            "--compare",
            "--plot",
            svg.to_str().unwrap(),
        ],
        &[
            ("REDC_OPENSSL_ANCHORS", "/nonexistent/anchor"),
            ("REDC_PYTHON", "/nonexistent"),
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("REDC_PYTHON is no longer used"), "{err}");
    assert!(
        err.contains("/nonexistent/anchor") && err.contains("scripts/speed.sh"),
        "{err}"
    );
    assert!(
        err.lines()
            .last()
            .unwrap()
            .starts_with("redc speed: --compare: no OpenSSL anchor found")
    );
    assert!(!svg.exists());
}

#[test]
fn bench_mont_plot_has_a_line_per_variant() {
    let dir = fresh("speed-cli", "mont");
    let svg = dir.join("mont.svg");
    let o = redc_env(
        &[
            "bench",
            "mont",
            "--bits",
            "64,128",
            "--runs",
            "1",
            "--variants",
            "cios,sqr,karatsuba,karatsuba-sqr",
            "--plot",
            svg.to_str().unwrap(),
        ],
        &[],
    );
    assert!(o.status.success());
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    // One legend entry per variant (plotters puts a text's content on its own line).
    for v in ["cios", "sqr", "karatsuba", "karatsuba-sqr"] {
        assert_eq!(text.lines().filter(|l| l.trim() == v).count(), 1, "{v}");
    }
    let o = redc_env(&["bench", "mont", "--bits", "64", "--plot", "-"], &[]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bench_mont_takes_sizes_up_to_65536_bits() {
    let args = |bits: &'static str| {
        [
            "bench",
            "mont",
            "--bits",
            bits,
            "--runs",
            "1",
            "--variants",
            "karatsuba",
            "--json",
        ]
    };
    let rows = json(&redc_env(&args("65536"), &[]));
    assert_eq!(rows[0]["limbs"], 1024);
    for bad in ["65600", "100"] {
        let o = redc_env(&args(bad), &[]);
        assert_eq!(o.status.code(), Some(2), "--bits {bad}");
    }
}

/// `bench mont` also times the engine's kernels by name: the portable
/// path's and, where the CPU has BMI2/ADX (and no mask hides them), the
/// MULX/ADX forms with and without Karatsuba; an unknown name lists both
/// kinds of name.
#[test]
fn bench_mont_times_the_engine_kernels() {
    let args = |variants: &'static str| {
        [
            "bench",
            "mont",
            "--bits",
            "1024,4096",
            "--runs",
            "1",
            "--variants",
            variants,
            "--json",
        ]
    };
    let rows = json(&redc_env(&args("portable-fixed,portable,portable-sqr"), &[]));
    let names: Vec<_> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["variant"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["portable-fixed", "portable", "portable-sqr"].repeat(2),
        "{rows}"
    );
    let adx = "adx,adx-sqr,adx-schoolbook,adx-schoolbook-sqr,adx-karatsuba,adx-karatsuba-sqr";
    let has_adx = cfg!(target_arch = "x86_64")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("adx");
    if has_adx {
        let rows = json(&redc_env(&args(adx), &[]));
        let rows = rows.as_array().unwrap();
        assert_eq!(rows.len(), 12);
        for r in rows {
            assert!(r["ns_per_product"].as_f64().unwrap() > 0.0, "{r}");
        }
        // Masked, the ADX kernels are refused with a reason.
        let o = redc_env(&args("adx"), &[("REDC_CPU_DISABLE", "adx")]);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("BMI2/ADX"));
    } else {
        eprintln!("SKIPPED: the MULX/ADX kernels' rows (no BMI2/ADX on this CPU)");
    }
    let o = redc_env(&args("toom-cook"), &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("unknown variant 'toom-cook'") && err.contains("adx-karatsuba-sqr"),
        "{err}"
    );
}

#[test]
fn redc_links_no_openssl() {
    let Ok(o) = Command::new("ldd").arg(common::bin()).output() else {
        eprintln!("SKIPPED: ldd is missing");
        return;
    };
    let libs = String::from_utf8_lossy(&o.stdout);
    assert!(libs.contains("libc.so"), "{libs}");
    assert!(!libs.contains("libssl") && !libs.contains("libcrypto"), "{libs}");
}

/// `REDC_CPU_DISABLE` is a contract: each word hides its feature (with the
/// implied ones) from dispatch and the report, and the JSON rows say which.
#[test]
fn cpu_mask_reaches_the_kernel_report() {
    let args = ["speed", "--bits", "1024", "--seconds", "0.05", "--json"];
    let rows = json_rows(&redc_env(&args, &[("REDC_CPU_DISABLE", "ifma")]));
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(r["cpu_disabled"], serde_json::json!(["ifma"]), "{r}");
        let kernel = r["kernel"].as_str().unwrap();
        assert!(!kernel.contains("ifma"), "IFMA masked, yet kernel {kernel}");
        assert_ne!(r["kernel_family"], "ifma", "{r}");
    }
    let rows = json_rows(&redc_env(&args, &[("REDC_CPU_DISABLE", "ifma,avx512")]));
    assert_eq!(rows[0]["cpu_disabled"], serde_json::json!(["ifma", "avx512"]));
    // avx512 implies ifma.
    let rows = json_rows(&redc_env(&args, &[("REDC_CPU_DISABLE", "avx512")]));
    assert_eq!(rows[0]["cpu_disabled"], serde_json::json!(["ifma", "avx512"]));
    // Everything hidden: the portable family, whatever the CPU has.
    let rows = json_rows(&redc_env(&args, &[("REDC_CPU_DISABLE", "ifma,avx512,avx2,adx")]));
    assert_eq!(rows[0]["kernel"], "portable");
    assert_eq!(rows[0]["kernel_family"], "portable");
    // Nothing hidden: an empty list.
    let rows = json_rows(&redc_env(&args, &[]));
    assert_eq!(rows[0]["cpu_disabled"], serde_json::json!([]));
    // The text header names the family and the mask.
    let o = redc_env(&args[..5], &[("REDC_CPU_DISABLE", "adx")]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains("(family ") && text.contains("REDC_CPU_DISABLE hides adx"),
        "{text}"
    );
}

/// Unknown values of the fixed-value settings are refused with one line and
/// status 2 before any command runs, whatever the command.
#[test]
fn unknown_settings_are_refused_with_one_line() {
    for (var, value, named) in [
        ("REDC_CPU_DISABLE", "ifma,sse9", "sse9"),
        ("REDC_KERNEL", "bogus", "bogus"),
        ("REDC_FORCE_PORTABLE", "yes", "yes"),
    ] {
        for args in [
            &["speed", "--bits", "1024", "--seconds", "0.05"][..],
            &["mont", "--list"][..],
        ] {
            let o = redc_env(args, &[(var, value)]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{var}={value} {args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(var) && err.contains(named), "{err}");
            assert!(o.stdout.is_empty());
        }
    }
}
