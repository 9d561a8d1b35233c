//! The squaring's triangle and diagonal with MULX/ADX (Shand and Vuillemin,
//! "Fast Implementations of RSA Cryptography", section 7.2: the products
//! a_i a_j for i < j once, doubled, plus the squares a_i^2).
//!
//! [`triangle8`] writes the off-diagonal triangle of an eight-limb block
//! with its pending limbs in registers; `double_add_diagonal` doubles the
//! whole triangle and adds the diagonal on the two flag chains.
//!
//! Secrets: the limbs enter only as MULX and ADCX/ADOX operands; no branch
//! or address depends on a value.

use core::arch::asm;

use super::band::ROWS;

/// Row i >= 1 of an eight-limb triangle, in registers: limbs 2i + 1..=i + 8
/// gain a_i a[i + 1..8], the low halves on CF (ADCX) and the high halves
/// one limb up on OF (ADOX). Each `($j, lo, hi)` names the registers of
/// limbs i + j and i + j + 1; `$new` is limb i + 8's register, zero before
/// the row; `$s1`/`$s2` hold limbs 2i + 1 and 2i + 2, which no later row
/// touches, stored at the end. Rows 0..=i sum to at most
/// (sum_{i' <= i} a_i' 2^(64 i')) a < 2^(64 (i + 9)), so limb i + 8 takes
/// the last high half and both carries and nothing carries out of it.
macro_rules! triangle_row {
    ($i:literal, $new:literal, [$(($j:literal, $lo:literal, $hi:literal))+], $s1:literal, $s2:literal) => {
        concat!(
            "mov rdx, qword ptr [rsi + 8*", $i, "]\n",
            // Both flags clear; limb i + 8 starts at zero.
            "xor eax, eax\n",
            "mov ", $new, ", rax\n",
            $(
                "mulx r9, rax, qword ptr [rsi + 8*", $j, "]\n",
                "adcx ", $lo, ", rax\n",
                "adox ", $hi, ", r9\n",
            )+
            // The carry out of limb i + 7 into limb i + 8 (MOV leaves CF).
            "mov eax, 0\n",
            "adcx ", $new, ", rax\n",
            "mov qword ptr [rdi + 8*(2*", $i, "+1)], ", $s1, "\n",
            "mov qword ptr [rdi + 8*(2*", $i, "+2)], ", $s2, "\n",
        )
    };
}

/// The rows of [`triangle8`], as asm text: rsi = the block's eight limbs,
/// rdi = the sixteen limbs of t it writes. Clobbers rax, rcx, rdx, r8..r15
/// and the flags; no stack use.
macro_rules! triangle8_body {
    () => {
        concat!(
            // Row 0: limb j's low half on CF over limb j - 1's high half.
            "mov rdx, qword ptr [rsi]\n",
            "xor eax, eax\n",
            "mulx r8, rcx, qword ptr [rsi + 8]\n",
            "mulx r10, rax, qword ptr [rsi + 16]\n",
            "adcx r8, rax\n",
            "mulx r11, rax, qword ptr [rsi + 24]\n",
            "adcx r10, rax\n",
            "mulx r12, rax, qword ptr [rsi + 32]\n",
            "adcx r11, rax\n",
            "mulx r13, rax, qword ptr [rsi + 40]\n",
            "adcx r12, rax\n",
            "mulx r14, rax, qword ptr [rsi + 48]\n",
            "adcx r13, rax\n",
            "mulx r15, rax, qword ptr [rsi + 56]\n",
            "adcx r14, rax\n",
            "mov eax, 0\n",
            "adcx r15, rax\n",
            "mov qword ptr [rdi], rax\n",
            "mov qword ptr [rdi + 8], rcx\n",
            "mov qword ptr [rdi + 16], r8\n",
            triangle_row!(
                1,
                "rcx",
                [(2, "r10", "r11")(3, "r11", "r12")(4, "r12", "r13")(
                    5, "r13", "r14"
                )(6, "r14", "r15")(7, "r15", "rcx")],
                "r10",
                "r11"
            ),
            triangle_row!(
                2,
                "r8",
                [(3, "r12", "r13")(4, "r13", "r14")(5, "r14", "r15")(
                    6, "r15", "rcx"
                )(7, "rcx", "r8")],
                "r12",
                "r13"
            ),
            triangle_row!(
                3,
                "r10",
                [(4, "r14", "r15")(5, "r15", "rcx")(6, "rcx", "r8")(7, "r8", "r10")],
                "r14",
                "r15"
            ),
            triangle_row!(
                4,
                "r11",
                [(5, "rcx", "r8")(6, "r8", "r10")(7, "r10", "r11")],
                "rcx",
                "r8"
            ),
            triangle_row!(5, "r12", [(6, "r10", "r11")(7, "r11", "r12")], "r10", "r11"),
            triangle_row!(6, "r13", [(7, "r12", "r13")], "r12", "r13"),
            "mov qword ptr [rdi + 120], 0\n",
        )
    };
}

