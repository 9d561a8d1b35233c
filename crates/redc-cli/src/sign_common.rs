//! What signing one file and signing many (`sign --out-dir`) share, with
//! `verify`: the digest a command works on, and the message of a signing
//! error.

use crate::io::{read_input, stream_input};
use crate::rsa_args::parse_label;
use redc::hash::HashAlg;
use redc::rsa::Error as RsaError;

/// The `hash` of the input at `path`, read in chunks.
fn digest_of(hash: HashAlg, path: &str) -> Result<Vec<u8>, String> {
    let mut hasher = hash.hasher();
    stream_input(path, |chunk| hasher.update(chunk))?;
    Ok(hasher.finalize())
}

/// The digest to sign or verify: the hash of `input`; with `prehashed`, the
/// input's bytes themselves; or `--digest HEX` (`0x` allowed). A given
/// digest must be the hash's length.
pub(crate) fn message_digest(
    hash: HashAlg,
    input: Option<&str>,
    prehashed: bool,
    hex_digest: Option<&str>,
) -> Result<Vec<u8>, String> {
    let given = match (hex_digest, input) {
        (Some(text), _) => parse_label(text.trim())
            .map(|l| l.0)
            .map_err(|e| format!("--digest: {e}"))?,
        (None, Some(path)) if prehashed => read_input(path)?,
        (None, Some(path)) => return digest_of(hash, path),
        (None, None) => return Err("give the input with --in or the digest with --digest".into()),
    };
    if given.len() != hash.output_len() {
        return Err(format!(
            "the digest is {} bytes; {} gives {}",
            given.len(),
            hash.name(),
            hash.output_len()
        ));
    }
    Ok(given)
}

/// The message for a signing error.
pub(crate) fn sign_error(hash: HashAlg, e: RsaError) -> String {
    match e {
        RsaError::MessageTooLong => {
            format!("the key is too small for {} with this salt length", hash.name())
        }
        other => other.to_string(),
    }
}
