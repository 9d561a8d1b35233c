//! OpenSSL's own RSA test data through the provider: OpenSSL's `evp_test`
//! (built from Debian's OpenSSL 3.0.x and 3.5.x source packages by
//! scripts/openssl_evp_test.sh, cached outside the clone) runs
//! `evppkey_rsa.txt` and `evppkey_rsa_common.txt` twice: with the default
//! provider alone (the oracle: every stanza must pass) and with redc loaded
//! first and preferred (`default_properties = ?provider=redc`), where every
//! stanza must pass too, redc doing the work (its trace counts the
//! operations it ran).
//!
//! Where the build is impossible (no source package, no compiler) the test
//! prints "SKIPPED: <reason>"; with `CI` set in the environment it fails
//! instead.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The data files run, in `test/recipes/30-test_evp_data/`.
const FILES: [&str; 2] = ["evppkey_rsa.txt", "evppkey_rsa_common.txt"];

/// Stanzas where redc differs from the default provider on purpose
/// (README, "Where it follows OpenSSL's default provider, and where it
/// differs"): series, file, and lines that together identify the stanza.
/// They are left out of the run through redc.
const DIFFERENCES: [(&str, &str, &[&str]); 1] = [
    // OpenSSL 3.0 has no implicit rejection: a PKCS#1 v1.5 ciphertext with
    // bad padding fails. redc, as OpenSSL 3.2 and later, returns the
    // synthetic message unless "implicit-rejection" is 0
    // (openssl_tools.rs, pkcs1_decryption_of_bad_padding_gives_the_implicit_rejection_message).
    (
        "3.0",
        "evppkey_rsa_common.txt",
        &[
            "# Corrupted ciphertext",
            "Decrypt = RSA-2048",
            "Result = KEYOP_ERROR",
        ],
    ),
];

/// `text` without the stanzas (paragraphs) holding every line of one of
/// `drop`; the number left out.
fn without_stanzas(text: &str, drop: &[&[&str]]) -> (String, usize) {
    let mut out = String::new();
    let mut dropped = 0;
    for para in text.split("\n\n") {
        let lines: Vec<&str> = para.lines().map(str::trim).collect();
        if drop.iter().any(|d| d.iter().all(|l| lines.contains(l))) {
            dropped += 1;
            continue;
        }
        out.push_str(para);
        out.push_str("\n\n");
    }
    (out, dropped)
}

/// Skip with a reason, or fail when `CI` is set.
fn skip(reason: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("CI is set, so this test must run: {reason}");
    }
    eprintln!("SKIPPED: {reason}");
}

/// The OpenSSL source tree holding a built `test/evp_test` for `series`
/// ("3.0" or "3.5"), built on first use (minutes) and cached.
fn evp_tree(series: &str) -> Result<PathBuf, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/openssl_evp_test.sh");
    let o = Command::new("bash")
        .arg(&script)
        .arg(series)
        .output()
        .map_err(|e| format!("running {}: {e}", script.display()))?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        let last = err.lines().last().unwrap_or("no message").to_string();
        return Err(format!("cannot build OpenSSL {series}'s evp_test: {last}"));
    }
    let tree = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    if !tree.join("test/evp_test").exists() {
        return Err(format!("{} has no test/evp_test", tree.display()));
    }
    Ok(tree)
}

