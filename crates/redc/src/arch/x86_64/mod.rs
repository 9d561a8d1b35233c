//! x86-64 kernels (MULX/ADX, AVX-512 IFMA), each behind runtime detection.
//!
//! - [`ifma`]: radix-2^52 almost-Montgomery multiplication and dedicated
//!   squaring on 512-bit IFMA with the two CRT halves interleaved lane by
//!   lane, and the dual constant-time fixed-window exponentiation. Portable
//!   twin: [`crate::arch::portable52`].
//!   In the same folder, one kernel form per file:
//!   - [`ifma::single`]: the same product for ONE public modulus, eight
//!     digits a register (up to 80 digits): public-exponent work
//!     (verification).
//!   - [`ifma::mb8`]: eight independent products, one per lane (batch
//!     signing).
//! - [`adx`]: scalar Montgomery multiplication and squaring with MULX and the
//!   two carry chains ADCX/ADOX, with the `mont::Kernel` signature. Portable
//!   twin: [`crate::mont::fips`].
//!
//! Every public function here is safe: it checks lengths, and the AVX-512 /
//! ADX code is reached only after the features were detected at run time.

/// Load a 64-byte row. Every row these kernels load is a `[u64; 8]` row of a
/// `repr(C, align(64))` struct made of such rows (`Lanes`, `Digits`, `Mb8`,
/// the `Shifted` copies), so it is 64-byte aligned.
macro_rules! ld {
    ($x:expr) => {{
        let p: &[u64; 8] = $x;
        // SAFETY: `p` is a 64-byte aligned row (see the macro's documentation).
        unsafe { _mm512_load_si512(p.as_ptr().cast()) }
    }};
}

/// The N part of step i = G g + S of the IFMA kernels' operand scanning
/// (`ifma`: G = 4 digit positions a register, `ifma::single`: G = 8; `$LAST`
/// = G - 1), with quotient digit `y`: n_j y at positions i + j (lo) and
/// i + j + 1 (hi), into the window `$st.wn` from the modulus rows
/// `$m.nsh` shifted by S and S + 1. `$off` = -1 (S = `$LAST` only: the
/// part of a group's last step, issued after the window slid) writes one
/// slot down and drops old slot 0, whose one term here, lo(n0 y) at
/// position i, is finished (its carry is in the quotient chain).
macro_rules! n_part {
    ($S:literal, $LAST:literal, $off:literal, $st:ident, $y:expr, $m:expr, $nr:expr) => {{
        const S: usize = $S;
        let y = $y;
        for_r!($nr, |r| {
            if $off == 0 {
                if !(S == 0 && r == $nr) {
                    $st.wn[r] = _mm512_madd52lo_epu64($st.wn[r], ld!($m.nsh.row(S, r)), y);
                }
                if !(S == $LAST && r == 0) {
                    $st.wn[r] = _mm512_madd52hi_epu64($st.wn[r], ld!($m.nsh.row(S + 1, r)), y);
                }
            } else if r > 0 {
                $st.wn[r - 1] = _mm512_madd52lo_epu64($st.wn[r - 1], ld!($m.nsh.row(S, r)), y);
                $st.wn[r - 1] = _mm512_madd52hi_epu64($st.wn[r - 1], ld!($m.nsh.row(S + 1, r)), y);
            }
        });
    }};
}

/// `for r in 0..=nr`, unrolled in the source so every register index is a
/// constant (LLVM then keeps the accumulator window in registers).
macro_rules! for_r {
    ($nr:expr, |$r:ident| $body:block) => {{
        for_r!(@one $nr, $r, 0, $body);
        for_r!(@one $nr, $r, 1, $body);
        for_r!(@one $nr, $r, 2, $body);
        for_r!(@one $nr, $r, 3, $body);
        for_r!(@one $nr, $r, 4, $body);
        for_r!(@one $nr, $r, 5, $body);
        for_r!(@one $nr, $r, 6, $body);
        for_r!(@one $nr, $r, 7, $body);
        for_r!(@one $nr, $r, 8, $body);
        for_r!(@one $nr, $r, 9, $body);
        for_r!(@one $nr, $r, 10, $body);
    }};
    (@one $nr:expr, $r:ident, $v:literal, $body:block) => {{
        #[allow(non_upper_case_globals)]
        const $r: usize = $v;
        if $r <= $nr $body
    }};
}

