//! The anchor binary (system build) on a key made by the `openssl` binary:
//! its version is the system OpenSSL's, its figures are ordered, and bad
//! input gets one line and exit status 2. Short runs (0.05 s, 1024 bits).

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn anchor(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_redc-openssl-anchor"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn measures_the_system_openssl_on_the_key_given() {
    let key = match Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:1024",
            "-outform",
            "DER",
        ])
        .output()
    {
        Ok(o) if o.status.success() => o.stdout,
        _ => {
            eprintln!("SKIPPED: the openssl binary is missing; no key to measure");
            return;
        }
    };
    let version = String::from_utf8(Command::new("openssl").arg("version").output().unwrap().stdout).unwrap();
    let o = anchor(&["--seconds", "0.05", "--threads", "2"], &key);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // "OpenSSL 3.0.13 30 Jan 2024": the library the openssl binary runs on.
    let words = |s: &str| s.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
    assert_eq!(words(v["version"].as_str().unwrap()), words(&version));
    assert_eq!(v["threads"], 2);
    for op in ["sign", "verify"] {
        let s = &v[op];
        let (min, med, max) = (
            s["min"].as_f64().unwrap(),
            s["median"].as_f64().unwrap(),
            s["max"].as_f64().unwrap(),
        );
        assert!(0.0 < min && min <= med && med <= max, "{op}: {s}");
        assert!(s["batches"].as_u64().unwrap() >= 3);
    }
    // Verify is the cheap operation.
    assert!(v["verify"]["median"].as_f64().unwrap() > v["sign"]["median"].as_f64().unwrap());
}

#[test]
fn bad_input_one_line_exit_2() {
    for (args, stdin) in [
        (&["--seconds", "0.05"][..], &b"not a key"[..]),
        (&["--threads", "0"][..], &b""[..]),
        (&["--frobnicate"][..], &b""[..]),
    ] {
        let o = anchor(args, stdin);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("redc-openssl-anchor: "));
    }
}
