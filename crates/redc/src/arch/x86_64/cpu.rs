//! What this CPU can run: feature detection, the `REDC_CPU_DISABLE` mask,
//! and the zero-sized tokens that prove a feature is present.
//!
//! A token ([`Ifma`], [`Avx512`], [`Avx2`], [`Adx`]) can be made only by
//! [`Features::detect`]'s answer through its `get()`, which holds only where
//! the CPU reports the feature and the mask does not hide it. A kernel
//! compiled with `target_feature` is sound to call once its token exists, so
//! the safe wrappers that reach those kernels take (or make) the token first.
//!
//! Detection reads CPUID only: public data. The mask
//! ([`crate::arch::settings::cpu_disabled`]) hides features so that every CPU
//! class can be measured on a newer one; a masked feature is absent for
//! dispatch, calibration and the kernel report alike.

use std::sync::OnceLock;

use crate::arch::settings::{self, CpuFeature, Request};

/// The features redc's kernels use, as detected and after the mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// AVX-512F with AVX-512 IFMA and AVX-512VL (the radix-2^52 kernels).
    pub ifma: bool,
    /// AVX-512F, VL, BW and DQ (512-bit integer vectors, no IFMA needed).
    pub avx512: bool,
    /// AVX2 (256-bit integer vectors).
    pub avx2: bool,
    /// BMI2 (MULX) and ADX (ADCX/ADOX): the scalar fast path.
    pub adx: bool,
}

impl Features {
    /// This CPU's features with `REDC_CPU_DISABLE` applied (cached).
    pub fn detect() -> Features {
        static FEATURES: OnceLock<Features> = OnceLock::new();
        *FEATURES.get_or_init(|| Features::raw().masked(settings::cpu_disabled()))
    }

    /// What the CPU reports, before the mask.
    pub fn raw() -> Features {
        let avx512 = is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512dq");
        Features {
            ifma: is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512ifma")
                && is_x86_feature_detected!("avx512vl"),
            avx512,
            avx2: is_x86_feature_detected!("avx2"),
            adx: is_x86_feature_detected!("bmi2") && is_x86_feature_detected!("adx"),
        }
    }

    /// These features less the disabled ones (`disabled` as
    /// [`settings::cpu_disabled`] gives it, implications already applied).
    pub fn masked(self, disabled: &[CpuFeature]) -> Features {
        let off = |f: CpuFeature| disabled.contains(&f);
        Features {
            ifma: self.ifma && !off(CpuFeature::Ifma),
            avx512: self.avx512 && !off(CpuFeature::Avx512),
            avx2: self.avx2 && !off(CpuFeature::Avx2),
            adx: self.adx && !off(CpuFeature::Adx),
        }
    }
}

macro_rules! token {
    ($(#[$doc:meta])* $name:ident, $field:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name(());

        impl $name {
            /// The token, where this CPU has the feature and the mask does
            /// not hide it.
            pub fn get() -> Option<$name> {
                Features::detect().$field.then_some($name(()))
            }
        }
    };
}

token!(
    /// Proof that AVX-512F, AVX-512 IFMA and AVX-512VL may be used.
    Ifma,
    ifma
);
token!(
    /// Proof that AVX-512F, VL, BW and DQ may be used.
    Avx512,
    avx512
);
token!(
    /// Proof that AVX2 may be used.
    Avx2,
    avx2
);
token!(
    /// Proof that BMI2 and ADX may be used.
    Adx,
    adx
);

/// True when the IFMA kernels may run: the CPU has them, the mask does not
/// hide them and the kernel request ([`settings::request`]) allows them.
/// Every CPU with IFMA so far has AVX-512VL, which the dual kernel's xmm
/// quotient chain ([`xmm_chain`]) also needs. Cached.
pub fn ifma_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let available =
            matches!(settings::request(), Request::Auto | Request::Ifma(_)) && Ifma::get().is_some();
        if available {
            // Their frames are deeper: the stack scrubs widen (`crate::scrub`).
            crate::scrub::note_ifma_frames();
        }
        available
    })
}

/// The IFMA token where [`ifma_available`] holds (the CPU, the mask and the
/// kernel request all allow the IFMA kernels), else None.
pub fn ifma() -> Option<Ifma> {
    if ifma_available() { Ifma::get() } else { None }
}

/// True when the MULX/ADX kernels may run: the CPU has BMI2 and ADX, the
/// mask does not hide them and the kernel request allows them. Cached.
pub fn adx_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| settings::request() != Request::Portable && Adx::get().is_some())
}

/// True when AVX2 code may run (the window gather): the CPU has it, the mask
/// does not hide it and the request allows more than the portable code.
pub fn avx2_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| settings::request() != Request::Portable && Avx2::get().is_some())
}

/// The AVX2 token where [`avx2_available`] holds (the CPU, the mask and the
/// kernel request all allow AVX2 code), else None.
pub fn avx2() -> Option<Avx2> {
    if avx2_available() { Avx2::get() } else { None }
}

