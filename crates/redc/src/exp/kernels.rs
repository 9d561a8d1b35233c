//! Which kernels an engine runs, as a value: the family that runs its
//! secret exponentiations and the scalar kernels beneath it (products,
//! squarings and reductions of everything else). Its name is what `redc
//! speed` and the tests print; code compares the value, never the name.

use crate::arch::select::KernelFamily;

/// The scalar Montgomery kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// The portable FIPS kernels.
    Portable,
    /// MULX and two carry chains (BMI2 and ADX).
    Adx,
}

/// What runs the secret exponentiations where the modulus fits it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exponentiation {
    /// The scalar kernels themselves.
    Scalar,
    /// AVX2 `vpmuludq` in radix 2^28 (`arch::x86_64::avx2`).
    Avx2,
    /// AVX-512 IFMA in radix 2^52, both CRT halves in one dual run where
    /// their digit counts match.
    Ifma,
    /// AVX-512 IFMA, one half at a time (the dual kernels off).
    IfmaSingle,
}

/// An engine's kernels.
///
/// ```
/// use redc::exp::{Exponentiation, Kernels, Scalar};
/// let k = Kernels { exp: Exponentiation::Avx2, scalar: Scalar::Adx };
/// assert_eq!(k.name(), "avx2+adx");
/// assert_eq!(Kernels::PORTABLE.name(), "portable");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernels {
    /// The secret exponentiations' family.
    pub exp: Exponentiation,
    /// The scalar kernels.
    pub scalar: Scalar,
}

impl Kernels {
    /// The portable kernels for everything.
    pub const PORTABLE: Kernels = Kernels {
        exp: Exponentiation::Scalar,
        scalar: Scalar::Portable,
    };

    /// The MULX/ADX kernels for everything.
    pub const ADX: Kernels = Kernels {
        exp: Exponentiation::Scalar,
        scalar: Scalar::Adx,
    };

    /// Its name: "portable", "adx", "avx2", "avx2+adx", "ifma", "ifma+adx",
    /// "ifma-single" or "ifma-single+adx" (the vector family, then "+adx"
    /// where the scalar kernels are MULX/ADX).
    pub fn name(self) -> &'static str {
        use Exponentiation as E;
        use Scalar as S;
        match (self.exp, self.scalar) {
            (E::Scalar, S::Portable) => "portable",
            (E::Scalar, S::Adx) => "adx",
            (E::Avx2, S::Portable) => "avx2",
            (E::Avx2, S::Adx) => "avx2+adx",
            (E::Ifma, S::Portable) => "ifma",
            (E::Ifma, S::Adx) => "ifma+adx",
            (E::IfmaSingle, S::Portable) => "ifma-single",
            (E::IfmaSingle, S::Adx) => "ifma-single+adx",
        }
    }

    /// The family of its secret exponentiations.
    pub fn family(self) -> KernelFamily {
        match (self.exp, self.scalar) {
            (Exponentiation::Scalar, Scalar::Portable) => KernelFamily::Portable,
            (Exponentiation::Scalar, Scalar::Adx) => KernelFamily::Adx,
            (Exponentiation::Avx2, _) => KernelFamily::Avx2,
            (Exponentiation::Ifma | Exponentiation::IfmaSingle, _) => KernelFamily::Ifma,
        }
    }
}

/// The kernels [`MontEngine::new`](super::MontEngine::new) picks on this machine for a modulus the
/// vector code supports (an RSA-2048 prime): "ifma+adx", "ifma",
/// "avx2+adx", "avx2", "adx" or "portable".
/// ```
/// let name = redc::exp::kernel_name();
/// assert!(["portable", "adx", "avx2", "avx2+adx", "ifma", "ifma+adx"].contains(&name));
/// ```
pub fn kernel_name() -> &'static str {
    kernels().name()
}

/// [`kernel_name`] as a value.
pub fn kernels() -> Kernels {
    let exp = match KernelFamily::chosen() {
        KernelFamily::Ifma => Exponentiation::Ifma,
        KernelFamily::Avx2 => Exponentiation::Avx2,
        KernelFamily::Adx | KernelFamily::Portable => Exponentiation::Scalar,
    };
    #[cfg(target_arch = "x86_64")]
    let adx = crate::arch::x86_64::adx_available();
    #[cfg(not(target_arch = "x86_64"))]
    let adx = false;
    let scalar = if adx { Scalar::Adx } else { Scalar::Portable };
    Kernels { exp, scalar }
}
