//! Reading inputs and writing outputs for the commands, as OpenSSL treats
//! output paths: `-` is stdout; a regular file (new or existing) is written
//! to a temporary file in its directory and renamed into place only when
//! complete, so a failed command never leaves a partial file (a new private
//! key is created readable by its owner only, an existing file keeps its
//! mode); a symbolic link is followed and its target written the same way;
//! a character or block device, FIFO or socket is opened and written in
//! place, never replaced. Every write failure, stdout's included, is an
//! `Err` holding one line.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use redc::keyfile::quote_untrusted;

/// Set when file descriptor 1 was closed as the process started (the Rust
/// runtime then puts /dev/null there, which would swallow the output).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Record that stdout was closed at start: every later write to it fails.
pub fn mark_stdout_closed() {
    STDOUT_CLOSED.store(true, Ordering::Relaxed);
}

/// Write `data` to stdout and flush it; an error is one line
/// ("cannot write stdout: ...").
pub fn write_stdout(data: &[u8]) -> Result<(), String> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Err("cannot write stdout: Bad file descriptor (stdout is closed)".into());
    }
    let mut out = std::io::stdout().lock();
    out.write_all(data)
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write stdout: {}", plain(&e)))
}

/// Read a whole input (`-` is stdin).
pub fn read_input(path: &str) -> Result<Vec<u8>, String> {
    if path == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        return Ok(buf);
    }
    fs::read(path).map_err(|e| format!("cannot read '{}': {}", quote_untrusted(path), plain(&e)))
}

/// Stream an input (`-` is stdin) through `f` in chunks.
pub fn stream_input(path: &str, mut f: impl FnMut(&[u8])) -> Result<(), String> {
    let mut reader: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            fs::File::open(path)
                .map_err(|e| format!("cannot read '{}': {}", quote_untrusted(path), plain(&e)))?,
        )
    };
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader
            .read(&mut buf)
            .map_err(|e| format!("cannot read '{}': {}", quote_untrusted(path), plain(&e)))?;
        if n == 0 {
            return Ok(());
        }
        f(&buf[..n]);
    }
}

/// Whether an output file is a secret (created with mode 0600).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Secrecy {
    /// Anyone may read it.
    Public,
    /// Only the owner may read it.
    Secret,
}

/// Write `data` to `path` as the module describes (`-` is stdout).
pub fn write_output(path: &str, data: &[u8], secrecy: Secrecy) -> Result<(), String> {
    if path == "-" {
        return write_stdout(data);
    }
    let result = (|| {
        let target = follow_links(Path::new(path))?;
        match fs::metadata(&target) {
            Ok(meta) if meta.is_file() => replace_file(&target, data, secrecy, Some(&meta)),
            Ok(meta) if meta.is_dir() => Err(std::io::ErrorKind::IsADirectory.into()),
            // A device, FIFO or socket: the node stays, the data goes through it.
            Ok(_) => write_in_place(&target, data),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => replace_file(&target, data, secrecy, None),
            Err(e) => Err(e),
        }
    })();
    result.map_err(|e| format!("cannot write '{}': {}", quote_untrusted(path), plain(&e)))
}

/// The path a chain of symbolic links ends at (the path itself when it is
/// no link); the end need not exist.
fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    // Linux's own limit on links followed in one lookup.
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// A device, FIFO or socket: opened for writing (never created or
/// truncated) and written.
fn write_in_place(target: &Path, data: &[u8]) -> std::io::Result<()> {
    let mut file = fs::OpenOptions::new().write(true).open(target)?;
    file.write_all(data)?;
    file.flush()
}

/// A regular file, new (`existing` None) or not: written to a temporary
/// file beside it, then renamed over it. The temporary file gets the
/// existing file's mode (and owner, where allowed) before any data.
fn replace_file(
    target: &Path,
    data: &[u8],
    secrecy: Secrecy,
    existing: Option<&fs::Metadata>,
) -> std::io::Result<()> {
    let tmp = temp_beside(target);
    let result = (|| {
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(if secrecy == Secrecy::Secret { 0o600 } else { 0o666 });
        }
        let _ = secrecy;
        let mut file = options.open(&tmp)?;
        if let Some(meta) = existing {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                // Best effort: only root may give a file to another owner.
                let _ = std::os::unix::fs::fchown(&file, Some(meta.uid()), Some(meta.gid()));
            }
            file.set_permissions(meta.permissions())?;
        }
        file.write_all(data)?;
        file.sync_all()?;
        fs::rename(&tmp, target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn temp_beside(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let unique = format!(".{name}.redc-{}-{}.tmp", std::process::id(), nanos());
    target.with_file_name(unique)
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// An I/O error's message without the "(os error N)" suffix.
fn plain(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
