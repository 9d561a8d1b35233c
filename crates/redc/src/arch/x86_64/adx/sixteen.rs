//! The MULX/ADX lazy Montgomery squaring and reduction at 16 limbs
//! (RSA-2048's primes, the size most signatures use), each in one asm
//! call: the same sums as the general banded path (`super::square`,
//! `super::reduce_bands`, `super::subtract::subtract_if_top`), whose calls
//! cost a measurable share of a 16-limb squaring's time (docs/PERFORMANCE.md,
//! "ADX: the 16-limb square in one call"). Koc, Acar and Kaliski,
//! "Analyzing and Comparing Montgomery Multiplication Algorithms" (SOS);
//! Shand and Vuillemin, "Fast Implementations of RSA Cryptography",
//! section 7.2 (the squaring's triangle).
//!
//! Secrets: the operand, the modulus (a CRT prime), every intermediate
//! and the top bit: they enter only as MULX, ADCX/ADOX, ADC and SBB
//! operands; no branch or address depends on a value.

use core::arch::asm;

use super::band::ROWS;

/// The asm text of [`reduce16_lazy`]'s work, with out's, t's and n's
/// addresses and n0 in the stack slots `[rsp + 24]`, `[rsp + 16]`,
/// `[rsp + 8]` and `[rsp]`, and rdi = t, rsi = n, rax = n0 on entry. The
/// two reduction bands (the second takes the first's carry at limb 24, and
/// its own carry out of limb 32 is the top bit), then one SBB chain over n
/// times that bit (MULX by rdx = top: no flags touched), written out.
/// Clobbers rax, rcx, rdx, rsi, rdi, r8..r15 and the flags; the bands
/// save and restore rbx and rbp.
macro_rules! reduce16_body {
    () => {
        concat!(
            // Band 0: window t[0..8], multipliers into t[0..8], carry-in 0.
            "mov r8, rdi\n",
            "lea r9, [rsi + 128]\n",
            "xor ecx, ecx\n",
            "xor edx, edx\n",
            enter!(),
            chunk!(reduce_row),
            chunk!(plain_row),
            leave!(),
            // Band 1: window t[8..16]; band 0's carry (limb 24) is its carry-in.
            "mov rdi, qword ptr [rsp + 16]\n",
            "add rdi, 64\n",
            "mov r8, rdi\n",
            "mov rsi, qword ptr [rsp + 8]\n",
            "lea r9, [rsi + 128]\n",
            "mov rax, qword ptr [rsp]\n",
            "mov rdx, rcx\n",
            "xor ecx, ecx\n",
            enter!(),
            chunk!(reduce_row),
            chunk!(plain_row),
            add_carry_in!(),
            leave!(),
            // rcx = top, the carry out of limb 32: out = t[16..32] - top n.
            "mov rdx, rcx\n",
            "mov rsi, qword ptr [rsp + 8]\n",
            "mov rdi, qword ptr [rsp + 16]\n",
            "mov r8, qword ptr [rsp + 24]\n",
            "clc\n",
            "mulx r9, rax, qword ptr [rsi + 0]\n",
            "mov r10, qword ptr [rdi + 128]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 0], r10\n",
            "mulx r9, rax, qword ptr [rsi + 8]\n",
            "mov r10, qword ptr [rdi + 136]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 8], r10\n",
            "mulx r9, rax, qword ptr [rsi + 16]\n",
            "mov r10, qword ptr [rdi + 144]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 16], r10\n",
            "mulx r9, rax, qword ptr [rsi + 24]\n",
            "mov r10, qword ptr [rdi + 152]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 24], r10\n",
            "mulx r9, rax, qword ptr [rsi + 32]\n",
            "mov r10, qword ptr [rdi + 160]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 32], r10\n",
            "mulx r9, rax, qword ptr [rsi + 40]\n",
            "mov r10, qword ptr [rdi + 168]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 40], r10\n",
            "mulx r9, rax, qword ptr [rsi + 48]\n",
            "mov r10, qword ptr [rdi + 176]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 48], r10\n",
            "mulx r9, rax, qword ptr [rsi + 56]\n",
            "mov r10, qword ptr [rdi + 184]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 56], r10\n",
            "mulx r9, rax, qword ptr [rsi + 64]\n",
            "mov r10, qword ptr [rdi + 192]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 64], r10\n",
            "mulx r9, rax, qword ptr [rsi + 72]\n",
            "mov r10, qword ptr [rdi + 200]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 72], r10\n",
            "mulx r9, rax, qword ptr [rsi + 80]\n",
            "mov r10, qword ptr [rdi + 208]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 80], r10\n",
            "mulx r9, rax, qword ptr [rsi + 88]\n",
            "mov r10, qword ptr [rdi + 216]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 88], r10\n",
            "mulx r9, rax, qword ptr [rsi + 96]\n",
            "mov r10, qword ptr [rdi + 224]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 96], r10\n",
            "mulx r9, rax, qword ptr [rsi + 104]\n",
            "mov r10, qword ptr [rdi + 232]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 104], r10\n",
            "mulx r9, rax, qword ptr [rsi + 112]\n",
            "mov r10, qword ptr [rdi + 240]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 112], r10\n",
            "mulx r9, rax, qword ptr [rsi + 120]\n",
            "mov r10, qword ptr [rdi + 248]\n",
            "sbb r10, rax\n",
            "mov qword ptr [r8 + 120], r10\n",
        )
    };
}

