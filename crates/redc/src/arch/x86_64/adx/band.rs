//! Eight MULX/ADX rows at once: a band of eight multipliers times an s-limb
//! operand added into a running sum in place, with the sum's active limbs in
//! registers. For the ADX Montgomery product and reduction at limb counts
//! that are multiples of 8 (every RSA size).
//!
//! Seed 001 (Koc, Acar and Kaliski), sections 3-4: SOS computes t = a b
//! row by row and then reduces t with s rows t += m_i n 2^(64 i); CIOS
//! interleaves the two. Either way each row reads the sum the previous row
//! stored and stores it again. A band takes eight rows together: their sum
//! over a sliding window of eight positions stays in eight registers, each
//! row adds m_r x (eight limbs of n) to it with the low halves on the CF
//! chain (ADCX) and the high halves one position up on the OF chain (ADOX),
//! and the window slides one position per row: it stores the position it
//! leaves and loads the one it enters. Memory sees one load and one store
//! per position per band instead of per row. This is the register blocking
//! of OpenSSL's `mulx4x`/`sqrx8x` code, written from the algorithm.
//!
//! # The band
//!
//! [`band_chained`] adds sum_{r<8} m_r n 2^(64 (i0 + r)) to t, where the m_r are
//! eight limbs of the other factor (a product band) or, for a reduction
//! band, m_r = (position i0 + r) n0 mod 2^64, chosen on the way so that
//! positions i0..i0+8 become zero (they then receive the m_r).
//!
//! Row r of chunk c (n's limbs 8c..8c+7) adds m_r n[8c..8c+8] at positions
//! P..P+8, P = i0 + 8c + r, rows in the order (c, r). Before the row the
//! window holds P..P+7 and position P + 8 is loaded from t, with a pending
//! carry of at most 1 into it (from the row before). The nine positions'
//! value is then at most (2^512 - 1) + (2^64 - 1) 2^512 + 2^512 +
//! (2^64 - 1)(2^512 - 1) = 2^577 - 2^64 (window, loaded limb, carry, the
//! row's product m_r n[8c..8c+8]), so the carry out of P + 8 is at most 1:
//! CF and OF out of it are never both set, and CF | OF is the next pending
//! carry. No later
//! row of the band touches P, so it is stored. After the last row the
//! window holds positions i0 + s..i0 + s + 8: [`band_chained`] adds its
//! carry-in at i0 + s there (the carry the band before left, in a
//! sequence of bands) and returns the carry pending for i0 + s + 8, which
//! the next band of the sequence takes in or [`carry_up`] runs through the
//! rest of t.
//!
//! # Secrets
//!
//! The multipliers, n's limbs (the primes, in CRT), t and the carries are
//! secret: they enter only as MULX, ADCX/ADOX and ADC operands. The band's
//! length (s) and offset (i0) are public; no branch or address depends on
//! a value.

use core::arch::asm;

/// Rows the band keeps in registers.
pub const ROWS: usize = 8;

