//! Shared by the provider's tests: the `openssl` binary, a provider
//! directory holding `redc.so`, keys made by OpenSSL itself, and runners
//! that say what failed.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The directory this test run works in (unique per process).
pub fn work_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("redc-provider-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

/// The cdylib cargo built with this test binary: target/<profile>/deps/
/// (a test build does not copy it up to target/<profile>/).
pub fn provider_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let lib = deps.join("libredc_provider.so");
    if lib.exists() {
        lib
    } else {
        deps.parent().unwrap().join("libredc_provider.so")
    }
}

/// A directory with `redc.so` linked to the built provider, or `None`
/// (with a SKIPPED line) when `openssl` 3 is not installed.
pub fn provider_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let version = Command::new("openssl").arg("version").output();
        match version {
            Ok(o) if o.status.success() && String::from_utf8_lossy(&o.stdout).starts_with("OpenSSL 3") => {}
            _ => return None,
        }
        let lib = provider_library();
        assert!(
            lib.exists(),
            "the provider library {} was not built",
            lib.display()
        );
        let dir = work_dir().join("providers");
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join("redc.so");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&lib, &link).unwrap();
        Some(dir)
    })
    .as_deref()
}

/// The provider directory, or print SKIPPED and return from the test.
#[macro_export]
macro_rules! need_openssl {
    () => {
        match common::provider_dir() {
            Some(d) => d,
            None => {
                eprintln!("SKIPPED: OpenSSL 3 `openssl` binary not found (scripts/test.sh installs it)");
                return;
            }
        }
    };
}

/// The options that load redc before the default provider and prefer it.
pub fn with_redc(dir: &Path) -> Vec<String> {
    vec![
        "-provider-path".into(),
        dir.display().to_string(),
        "-provider".into(),
        "redc".into(),
        "-provider".into(),
        "default".into(),
        "-propquery".into(),
        "?provider=redc".into(),
    ]
}

/// Run `openssl args...` with `REDC_PROVIDER_TRACE` set, in the work
/// directory; `extra` (provider options) go right after the subcommand,
/// before any file operand.
pub fn openssl(args: &[&str], extra: &[String]) -> Output {
    let mut cmd = Command::new("openssl");
    cmd.args(&args[..1])
        .args(extra)
        .args(&args[1..])
        .current_dir(work_dir())
        .env("REDC_PROVIDER_TRACE", "1");
    cmd.stdin(std::process::Stdio::null());
    cmd.output().unwrap()
}

/// Run and require success; returns stdout and stderr.
pub fn openssl_ok(args: &[&str], extra: &[String]) -> (String, String) {
    let o = openssl(args, extra);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(
        o.status.success(),
        "openssl {args:?} {extra:?} failed:\n{out}\n{err}"
    );
    (out, err)
}

/// An RSA key of `bits` bits made by OpenSSL's default provider, with its
/// public key and a self-signed certificate (CN=localhost), once per run:
/// `(key.pem, pub.pem, cert.pem)` file names in the work directory.
pub fn key(bits: u32) -> (String, String, String) {
    static KEYS: OnceLock<std::sync::Mutex<Vec<u32>>> = OnceLock::new();
    let made = KEYS.get_or_init(Default::default);
    let mut made = made.lock().unwrap();
    let names = (
        format!("k{bits}.pem"),
        format!("p{bits}.pem"),
        format!("c{bits}.pem"),
    );
    if !made.contains(&bits) {
        let b = format!("rsa_keygen_bits:{bits}");
        openssl_ok(
            &["genpkey", "-algorithm", "RSA", "-pkeyopt", &b, "-out", &names.0],
            &[],
        );
        openssl_ok(&["pkey", "-in", &names.0, "-pubout", "-out", &names.1], &[]);
        openssl_ok(
            &[
                "req",
                "-x509",
                "-new",
                "-key",
                &names.0,
                "-subj",
                "/CN=localhost",
                "-days",
                "2",
                "-out",
                &names.2,
            ],
            &[],
        );
        made.push(bits);
    }
    names
}

/// Write `bytes` to `name` in the work directory; returns the name.
pub fn write(name: &str, bytes: &[u8]) -> String {
    std::fs::write(work_dir().join(name), bytes).unwrap();
    name.to_string()
}

/// Read `name` from the work directory.
pub fn read(name: &str) -> Vec<u8> {
    std::fs::read(work_dir().join(name)).unwrap()
}

/// Whether the trace on stderr shows redc doing `op` ("sign", "verify", ...).
pub fn redc_did(stderr: &str, op: &str) -> bool {
    stderr
        .lines()
        .any(|l| l.starts_with(&format!("redc-provider: {op}")))
}
