//! Architecture-specific kernels, reached only through safe wrappers that
//! check lengths and CPU features. Each kernel has a portable twin and a
//! differential test against it; `REDC_FORCE_PORTABLE=1` forces the
//! portable path everywhere.

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub mod x86_64;

pub mod gather;
pub mod portable28;
pub mod portable52;
pub mod radix;
pub mod select;
pub mod settings;

/// True when the environment asks for the portable path only
/// (`REDC_FORCE_PORTABLE=1`); read once.
pub fn force_portable() -> bool {
    use std::sync::OnceLock;
    static FORCE: OnceLock<bool> = OnceLock::new();
    *FORCE.get_or_init(|| std::env::var("REDC_FORCE_PORTABLE").is_ok_and(|v| v == "1"))
}
