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
//! - [`single`]: one public modulus, eight digits a register;
//! - [`mb8`]: eight independent products, one per lane.
//!
//! Every function here that is compiled with `target_feature` needs the
//! features present: its callers hold [`super::cpu::Ifma`] or check
//! [`super::ifma_available`].

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

pub use amm::{amm_dual, amm_dual_xmm};
pub use lanes::{DualMod, Lanes, Shifted};
pub use normalize::add_dual;
pub(in crate::arch::x86_64) use opaque::opaque;
pub use pow::{pow_dual, pow_dual_in, pow_dual_public};
pub use sqr::sqr_dual;