/// One row: `$first` obtains m_r in rdx (and, in a reduction band's first
/// chunk, records it); `$leave` stores position P once its one term is in.
/// `$w0..$w7` name the window's registers in position order for this row
/// (the window rotates by one register per row).
macro_rules! band_row {
    ($r:literal, $first:expr, $leave:expr, $w0:literal, $w1:literal, $w2:literal, $w3:literal, $w4:literal, $w5:literal, $w6:literal, $w7:literal) => {
        concat!(
            $first,
            "xor eax, eax\n",
            "mulx r9, rax, qword ptr [rsi]\n",
            "adcx ",
            $w0,
            ", rax\n",
            $leave,
            // Position P + 8 enters the window.
            "mov ",
            $w0,
            ", qword ptr [rdi + 8*",
            $r,
            " + 64]\n",
            "adox ",
            $w1,
            ", r9\n",
            "mulx r9, rax, qword ptr [rsi + 8]\n",
            "adcx ",
            $w1,
            ", rax\n",
            "adox ",
            $w2,
            ", r9\n",
            "mulx r9, rax, qword ptr [rsi + 16]\n",
            "adcx ",
            $w2,
            ", rax\n",
            "adox ",
            $w3,
            ", r9\n",
            "mulx r9, rax, qword ptr [rsi + 24]\n",
            "adcx ",
            $w3,
            ", rax\n",
            "adox ",
            $w4,
            ", r9\n",
            "mulx r9, rax, qword ptr [rsi + 32]\n",
            "adcx ",
            $w4,
            ", rax\n",
            "adox ",
            $w5,
            ", r9\n",
            "mulx r9, rax, qword ptr [rsi + 40]\n",
            "adcx ",
            $w5,
            ", rax\n",
            "adox ",
            $w6,
            ", r9\n",
            "mulx r9, rax, qword ptr [rsi + 48]\n",
            "adcx ",
            $w6,
            ", rax\n",
            "adox ",
            $w7,
            ", r9\n",
            "mulx r9, rax, qword ptr [rsi + 56]\n",
            "adcx ",
            $w7,
            ", rax\n",
            // Position P + 8: the last high half (OF out), the pending carry and
            // CF out of P + 7 (CF out). The two carries out are the next
            // pending one: at most one of them is set (module comment), so it
            // is CF | OF, read by SETC into rcx (whose bits above the low byte
            // are zero: the pending carry is 0 or 1) and SETO into al, then
            // ORed. No ADCX or ADOX beyond the chains' own: on Zen 4 the row
            // takes 11.1 cycles so, against 12.0 with the carries gathered by
            // ADCX and ADOX (docs/PERFORMANCE.md).
            "adox ",
            $w0,
            ", r9\n",
            "adcx ",
            $w0,
            ", rcx\n",
            "setc cl\n",
            "seto al\n",
            "or cl, al\n",
        )
    };
}

/// A product row, or a reduction row after the first chunk: m_r from
/// `[r8 + 8r]`, position P stored.
macro_rules! plain_row {
    ($r:literal, $w0:literal $(, $w:literal)+) => {
        band_row!(
            $r,
            concat!("mov rdx, qword ptr [r8 + 8*", $r, "]\n"),
            concat!("mov qword ptr [rdi + 8*", $r, "], ", $w0, "\n"),
            $w0 $(, $w)+
        )
    };
}

/// A reduction row of the first chunk: m_r = (position P) n0 mod 2^64 (n0 at
/// `[rsp]`), written to `[r8 + 8r]` in place of position P, which the row
/// makes zero.
macro_rules! reduce_row {
    ($r:literal, $w0:literal $(, $w:literal)+) => {
        band_row!(
            $r,
            concat!("mov rdx, ", $w0, "\nimul rdx, qword ptr [rsp]\nmov qword ptr [r8 + 8*", $r, "], rdx\n"),
            "",
            $w0 $(, $w)+
        )
    };
}

/// The eight rows of a chunk, the window rotating through its registers.
///
/// Registers: rsi = this chunk of n, rdi = t at this chunk's first position,
/// r8 = the multipliers, rax/r9 = a product's low/high half, rdx = m_r
/// (MULX's implicit operand), rcx = the pending carry, r10..r15, rbx, rbp =
/// the window. Stack, below the saved rbx and rbp: n0, the end of n, the
/// carry-in.
/// All registers but rbx and rbp are named in the operands (explicitly,
/// since the template names them); the compiler may reserve those two, so
/// the band saves and restores them itself.
macro_rules! chunk {
    ($row:ident) => {
        concat!(
            $row!(0, "r10", "r11", "r12", "r13", "r14", "r15", "rbx", "rbp"),
            $row!(1, "r11", "r12", "r13", "r14", "r15", "rbx", "rbp", "r10"),
            $row!(2, "r12", "r13", "r14", "r15", "rbx", "rbp", "r10", "r11"),
            $row!(3, "r13", "r14", "r15", "rbx", "rbp", "r10", "r11", "r12"),
            $row!(4, "r14", "r15", "rbx", "rbp", "r10", "r11", "r12", "r13"),
            $row!(5, "r15", "rbx", "rbp", "r10", "r11", "r12", "r13", "r14"),
            $row!(6, "rbx", "rbp", "r10", "r11", "r12", "r13", "r14", "r15"),
            $row!(7, "rbp", "r10", "r11", "r12", "r13", "r14", "r15", "rbx"),
            "lea rsi, [rsi + 64]\n",
            "lea rdi, [rdi + 64]\n",
        )
    };
}

