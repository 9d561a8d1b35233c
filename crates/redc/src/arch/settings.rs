//! The environment settings that steer which kernels run, each read once
//! per process.
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
//!
//! `REDC_CPU_DISABLE=LIST` (comma-separated, any of `ifma`, `avx512`, `avx2`,
//! `adx`; read once per process) makes detection treat those features as
//! absent, so that each CPU class can be measured on a newer CPU: dispatch,
//! calibration and the kernel report all see the masked CPU. `avx512`
//! implies `ifma`, and `avx2` implies both (no CPU has AVX-512 without AVX2).
//! A masked modern core is a proxy for an older CPU, not that CPU: its
//! caches, clock and scalar units stay what they are.

use std::sync::OnceLock;

/// The kernel family requested through `REDC_KERNEL` / `REDC_FORCE_PORTABLE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Nothing requested: the fastest the CPU has.
    Auto,
    /// Portable kernels only.
    Portable,
    /// MULX/ADX, no vector family.
    Adx,
    /// The AVX2 family for secret exponentiations, MULX/ADX for the rest.
    Avx2,
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
pub const KERNEL_NAMES: [&str; 6] = ["portable", "adx", "avx2", "ifma", "ifma-sqr", "ifma-mul"];

fn parse(name: &str) -> Option<Request> {
    Some(match name {
        "portable" => Request::Portable,
        "adx" => Request::Adx,
        "avx2" => Request::Avx2,
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

/// A one-line message when a setting with a fixed set of values
/// (`REDC_KERNEL`, `REDC_CPU_DISABLE`, `REDC_FORCE_PORTABLE`) holds one this
/// library does not know, for front ends to refuse it; else None. The
/// library itself ignores an unknown `REDC_KERNEL` (the fastest kernels run)
/// and an unknown word of `REDC_CPU_DISABLE` (the known words still apply).
pub fn kernel_request_error() -> Option<String> {
    settings_error()
}

/// The first of the errors [`kernel_request_error`] describes, or None.
pub fn settings_error() -> Option<String> {
    let shown = |v: &str| -> String { v.chars().take(40).flat_map(char::escape_default).collect() };
    if let Ok(name) = std::env::var("REDC_KERNEL")
        && parse(&name).is_none()
    {
        return Some(format!(
            "unknown REDC_KERNEL '{}' (expected one of: {})",
            shown(&name),
            KERNEL_NAMES.join(", ")
        ));
    }
    if let Ok(list) = std::env::var("REDC_CPU_DISABLE")
        && let Err(word) = parse_cpu_disable(&list)
    {
        return Some(format!(
            "unknown feature '{}' in REDC_CPU_DISABLE (expected a comma-separated list of: {})",
            shown(&word),
            CpuFeature::ALL.map(CpuFeature::name).join(", ")
        ));
    }
    if let Ok(v) = std::env::var("REDC_FORCE_PORTABLE")
        && !matches!(v.as_str(), "" | "0" | "1")
    {
        return Some(format!(
            "unknown REDC_FORCE_PORTABLE '{}' (expected 1 to force the portable kernels, or 0)",
            shown(&v)
        ));
    }
    None
}

/// A CPU feature that `REDC_CPU_DISABLE` can hide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CpuFeature {
    /// AVX-512 IFMA (the radix-2^52 kernels).
    Ifma,
    /// AVX-512F and its companions (implies `Ifma`).
    Avx512,
    /// AVX2 (implies `Avx512` and `Ifma`).
    Avx2,
    /// BMI2 and ADX (MULX and the two carry chains).
    Adx,
}

impl CpuFeature {
    /// Every feature, in the order reports list them.
    pub const ALL: [CpuFeature; 4] = [
        CpuFeature::Ifma,
        CpuFeature::Avx512,
        CpuFeature::Avx2,
        CpuFeature::Adx,
    ];

    /// Its word in `REDC_CPU_DISABLE`.
    pub fn name(self) -> &'static str {
        match self {
            CpuFeature::Ifma => "ifma",
            CpuFeature::Avx512 => "avx512",
            CpuFeature::Avx2 => "avx2",
            CpuFeature::Adx => "adx",
        }
    }

    fn from_name(word: &str) -> Option<CpuFeature> {
        CpuFeature::ALL.into_iter().find(|f| f.name() == word)
    }

    /// The features that masking this one also masks (itself included).
    fn with_implied(self) -> &'static [CpuFeature] {
        match self {
            CpuFeature::Ifma => &[CpuFeature::Ifma],
            CpuFeature::Avx512 => &[CpuFeature::Ifma, CpuFeature::Avx512],
            CpuFeature::Avx2 => &[CpuFeature::Ifma, CpuFeature::Avx512, CpuFeature::Avx2],
            CpuFeature::Adx => &[CpuFeature::Adx],
        }
    }
}

/// The features a `REDC_CPU_DISABLE` value hides, implications applied, in
/// [`CpuFeature::ALL`]'s order; `Err(word)` names the first unknown word.
/// Words are separated by commas; blanks around them and empty words are
/// ignored.
/// ```
/// use redc::arch::select::{parse_cpu_disable, CpuFeature};
/// assert_eq!(parse_cpu_disable("ifma").unwrap(), [CpuFeature::Ifma]);
/// assert_eq!(parse_cpu_disable("avx512").unwrap(), [CpuFeature::Ifma, CpuFeature::Avx512]);
/// assert_eq!(parse_cpu_disable(" adx , ifma,").unwrap(), [CpuFeature::Ifma, CpuFeature::Adx]);
/// assert_eq!(parse_cpu_disable("").unwrap(), []);
/// assert_eq!(parse_cpu_disable("ifma,sse9").unwrap_err(), "sse9");
/// ```
pub fn parse_cpu_disable(list: &str) -> Result<Vec<CpuFeature>, String> {
    let mut off = Vec::new();
    for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let f = CpuFeature::from_name(word).ok_or_else(|| word.to_string())?;
        off.extend_from_slice(f.with_implied());
    }
    off.sort();
    off.dedup();
    Ok(off)
}

/// The features `REDC_CPU_DISABLE` hides in this process (cached), in
/// [`CpuFeature::ALL`]'s order. Unknown words are skipped here (front ends
/// refuse them through [`settings_error`]); the known ones still apply.
pub fn cpu_disabled() -> &'static [CpuFeature] {
    static DISABLED: OnceLock<Vec<CpuFeature>> = OnceLock::new();
    DISABLED.get_or_init(|| {
        let list = std::env::var("REDC_CPU_DISABLE").unwrap_or_default();
        let known: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|w| CpuFeature::from_name(w).is_some())
            .collect();
        parse_cpu_disable(&known.join(",")).expect("only known words")
    })
}
