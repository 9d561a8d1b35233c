//! AVX-512 IFMA kernels, radix 2^52: the dual (CRT) almost-Montgomery
//! multiplication, dedicated squaring and fixed-window exponentiation on
//! 512-bit registers, and (in [`single`] and [`mb8`]) the kernels for one
//! public modulus and for eight independent products.
//!
//! Papers: Koc, Acar and Kaliski, "Analyzing and Comparing Montgomery
//! Multiplication Algorithms" (operand scanning, SOS); Zhao, Wang, Lu and
//! Dai, "Hierarchical Optimizations for High Speed Implementation of Modular
//! Exponentiation in ASIC", Algorithm 1 (high-radix Montgomery with inputs
//! below 2M, no final subtraction); Shand and Vuillemin, "Fast
//! Implementations of RSA Cryptography", section 5 (the 2M bound) and
//! section 8.2 (quotient pipelining).
//!
//! # Layout: p and q interleaved lane by lane
//!
//! Both CRT halves run in the same registers: lane 2j of the flat vector holds
//! digit j of the p operand and lane 2j + 1 digit j of the q operand, so a zmm
//! register holds four digit positions of each (register r: positions
//! 4r..4r+3), and 2 x 20 digits fill 5 registers exactly. Broadcasting "digit
//! i of b" is one 128-bit broadcast of the pair (`b_p[i]`, `b_q[i]`). Every
//! instruction serves both halves, so the two independent dependency chains of
//! the CRT exponentiation are interleaved at the finest grain. A single
//! exponentiation uses the same kernels with both halves equal.
//!
//! # One kernel form per file
//!
//! - `lanes`: the operand and modulus layouts (`Lanes`, `DualMod`, the
//!   shifted copies) and the macros that read a digit pair from them;
//! - `chain`: the quotient chain (broadcast form, pipelined form, xmm form)
//!   as macros expanded into the product's body;
//! - `amm`: the dual product's body (operand scanning into a fixed-position
//!   window; lane and almost-Montgomery bounds);
//! - `sqr`: the dedicated squaring's entries and the run of squarings;
//! - `pipelined`: the pipelined moduli (M = m s, M = -1 mod 2^104);
//! - `normalize`: constant-time carry normalisation, and `add_dual`;
//! - `gather`: the constant-time table read of the dual exponentiation;
//! - `pow`: the dual fixed-window and public-exponent exponentiations;
//! - `opaque`: empty-asm barriers shared by the dual, single and eight-lane
//!   kernels;
//! - [`single`]: one modulus, eight digits a register (public-exponent
//!   work, and the secret exponentiations of primes wider than 40 digits);
//! - [`mb8`]: eight independent products, one per lane.
//!
//! Every function here that is compiled with `target_feature` needs the
//! features present, so none is visible outside its family's module: code
//! elsewhere reaches the kernels only through the token-taking wrappers,
//! methods of [`super::cpu::Ifma`] (here for the dual kernels, in
//! [`single`] and [`mb8`] for theirs).

// The AVX-512 intrinsics are stable since Rust 1.89; the workspace declares
// rust-version 1.85 (not ours to change), and this module is only reached on
// the project's toolchain (1.95). Raising rust-version to 1.89 is the real fix.
#![allow(clippy::incompatible_msrv)]
// Register arrays indexed by a constant-bound counter unroll into registers.
#![allow(clippy::needless_range_loop)]
// `for_r!` compares a constant slot with `NR - 1`.
#![allow(clippy::int_plus_one)]

/// The largest register count per operand: d <= 40 digits (moduli up to 2078 bits).
pub const MAX_NR: usize = 10;

/// Window slots of the dual kernel's accumulator: NR + 1 registers are used
/// (one spare keeps the unrolled slide in bounds). Per-register arrays sized
/// for any NR up to `MAX_NR + 1` use it too.
const W: usize = MAX_NR + 2;

#[macro_use]
mod lanes;
#[macro_use]
mod chain;
mod amm;
mod gather;
pub mod mb8;
mod normalize;
mod opaque;
mod pipelined;
mod pow;
pub mod single;
mod sqr;