/// The window in from t (positions i0..i0+8).
macro_rules! load_window {
    () => {
        concat!(
            "mov r10, qword ptr [rdi]\n",
            "mov r11, qword ptr [rdi + 8]\n",
            "mov r12, qword ptr [rdi + 16]\n",
            "mov r13, qword ptr [rdi + 24]\n",
            "mov r14, qword ptr [rdi + 32]\n",
            "mov r15, qword ptr [rdi + 40]\n",
            "mov rbx, qword ptr [rdi + 48]\n",
            "mov rbp, qword ptr [rdi + 56]\n",
        )
    };
}

/// The window out to t (positions i0+s..i0+s+8).
macro_rules! store_window {
    () => {
        concat!(
            "mov qword ptr [rdi], r10\n",
            "mov qword ptr [rdi + 8], r11\n",
            "mov qword ptr [rdi + 16], r12\n",
            "mov qword ptr [rdi + 24], r13\n",
            "mov qword ptr [rdi + 32], r14\n",
            "mov qword ptr [rdi + 40], r15\n",
            "mov qword ptr [rdi + 48], rbx\n",
            "mov qword ptr [rdi + 56], rbp\n",
        )
    };
}

/// The window in from t (positions i0..i0+8), the stack slots set up.
macro_rules! enter {
    () => {
        concat!(
            "push rbx\n",
            "push rbp\n",
            "push rdx\n",
            "push r9\n",
            "push rax\n",
            load_window!(),
        )
    };
}

/// The carry-in (at `[rsp + 16]`) added at position i0 + s, the window's
/// first after the last row, through the window into the pending carry
/// (which stays below 3: at most 1 before, plus the chain's last CF).
macro_rules! add_carry_in {
    () => {
        concat!(
            "add r10, qword ptr [rsp + 16]\n",
            "adc r11, 0\n",
            "adc r12, 0\n",
            "adc r13, 0\n",
            "adc r14, 0\n",
            "adc r15, 0\n",
            "adc rbx, 0\n",
            "adc rbp, 0\n",
            "adc rcx, 0\n",
        )
    };
}

/// The window out to t (positions i0+s..i0+s+8), the stack restored.
macro_rules! leave {
    () => {
        concat!(store_window!(), "add rsp, 24\n", "pop rbp\n", "pop rbx\n",)
    };
}

/// How a band picks its multipliers.
#[derive(Clone, Copy)]
pub enum Band<'a> {
    /// Eight limbs of the other factor: a product band.
    Product(&'a [u64]),
    /// m_r = (position i0 + r) n0 mod 2^64, with n0 = -n^-1 mod 2^64: a
    /// reduction band.
    Reduce(u64),
}

