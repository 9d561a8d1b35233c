//! Issue 11's traps for a user with OpenSSL habits, one test each: every
//! test here failed on the command line before issue 11 (single-dash words
//! read as `-o ut`, two inputs from stdin, bare "decryption failed",
//! stripped clap suggestions, a "supported" range that was not the one
//! accepted, ...).

mod common;
use common::{err, file_names, fresh, key_pem, openssl_if_installed, redc_in, repo_root, with_key};

use std::process::Command;

#[test]
fn single_dash_words_are_refused_not_read_as_short_options() {
    // genrsa -out: used to exit 0 with the key in a file named `ut`.
    let d = fresh("habits", "dash-genrsa");
    let o = redc_in(&d, &["genrsa", "--bits", "1024", "-out"], None);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(err(&o).lines().count(), 1, "{}", err(&o));
    assert!(
        err(&o).contains("'-out'") && err(&o).contains("--out"),
        "{}",
        err(&o)
    );
    assert!(file_names(&d).is_empty(), "left {:?}", file_names(&d));
    assert!(o.stdout.is_empty());

    // sign -out: used to overwrite ./ut.
    let d = with_key("habits", "dash-sign");
    std::fs::write(d.join("ut"), b"keep me").unwrap();
    let o = redc_in(&d, &["sign", "--key", "k.pem", "--in", "m", "-out"], None);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(std::fs::read(d.join("ut")).unwrap(), b"keep me");
    // -in, -key, -sign name the option meant.
    for (word, meant) in [("-in", "--in"), ("-key", "--key"), ("-sign", "redc sign")] {
        let o = redc_in(&d, &["sign", word, "m"], None);
        assert_eq!(o.status.code(), Some(2), "{word}: {}", err(&o));
        assert_eq!(err(&o).lines().count(), 1, "{word}: {}", err(&o));
        assert!(err(&o).contains(meant), "{word}: {}", err(&o));
        assert!(
            !err(&o).contains("'-i'") && !err(&o).contains("'-k'"),
            "{}",
            err(&o)
        );
    }
    // The real short option and a negative value still work (--salt-len
    // applies to PSS only).
    let o = redc_in(
        &d,
        &[
            "sign", "--key", "k.pem", "--scheme", "pss", "--in", "m", "-o", "s",
        ],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
    let o = redc_in(
        &d,
        &[
            "verify",
            "--key",
            "k.pem",
            "--scheme",
            "pss",
            "--in",
            "m",
            "--sig",
            "s",
            "--salt-len",
            "-1",
        ],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
}

#[test]
fn two_inputs_from_stdin_are_refused() {
    let d = with_key("habits", "stdin2");
    // Used to exit 0 having signed the empty message.
    let o = redc_in(
        &d,
        &["sign", "--key", "-", "--in", "-", "-o", "y.sig"],
        Some(key_pem()),
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("stdin"), "{}", err(&o));
    assert!(!d.join("y.sig").exists());
    // Used to print a bare "Verification failure".
    let o = redc_in(
        &d,
        &["verify", "--key", "k.pem", "--in", "-", "--sig", "-"],
        Some(b"whatever"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("--in") && err(&o).contains("--sig"),
        "{}",
        err(&o)
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn sign_and_verify_default_to_stdin_and_stdout() {
    let d = with_key("habits", "defaults");
    let msg = std::fs::read(d.join("m")).unwrap();
    let by_files = redc_in(&d, &["sign", "--key", "k.pem", "--in", "m", "-o", "s"], None);
    assert!(by_files.status.success(), "{}", err(&by_files));
    // PKCS#1 v1.5 is deterministic: the piped signature is the same bytes.
    let piped = redc_in(&d, &["sign", "--key", "k.pem"], Some(&msg));
    assert!(piped.status.success(), "{}", err(&piped));
    assert_eq!(piped.stdout, std::fs::read(d.join("s")).unwrap());
    let o = redc_in(&d, &["verify", "--key", "k.pem", "--sig", "s"], Some(&msg));
    assert_eq!((o.status.code(), &o.stdout[..]), (Some(0), &b"Verified OK\n"[..]));
    let o = redc_in(&d, &["verify", "--key", "k.pem", "--sig", "s"], Some(b"other"));
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn oaep_failure_names_the_hashes_and_how_to_change_them() {
    let d = with_key("habits", "oaep");
    // SHA-1 OAEP, as `openssl pkeyutl -pkeyopt rsa_padding_mode:oaep` makes it.
    for name in ["c1", "c2"] {
        let o = redc_in(
            &d,
            &[
                "encrypt", "--key", "k.pem", "--hash", "sha1", "--in", "m", "-o", name,
            ],
            None,
        );
        assert!(o.status.success(), "{}", err(&o));
    }
    let a = redc_in(&d, &["decrypt", "--key", "k.pem", "--in", "c1", "-o", "p"], None);
    let b = redc_in(&d, &["decrypt", "--key", "k.pem", "--in", "c2", "-o", "p"], None);
    assert_eq!(a.status.code(), Some(1));
    assert!(!d.join("p").exists());
    let text = err(&a);
    assert!(text.contains("sha256") && text.contains("MGF1"), "{text}");
    assert!(text.contains("--hash sha1"), "{text}");
    // A fixed text: the same for two different ciphertexts.
    assert_eq!(err(&a), err(&b));
    let o = redc_in(
        &d,
        &[
            "decrypt", "--key", "k.pem", "--hash", "sha1", "--in", "c1", "-o", "p",
        ],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(std::fs::read(d.join("p")).unwrap(), b"a message\n");
}

#[test]
fn implicit_rejection_is_explained_in_help_and_readme() {
    let o = redc_in(&std::env::temp_dir(), &["decrypt", "--help"], None);
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(help.contains("implicit rejection"), "{help}");
    assert!(
        help.contains("exits 0") && help.contains("random-looking bytes"),
        "{help}"
    );
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    assert!(readme.contains("exits 0") && readme.contains("random-looking bytes"));
}

/// The "A to B bits" of a message.
fn printed_range(text: &str) -> (usize, usize) {
    let i = text.find(" bits)").or_else(|| text.find(" bits")).expect(text);
    let head = &text[..i];
    let words: Vec<&str> = head.rsplit(' ').take(3).collect();
    assert_eq!(words[1], "to", "{text}");
    let num = |w: &str| w.trim_start_matches('(').parse::<usize>().expect(text);
    (num(words[2]), num(words[0]))
}

#[test]
fn genrsa_prints_the_range_it_accepts() {
    let d = fresh("habits", "range");
    for bad in ["512", "1000"] {
        let o = redc_in(&d, &["genrsa", "--bits", bad, "-o", "k"], None);
        assert_eq!(o.status.code(), Some(2));
        let (lo, hi) = printed_range(&err(&o));
        // The bounds printed are exactly the bounds accepted.
        let below = redc_in(&d, &["genrsa", "--bits", &(lo - 1).to_string(), "-o", "k"], None);
        assert_eq!(below.status.code(), Some(2), "{}", err(&below));
        let above = redc_in(&d, &["genrsa", "--bits", &(hi + 1).to_string(), "-o", "k"], None);
        assert_eq!(above.status.code(), Some(2), "{}", err(&above));
        let at = redc_in(&d, &["genrsa", "--bits", &lo.to_string()], None);
        assert!(at.status.success(), "{lo}: {}", err(&at));
        let help = redc_in(&d, &["genrsa", "--help"], None);
        assert!(
            String::from_utf8_lossy(&help.stdout).contains(&format!("{lo} to {hi}")),
            "genrsa --help does not print {lo} to {hi}"
        );
    }
    assert!(!d.join("k").exists());
}

#[test]
fn clap_suggestions_and_usage_survive_with_the_subcommand() {
    let d = fresh("habits", "clap");
    let o = redc_in(&d, &["sing"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("'sign'"), "{}", err(&o));
    assert!(err(&o).contains("Usage:"), "{}", err(&o));
    let o = redc_in(&d, &["verify", "--key", "k", "--sgi", "s"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).starts_with("redc verify: "), "{}", err(&o));
    assert!(err(&o).contains("--sig"), "{}", err(&o));
    assert!(err(&o).contains("Usage: redc verify"), "{}", err(&o));
    let o = redc_in(&d, &["sign", "--key", "k", "--out"], None);
    assert_eq!(o.status.code(), Some(2));
    let text = err(&o);
    assert!(
        text.starts_with("redc sign: a value is required for '--out <OUT>'"),
        "{text}"
    );
    assert!(!text.contains("(see 'redc --help')"), "{text}");
    assert!(!text.contains("supplied For more"), "{text}");
}

#[test]
fn options_with_fixed_values_list_them() {
    let d = fresh("habits", "enum");
    for (cmd, needle) in [
        ("sign", "pss"),
        ("sign", "sha384"),
        ("verify", "sha1"),
        ("encrypt", "oaep"),
        ("genrsa", "pkcs1"),
        ("pubout", "spki"),
    ] {
        let o = redc_in(&d, &[cmd, "--help"], None);
        let help = String::from_utf8_lossy(&o.stdout);
        assert!(help.contains("Possible values"), "{cmd}: {help}");
        assert!(help.contains(needle), "{cmd} --help lacks {needle}");
    }
    // A bad hash is refused by the parser with the list, before any file is read.
    let o = redc_in(&d, &["sign", "--key", "missing", "--hash", "md5"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("possible values: sha1, sha224, sha256, sha384, sha512, sha512-224"),
        "{}",
        err(&o)
    );
}

#[test]
fn label_errors_say_what_is_wrong_and_0x_is_accepted() {
    let d = with_key("habits", "label");
    let o = redc_in(
        &d,
        &[
            "encrypt", "--key", "k.pem", "--in", "m", "-o", "c", "--label", "zz",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("not a hex digit"), "{}", err(&o));
    let o = redc_in(
        &d,
        &[
            "encrypt", "--key", "k.pem", "--in", "m", "-o", "c", "--label", "abc",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("odd"), "{}", err(&o));
    assert!(!d.join("c").exists());
    // 0x6162 and 6162 are the same label.
    let o = redc_in(
        &d,
        &[
            "encrypt", "--key", "k.pem", "--in", "m", "-o", "c", "--label", "0x6162",
        ],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
    let o = redc_in(
        &d,
        &[
            "decrypt", "--key", "k.pem", "--in", "c", "-o", "p", "--label", "6162",
        ],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(std::fs::read(d.join("p")).unwrap(), b"a message\n");
}

#[test]
fn rsa_commands_come_first_in_help() {
    let o = redc_in(&std::env::temp_dir(), &["--help"], None);
    let help = String::from_utf8_lossy(&o.stdout);
    let at = |name: &str| {
        help.lines()
            .position(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} not in {help}"))
    };
    let last_rsa = ["genrsa", "pubout", "sign", "verify", "encrypt", "decrypt"]
        .map(at)
        .into_iter()
        .max();
    let first_other = ["mont", "speed", "bench", "hw"].map(at).into_iter().min();
    assert!(last_rsa < first_other, "{help}");
}

#[test]
fn progress_is_quiet_off_a_terminal_unless_asked() {
    let d = fresh("habits", "progress");
    let quiet = redc_in(&d, &["genrsa", "--bits", "1024", "-o", "a"], None);
    assert!(quiet.status.success());
    assert!(quiet.stderr.is_empty(), "{}", err(&quiet));
    let shown = redc_in(&d, &["genrsa", "--bits", "1024", "-o", "b", "--progress"], None);
    assert!(shown.status.success(), "{}", err(&shown));
    assert!(
        err(&shown).contains("searching for the first prime"),
        "{}",
        err(&shown)
    );
}

#[test]
fn bench_keygen_states_both_sides_miller_rabin_rounds() {
    if openssl_if_installed(&["version"]).is_none() {
        eprintln!("SKIPPED: bench_keygen_states_both_sides_miller_rabin_rounds: no openssl binary");
        return;
    }
    let d = fresh("habits", "bench");
    let o = redc_in(
        &d,
        &["bench", "keygen", "--bits", "1024", "--runs", "1", "--progress"],
        None,
    );
    assert!(o.status.success(), "{}", err(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Miller-Rabin"), "{out}");
    // 512-bit primes: FIPS 186-4 Table C.3, 7 rounds; OpenSSL 3: 64.
    assert!(out.contains("7/64"), "{out}");
    assert!(err(&o).contains("bench keygen"), "no progress: {}", err(&o));
}

#[test]
fn completions_for_bash_zsh_fish() {
    let d = fresh("habits", "completions");
    for shell in ["bash", "zsh", "fish"] {
        let o = redc_in(&d, &["completions", shell], None);
        assert!(o.status.success(), "{shell}: {}", err(&o));
        let script = String::from_utf8_lossy(&o.stdout);
        assert!(
            script.contains("genrsa") && script.contains("salt-len"),
            "{shell}"
        );
    }
    let o = redc_in(&d, &["completions", "bash"], None);
    std::fs::write(d.join("c.bash"), &o.stdout).unwrap();
    match Command::new("bash").arg("-n").arg(d.join("c.bash")).status() {
        Ok(s) => assert!(s.success(), "the bash script does not parse"),
        Err(_) => eprintln!("SKIPPED: bash -n of the completion script: no bash"),
    }
}
