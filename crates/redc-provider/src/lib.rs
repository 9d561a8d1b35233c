//! redc-provider: an OpenSSL 3 provider named `redc` whose RSA and RSA-PSS
//! key management, signatures and asymmetric encryption run on the redc
//! engine (issue 13, item 1).
//!
//! Build it with `cargo build --release -p redc-provider`; OpenSSL loads
//! `target/release/libredc_provider.so` as `redc.so` from a provider path:
//!
//! ```text
//! openssl dgst -sha256 -sign key.pem -provider-path DIR -provider redc \
//!     -provider default -propquery '?provider=redc' file
//! ```
//!
//! The default provider still decodes and encodes key files; keys pass to
//! redc by export/import ([`keys`]). Layout: [`ffi`] (the C ABI OpenSSL
//! calls: the entry points, the dispatch tables, `OSSL_PARAM` I/O) and
//! [`libcrypto`] (what the provider calls in OpenSSL: the error queue,
//! async jobs, the private DRBG) are the only modules with `unsafe`; the
//! operations are safe Rust in [`keys`], [`sig`] and [`cipher`]; [`queue`]
//! batches the signatures that OpenSSL runs inside async jobs. The
//! dependencies run one way: `ffi` calls the operations, which call
//! `libcrypto`; neither of those calls back into `ffi`.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod algid;
pub mod cipher;
#[allow(unsafe_code)]
pub mod ffi;
pub mod keys;
#[allow(unsafe_code)]
pub mod libcrypto;
pub mod params;
pub mod pss;
pub mod queue;
pub mod rng;
pub mod sig;

/// With `REDC_PROVIDER_TRACE=1` in the environment, one line on stderr
/// per operation redc performs ("redc-provider: sign pss", ...), so that
/// tests can tell that the provider, not OpenSSL's default one, did it.
/// The message is formatted only when tracing is on (no allocation per
/// operation otherwise).
pub fn trace(what: core::fmt::Arguments<'_>) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| trace_setting(std::env::var_os("REDC_PROVIDER_TRACE").as_deref()) == Ok(true)) {
        eprintln!("redc-provider: {what}");
    }
}

/// `REDC_PROVIDER_TRACE`'s value: unset, empty or "0" is off, "1" is on;
/// anything else is a one-line error (the provider then refuses to load,
/// rather than run with a setting it did not understand).
pub fn trace_setting(value: Option<&std::ffi::OsStr>) -> Result<bool, String> {
    match value.map(|v| v.to_str()) {
        None => Ok(false),
        Some(Some("" | "0")) => Ok(false),
        Some(Some("1")) => Ok(true),
        Some(v) => {
            let shown: String = v
                .unwrap_or("(not UTF-8)")
                .chars()
                .take(40)
                .flat_map(char::escape_default)
                .collect();
            Err(format!("unknown REDC_PROVIDER_TRACE '{shown}' (expected 0 or 1)"))
        }
    }
}

/// One line for each `REDC_*` setting of the environment that has a fixed
/// set of values and holds another: the library's (`REDC_KERNEL`, through
/// [`redc::arch::select::kernel_request_error`]) and the provider's own
/// (`REDC_PROVIDER_TRACE`). Empty when every setting is understood.
pub fn setting_errors() -> Vec<String> {
    let mut errors = Vec::new();
    errors.extend(redc::arch::select::kernel_request_error());
    if let Err(e) = trace_setting(std::env::var_os("REDC_PROVIDER_TRACE").as_deref()) {
        errors.push(e);
    }
    errors
}

/// OpenSSL's reasons for a refused setting or operation: the default
/// provider's reason codes (`ERR_LIB_PROV`, `openssl/proverr.h`), so that
/// an application reading OpenSSL's error queue reads the same words
/// whichever provider refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Reason {
    /// "invalid salt length".
    InvalidSaltLength = 112,
    /// "invalid digest".
    InvalidDigest = 122,
    /// "not supported".
    NotSupported = 136,
    /// "illegal or unsupported padding mode".
    IllegalOrUnsupportedPaddingMode = 165,
    /// "invalid mgf1 md".
    InvalidMgf1Md = 167,
    /// "invalid padding mode".
    InvalidPaddingMode = 168,
    /// "key size too small".
    KeySizeTooSmall = 171,
    /// "pss saltlen too small".
    PssSaltlenTooSmall = 172,
    /// "digest not allowed".
    DigestNotAllowed = 174,
    /// "operation not supported for this keytype".
    OperationNotSupportedForThisKeytype = 178,
}

/// Put `reason` in OpenSSL's error queue (nothing outside a process that
/// loaded the provider, such as the unit tests). Returns false, for
/// `return raise(...)` in functions that report failure as false.
pub fn raise(reason: Reason) -> bool {
    libcrypto::errors::raise_reason(reason as u32, None);
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn trace_setting_values() {
        assert_eq!(trace_setting(None), Ok(false));
        assert_eq!(trace_setting(Some(OsStr::new(""))), Ok(false));
        assert_eq!(trace_setting(Some(OsStr::new("0"))), Ok(false));
        assert_eq!(trace_setting(Some(OsStr::new("1"))), Ok(true));
        let e = trace_setting(Some(OsStr::new("yes\n"))).unwrap_err();
        assert_eq!(e, "unknown REDC_PROVIDER_TRACE 'yes\\n' (expected 0 or 1)");
        assert!(!e.contains('\n'));
    }
}
