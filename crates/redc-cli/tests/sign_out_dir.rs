//! `redc sign --in FILE... --out-dir DIR`: every signature byte for byte the
//! one-file `redc sign` result and accepted by `openssl dgst -verify`; a bad
//! input fails alone with its own line, the exit status is 2 at the end, and
//! no partial or stray file is left.

mod common;
use common::{file_names, fresh, ok, openssl, openssl_genpkey, p, redc, s};

use std::path::{Path, PathBuf};

/// A key written by `openssl genpkey` and its SPKI public key.
fn openssl_key(dir: &Path) -> (String, String) {
    let key = p(dir, "k.pem");
    let public = p(dir, "pub.pem");
    openssl_genpkey(&key, "RSA", 2048, &[]);
    ok(
        openssl(&["pkey", "-in", &key, "-pubout", "-out", &public]),
        "openssl pkey -pubout",
    );
    (key, public)
}

fn openssl_verifies(public: &str, sig: &Path, file: &Path, pss: bool) -> bool {
    let mut args = vec!["dgst", "-sha256"];
    if pss {
        args.extend(["-sigopt", "rsa_padding_mode:pss"]);
    }
    let (sig, file) = (s(sig), s(file));
    args.extend(["-verify", public, "-signature", &sig, &file]);
    let o = openssl(&args);
    o.status.success() && String::from_utf8_lossy(&o.stdout).contains("Verified OK")
}

#[test]
fn many_files_sign_like_one_and_bad_ones_fail_alone() {
    let dir = fresh("outdir", "many");
    let (key, public) = openssl_key(&dir);
    let files: Vec<PathBuf> = (0..17)
        .map(|i| {
            let f = dir.join(format!("m{i}.txt"));
            std::fs::write(&f, format!("message {i}\n").repeat(i + 1)).unwrap();
            f
        })
        .collect();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let twin = dir.join("sub").join("m3.txt"); // same name as an earlier input
    std::fs::write(&twin, b"another m3").unwrap();
    let missing = dir.join("missing.txt");
    let out = dir.join("sigs");
    let mut args: Vec<String> = ["sign", "--key", &key, "--out-dir", &s(&out), "--in"]
        .iter()
        .map(|a| a.to_string())
        .collect();
    let mut inputs: Vec<String> = files.iter().map(|f| s(f)).collect();
    inputs.insert(5, s(&missing));
    inputs.push(s(&twin));
    args.extend(inputs);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = redc(&refs);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(lines[0].contains("missing.txt"), "{err}");
    assert!(
        lines[1].contains("sub/m3.txt") && lines[1].contains("m3.txt.sig"),
        "{err}"
    );
    assert!(lines[2].contains("2 of 19 files failed"), "{err}");
    // Exactly the 17 signatures, nothing else (no temporary files).
    let names = file_names(&out);
    let mut want: Vec<String> = (0..17).map(|i| format!("m{i}.txt.sig")).collect();
    want.sort();
    assert_eq!(names, want);
    for (i, f) in files.iter().enumerate() {
        let sig = out.join(format!("m{i}.txt.sig"));
        assert!(openssl_verifies(&public, &sig, f, false), "m{i}");
        let one = dir.join("one.sig");
        let o = redc(&["sign", "--key", &key, "--in", &s(f), "-o", &s(&one)]);
        assert!(o.status.success());
        assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&sig).unwrap(), "m{i}");
    }
    // The twin's own content was not signed into m3's file.
    assert!(!openssl_verifies(&public, &out.join("m3.txt.sig"), &twin, false));
}

#[test]
fn pss_on_one_thread_and_stdin_refused() {
    let dir = fresh("outdir", "pss");
    let (key, public) = openssl_key(&dir);
    let a = dir.join("a");
    let b = dir.join("b");
    std::fs::write(&a, b"first").unwrap();
    std::fs::write(&b, b"second").unwrap();
    let out = dir.join("new").join("sigs"); // created as needed
    let o = redc(&[
        "sign",
        "--key",
        &key,
        "--scheme",
        "pss",
        "--threads",
        "1",
        "--out-dir",
        &s(&out),
        "--in",
        &s(&a),
        &s(&b),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(openssl_verifies(&public, &out.join("a.sig"), &a, true));
    assert!(openssl_verifies(&public, &out.join("b.sig"), &b, true));
    let o = redc(&["sign", "--key", &key, "--out-dir", &s(&out), "--in", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("stdin"));
}

#[test]
fn several_inputs_need_an_out_dir() {
    let dir = fresh("outdir", "usage");
    let (key, _) = openssl_key(&dir);
    std::fs::write(dir.join("a"), b"a").unwrap();
    let sig = dir.join("x.sig");
    let a = s(&dir.join("a"));
    let o = redc(&["sign", "--key", &key, "--in", &a, &a, "-o", &s(&sig)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--out-dir"));
    assert!(!sig.exists());
    let o = redc(&[
        "sign",
        "--key",
        &key,
        "--in",
        &a,
        "--threads",
        "2",
        "-o",
        &s(&sig),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!sig.exists());
}
