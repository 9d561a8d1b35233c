//! Passphrase arguments as OpenSSL spells them (`openssl-passphrase-options(1)`):
//! `pass:TEXT`, `env:VAR`, `file:PATH` (its first line), `fd:N` (the first
//! line read from that descriptor) and `stdin` (the first line of standard
//! input). The passphrase is kept in a buffer that is zeroized on drop.

use std::io::Read;

use redc::keyfile::quote_untrusted;
use zeroize::Zeroizing;

/// The passphrase `arg` names; `option` (`--passin`) is for messages.
pub fn read_pass(option: &str, arg: &str) -> Result<Zeroizing<Vec<u8>>, String> {
    let pass = if let Some(text) = arg.strip_prefix("pass:") {
        Zeroizing::new(text.as_bytes().to_vec())
    } else if let Some(var) = arg.strip_prefix("env:") {
        let value = std::env::var_os(var).ok_or_else(|| {
            format!(
                "{option} env:{}: no such environment variable",
                quote_untrusted(var)
            )
        })?;
        Zeroizing::new(value.into_encoded_bytes())
    } else if let Some(path) = arg.strip_prefix("file:") {
        let file = std::fs::File::open(path).map_err(|e| {
            format!(
                "{option} file:{}: cannot read: {}",
                quote_untrusted(path),
                plain(&e)
            )
        })?;
        first_line(file).map_err(|e| format!("{option} file:{}: {e}", quote_untrusted(path)))?
    } else if let Some(fd) = arg.strip_prefix("fd:") {
        let n: u32 = fd
            .parse()
            .map_err(|_| format!("{option} fd:{}: not a descriptor number", quote_untrusted(fd)))?;
        // /dev/fd/N reopens the descriptor without unsafe code.
        let file = std::fs::File::open(format!("/dev/fd/{n}"))
            .map_err(|e| format!("{option} fd:{n}: cannot read: {}", plain(&e)))?;
        first_line(file).map_err(|e| format!("{option} fd:{n}: {e}"))?
    } else if arg == "stdin" {
        first_line(std::io::stdin().lock()).map_err(|e| format!("{option} stdin: {e}"))?
    } else {
        // The argument itself is not echoed: it may be a passphrase typed
        // without its `pass:` prefix.
        return Err(format!(
            "{option}: expected pass:TEXT, env:VAR, file:PATH, fd:N or stdin"
        ));
    };
    if pass.is_empty() {
        return Err(format!("{option}: empty passphrase"));
    }
    Ok(pass)
}

/// The first line of `r` without its line ending, read byte by byte so
/// that nothing after it is consumed (as OpenSSL does for `stdin`).
fn first_line(mut r: impl Read) -> Result<Zeroizing<Vec<u8>>, String> {
    let mut line = Zeroizing::new(Vec::new());
    let mut byte = [0u8; 1];
    loop {
        match r.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("cannot read: {}", plain(&e))),
        }
        if line.len() > 64 * 1024 {
            return Err("passphrase longer than 64 KiB".into());
        }
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    zeroize::Zeroize::zeroize(&mut byte);
    Ok(line)
}

fn plain(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