pub mod adx;
pub mod avx2;
pub mod cpu;
pub mod ifma;
pub mod lanes28;

use std::sync::OnceLock;

use crate::arch::portable52::{self, Modulus52};

use ifma::MAX_NR;

pub(crate) use cpu::require_bmi2_adx;
pub use cpu::{
    adx_available, avx2_available, avx2_family_available, brand_string, ifma_available, xmm_chain,
};

/// An odd modulus prepared for IFMA radix-2^52 exponentiation: its
/// digits, k0 = -n^-1 mod 2^52 and R^2 mod n with R = 2^(52 d), where
/// d = 4 ceil((bits + 2) / 208), the least multiple of 4 with 4n < R (20, 32,
/// 40 digits for 1024, 1536, 2048 bits). Supported: odd n >= 3 of at most 2078 bits (d <= 40).
/// The value may be secret (a CRT prime): the setup is constant time in it
/// (only its size steers the work), `Debug` prints the size only, and the
/// digits are wiped on drop.
#[derive(Debug)]
pub struct Ifma52Modulus {
    m: Modulus52,
    /// The dual kernel's tables with both halves this modulus, built at first
    /// use (a public modulus's verifications, a prime's key-setup inverses).
    single: OnceLock<Option<DualKey>>,
}

impl Clone for Ifma52Modulus {
    fn clone(&self) -> Self {
        Ifma52Modulus {
            m: self.m.clone(),
            single: OnceLock::new(),
        }
    }
}

impl Ifma52Modulus {
    /// None if IFMA is unavailable or the modulus is unsupported (even, below
    /// 3, or more than 40 digits). `n`: little-endian u64 limbs, any length
    /// (high zero limbs ignored). Time depends on the size of n only.
    pub fn new(n: &[u64]) -> Option<Self> {
        if !ifma_available() {
            return None;
        }
        Self::new_unchecked_cpu(n)
    }

    /// As [`Ifma52Modulus::new`] without the CPU check: the portable twin
    /// ([`portable52`]) can run with it anywhere; the IFMA functions still
    /// check the CPU and fall back to the twin.
    pub fn new_unchecked_cpu(n: &[u64]) -> Option<Self> {
        let m = Modulus52::new(n)?;
        if m.d > 4 * MAX_NR {
            return None;
        }
        Some(Ifma52Modulus {
            m,
            single: OnceLock::new(),
        })
    }

    /// The tables for single exponentiations (both halves this modulus);
    /// None without IFMA.
    fn single(&self) -> Option<&DualKey> {
        self.single.get_or_init(|| DualKey::new(self, self)).as_ref()
    }

    /// Bit length of n.
    pub fn bits(&self) -> usize {
        self.m.bits
    }

    /// Digit count d (R = 2^(52 d)).
    pub fn digits(&self) -> usize {
        self.m.d
    }

    /// The radix-2^52 form and constants (for tests and the portable twin).
    pub fn radix52(&self) -> &Modulus52 {
        &self.m
    }
}

/// Run `$body` with the const `$nr` set to the register count `$v` (1..=MAX_NR).
macro_rules! with_nr {
    ($v:expr, $nr:ident => $body:expr) => {
        match $v {
            1 => {
                const $nr: usize = 1;
                $body
            }
            2 => {
                const $nr: usize = 2;
                $body
            }
            3 => {
                const $nr: usize = 3;
                $body
            }
            4 => {
                const $nr: usize = 4;
                $body
            }
            5 => {
                const $nr: usize = 5;
                $body
            }
            6 => {
                const $nr: usize = 6;
                $body
            }
            7 => {
                const $nr: usize = 7;
                $body
            }
            8 => {
                const $nr: usize = 8;
                $body
            }
            9 => {
                const $nr: usize = 9;
                $body
            }
            10 => {
                const $nr: usize = 10;
                $body
            }
            _ => unreachable!("register count checked in Ifma52Modulus::new"),
        }
    };
}

/// Run `$body` with the const `$d` set to the eight-lane digit count `$v`:
/// a multiple of 4 (the dual kernel's sizes), or 30, the CRT halves of
/// RSA-3072 at their own size ([`Modulus52::with_digit_multiple`] with 2),
/// which the eight-lane kernel runs with (30/32)^2 of the products of 32.
macro_rules! with_mb8_digits {
    ($v:expr, $d:ident => $body:expr) => {
        match $v {
            30 => {
                const $d: usize = 30;
                $body
            }
            v => with_nr!(v / 4, NR => {
                const $d: usize = 4 * NR;
                $body
            }),
        }
    };
}