/// `t += sum_{r<8} m_r n 2^(64 (i0 + r))` plus `carry_in` (below 3) at
/// position i0 + s (module comment; for `Band::Reduce`, `t[i0..i0 + 8]` is
/// left holding the m_r), without running the carry out through the rest
/// of t: returns it (below 3) for position i0 + s + 8. `n.len() = s` is a
/// multiple of 8 and `t.len() >= i0 + s + 8`. Panics on wrong lengths or
/// without BMI2/ADX (callers check
/// [`crate::arch::x86_64::adx_available`]). In a sequence of bands where each one's end position i0 + s
/// is the one before's i0 + s + 8 (the bands of a product, a square's
/// triangle and a reduction), each band takes the one before's carry and
/// only the last one's runs up t ([`carry_up`]): the carry then crosses the
/// limbs above once per sequence, not once per band. Until then t's value
/// is short by that pending carry at its position (2^(64 (i0 + s + 8))
/// times it). For `Band::Reduce` the multipliers depend on positions i0..i0
/// + 8 only, which no pending carry of the sequence reaches.
///
/// [`band_sequence`] runs such a sequence in one call.
pub fn band_chained(t: &mut [u64], i0: usize, n: &[u64], how: Band<'_>, carry_in: u64) -> u64 {
    let seq = match how {
        Band::Product(m) => {
            assert!(m.len() == ROWS);
            Sequence::Product(m)
        }
        Band::Reduce(n0) => Sequence::Reduce(n0),
    };
    band_sequence(t, i0, n, seq, 1, carry_in)
}