/// `t[..16] = sum_{i<j<8} a_i a_j 2^(64 (i + j))`, the off-diagonal triangle of
/// an eight-limb block, written over `t[..16]` (limbs 0 and 15 are zero;
/// nothing is read from t). Seven rows written out, no loop, the pending
/// limbs in eight registers: limb L lives in register (L - 1) mod 8 of
/// rcx, r8, r10..r15 until its last row has passed (row (L - 1) / 2 stores
/// it), and limb L + 8 first enters in row L, after that store. Row 0
/// writes its products straight into the registers (one carry chain).
/// `a.len() >= 8`, `t.len() >= 16`. Panics on wrong lengths or without
/// BMI2/ADX.
pub fn triangle8(t: &mut [u64], a: &[u64]) {
    assert!(a.len() >= ROWS && t.len() >= 2 * ROWS);
    crate::arch::x86_64::require_bmi2_adx();
    // SAFETY: the rows read a[0..8] and write t[0..16] (asserted above);
    // BMI2/ADX were checked above. No stack use.
    unsafe {
        asm!(
            triangle8_body!(),
            in("rsi") a.as_ptr(),
            in("rdi") t.as_mut_ptr(),
            out("rax") _,
            out("rcx") _,
            out("rdx") _,
            out("r8") _,
            out("r9") _,
            out("r10") _,
            out("r11") _,
            out("r12") _,
            out("r13") _,
            out("r14") _,
            out("r15") _,
            options(nostack),
        );
    }
}

/// The asm text of [`triangle16`]: rsi = a, rdi = t. Saves both on the
/// stack and frees the slots; clobbers rax, rcx, rdx, rsi, rdi, r8..r15 and
/// the flags (rbx and rbp are saved and restored by the band).
macro_rules! triangle16_body {
    () => {
        concat!(
            "push rsi\n",
            "push rdi\n",
            triangle8_body!(),
            "mov rsi, qword ptr [rsp + 8]\n",
            "mov rdi, qword ptr [rsp]\n",
            "add rsi, 64\n",
            "add rdi, 128\n",
            triangle8_body!(),
            // The band: multipliers a[0..8] (r8), n = a[8..16] (rsi, its end
            // in r9), t from limb 8 (rdi), no pending carry (rcx), n0 = 0 (a
            // product band) and carry-in 0 (rdx) in the band's stack slots.
            "mov r8, qword ptr [rsp + 8]\n",
            "lea rsi, [r8 + 64]\n",
            "lea r9, [r8 + 128]\n",
            "mov rdi, qword ptr [rsp]\n",
            "add rdi, 64\n",
            "xor eax, eax\n",
            "xor edx, edx\n",
            "xor ecx, ecx\n",
            enter!(),
            chunk!(plain_row),
            leave!(),
            // rdi is at limb 16; the carry is pending for limb 24.
            "add qword ptr [rdi + 64], rcx\n",
            "adc qword ptr [rdi + 72], 0\n",
            "adc qword ptr [rdi + 80], 0\n",
            "adc qword ptr [rdi + 88], 0\n",
            "adc qword ptr [rdi + 96], 0\n",
            "adc qword ptr [rdi + 104], 0\n",
            "adc qword ptr [rdi + 112], 0\n",
            "adc qword ptr [rdi + 120], 0\n",
            "add rsp, 16\n",
        )
    };
}

/// `t[..32] = sum_{i<j<16} a_i a_j 2^(64 (i + j))`, the off-diagonal
/// triangle of 16 limbs (RSA-2048's primes) in one call: the two blocks'
/// triangles ([`triangle8`]'s rows) over t[0..16] and t[16..32], then the
/// block product a[0..8] a[8..16] added at limb 8 as one product band
/// ([`super::band`]'s rows, the window t[8..16] in registers, its carry-in
/// zero), and the band's carry out of limb 24 run up to limb 31 (the
/// triangle is below R^2 / 2: nothing carries out of t). The same sums as
/// `super::square`'s general path, without its four calls. `a.len() ==
/// 16`, `t.len() >= 32`. Panics on wrong lengths or without BMI2/ADX.
pub fn triangle16(t: &mut [u64], a: &[u64]) {
    assert!(a.len() == 2 * ROWS && t.len() >= 4 * ROWS);
    crate::arch::x86_64::require_bmi2_adx();
    // SAFETY: the triangles read a[0..16] and write t[0..32]; the band reads
    // a[0..16] and reads and writes t[8..24]; the carry runs over t[24..32]
    // (all asserted above). The asm saves a's and t's addresses on the
    // stack and pops them; the band pushes rbx and rbp before use and pops
    // them after, and frees its three slots (no `nostack`: the asm pushes).
    // BMI2/ADX were checked above.
    unsafe {
        asm!(
            triangle16_body!(),
            inout("rsi") a.as_ptr() => _,
            inout("rdi") t.as_mut_ptr() => _,
            out("rax") _,
            out("rcx") _,
            out("rdx") _,
            out("r8") _,
            out("r9") _,
            out("r10") _,
            out("r11") _,
            out("r12") _,
            out("r13") _,
            out("r14") _,
            out("r15") _,
        );
    }
}

