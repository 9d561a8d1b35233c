//! Wiping the stack a secret computation used.
//!
//! Secrets live in heap buffers that are wiped when they are dropped, but a
//! computation also leaves them on the stack: in arrays a kernel keeps
//! there (the IFMA kernels' operands and tables), in values returned or
//! moved by copy, and in registers the compiler spills. Those frames are
//! dead once the computation returns, and the next calls overwrite only
//! as much of them as they use. [`scrubbed`] runs a computation and then
//! zeroes a fixed stretch of stack below its caller's frame, where the
//! computation's frames were: [`OPERATION_BYTES`] after a private
//! operation, [`SETUP_BYTES`] after key setup ([`scrubbed_setup`]).
//!
//! The library runs inside it: every private operation (one at a time or a
//! batch, on each worker thread), building a private key (from components,
//! a key file, a generator, or for another backend) and key generation.
//! `tests/secret_scan_stack.rs` reads the dead stack after each of these
//! and searches it for the key's secrets in every encoding.

use core::hint::black_box;
use core::sync::atomic::{AtomicBool, Ordering};

/// Bytes of stack [`scrubbed`] zeroes after a private operation (one, or a
/// batch's run on one thread): above the deepest stack an operation writes
/// (about 5 KiB on the portable, MULX/ADX and AVX2 paths, test frames
/// included; `secret_scan_stack` prints each phase's figure and fails on any
/// secret left below the scrub), and small enough for the stacks operations
/// run on: OpenSSL runs the provider's operations inside async jobs, on
/// fibers of 32 KiB, below the TLS stack's own frames.
pub const OPERATION_BYTES: usize = 16 * 1024;

/// Bytes of stack [`scrubbed_setup`] zeroes after building a key, reading
/// or writing a key file, or generating a key: deeper work (key generation
/// writes about 19 KiB), on ordinary thread stacks.
pub const SETUP_BYTES: usize = 32 * 1024;

/// Bytes zeroed beyond [`OPERATION_BYTES`] (after a private operation) and
/// [`SETUP_BYTES`] (after key generation) where the AVX-512 IFMA kernels
/// may run: the dual and eight-lane exponentiations keep frames of 25 to
/// 30 KiB (their register windows and tables spill), and the stack scan
/// found the primes' lanes down to 40 KiB below an operation and 44 KiB
/// below key generation (`secret_scan_stack`, AMD EPYC Zen 4). Key setup
/// (which OpenSSL may run inside an async job's 32 KiB fiber) keeps
/// [`SETUP_BYTES`]; the provider runs its queued operations on a thread of
/// their own.
pub const IFMA_EXTRA_BYTES: usize = 32 * 1024;

/// Bytes zeroed beyond [`OPERATION_BYTES`] and [`IFMA_EXTRA_BYTES`] after
/// a batch ([`scrubbed_batch`]) where the IFMA kernels may run: the
/// eight-lane kernel's frames hold eight lanes of every operand, its
/// products' column rows and, up to 20 digits, its spilled register
/// windows, and reach deeper than one operation's (the depths
/// `secret_scan_stack` measured are in docs/CONSTANT_TIME.md, "Stack";
/// it scans batches of RSA-2048, the deepest, and RSA-4096). A batch runs
/// on its caller's thread, the batch API's own threads or the provider's
/// helper thread, never in an async job's fiber.
pub const BATCH_EXTRA_BYTES: usize = 64 * 1024;

/// Set by CPU detection once the IFMA kernels may run in this process;
/// every IFMA kernel call is behind that detection, so the flag is up
/// before any of their frames exists.
static IFMA_FRAMES: AtomicBool = AtomicBool::new(false);

/// Called by CPU detection (`arch::x86_64::cpu::ifma_available`) when the
/// IFMA kernels may run: the scrubs then zero [`IFMA_EXTRA_BYTES`] more.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn note_ifma_frames() {
    IFMA_FRAMES.store(true, Ordering::Relaxed);
}

fn ifma_frames() -> bool {
    IFMA_FRAMES.load(Ordering::Relaxed)
}

/// Runs `f`, then zeroes the [`OPERATION_BYTES`] of stack below this call's
/// frame (plus [`IFMA_EXTRA_BYTES`] where the IFMA kernels may run), which
/// held `f`'s frames. `f`'s result is returned in this call's frame, above
/// the zeroed stretch. The caller's stack needs that much room to spare
/// below it.
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
    zero_below_for::<{ OPERATION_BYTES / 8 }, { (OPERATION_BYTES + IFMA_EXTRA_BYTES) / 8 }>();
    out
}

/// [`scrubbed`] for a batch of private operations (`rsa::raw_private_many`):
/// zeroes [`BATCH_EXTRA_BYTES`] more where the IFMA kernels may run, as the
/// eight-lane kernel's frames reach deeper than one operation's. The
/// caller's stack needs that much room to spare below it.
#[inline(never)]
pub fn scrubbed_batch<R>(f: impl FnOnce() -> R) -> R {
    let out = below(f);
    zero_below_for::<{ OPERATION_BYTES / 8 }, { (OPERATION_BYTES + IFMA_EXTRA_BYTES + BATCH_EXTRA_BYTES) / 8 }>(
    );
    out
}

/// [`scrubbed`] for key setup: zeroes [`SETUP_BYTES`].
#[inline(never)]
pub fn scrubbed_setup<R>(f: impl FnOnce() -> R) -> R {
    let out = below(f);
    zero_below::<{ SETUP_BYTES / 8 }>();
    out
}

/// [`scrubbed_setup`] for key generation, whose private operations (the
/// key's checks) run below its own frames: zeroes [`SETUP_BYTES`], plus
/// [`IFMA_EXTRA_BYTES`] where the IFMA kernels may run.
#[inline(never)]
pub fn scrubbed_keygen<R>(f: impl FnOnce() -> R) -> R {
    let out = below(f);
    zero_below_for::<{ SETUP_BYTES / 8 }, { (SETUP_BYTES + IFMA_EXTRA_BYTES) / 8 }>();
    out
}

/// Calls `f` in a frame of its own, so that `f`'s locals are below the
/// caller's frame even where `f` is inlined.
#[inline(never)]
fn below<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// [`zero_below`] of `WORDS` words, or of `IFMA_WORDS` where the IFMA
/// kernels may run. Inlined into each scrub, so that the zeroed stretch
/// starts below that scrub's own frame, where `below`'s frame was.
#[inline(always)]
fn zero_below_for<const WORDS: usize, const IFMA_WORDS: usize>() {
    if ifma_frames() {
        zero_below::<IFMA_WORDS>();
    } else {
        zero_below::<WORDS>();
    }
}

/// Zeroes WORDS words of stack below the caller: a frame of that size,
/// filled with zeros that the optimiser must assume are read.
#[inline(never)]
fn zero_below<const WORDS: usize>() {
    let mut area = [0u64; WORDS];
    black_box(&mut area);
}