pub use lanes::{DualMod, Lanes, Shifted};
pub(in crate::arch::x86_64) use opaque::opaque;

use super::cpu::Ifma;

/// The safe entries to the dual kernels: each takes the [`Ifma`] token,
/// which exists only where the CPU has AVX-512F, AVX-512 IFMA and
/// AVX-512VL and the mask does not hide them. Preconditions on the operands
/// are those of the kernel named (bounds, not memory safety).
impl Ifma {
    /// `out = amm(a, b)` on both halves (`amm::amm_dual`).
    #[inline(always)]
    pub fn amm_dual<const NR: usize, const SQR: bool, const PIPE: bool>(
        self,
        out: &mut Lanes<NR>,
        a: &Lanes<NR>,
        b: &Lanes<NR>,
        m: &DualMod<NR>,
    ) {
        // SAFETY: the token proves the CPU has AVX-512F, IFMA and VL and the mask allows them.
        unsafe { amm::amm_dual::<NR, SQR, PIPE>(out, a, b, m) }
    }

    /// [`Ifma::amm_dual`] with the quotient chain in xmm registers
    /// (`amm::amm_dual_xmm`).
    #[inline(always)]
    pub fn amm_dual_xmm<const NR: usize, const SQR: bool>(
        self,
        out: &mut Lanes<NR>,
        a: &Lanes<NR>,
        b: &Lanes<NR>,
        m: &DualMod<NR>,
    ) {
        // SAFETY: the token proves the CPU has AVX-512F, IFMA and VL and the mask allows them.
        unsafe { amm::amm_dual_xmm::<NR, SQR>(out, a, b, m) }
    }

    /// `out = a + b`, carry-normalised (`normalize::add_dual`).
    #[inline(always)]
    pub fn add_dual<const NR: usize>(self, out: &mut Lanes<NR>, a: &Lanes<NR>, b: &Lanes<NR>) {
        // SAFETY: the token proves the CPU has AVX-512F (with IFMA and VL) and the mask allows it.
        unsafe { normalize::add_dual::<NR>(out, a, b) }
    }

    /// The dual fixed-window exponentiation (`pow::pow_dual`).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn pow_dual<const NR: usize, const PIPE: bool>(
        self,
        m: &DualMod<NR>,
        exit: &DualMod<NR>,
        first: &Lanes<NR>,
        rr: &Lanes<NR>,
        ep: &[u64],
        eq: &[u64],
        dedicated_sqr: bool,
        xmm: bool,
    ) -> Lanes<NR> {
        // SAFETY: the token proves the CPU has AVX-512F, IFMA and VL and the mask allows them.
        unsafe { pow::pow_dual::<NR, PIPE>(m, exit, first, rr, ep, eq, dedicated_sqr, xmm) }
    }

    /// The dual exponentiation by a public exponent (`pow::pow_dual_public`).
    #[inline(always)]
    pub fn pow_dual_public<const NR: usize>(
        self,
        m: &DualMod<NR>,
        base: &Lanes<NR>,
        rr: &Lanes<NR>,
        exp: &[u64],
        dedicated_sqr: bool,
    ) -> Lanes<NR> {
        // SAFETY: the token proves the CPU has AVX-512F, IFMA and VL and the mask allows them.
        unsafe { pow::pow_dual_public::<NR>(m, base, rr, exp, dedicated_sqr) }
    }

    /// `out = amm(a, a)` on both halves (`sqr::sqr_dual`).
    #[inline(always)]
    pub fn sqr_dual<const NR: usize, const PIPE: bool>(
        self,
        out: &mut Lanes<NR>,
        a: &Lanes<NR>,
        m: &DualMod<NR>,
        dedicated: bool,
    ) {
        // SAFETY: the token proves the CPU has AVX-512F, IFMA and VL and the mask allows them.
        unsafe { sqr::sqr_dual::<NR, PIPE>(out, a, m, dedicated) }
    }
}
