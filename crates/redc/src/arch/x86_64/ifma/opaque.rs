//! Empty asm statements that hide a value from the optimiser: a mask kept
//! in a mask register (`opaque_mask`), a reference kept from loop hoisting
//! (`opaque`, used by the dual, single and eight-lane kernels), a value
//! pinned to a general register (`gpr`). None changes a value; they only
//! steer code generation. No paper: compiler barriers.

use core::arch::x86_64::*;

/// `k`, through an empty asm statement in a mask register: the compiler
/// cannot see the constant, so it neither rebuilds it at every use nor
/// turns a masked IFMA into an IFMA and a blend.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn opaque_mask(k: __mmask8) -> __mmask8 {
    let mut k = k;
    // SAFETY: the asm is empty; `k` comes out unchanged.
    unsafe { core::arch::asm!("/* {0} */", inout(kreg) k, options(pure, nomem, nostack, preserves_flags)) };
    k
}

/// `r`, through an empty asm statement that also takes `g`: the compiler can
/// neither see that the result is `r` nor move it out of a loop over `g`.
#[inline(always)]
pub(in crate::arch::x86_64) fn opaque<T>(r: &T, g: usize) -> &T {
    // The address as an integer: the asm neither reads nor writes memory.
    let mut addr = r as *const T as usize;
    // SAFETY: the asm is empty; `addr` comes out unchanged, so it is still `r`'s
    // address, and `r` is borrowed for the result's lifetime.
    unsafe {
        core::arch::asm!("/* {0} {1} */", inout(reg) addr, in(reg) g, options(pure, nomem, nostack, preserves_flags));
        &*(addr as *const T)
    }
}

/// An empty asm statement that pins `x` to a general register: it keeps the
/// compiler from packing the mask chains below into slow vector code.
#[inline(always)]
pub(super) fn gpr(mut x: u64) -> u64 {
    // SAFETY: the asm is empty; it only constrains x to a general register.
    unsafe { core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags)) };
    x
}