/// How the bands of a [`band_sequence`] follow one another.
#[derive(Clone, Copy)]
pub enum Sequence<'a> {
    /// A product's bands: band k adds `m[8k..8k + 8]` times n at i0 + 8k.
    Product(&'a [u64]),
    /// A square's triangle: band k adds `m[8k..8k + 8]` times n[8k..] at
    /// i0 + 16k (n shrinks by 8 limbs a band; its end stays).
    Triangle(&'a [u64]),
    /// A reduction's bands, band k at i0 + 8k, with this n0.
    Reduce(u64),
}

/// `count` bands of [`band_chained`] in one call, each taking the one
/// before's carry: band k starts at t limb i0 + 8k (i0 + 16k for a
/// triangle) over `n` (over `n[8k..]` for a triangle), its multipliers as
/// [`Sequence`] says. Returns the last band's carry. Each band's end is the
/// one before's plus 8, as a sequence's must be. The same sums as `count`
/// calls; one call saves the calls' entries and exits. `n.len()` a
/// multiple of 8 (more than 8 (count - 1) for a triangle), t long enough
/// for every band. Panics on wrong lengths or without BMI2/ADX.
pub fn band_sequence(
    t: &mut [u64],
    i0: usize,
    n: &[u64],
    how: Sequence<'_>,
    count: usize,
    carry_in: u64,
) -> u64 {
    let s = n.len();
    assert!(count >= 1 && s >= ROWS && s.is_multiple_of(ROWS));
    // Secret-derived: below 3 by the chain's construction, checked in tests only.
    debug_assert!(carry_in < 3);
    crate::arch::x86_64::require_bmi2_adx();
    // Public: the limbs a band moves along t and n, and its last band's span.
    let (t_step, n_step) = match how {
        Sequence::Triangle(_) => (2 * ROWS, ROWS),
        _ => (ROWS, 0),
    };
    assert!(
        s >= ROWS + n_step * (count - 1),
        "every band of a triangle keeps a chunk of n"
    );
    // Band k covers t[i0 + k t_step .. i0 + k t_step + (s - k n_step) + 8];
    // the end grows with k (t_step >= n_step).
    let last = count - 1;
    assert!(t.len() >= i0 + last * t_step + (s - last * n_step) + ROWS);
    let base = t[i0..].as_mut_ptr();
    // The multipliers' address, and n0 for a reduction (odd, as n is) or 0
    // for a product: the asm tells the two apart by it (the kind is public).
    let (m, n0) = match how {
        Sequence::Product(m) | Sequence::Triangle(m) => {
            assert!(m.len() >= ROWS * count);
            (m.as_ptr(), 0)
        }
        Sequence::Reduce(n0) => {
            assert!(n0 & 1 == 1, "n0 = -n^-1 mod 2^64 is odd");
            (base.cast_const(), n0)
        }
    };
    let carry: u64;
    // SAFETY: band k reads n[k n_step..s] chunk by chunk, stopping when rsi
    // reaches n's end; rdi walks t from i0 + k t_step, and the rows of chunk
    // c read and write t[i0 + k t_step + 8c .. + 16], the window the 8 limbs
    // after the band's last chunk: all inside t (asserted above for the
    // last band, whose span ends furthest). A product or triangle band
    // reads m[8k..8k + 8] (asserted); a reduction band writes its
    // multipliers to the first 8 limbs of its span. rbx and rbp are pushed
    // before use and popped after, and the nine stack slots are freed (no
    // `nostack`: the asm pushes). BMI2/ADX were checked above.
    unsafe {
        asm!(
            "push rbx",
            "push rbp",
            "push r12",
            "push r11",
            "push r10",
            "push r8",
            "push rsi",
            "push rdi",
            "push rdx",
            "push r9",
            "push rax",
            // [rsp]: n0, [rsp + 8]: n's end, [rsp + 16]: the carry-in,
            // [rsp + 24]: this band's t, [rsp + 32]: its n, [rsp + 40]: its
            // multipliers, [rsp + 48]: bands left, [rsp + 56], [rsp + 64]:
            // t's and n's steps in bytes.
            "2:",
            load_window!(),
            // A product band starts with plain rows.
            "cmp qword ptr [rsp], 0",
            "je 3f",
            chunk!(reduce_row),
            "cmp rsi, qword ptr [rsp + 8]",
            "je 4f",
            "3:",
            chunk!(plain_row),
            "cmp rsi, qword ptr [rsp + 8]",
            "jne 3b",
            "4:",
            add_carry_in!(),
            store_window!(),
            // This band's carry is the next one's carry-in.
            "mov qword ptr [rsp + 16], rcx",
            "xor ecx, ecx",
            "dec qword ptr [rsp + 48]",
            "jz 5f",
            "mov rdi, qword ptr [rsp + 24]",
            "add rdi, qword ptr [rsp + 56]",
            "mov qword ptr [rsp + 24], rdi",
            "mov rsi, qword ptr [rsp + 32]",
            "add rsi, qword ptr [rsp + 64]",
            "mov qword ptr [rsp + 32], rsi",
            "mov r8, qword ptr [rsp + 40]",
            "add r8, 64",
            "mov qword ptr [rsp + 40], r8",
            // A reduction band's multipliers go to its own first limbs.
            "cmp qword ptr [rsp], 0",
            "je 2b",
            "mov r8, rdi",
            "jmp 2b",
            "5:",
            "mov rcx, qword ptr [rsp + 16]",
            "add rsp, 72",
            "pop rbp",
            "pop rbx",
            inout("rsi") n.as_ptr() => _,
            inout("rdi") base => _,
            inout("r8") m => _,
            inout("rcx") 0u64 => carry,
            inout("rax") n0 => _,
            inout("r9") n.as_ptr().wrapping_add(s) => _,
            inout("r10") count => _,
            inout("r11") 8 * t_step => _,
            inout("r12") 8 * n_step => _,
            out("r13") _,
            out("r14") _,
            out("r15") _,
            inout("rdx") carry_in => _,
        );
    }
    carry
}

/// `t += carry` from its first limb up (`carry` below 3), every limb visited.
/// Returns the carry out of the top limb. One ADC chain through memory: the
/// loop's DEC and LEA leave CF alone (a compiled loop moved the carry
/// through a register and SETB, about three times slower per limb).
pub fn carry_up(t: &mut [u64], carry: u64) -> u64 {
    if t.is_empty() {
        return carry;
    }
    let out: u64;
    // SAFETY: the loop reads and writes t[0..t.len()] (t is not empty) and
    // touches no other memory; ADD, ADC, DEC and LEA are baseline x86-64.
    unsafe {
        asm!(
            "add qword ptr [rdi], rax",
            "2:",
            "dec rcx",
            "jz 3f",
            "lea rdi, [rdi + 8]",
            "adc qword ptr [rdi], 0",
            "jmp 2b",
            "3:",
            "mov eax, 0",
            "adc eax, 0",
            inout("rdi") t.as_mut_ptr() => _,
            inout("rcx") t.len() => _,
            inout("rax") carry => out,
            options(nostack),
        );
    }
    out
}
