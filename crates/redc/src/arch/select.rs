//! Which kernels run: the CPU's features, the `REDC_KERNEL` request and, for
//! choices whose best answer differs between microarchitectures, a short
//! calibration at first use.
//!
//! `REDC_KERNEL` (read once per process):
//! - `portable`: the portable kernels only (as `REDC_FORCE_PORTABLE=1`);
//! - `adx`: MULX/ADX products, no IFMA;
//! - `ifma`: the dual IFMA kernel; its squaring (dedicated or as a product)
//!   is calibrated per register count at first use;
//! - `ifma-sqr`, `ifma-mul`: the dual IFMA kernel with squaring forced to the
//!   dedicated kernel or to the product.
//!
//! A request the CPU cannot run falls back to what it can (the CLI reports
//! an unknown name; see [`kernel_request_error`]). Unset: the fastest the CPU
//! has.

use std::sync::OnceLock;

/// The kernel family requested through `REDC_KERNEL` / `REDC_FORCE_PORTABLE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Nothing requested: the fastest the CPU has.
    Auto,
    /// Portable kernels only.
    Portable,
    /// MULX/ADX, no IFMA.
    Adx,
    /// The dual IFMA kernel with the given squaring.
    Ifma(SqrChoice),
}

/// How the IFMA kernel squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqrChoice {
    /// Measured at first use per register count (public data only).
    Calibrated,
    /// The dedicated squaring (3d^2 + d lane-products).
    Dedicated,
    /// The product a * a (4d^2 lane-products, fewer masked operations).
    AsProduct,
}

/// The names `REDC_KERNEL` accepts.
pub const KERNEL_NAMES: [&str; 5] = ["portable", "adx", "ifma", "ifma-sqr", "ifma-mul"];

fn parse(name: &str) -> Option<Request> {
    Some(match name {
        "portable" => Request::Portable,
        "adx" => Request::Adx,
        "ifma" => Request::Ifma(SqrChoice::Calibrated),
        "ifma-sqr" => Request::Ifma(SqrChoice::Dedicated),
        "ifma-mul" => Request::Ifma(SqrChoice::AsProduct),
        _ => return None,
    })
}

/// The request of this process (cached). `REDC_FORCE_PORTABLE=1` wins; an
/// unknown `REDC_KERNEL` counts as unset.
pub fn request() -> Request {
    static REQUEST: OnceLock<Request> = OnceLock::new();
    *REQUEST.get_or_init(|| {
        if super::force_portable() {
            return Request::Portable;
        }
        match std::env::var("REDC_KERNEL") {
            Ok(name) => parse(&name).unwrap_or(Request::Auto),
            Err(_) => Request::Auto,
        }
    })
}

/// A one-line message when `REDC_KERNEL` is set to a name this library does
/// not know (for front ends to refuse it), else None.
pub fn kernel_request_error() -> Option<String> {
    let name = std::env::var("REDC_KERNEL").ok()?;
    if parse(&name).is_some() {
        return None;
    }
    let shown: String = name.chars().take(40).flat_map(char::escape_default).collect();
    Some(format!(
        "unknown REDC_KERNEL '{shown}' (expected one of: {})",
        KERNEL_NAMES.join(", ")
    ))
}

/// The CPU's model name (CPUID brand string on x86-64), or "unknown".
pub fn cpu_model() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        super::x86_64::brand_string().unwrap_or_else(|| "unknown".into())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        "unknown".into()
    }
}

/// Whether the dual IFMA kernel runs quotient-pipelined for primes of
/// `prime_bits` bits (the margin `portable52::Modulus52::pipelined` needs:
/// RSA-3072's primes, not RSA-2048's or RSA-4096's), where that kernel runs.
pub fn ifma_pipelined(prime_bits: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use super::portable52::{DIGIT_BITS, PIPELINE_BITS, digits_for_bits};
        let d = digits_for_bits(prime_bits);
        super::x86_64::ifma_available()
            && d <= 4 * super::x86_64::ifma::MAX_NR
            && prime_bits + PIPELINE_BITS + 2 <= DIGIT_BITS as usize * d
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = prime_bits;
        false
    }
}

/// Whether the dual IFMA kernel's plain (not quotient-pipelined) runs keep
/// their quotient chain in xmm registers on this CPU (AMD Zen 4; see
/// `arch::x86_64::xmm_chain`). False where that kernel does not run.
pub fn ifma_xmm_chain() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        super::x86_64::xmm_chain()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// How the dual IFMA kernel squares at `digits` radix-2^52 digits per half
/// ("dedicated" or "product"), or None where that kernel does not run
/// (no IFMA, or not requested, or more than 40 digits). May run the
/// calibration.
pub fn ifma_squaring(digits: usize) -> Option<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        use super::x86_64 as x86;
        let nr = digits.div_ceil(4);
        if !x86::ifma_available() || nr == 0 || nr > x86::ifma::MAX_NR {
            return None;
        }
        Some(if x86::dedicated_sqr(nr) {
            "dedicated"
        } else {
            "product"
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = digits;
        None
    }
}