mod batch28;
mod calibrate;
mod dual;
pub mod mb8;
#[cfg(feature = "probes")]
mod probes;
mod single;

pub use batch28::{lanes28_available, lanes28_runs, pow_lanes28};
pub use calibrate::{calibrate_sqr, dedicated_sqr};
pub use dual::{Choices, DualFactor, DualKey, Input};
pub use mb8::*;
#[cfg(feature = "probes")]
pub use probes::*;
pub use single::SingleKey;

/// The precondition on the base's length: extra limbs must be zero (checked
/// with an OR over all of them, not a short-circuit on secret values).
fn check_base(m: &Ifma52Modulus, base: &[u64]) {
    check_base_len(&m.m, base);
}

fn check_base_len(m: &Modulus52, base: &[u64]) {
    check_limbs(m.limbs.len(), base);
}

/// No nonzero limb of `base` beyond the first `limbs` (the modulus's).
fn check_limbs(limbs: usize, base: &[u64]) {
    let extra = base.get(limbs..).unwrap_or(&[]).iter().fold(0, |acc, &x| acc | x);
    assert!(extra == 0, "base has more limbs than the modulus");
}

/// base^exp mod n, fully reduced, as `n`'s trimmed number of u64 limbs.
/// `base < n` (u64 limbs, at most as many as n); `exp` little-endian u64 limbs
/// whose LENGTH is public and whose bits are secret. Constant time in the
/// values of base and exp: fixed 5-bit windows, every table entry read on
/// every lookup. Runs the dual kernel with both halves equal.
pub fn pow_secret(m: &Ifma52Modulus, base: &[u64], exp: &[u64]) -> Vec<u64> {
    check_base(m, base);
    if !ifma_available() {
        return portable52::pow(&m.m, base, exp);
    }
    let key = m
        .single()
        .expect("IFMA checked above; one modulus has one digit count");
    key.pow_secret_same(base, exp)
}

/// base^exp mod n for a PUBLIC exponent (an RSA public exponent such as
/// 65537: the fault check and blinding of a private operation), fully
/// reduced, as `n`'s trimmed number of u64 limbs. Left-to-right binary:
/// variable time in `exp` (public), constant time in `base < n`. Uses the dual
/// kernel with both halves equal, which at 2048 bits still takes about a third
/// of the time of a MULX/ADX product per step.
pub fn pow_public(m: &Ifma52Modulus, base: &[u64], exp: &[u64]) -> Vec<u64> {
    check_base(m, base);
    match m.single() {
        Some(key) => key.pow_public_same(base, exp),
        None => portable52::pow(&m.m, base, exp),
    }
}

/// [`crate::arch::gather::gather`] compiled with AVX2 (four limbs per load
/// and logic operation, against two with the baseline's SSE2), where the
/// CPU has AVX2 and the kernel request allows more than the portable code.
/// Returns false, having done nothing, elsewhere. The same code as the
/// portable gather, so the same constant-time argument: every entry is read
/// and the digit only makes masks.
pub fn gather_avx2(out: &mut [u64], table: &[u64], digit: u64, s: usize) -> bool {
    match cpu::avx2() {
        Some(avx2) => {
            avx2.gather(out, table, digit, s);
            true
        }
        None => false,
    }
}

/// MULX/ADX Montgomery multiplication with the portable `mont::Kernel`
/// signature (R = 2^(64 s)): `out = a b R^-1 mod n`, fully reduced.
/// Panics on wrong lengths (programming contract) or when BMI2/ADX are absent;
/// callers check [`adx_available`] first.
pub fn mont_mul_adx(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    adx::mont_mul(out, a, b, n, n0, scratch);
}

/// MULX/ADX Montgomery squaring, `out = a^2 R^-1 mod n`; `b_ignored` is not read.
/// Same contract as [`mont_mul_adx`].
pub fn mont_sqr_adx(out: &mut [u64], a: &[u64], b_ignored: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let _ = b_ignored;
    adx::mont_sqr(out, a, n, n0, scratch);
}