/// One a-limb of [`double_add_diagonal`]: a_i^2 added to limbs 2i and
/// 2i + 1 (at byte offsets `$o` and `$o` + 8 from t, `$ao` from a), each
/// doubled on the way. `$a`, `$t` name the registers holding a and t,
/// `$hi`, `$lo`, `$x` three free ones (rdx is MULX's operand).
macro_rules! diagonal_step {
    ($a:literal, $t:literal, $hi:literal, $lo:literal, $x:literal, $ao:literal, $o:literal) => {
        concat!(
            "mov rdx, qword ptr [",
            $a,
            " + ",
            $ao,
            "]\n",
            "mulx ",
            $hi,
            ", ",
            $lo,
            ", rdx\n",
            "mov ",
            $x,
            ", qword ptr [",
            $t,
            " + ",
            $o,
            "]\n",
            "adox ",
            $x,
            ", ",
            $x,
            "\n",
            "adcx ",
            $x,
            ", ",
            $lo,
            "\n",
            "mov qword ptr [",
            $t,
            " + ",
            $o,
            "], ",
            $x,
            "\n",
            "mov ",
            $x,
            ", qword ptr [",
            $t,
            " + ",
            $o,
            " + 8]\n",
            "adox ",
            $x,
            ", ",
            $x,
            "\n",
            "adcx ",
            $x,
            ", ",
            $hi,
            "\n",
            "mov qword ptr [",
            $t,
            " + ",
            $o,
            " + 8], ",
            $x,
            "\n",
        )
    };
}

/// [`diagonal_step`] with the register names of [`double_add_diagonal`]'s
/// operands.
macro_rules! diagonal_step_named {
    ($ao:literal, $o:literal) => {
        diagonal_step!("{a}", "{t}", "{hi}", "{lo}", "{x}", $ao, $o)
    };
}

/// `t = 2 t + sum a_i^2 2^(128 i)` over 2s limbs (= a^2 < R^2 when t holds
/// the triangle): the doubling on the OF chain (ADOX x, x adds x to itself,
/// the bit it shifts out waiting in OF for the next limb) and the diagonal
/// a_i^2 on the CF chain, one MULX per limb pair. Four limbs of a per pass
/// (s a multiple of 4, every banded size), one otherwise; the loops count
/// with LEA and JRCXZ, which leave both flags alone (DEC would write OF);
/// the chains start with both flags clear (XOR).
pub fn double_add_diagonal(t: &mut [u64], a: &[u64]) {
    let s = a.len();
    assert!(s >= 1 && t.len() == 2 * s);
    let (quads, ones) = if s.is_multiple_of(4) { (s / 4, 0) } else { (0, s) };
    // SAFETY: the passes read a[0..s] and read and write t[0..2s]
    // (asserted: 4 quads + ones = s); the caller checked BMI2/ADX. No
    // stack use.
    unsafe {
        asm!(
            // JRCXZ reaches 127 bytes: the four-limb pass is longer.
            "test rcx, rcx",
            "jz 3f",
            "xor eax, eax",
            "2:",
            diagonal_step_named!(0, 0),
            diagonal_step_named!(8, 16),
            diagonal_step_named!(16, 32),
            diagonal_step_named!(24, 48),
            "lea {a}, [{a} + 32]",
            "lea {t}, [{t} + 64]",
            "lea rcx, [rcx - 1]",
            "jrcxz 4f",
            "jmp 2b",
            "3:",
            "xor eax, eax",
            "4:",
            "mov rcx, {ones}",
            "jrcxz 6f",
            "5:",
            diagonal_step_named!(0, 0),
            "lea {a}, [{a} + 8]",
            "lea {t}, [{t} + 16]",
            "lea rcx, [rcx - 1]",
            "jrcxz 6f",
            "jmp 5b",
            "6:",
            a = inout(reg) a.as_ptr() => _,
            t = inout(reg) t.as_mut_ptr() => _,
            ones = in(reg) ones,
            hi = out(reg) _,
            lo = out(reg) _,
            x = out(reg) _,
            inout("rcx") quads => _,
            out("rax") _,
            out("rdx") _,
            options(nostack),
        );
    }
}
