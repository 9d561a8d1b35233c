//! One stream rule for every command (issue 42, item 2): one input and one
//! output default to stdin and stdout; at most one input from stdin,
//! `--passin stdin` included; `pkey --pubout` writes the public key only;
//! options that do not apply to the chosen scheme are refused; usage lines
//! show only what is required; messages name what is wrong; the README's
//! usage block parses.

mod common;

use common::*;
use std::path::PathBuf;

/// A directory with `k.pem`, `m`, and `enc.pem` (the key encrypted with "pw").
fn workdir(name: &str) -> PathBuf {
    let d = with_key("streams", name);
    let o = redc_in(
        &d,
        &[
            "genrsa",
            "--bits",
            "1024",
            "--passout",
            "pass:pw",
            "-o",
            "enc.pem",
        ],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
    d
}

fn refused_with(o: &std::process::Output, needle: &str, what: &str) {
    assert_eq!(o.status.code(), Some(2), "{what}: {}", err(o));
    assert!(err(o).contains(needle), "{what}: {:?} lacks {needle:?}", err(o));
}

#[test]
fn encrypt_and_decrypt_default_to_stdin_and_stdout() {
    let d = workdir("crypt");
    let c = redc_in(&d, &["encrypt", "--key", "k.pem"], Some(b"secret text"));
    assert!(c.status.success(), "{}", err(&c));
    let m = redc_in(&d, &["decrypt", "--key", "k.pem"], Some(&c.stdout));
    assert!(m.status.success(), "{}", err(&m));
    assert_eq!(m.stdout, b"secret text");
}

#[test]
fn passin_stdin_counts_as_an_input_from_stdin() {
    let d = workdir("passin");
    let c = redc_in(&d, &["encrypt", "--key", "k.pem", "--in", "m", "-o", "c"], None);
    assert!(c.status.success(), "{}", err(&c));
    for args in [
        &["sign", "--key", "enc.pem", "--passin", "stdin"][..],
        &["decrypt", "--key", "enc.pem", "--passin", "stdin"],
        &["verify", "--key", "enc.pem", "--passin", "stdin", "--sig", "m"],
        &["pubout", "--key", "-", "--passin", "stdin"],
        &["pkey", "--key", "-", "--passin", "stdin"],
    ] {
        let o = redc_in(&d, args, Some(b"pw\n"));
        refused_with(&o, "at most one input can come from stdin", &format!("{args:?}"));
        assert!(o.stdout.is_empty());
    }
    // With the input in a file, the passphrase may come from stdin.
    let o = redc_in(
        &d,
        &["sign", "--key", "enc.pem", "--passin", "stdin", "--in", "m"],
        Some(b"pw\n"),
    );
    assert!(o.status.success(), "{}", err(&o));
}

#[test]
fn pkey_pubout_writes_the_public_key_only() {
    let d = workdir("pubout");
    let expected = redc_in(&d, &["pubout", "--key", "k.pem"], None);
    assert!(expected.status.success());
    let o = redc_in(&d, &["pkey", "--key", "k.pem", "--pubout", "-o", "x.pub"], None);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(std::fs::read(d.join("x.pub")).unwrap(), expected.stdout);
    let o = redc_in(&d, &["pkey", "--key", "k.pem", "--pubout", "--text"], None);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("-----BEGIN PUBLIC KEY-----"), "{text}");
    assert!(
        text.contains("Public-Key: (1024 bit)") && !text.contains("Private-Key"),
        "{text}"
    );
}

