//! Helpers shared by the command-line tests: running `redc` in a directory
//! with a given stdin, stdout or environment, the `openssl` binary (the
//! oracle), fresh scratch directories, one test key, special files (device
//! nodes, FIFOs) to write to, and the repository's own files.

#![allow(dead_code)] // each test file uses its own subset

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The `redc` binary under test: this build's, or `REDC_TEST_BIN` (to run
/// the same checks against another build, such as an older one).
pub fn bin() -> String {
    std::env::var("REDC_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_redc").to_string())
}

/// `redc ARGS` in `dir`, with `stdin` (or an empty stdin), output captured.
pub fn redc_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(bin())
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run redc");
    {
        let mut input = child.stdin.take().unwrap();
        if let Some(data) = stdin {
            let _ = input.write_all(data);
        }
    }
    child.wait_with_output().expect("wait for redc")
}

/// `redc ARGS` in `dir` with `stdout` as its standard output (stderr
/// captured, stdin empty).
pub fn redc_to(dir: &Path, args: &[&str], stdout: Stdio) -> Output {
    Command::new(bin())
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("run redc")
}

/// `redc ARGS` in `dir` with file descriptor 1 closed (`>&-`).
pub fn redc_stdout_closed(dir: &Path, args: &[&str]) -> Output {
    Command::new("sh")
        .current_dir(dir)
        .arg("-c")
        .arg("exec \"$0\" \"$@\" >&-")
        .arg(bin())
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run sh")
}

/// `redc ARGS` in `dir` writing to a pipe whose reader has gone.
pub fn redc_broken_pipe(dir: &Path, args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    redc_to(dir, args, Stdio::from(writer))
}

/// stderr as text.
pub fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// stdout as text, asserting it is UTF-8.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

/// stdout as one JSON value, after asserting the run succeeded.
pub fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "stderr: {}", err(o));
    serde_json::from_slice(&o.stdout).expect("one JSON value on stdout")
}

/// stdout as a JSON array's elements, after asserting the run succeeded.
pub fn json_rows(o: &Output) -> Vec<serde_json::Value> {
    json(o).as_array().expect("a JSON array on stdout").clone()
}

/// The path `redc-PREFIX-PID-NAME` under the temp dir, with nothing there
/// (for a directory that `redc` itself must create). The process id keeps
/// concurrent runs apart; PREFIX and NAME keep this binary's tests apart.
pub fn scratch_path(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("redc-{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A fresh empty directory `redc-PREFIX-PID-NAME` under the temp dir.
pub fn fresh(prefix: &str, name: &str) -> PathBuf {
    let d = scratch_path(prefix, name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The names in directory `dir`, sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The repository's top directory (README.md, docs/, fuzz/).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One 1024-bit key for the whole test binary (PKCS#8 PEM bytes).
pub fn key_pem() -> &'static [u8] {
    static KEY: OnceLock<Vec<u8>> = OnceLock::new();
    KEY.get_or_init(|| {
        let d = fresh("common", "key");
        let o = redc_in(&d, &["genrsa", "--bits", "1024"], None);
        assert!(o.status.success(), "{}", err(&o));
        o.stdout
    })
}

/// A fresh directory holding the key `k.pem` and the message file `m`.
pub fn with_key(prefix: &str, name: &str) -> PathBuf {
    let d = fresh(prefix, name);
    std::fs::write(d.join("k.pem"), key_pem()).unwrap();
    std::fs::write(d.join("m"), b"a message\n").unwrap();
    d
}

/// A character device node `dir/name` (`mknod name c MAJOR MINOR`: 1 3 is
/// a null device, 1 7 a full one), or `None` with "SKIPPED: ..." on
/// stderr when this user may not make one (not root).
pub fn char_device(dir: &Path, name: &str, major: u32, minor: u32) -> Option<PathBuf> {
    let path = dir.join(name);
    let made = Command::new("mknod")
        .arg(&path)
        .arg("c")
        .arg(major.to_string())
        .arg(minor.to_string())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if made {
        Some(path)
    } else {
        eprintln!(
            "SKIPPED: cannot mknod {} (device tests need root)",
            path.display()
        );
        None
    }
}

/// A FIFO `dir/name`.
pub fn fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let s = Command::new("mkfifo").arg(&path).status().expect("run mkfifo");
    assert!(s.success(), "mkfifo {}", path.display());
    path
}

/// Whether `path` is (still) a character device node, not a symbolic link.
pub fn is_char_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

/// Whether `path` is (still) a FIFO.
pub fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// The permission bits of `path`.
pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// `redc` as a command with stdin empty, for a run that sets its own
/// environment or standard input before `.output()`.
pub fn redc_command() -> Command {
    let mut c = Command::new(bin());
    c.stdin(Stdio::null());
    c
}

/// `redc ARGS` in the current directory, stdin empty, output captured.
pub fn redc(args: &[&str]) -> Output {
    redc_command().args(args).output().expect("run redc")
}

/// `redc ARGS` with the variables `env` set, and without those that point
/// redc at outside programs (REDC_OPENSSL_ANCHORS, REDC_PYTHON), so that
/// the caller's environment cannot change what a test sees.
pub fn redc_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = redc_command();
    c.args(args)
        .env_remove("REDC_OPENSSL_ANCHORS")
        .env_remove("REDC_PYTHON");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run redc")
}

/// `redc ARGS` in the current directory with `stdin`, output captured.
pub fn redc_stdin(args: &[&str], stdin: &[u8]) -> Output {
    redc_in(Path::new("."), args, Some(stdin))
}

/// The `openssl` binary with ARGS, output captured (scripts/test.sh
/// installs it).
pub fn openssl(args: &[&str]) -> Output {
    Command::new("openssl")
        .args(args)
        .output()
        .expect("the openssl binary (scripts/test.sh installs it)")
}

/// The `openssl` binary with ARGS, or None when it is not installed (for
/// the tests that check something extra with it and skip that part).
pub fn openssl_if_installed(args: &[&str]) -> Option<Output> {
    Command::new("openssl").args(args).output().ok()
}

/// A `bits`-bit key of `algorithm` (RSA or RSA-PSS) written by `openssl
/// genpkey` to `path` (PKCS#8 PEM), with the further `-pkeyopt` settings
/// `opts`.
pub fn openssl_genpkey(path: &str, algorithm: &str, bits: usize, opts: &[&str]) {
    let bits = format!("rsa_keygen_bits:{bits}");
    let mut args = vec!["genpkey", "-algorithm", algorithm, "-pkeyopt", &bits];
    for opt in opts {
        args.extend(["-pkeyopt", opt]);
    }
    args.extend(["-out", path]);
    ok(
        openssl(&args),
        &format!("openssl genpkey -algorithm {algorithm} {opts:?}"),
    );
}

/// `o`, after asserting it succeeded (stdout and stderr in the message).
pub fn ok(o: Output, what: &str) -> Output {
    assert!(
        o.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Exit status 2, exactly one line on stderr, nothing on stdout; returns
/// the line.
pub fn refused(o: Output, what: &str) -> String {
    let err = err(&o);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.lines().count(), 1, "{what}: {err}");
    assert!(o.stdout.is_empty(), "{what}");
    err
}

/// `dir/name` as a string argument.
pub fn p(dir: &Path, name: &str) -> String {
    s(&dir.join(name))
}

/// `path` as a string argument.
pub fn s(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
