//! Reading inputs and writing outputs for the commands: `-` is stdin or
//! stdout; an output file is written to a temporary file beside it and
//! renamed into place only when complete, so a failed command never leaves
//! a partial file. Private keys are created readable by their owner only.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use redc::keyfile::quote_untrusted;

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

/// Write `data` to `path` (`-` is stdout), atomically for files.
pub fn write_output(path: &str, data: &[u8], secrecy: Secrecy) -> Result<(), String> {
    if path == "-" {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(data)
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write stdout: {e}"));
    }
    let target = Path::new(path);
    let tmp = temp_beside(target);
    let result = (|| -> std::io::Result<()> {
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if secrecy == Secrecy::Secret {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let _ = secrecy;
        let mut file = options.open(&tmp)?;
        file.write_all(data)?;
        file.sync_all()?;
        fs::rename(&tmp, target)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(format!("cannot write '{}': {}", quote_untrusted(path), plain(&e)));
    }
    Ok(())
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