#[test]
fn options_of_another_scheme_are_refused() {
    let d = workdir("scheme");
    let o = redc_in(&d, &["sign", "--key", "k.pem", "--in", "m", "-o", "s"], None);
    assert!(o.status.success(), "{}", err(&o));
    let o = redc_in(
        &d,
        &[
            "encrypt", "--key", "k.pem", "--scheme", "pkcs1", "--in", "m", "-o", "c",
        ],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
    for (args, needle) in [
        (
            &[
                "decrypt", "--key", "k.pem", "--scheme", "pkcs1", "--hash", "sha512", "--in", "c",
            ][..],
            "--hash applies to --scheme oaep only",
        ),
        (
            &[
                "encrypt", "--key", "k.pem", "--scheme", "pkcs1", "--hash", "sha512", "--in", "m",
            ],
            "--hash applies to --scheme oaep only",
        ),
        (
            &[
                "decrypt", "--key", "k.pem", "--scheme", "pkcs1", "--label", "", "--in", "c",
            ],
            "--label applies to --scheme oaep only",
        ),
        (
            &[
                "verify",
                "--key",
                "k.pem",
                "--in",
                "m",
                "--sig",
                "s",
                "--salt-len",
                "20",
            ],
            "--salt-len applies to --scheme pss only",
        ),
    ] {
        let o = redc_in(&d, args, None);
        refused_with(&o, needle, &format!("{args:?}"));
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn usage_lines_show_only_required_options() {
    let d = fresh("streams", "usage");
    for (args, usage, not_required) in [
        (
            &["genrsa"][..],
            "--bits <BITS>",
            &["--out <OUT>", "--e <E>", "--format <FORMAT>"][..],
        ),
        (
            &["genrsa", "--bits", "1024", "--hash", "sha256"],
            "--bits <BITS>",
            &["--out <OUT>", "--e <E>"],
        ),
        (&["pubout"], "--key <KEY>", &["--out <OUT>", "--format <FORMAT>"]),
        (
            &["encrypt"],
            "--key <KEY>",
            &["--in <INPUT>", "--out <OUT>", "--scheme <SCHEME>"],
        ),
        (
            &["decrypt"],
            "--key <KEY>",
            &["--in <INPUT>", "--out <OUT>", "--hash <HASH>"],
        ),
        (&["pkey"], "--key <KEY>", &["--out <OUT>"]),
    ] {
        let o = redc_in(&d, args, None);
        assert_eq!(o.status.code(), Some(2));
        let e = err(&o);
        let line = e
            .lines()
            .find(|l| l.starts_with("Usage:"))
            .unwrap_or_else(|| panic!("{e}"));
        assert!(
            line.starts_with(&format!("Usage: redc {}", args[0])) && line.contains(usage),
            "{line}"
        );
        for opt in not_required {
            assert!(
                !line.contains(&format!(" {opt}")) || line.contains(&format!("[{opt}")),
                "{line}"
            );
        }
    }
}

#[test]
fn a_pem_without_its_end_line_says_so() {
    let d = workdir("pem");
    let pem = String::from_utf8(key_pem().to_vec()).unwrap();
    let cut: String = pem.lines().take(5).map(|l| format!("{l}\n")).collect();
    std::fs::write(d.join("cut.pem"), cut).unwrap();
    let o = redc_in(&d, &["sign", "--key", "cut.pem", "--in", "m"], None);
    refused_with(&o, "no END line", "cut PEM");
    assert!(!err(&o).contains("pre-encapsulation"), "{}", err(&o));
}

#[test]
fn out_dir_counts_what_was_signed() {
    let d = workdir("outdir");
    let o = redc_in(
        &d,
        &["sign", "--key", "k.pem", "--in", "-", "--out-dir", "sigs"],
        None,
    );
    refused_with(&o, "1 of 1 files failed", "all failing");
    assert!(!err(&o).contains("the others"), "{}", err(&o));
    assert!(err(&o).contains("none was signed"), "{}", err(&o));
    let o = redc_in(
        &d,
        &[
            "sign",
            "--key",
            "k.pem",
            "--in",
            "m",
            "missing",
            "--out-dir",
            "sigs",
        ],
        None,
    );
    refused_with(&o, "1 of 2 files failed; 1 signed in 'sigs'", "one failing");
}

/// Each command line of the README's usage block parses as it is written
/// (redirections, `[optional]` brackets and comments aside).
#[test]
fn readme_usage_block_parses() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let block = readme.split("## Usage").nth(1).expect("a Usage section");
    let mut seen = 0;
    for line in block.lines().take_while(|l| !l.starts_with("## ")) {
        let Some(cmd) = line.strip_prefix("    redc ") else {
            continue;
        };
        let cmd = cmd.split(" #").next().unwrap();
        let mut args = vec!["redc".to_string()];
        let mut words = cmd.split_whitespace();
        while let Some(w) = words.next() {
            if w == "<" || w == ">" {
                words.next();
                continue;
            }
            let w = w.trim_matches(|c| c == '[' || c == ']');
            // A placeholder count (`--threads N`) stands for a number.
            let w = if w == "N" {
                "2"
            } else {
                w.split('|').next().unwrap()
            };
            args.push(w.to_string());
        }
        // `--help` is an `Err` that exits 0.
        if let Err(e) = redc_cli::parse_args(&args)
            && e.exit_code() != 0
        {
            panic!("README line {line:?} does not parse: {e}");
        }
        seen += 1;
    }
    assert!(seen > 10, "{seen} command lines");
    assert!(block.contains("redc encrypt --key pub.pem < msg > msg.enc"));
}
