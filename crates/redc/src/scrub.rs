//! Wiping the stack a secret computation used.
//!
//! Secrets live in heap buffers that are wiped when they are dropped, but a
//! computation also leaves them on the stack: in arrays a kernel keeps
//! there (the IFMA kernels' operands and tables), in values returned or
//! moved by copy, and in registers the compiler spills. Those frames are
//! dead once the computation returns, and the next calls overwrite only
//! as much of them as they use. [`scrubbed`] runs a computation and then
//! zeroes [`SCRUB_BYTES`] of stack below its caller's frame, where the
//! computation's frames were.
//!
//! The library runs inside it: every private operation (one at a time or a
//! batch, on each worker thread), building a private key (from components,
//! a key file, a generator, or for another backend) and key generation.
//! `tests/secret_scan_stack.rs` reads the dead stack after each of these
//! and searches it for the key's secrets in every encoding.

use core::hint::black_box;

/// Bytes of stack [`scrubbed`] zeroes: above the deepest stack any of the
/// library's operations uses, with room for the IFMA path's on-stack
/// tables (without the scrub, key generation, the deepest, writes below
/// 20 KiB on the portable, MULX/ADX and AVX2 paths; `secret_scan_stack`
/// prints each phase's figure and fails on any secret the scrub missed).
/// Zeroing it is one `memset` of 64 KiB (docs/ARCHITECTURE.md has its cost).
pub const SCRUB_BYTES: usize = 64 * 1024;

/// Runs `f`, then zeroes the [`SCRUB_BYTES`] of stack below this call's
/// frame, which held `f`'s frames. `f`'s result is returned in this call's
/// frame, above the zeroed stretch. A thread needs SCRUB_BYTES of stack to
/// spare below the caller (threads get 2 MiB by default).
///
/// ```
/// let sum = redc::scrub::scrubbed(|| {
///     let secret = [7u64; 64]; // say, a key's digits in a kernel's array
///     core::hint::black_box(&secret).iter().sum::<u64>()
/// });
/// assert_eq!(sum, 448);
/// ```
#[inline(never)]
pub fn scrubbed<R>(f: impl FnOnce() -> R) -> R {
    let out = below(f);
    zero_below();
    out
}

/// Calls `f` in a frame of its own, so that `f`'s locals are below the
/// caller's frame even where `f` is inlined.
#[inline(never)]
fn below<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Zeroes SCRUB_BYTES of stack below the caller: a frame of that size,
/// filled with zeros that the optimiser must assume are read.
#[inline(never)]
fn zero_below() {
    let mut area = [0u64; SCRUB_BYTES / 8];
    black_box(&mut area);
}
