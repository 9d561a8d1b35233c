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
//! redc by export/import ([`keys`]). Layout: [`ffi`] is the only module
//! with `unsafe` (the C ABI, the dispatch tables, `OSSL_PARAM` I/O); the
//! operations are safe Rust in [`keys`], [`sig`] and [`cipher`]; [`queue`]
//! batches the signatures that OpenSSL runs inside async jobs.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod cipher;
#[allow(unsafe_code)]
pub mod ffi;
pub mod keys;
pub mod params;
pub mod pss;
pub mod queue;
pub mod rng;
pub mod sig;

/// With `REDC_PROVIDER_TRACE` set in the environment, one line on stderr
/// per operation redc performs ("redc-provider: sign pss", ...), so that
/// tests can tell that the provider, not OpenSSL's default one, did it.
/// The message is formatted only when tracing is on (no allocation per
/// operation otherwise).
pub fn trace(what: core::fmt::Arguments<'_>) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("REDC_PROVIDER_TRACE").is_some()) {
        eprintln!("redc-provider: {what}");
    }
}