/// The lazy Montgomery reduction at 16 limbs in one call: `out = (t + M
/// n) / R - top n`, with M < R making t's low 16 limbs zero and top the bit
/// of (t + M n) / R at R (the contract of `super::mont_mul_lazy`'s end:
/// `t < R^2` in, `out < R` and congruent to t R^-1 mod n). t (33 limbs) is
/// left holding the multipliers below limb 16 and the unsubtracted value
/// above. Panics on wrong lengths or without BMI2/ADX.
pub fn reduce16_lazy(out: &mut [u64], t: &mut [u64], n: &[u64], n0: u64) {
    assert!(n.len() == 2 * ROWS && t.len() == 4 * ROWS + 1 && out.len() == 2 * ROWS);
    assert!(n0 & 1 == 1, "n0 = -n^-1 mod 2^64 is odd");
    crate::arch::x86_64::require_bmi2_adx();
    // SAFETY: band k (k = 0, 1) reads n[0..16] and reads and writes
    // t[8k..8k + 24], writing its multipliers to t[8k..8k + 8]; the end
    // reads n[0..16] and t[16..32] and writes out[0..16] (all asserted
    // above). The asm keeps out's, t's and n's addresses and n0 in four
    // stack slots and frees them; each band pushes rbx and rbp before use
    // and pops them after, and frees its three slots (no `nostack`: the
    // asm pushes). BMI2/ADX were checked above.
    unsafe {
        asm!(
            "push r8",
            "push rdi",
            "push rsi",
            "push rax",
            reduce16_body!(),
            "add rsp, 32",
            inout("r8") out.as_mut_ptr() => _,
            inout("rdi") t.as_mut_ptr() => _,
            inout("rsi") n.as_ptr() => _,
            inout("rax") n0 => _,
            out("rcx") _,
            out("rdx") _,
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

/// `out = a^2 R^-1` mod n, lazily (below R, congruent mod n; any 16-limb
/// `a` below R): `super::mont_sqr_lazy` at 16 limbs in one call. The
/// triangle (`super::triangle::triangle16`'s text), the doubling and
/// diagonal written out over t's 32 limbs (`double_add_diagonal`'s steps),
/// then [`reduce16_lazy`]'s text. `t` is the 33-limb workspace (its top limb
/// not read). Panics on wrong lengths or without BMI2/ADX.
pub fn sqr16_lazy(out: &mut [u64], a: &[u64], t: &mut [u64], n: &[u64], n0: u64) {
    assert!(a.len() == 2 * ROWS && n.len() == 2 * ROWS && t.len() == 4 * ROWS + 1 && out.len() == 2 * ROWS);
    assert!(n0 & 1 == 1, "n0 = -n^-1 mod 2^64 is odd");
    crate::arch::x86_64::require_bmi2_adx();
    // SAFETY: the triangle reads a[0..16] and writes t[0..32]; the diagonal
    // reads a[0..16] and reads and writes t[0..32]; the reduction reads
    // n[0..16] and t[0..32] and writes t[0..32] and out[0..16] (all
    // asserted above). The asm keeps a's, out's, t's and n's addresses and
    // n0 in five stack slots and frees them; the triangle's and the bands'
    // own pushes are popped before the next part (no `nostack`: the asm
    // pushes). BMI2/ADX were checked above.
    unsafe {
        asm!(
            "push rcx",
            "push r8",
            "push rdi",
            "push rsi",
            "push rax",
            // [rsp] = n0, [rsp + 8] = n, [rsp + 16] = t, [rsp + 24] = out,
            // [rsp + 32] = a.
            "mov rsi, qword ptr [rsp + 32]",
            triangle16_body!(),
            // t = 2 t + the diagonal, the chains' flags cleared first.
            "mov rsi, qword ptr [rsp + 32]",
            "mov rdi, qword ptr [rsp + 16]",
            "xor eax, eax",
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 0, 0),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 8, 16),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 16, 32),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 24, 48),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 32, 64),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 40, 80),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 48, 96),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 56, 112),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 64, 128),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 72, 144),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 80, 160),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 88, 176),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 96, 192),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 104, 208),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 112, 224),
            diagonal_step!("rsi", "rdi", "r9", "r10", "r11", 120, 240),
            "mov rdi, qword ptr [rsp + 16]",
            "mov rsi, qword ptr [rsp + 8]",
            "mov rax, qword ptr [rsp]",
            reduce16_body!(),
            "add rsp, 40",
            inout("rcx") a.as_ptr() => _,
            inout("r8") out.as_mut_ptr() => _,
            inout("rdi") t.as_mut_ptr() => _,
            inout("rsi") n.as_ptr() => _,
            inout("rax") n0 => _,
            out("rdx") _,
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