/// An OpenSSL configuration loading the default provider and, with `redc`,
/// the provider under test first and preferred.
fn config(name: &str, redc: bool) -> PathBuf {
    let mut text = String::from(
        "openssl_conf = init\n[init]\nproviders = providers\nalg_section = algs\n\
         [providers]\ndefault = default_sect\n",
    );
    if redc {
        text.push_str("redc = redc_sect\n");
    }
    text.push_str("[default_sect]\nactivate = 1\n");
    if redc {
        text.push_str(&format!(
            "[redc_sect]\nmodule = {}\nactivate = 1\n[algs]\ndefault_properties = ?provider=redc\n",
            common::provider_library().display()
        ));
    } else {
        text.push_str("[algs]\n");
    }
    let path = common::work_dir().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// One run of evp_test on one file.
struct Run {
    tests: usize,
    errors: usize,
    skipped: usize,
    /// The operations redc's trace reported.
    redc_ops: usize,
    output: String,
}

fn run_evp_test(tree: &Path, conf: &Path, file: &str, data: &Path) -> Run {
    let o = Command::new(tree.join("test/evp_test"))
        .arg("-config")
        .arg(conf)
        .arg(data)
        .current_dir(tree)
        .env("REDC_PROVIDER_TRACE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    let redc_ops = stderr
        .lines()
        .filter(|l| {
            l.strip_prefix("redc-provider: ").is_some_and(|op| {
                ["sign", "verify", "decrypt", "encrypt", "generate"]
                    .iter()
                    .any(|w| op.starts_with(w))
            })
        })
        .count();
    // "# INFO:  @ test/testutil/stanza.c:...\n# Completed 63 tests with 0 errors and 0 skipped"
    let summary = stdout
        .lines()
        .chain(stderr.lines())
        .find_map(|l| {
            let rest = &l[l.find("Completed ")? + "Completed ".len()..];
            let n: Vec<usize> = rest
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            (n.len() == 3).then(|| (n[0], n[1], n[2]))
        })
        .unwrap_or_else(|| panic!("no summary from evp_test on {file}:\n{stdout}\n{stderr}"));
    Run {
        tests: summary.0,
        errors: summary.1,
        skipped: summary.2,
        redc_ops,
        output: format!("{stdout}\n{stderr}"),
    }
}

/// The failing stanzas' lines of an evp_test output, for a readable failure.
fn failures(output: &str) -> String {
    output
        .lines()
        .filter(|l| l.contains("ERROR") || l.contains("FAILED") || l.contains("Source of above error"))
        .take(60)
        .collect::<Vec<_>>()
        .join("\n")
}

fn run_series(series: &str) {
    if Command::new("openssl").arg("version").output().is_err() {
        return skip("OpenSSL 3 `openssl` binary not found (scripts/test.sh installs it)");
    }
    let lib = common::provider_library();
    assert!(
        lib.exists(),
        "the provider library {} was not built",
        lib.display()
    );
    let tree = match evp_tree(series) {
        Ok(t) => t,
        Err(reason) => return skip(&reason),
    };
    let default_only = config(&format!("evp-default-{series}.cnf"), false);
    let with_redc = config(&format!("evp-redc-{series}.cnf"), true);
    for file in FILES {
        let data = tree.join("test/recipes/30-test_evp_data").join(file);
        let oracle = run_evp_test(&tree, &default_only, file, &data);
        assert_eq!(
            (oracle.errors, oracle.redc_ops),
            (0, 0),
            "the default provider alone fails {file} of {}:\n{}",
            tree.display(),
            failures(&oracle.output)
        );
        let drop: Vec<&[&str]> = DIFFERENCES
            .iter()
            .filter(|(s, f, _)| *s == series && *f == file)
            .map(|(_, _, lines)| *lines)
            .collect();
        let (kept, dropped) = without_stanzas(&std::fs::read_to_string(&data).unwrap(), &drop);
        assert_eq!(
            dropped,
            drop.len(),
            "{file}: a stanza of DIFFERENCES is not in the file"
        );
        let filtered = common::work_dir().join(format!("{series}-{file}"));
        std::fs::write(&filtered, kept).unwrap();
        let redc = run_evp_test(&tree, &with_redc, file, &filtered);
        eprintln!(
            "evp_test {} {file}: default provider {} stanzas ({} skipped), 0 failed; \
             through redc {} stanzas ({} left out, {} skipped), {} failed, {} operations by redc",
            tree.file_name().unwrap().to_string_lossy(),
            oracle.tests,
            oracle.skipped,
            redc.tests,
            dropped,
            redc.skipped,
            redc.errors,
            redc.redc_ops
        );
        assert_eq!(
            redc.errors,
            0,
            "{} of {} stanzas of {file} fail through redc:\n{}",
            redc.errors,
            redc.tests,
            failures(&redc.output)
        );
        assert_eq!(
            (redc.tests + dropped, redc.skipped),
            (oracle.tests, oracle.skipped),
            "{file}"
        );
        // Most stanzas are RSA operations; redc must have run them.
        assert!(
            redc.redc_ops * 2 > redc.tests,
            "{file}: redc ran {} operations for {} stanzas",
            redc.redc_ops,
            redc.tests
        );
    }
}

#[test]
fn openssl_3_0_rsa_test_data_through_redc() {
    run_series("3.0");
}

#[test]
fn openssl_3_5_rsa_test_data_through_redc() {
    run_series("3.5");
}
