//! Output paths as OpenSSL writes them (issue 42, item 1): a device node,
//! FIFO or symbolic link given to `-o` is written through, never replaced;
//! a regular file is replaced atomically, keeping an existing file's mode;
//! every write failure, stdout's included (full, closed, broken pipe), is
//! one line on stderr and status 2 in every command that writes.

mod common;

use common::*;
use std::path::Path;
use std::process::Stdio;

/// A directory with `k.pem`, `m`, the signature `s` of `m` and the
/// ciphertext `c` of `m`.
fn workdir(name: &str) -> std::path::PathBuf {
    let d = with_key("outpaths", name);
    for args in [
        ["sign", "--key", "k.pem", "--in", "m", "-o", "s"],
        ["encrypt", "--key", "k.pem", "--in", "m", "-o", "c"],
    ] {
        let o = redc_in(&d, &args, None);
        assert!(o.status.success(), "{args:?}: {}", err(&o));
    }
    d
}

/// Every command that writes a file with `-o`, with `OUT` for the path.
const WRITERS: &[&[&str]] = &[
    &["genrsa", "--bits", "1024", "-o", "OUT"],
    &["pubout", "--key", "k.pem", "-o", "OUT"],
    &["sign", "--key", "k.pem", "--in", "m", "-o", "OUT"],
    &["encrypt", "--key", "k.pem", "--in", "m", "-o", "OUT"],
    &["decrypt", "--key", "k.pem", "--in", "c", "-o", "OUT"],
    &["pkey", "--key", "k.pem", "-o", "OUT"],
];

/// Commands that write stdout only.
const STDOUT_ONLY: &[&[&str]] = &[
    &["verify", "--key", "k.pem", "--in", "m", "--sig", "s"],
    &["mont", "--list"],
    &["hw", "reproduce"],
    &["speed", "--bits", "1024", "--seconds", "0.05"],
    &["completions", "bash"],
];

fn with_out<'a>(args: &[&'a str], out: &'a str) -> Vec<&'a str> {
    args.iter().map(|&a| if a == "OUT" { out } else { a }).collect()
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The one line a failed write leaves on stderr, with status 2 (`speed`
/// reports its progress on stderr before it: only the last line counts).
fn assert_one_line_failure(o: &std::process::Output, needle: &str, what: &str) {
    let e = err(o);
    assert_eq!(o.status.code(), Some(2), "{what}: status, stderr {e:?}");
    let lines: Vec<&str> = if what.contains("\"speed\"") {
        e.lines().filter(|l| !l.ends_with("...")).collect()
    } else {
        e.lines().collect()
    };
    assert_eq!(lines.len(), 1, "{what}: one line expected: {e:?}");
    assert!(
        lines[0].starts_with("redc ") && lines[0].contains(needle),
        "{what}: {e:?}"
    );
}

#[test]
fn a_null_device_is_written_in_place_not_replaced() {
    let d = workdir("null");
    let Some(null) = char_device(&d, "null", 1, 3) else {
        return;
    };
    for args in WRITERS {
        let o = redc_in(&d, &with_out(args, path_str(&null)), None);
        assert!(o.status.success(), "{args:?}: {}", err(&o));
        assert!(is_char_device(&null), "{args:?} replaced the device node");
    }
}

#[test]
fn a_full_device_fails_with_one_line_and_stays() {
    let d = workdir("full");
    let Some(full) = char_device(&d, "full", 1, 7) else {
        return;
    };
    for args in WRITERS {
        let o = redc_in(&d, &with_out(args, path_str(&full)), None);
        assert_one_line_failure(&o, "No space left on device", &format!("{args:?}"));
        assert!(is_char_device(&full), "{args:?} replaced the device node");
    }
    // The same through a symbolic link to it.
    std::os::unix::fs::symlink(&full, d.join("link")).unwrap();
    let o = redc_in(&d, &["pubout", "--key", "k.pem", "-o", "link"], None);
    assert_one_line_failure(&o, "No space left on device", "pubout -o link");
    assert!(is_char_device(&full));
}

#[test]
fn a_fifo_is_written_through() {
    let d = workdir("fifo");
    let expected_sig = std::fs::read(d.join("s")).unwrap();
    for args in WRITERS {
        let f = fifo(&d, "fifo");
        let reader = {
            let f = f.clone();
            std::thread::spawn(move || std::fs::read(f).unwrap())
        };
        let o = redc_in(&d, &with_out(args, "fifo"), None);
        assert!(o.status.success(), "{args:?}: {}", err(&o));
        // A replaced FIFO would leave the reader waiting forever: look first.
        assert!(is_fifo(&f), "{args:?} replaced the FIFO");
        let got = reader.join().unwrap();
        assert!(!got.is_empty(), "{args:?}: nothing came through the FIFO");
        if args[0] == "sign" {
            assert_eq!(got, expected_sig, "PKCS#1 v1.5 signatures are deterministic");
        }
        if args[0] == "genrsa" {
            assert!(got.starts_with(b"-----BEGIN PRIVATE KEY-----"));
        }
        std::fs::remove_file(&f).unwrap();
    }
}

#[test]
fn a_symlink_is_followed_and_its_target_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let d = workdir("symlink");
    let target = d.join("target.pem");
    std::fs::write(&target, b"old").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = d.join("link.pem");
    std::os::unix::fs::symlink("target.pem", &link).unwrap();
    let o = redc_in(&d, &["genrsa", "--bits", "1024", "-o", "link.pem"], None);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(),
        "link replaced"
    );
    assert!(
        std::fs::read(&target)
            .unwrap()
            .starts_with(b"-----BEGIN PRIVATE KEY-----")
    );
    assert_eq!(mode(&target), 0o640, "an existing file's mode is kept");

    // A dangling link: its target is created, a private key with mode 0600.
    let dangling = d.join("dangling.pem");
    std::os::unix::fs::symlink("new-target.pem", &dangling).unwrap();
    let o = redc_in(&d, &["genrsa", "--bits", "1024", "-o", "dangling.pem"], None);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(mode(&d.join("new-target.pem")), 0o600);
}