/// True when the AVX2 family runs the secret exponentiations of the
/// moduli `MontEngine::new` gives it (RSA-2048's primes): the CPU has AVX2, the mask
/// does not hide it, the request is automatic or `avx2`, and the IFMA
/// family is not chosen. Cached.
pub fn avx2_family_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        matches!(settings::request(), Request::Auto | Request::Avx2)
            && Avx2::get().is_some()
            && !ifma_available()
    })
}

/// The ADX token for the safe entries to the MULX/ADX asm
/// ([`super::adx`] and its kernel forms); panics where the CPU lacks BMI2
/// or ADX (or the mask hides them): a programming error, since callers
/// check [`adx_available`] first. A kernel request that turned the ADX path
/// off does not stop a test from calling these entries directly.
pub(crate) fn require_bmi2_adx() -> Adx {
    Adx::get().expect("BMI2/ADX kernel called on a CPU without them (or with them masked)")
}

/// Whether the dual kernel's secret exponentiation keeps its quotient chain
/// in xmm registers (`ifma::amm_dual_xmm`): on CPUs that run a zmm
/// instruction as two 256-bit halves (AMD family 25, Zen 4), where an xmm
/// IFMA takes half the multiplier time of a zmm one. Elsewhere the chain
/// stays in zmm, the form those CPUs were tuned with. Public data only.
pub fn xmm_chain() -> bool {
    static XMM: OnceLock<bool> = OnceLock::new();
    *XMM.get_or_init(|| ifma_available() && cpu_vendor_family() == (true, 25))
}

/// (vendor is AMD, family with the extended field) from CPUID.
pub(crate) fn cpu_vendor_family() -> (bool, u32) {
    use core::arch::x86_64::__cpuid;
    // SAFETY: CPUID exists on every x86-64 CPU; leaves 0 and 1 always exist.
    #[allow(unused_unsafe)]
    let (l0, eax) = unsafe { (__cpuid(0), __cpuid(1).eax) };
    let amd = (l0.ebx, l0.edx, l0.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163); // "AuthenticAMD"
    (amd, family_of(eax))
}

/// The family in CPUID leaf 1's eax, the extended field added for base family 0xf.
fn family_of(eax: u32) -> u32 {
    let base_family = (eax >> 8) & 0xf;
    if base_family == 0xf {
        base_family + ((eax >> 20) & 0xff)
    } else {
        base_family
    }
}

/// The CPUID brand string ("AMD EPYC 9R14 ...", "Intel(R) Xeon(R) ..."), if the CPU has one.
pub fn brand_string() -> Option<String> {
    use core::arch::x86_64::__cpuid;
    // SAFETY: CPUID exists on every x86-64 CPU; leaf 0x8000_0000 reports the
    // highest extended leaf, and 0x8000_0002..=4 are read only when present.
    #[allow(unused_unsafe)]
    let bytes: Vec<u8> = unsafe {
        if __cpuid(0x8000_0000).eax < 0x8000_0004 {
            return None;
        }
        (0x8000_0002u32..=0x8000_0004)
            .flat_map(|leaf| {
                let r = __cpuid(leaf);
                [r.eax, r.ebx, r.ecx, r.edx]
                    .into_iter()
                    .flat_map(u32::to_le_bytes)
            })
            .collect()
    };
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim_matches(char::from(0)).trim();
    // Family and model (leaf 1, with the extended fields): a virtual machine's
    // brand string is often generic ("Intel(R) Xeon(R) Processor").
    // SAFETY: leaf 1 exists on every x86-64 CPU.
    #[allow(unused_unsafe)]
    let eax = unsafe { __cpuid(1).eax };
    let base_family = (eax >> 8) & 0xf;
    let family = family_of(eax);
    let model = if base_family == 0x6 || base_family == 0xf {
        ((eax >> 4) & 0xf) | (((eax >> 16) & 0xf) << 4)
    } else {
        (eax >> 4) & 0xf
    };
    (!text.is_empty()).then(|| format!("{text} (family {family} model {model})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_removes_exactly_the_named_features() {
        let all = Features {
            ifma: true,
            avx512: true,
            avx2: true,
            adx: true,
        };
        assert_eq!(all.masked(&[]), all);
        let m = all.masked(&[CpuFeature::Ifma]);
        assert!(!m.ifma && m.avx512 && m.avx2 && m.adx);
        let m = all.masked(&[CpuFeature::Adx]);
        assert!(m.ifma && m.avx512 && m.avx2 && !m.adx);
        // Masking never adds a feature the CPU lacks.
        let none = Features {
            ifma: false,
            avx512: false,
            avx2: false,
            adx: false,
        };
        assert_eq!(none.masked(&[]), none);
    }

    #[test]
    fn tokens_follow_detection() {
        let f = Features::detect();
        assert_eq!(Ifma::get().is_some(), f.ifma);
        assert_eq!(Avx512::get().is_some(), f.avx512);
        assert_eq!(Avx2::get().is_some(), f.avx2);
        assert_eq!(Adx::get().is_some(), f.adx);
        // The mask only hides: nothing detected after it is absent before it.
        let raw = Features::raw();
        assert!(raw.ifma || !f.ifma);
        assert!(raw.avx512 || !f.avx512);
        assert!(raw.avx2 || !f.avx2);
        assert!(raw.adx || !f.adx);
    }
}
