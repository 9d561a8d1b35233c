//! The two register widths of the lane kernels: the row types that hold one
//! register's digits ([`Quad`], [`Oct`]), the per-lane operations the
//! generic kernels are written in (`Ops`, private to the lane kernels: only
//! code compiled with the width's feature calls them) and each width's
//! entries ([`Vector`]'s kernels, whose instances, compiled with the width's
//! CPU feature, are in `instances`).

use core::arch::x86_64::*;

use super::{Mb, MbMod, Scratch};

/// Four u64 lanes, aligned as a 256-bit register loads them.
#[repr(C, align(32))]
#[derive(Clone, Copy, Default)]
pub struct Quad(pub [u64; 4]);

/// Eight u64 lanes, aligned as a 512-bit register loads them.
#[repr(C, align(64))]
#[derive(Clone, Copy, Default)]
pub struct Oct(pub [u64; 8]);

macro_rules! row_slices {
    ($row:ty) => {
        impl AsRef<[u64]> for $row {
            fn as_ref(&self) -> &[u64] {
                &self.0
            }
        }
        impl AsMut<[u64]> for $row {
            fn as_mut(&mut self) -> &mut [u64] {
                &mut self.0
            }
        }
    };
}
row_slices!(Quad);
row_slices!(Oct);

/// A register width of the lane kernels: its lane count, its row type and
/// its kernel instances (each `unsafe`: call only where the width's CPU
/// feature is present, which the [`super::Avx2`] and [`super::Avx512`]
/// tokens' entries prove).
pub trait Vector: sealed::Sealed + Copy + 'static {
    /// u64 lanes per register.
    const LANES: usize;
    /// One register's digits, of the register's size and alignment.
    type Row: Copy + Default + AsRef<[u64]> + AsMut<[u64]> + Send + Sync;

    /// `out = amm(a, b)` per lane.
    ///
    /// # Safety
    /// The CPU has the width's feature.
    unsafe fn amm(out: &mut Mb<Self>, a: &Mb<Self>, b: &Mb<Self>, m: &MbMod<Self>, sc: &mut Scratch<Self>);

    /// `out = amm(a, a)` per lane.
    ///
    /// # Safety
    /// The CPU has the width's feature.
    unsafe fn sqr(out: &mut Mb<Self>, a: &Mb<Self>, m: &MbMod<Self>, sc: &mut Scratch<Self>);

    /// Lane l of `out` = lane l of `table[idx[l]]`, every entry read.
    ///
    /// # Safety
    /// The CPU has the width's feature.
    unsafe fn gather(out: &mut Mb<Self>, table: &[Mb<Self>], idx: &[u64]);
}

mod sealed {
    /// Only the two widths below are lane widths.
    pub trait Sealed {}
    impl Sealed for core::arch::x86_64::__m256i {}
    impl Sealed for core::arch::x86_64::__m512i {}
}

/// Per-lane operations (64-bit lanes) the generic kernels are written in.
/// Private to the lane kernels, and not a supertrait of [`Vector`], so
/// that no code outside them can call these where the width's feature is
/// missing: only the kernels, inlined into the instances (`instances`), do.
pub(super) trait Ops: Copy {
    /// All lanes zero.
    fn zero() -> Self;
    /// `x` in every lane.
    fn splat(x: u64) -> Self;
    /// `a + b`.
    fn add(self, b: Self) -> Self;
    /// `lo32(a) lo32(b)`, 64 bits (`vpmuludq`).
    fn mul(self, b: Self) -> Self;
    /// `a & b`.
    fn and(self, b: Self) -> Self;
    /// `a | b`.
    fn or(self, b: Self) -> Self;
    /// `a >> 28`.
    fn carry(self) -> Self;
    /// All ones in the lanes where `a == b`, zero elsewhere.
    fn equal(self, b: Self) -> Self;
}

// SAFETY (every `unsafe` block of the two `Ops` impls): these methods are
// `#[inline(always)]` and called only from the generic kernels, which are
// inlined into the instances (`instances`), compiled with the width's feature.
impl Ops for __m256i {
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: see above.
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    fn splat(x: u64) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_set1_epi64x(x as i64) }
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_add_epi64(self, b) }
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_mul_epu32(self, b) }
    }
    #[inline(always)]
    fn and(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_and_si256(self, b) }
    }
    #[inline(always)]
    fn or(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_or_si256(self, b) }
    }
    #[inline(always)]
    fn carry(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_srli_epi64::<28>(self) }
    }
    #[inline(always)]
    fn equal(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_cmpeq_epi64(self, b) }
    }
}

impl Ops for __m512i {
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: see above.
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    fn splat(x: u64) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_set1_epi64(x as i64) }
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_add_epi64(self, b) }
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_mul_epu32(self, b) }
    }
    #[inline(always)]
    fn and(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_and_si512(self, b) }
    }
    #[inline(always)]
    fn or(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_or_si512(self, b) }
    }
    #[inline(always)]
    fn carry(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_srli_epi64::<28>(self) }
    }
    #[inline(always)]
    fn equal(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_maskz_mov_epi64(_mm512_cmpeq_epu64_mask(self, b), _mm512_set1_epi64(-1)) }
    }
}