#[test]
fn regular_files_are_replaced_atomically_with_their_mode() {
    use std::os::unix::fs::PermissionsExt;
    let d = workdir("regular");
    let o = redc_in(&d, &["genrsa", "--bits", "1024", "-o", "new.pem"], None);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(mode(&d.join("new.pem")), 0o600, "a new private key is 0600");
    let existing = d.join("pub.pem");
    std::fs::write(&existing, b"old").unwrap();
    std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o640)).unwrap();
    let o = redc_in(&d, &["pubout", "--key", "k.pem", "-o", "pub.pem"], None);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        std::fs::read(&existing)
            .unwrap()
            .starts_with(b"-----BEGIN PUBLIC KEY-----")
    );
    assert_eq!(mode(&existing), 0o640, "an existing file's mode is kept");
    // No temporary file is left beside the outputs.
    let names: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn out_dir_signatures_go_through_device_nodes() {
    let d = workdir("outdir");
    let sigs = d.join("sigs");
    std::fs::create_dir(&sigs).unwrap();
    let Some(full) = char_device(&sigs, "m.sig", 1, 7) else {
        return;
    };
    let o = redc_in(
        &d,
        &["sign", "--key", "k.pem", "--in", "m", "--out-dir", "sigs"],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("No space left on device"), "{}", err(&o));
    assert!(is_char_device(&full), "the node was replaced");
}

/// Every command's stdout: `-o -` for the writers, plus the stdout-only ones.
fn stdout_commands() -> Vec<Vec<&'static str>> {
    WRITERS
        .iter()
        .map(|a| with_out(a, "-"))
        .chain(STDOUT_ONLY.iter().map(|a| a.to_vec()))
        .collect()
}

#[test]
fn a_full_stdout_is_one_line_and_status_2() {
    let d = workdir("stdout-full");
    let Some(full) = char_device(&d, "full", 1, 7) else {
        return;
    };
    for args in stdout_commands() {
        let stdout = std::fs::OpenOptions::new().write(true).open(&full).unwrap();
        let o = redc_to(&d, &args, Stdio::from(stdout));
        assert_one_line_failure(
            &o,
            "cannot write stdout: No space left on device",
            &format!("{args:?}"),
        );
    }
}

#[test]
fn a_closed_stdout_is_one_line_and_status_2() {
    let d = workdir("stdout-closed");
    for args in stdout_commands() {
        let o = redc_stdout_closed(&d, &args);
        assert_one_line_failure(&o, "cannot write stdout", &format!("{args:?}"));
    }
}

#[test]
fn a_broken_pipe_is_one_line_and_status_2() {
    let d = workdir("stdout-pipe");
    for args in stdout_commands() {
        let o = redc_broken_pipe(&d, &args);
        assert_one_line_failure(&o, "cannot write stdout: Broken pipe", &format!("{args:?}"));
    }
}
