//! Which kernels run: the CPU's features, the settings of
//! [`super::settings`] (`REDC_KERNEL`, `REDC_CPU_DISABLE`) and, for choices
//! whose best answer differs between microarchitectures, a short calibration
//! at first use; and what was chosen, for reports.

pub use super::settings::{
    CpuFeature, KERNEL_NAMES, Request, SqrChoice, cpu_disabled, kernel_request_error, parse_cpu_disable,
    request, settings_error,
};

/// The kernel family that runs a private key's exponentiations in this
/// process, after the CPU's features, the mask and `REDC_KERNEL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelFamily {
    /// The portable Rust kernels.
    Portable,
    /// Scalar MULX/ADX products and squarings.
    Adx,
    /// AVX2 `vpmuludq`, radix 2^28 (RSA-2048's primes; the rest on
    /// MULX/ADX).
    Avx2,
    /// AVX-512 IFMA, radix 2^52.
    Ifma,
}

impl KernelFamily {
    /// Its name in `redc speed`'s header and JSON rows.
    pub fn name(self) -> &'static str {
        match self {
            KernelFamily::Portable => "portable",
            KernelFamily::Adx => "adx",
            KernelFamily::Avx2 => "avx2",
            KernelFamily::Ifma => "ifma",
        }
    }

    /// The family this process dispatches private-key exponentiations to.
    pub fn chosen() -> KernelFamily {
        #[cfg(target_arch = "x86_64")]
        {
            use super::x86_64 as x86;
            if x86::ifma_available() {
                KernelFamily::Ifma
            } else if x86::avx2_family_available() {
                KernelFamily::Avx2
            } else if x86::adx_available() {
                KernelFamily::Adx
            } else {
                KernelFamily::Portable
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        KernelFamily::Portable
    }
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
