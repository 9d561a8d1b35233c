//! The final conditional subtraction of a Montgomery product (Montgomery,
//! "Modular Multiplication Without Trial Division": the result below 2n
//! becomes fully reduced), as two SBB chains; and the lazy one, which keeps
//! a value below R = 2^(64 s) rather than below n, in one.

use core::arch::asm;

/// `out = top 2^(64 s) + x`, reduced once: `x - n` when that value is at
/// least n, else `x` (s = n.len() >= 1, `top` 0 or 1, the value below 2n).
/// The portable twin is `limb::reduce_once` (after a copy); this one is two
/// SBB chains through memory at about a cycle per limb, where the twin's
/// u128 borrows compile to about five dependent instructions per limb
/// (docs/PERFORMANCE.md, "ADX: the final subtraction in assembly"). Pass 1 only
/// compares: the borrow of x - n and then of top - borrow says whether x is
/// kept. Pass 2 subtracts n, or zero: SHRX twice by 32 (keep) or by 0
/// (subtract) zeroes n's limb or leaves it without touching the flags,
/// which carry the borrow chain (AND would clear CF); the loop counter's
/// INC leaves CF alone. The values (x, top) are secret and drive no branch
/// or address: the loops run s times and every limb is read and written.
pub fn reduce_into(out: &mut [u64], x: &[u64], top: u64, n: &[u64]) {
    let s = n.len();
    assert!(s >= 1 && x.len() == s && out.len() == s);
    debug_assert!(top <= 1);
    crate::arch::x86_64::require_bmi2_adx();
    // SAFETY: both loops index limbs -s..0 from the ends of x, n and out,
    // which hold s limbs each (asserted); BMI2 (SHRX) was checked above.
    // No stack use.
    unsafe {
        asm!(
            // Pass 1: CF = the borrow of x - n; then CF = (top < that borrow).
            "mov {i}, {neg}",
            "clc",
            "2:",
            "mov {v}, qword ptr [{xe} + 8*{i}]",
            "sbb {v}, qword ptr [{ne} + 8*{i}]",
            "inc {i}",
            "jnz 2b",
            "sbb {top}, 0",
            // k = 32 when x is kept (n's limbs shifted out), else 0.
            "sbb {k}, {k}",
            "and {k}, 32",
            // Pass 2: out = x - (n or 0).
            "mov {i}, {neg}",
            "clc",
            "3:",
            "mov {v}, qword ptr [{ne} + 8*{i}]",
            "shrx {v}, {v}, {k}",
            "shrx {v}, {v}, {k}",
            "mov {w}, qword ptr [{xe} + 8*{i}]",
            "sbb {w}, {v}",
            "mov qword ptr [{oe} + 8*{i}], {w}",
            "inc {i}",
            "jnz 3b",
            xe = in(reg) x.as_ptr().add(s),
            ne = in(reg) n.as_ptr().add(s),
            oe = in(reg) out.as_mut_ptr().add(s),
            neg = in(reg) (s as isize).wrapping_neg(),
            top = inout(reg) top => _,
            i = out(reg) _,
            k = out(reg) _,
            v = out(reg) _,
            w = out(reg) _,
            options(nostack),
        );
    }
}

/// `out = top 2^(64 s) + x - top n`, the lazy end of a Montgomery product
/// whose value V = top 2^(64 s) + x is below R + n (R = 2^(64 s), `top` 0
/// or 1): below R afterwards, congruent mod n, not necessarily below n.
/// When top is 1, x < n, so x - n borrows out exactly the top bit. One
/// SBB chain over n's limbs times top (MULX by rdx = top: no flags
/// touched, unlike AND), against [`reduce_into`]'s compare and select: a
/// product whose operands are below R, rather than below n, needs no
/// compare (the exponentiation loop's products, `super::mont_mul_lazy`).
/// `top` and x are secret: top only multiplies, and every limb is read
/// and written. s = n.len() a multiple of 4.
pub fn subtract_if_top(out: &mut [u64], x: &[u64], top: u64, n: &[u64]) {
    let s = n.len();
    assert!(s >= 4 && s.is_multiple_of(4) && x.len() == s && out.len() == s);
    debug_assert!(top <= 1);
    crate::arch::x86_64::require_bmi2_adx();
    // SAFETY: the loop runs s / 4 times over four limbs of x, n and out
    // each, which hold s limbs (asserted); BMI2 (MULX) was checked above.
    // MULX, MOV, LEA and DEC leave CF, the borrow, alone. No stack use.
    unsafe {
        asm!(
            "clc",
            "2:",
            "mulx {h}, {v0}, qword ptr [{n}]",
            "mulx {h}, {v1}, qword ptr [{n} + 8]",
            "mulx {h}, {v2}, qword ptr [{n} + 16]",
            "mulx {h}, {v3}, qword ptr [{n} + 24]",
            "mov {w}, qword ptr [{x}]",
            "sbb {w}, {v0}",
            "mov qword ptr [{o}], {w}",
            "mov {w}, qword ptr [{x} + 8]",
            "sbb {w}, {v1}",
            "mov qword ptr [{o} + 8], {w}",
            "mov {w}, qword ptr [{x} + 16]",
            "sbb {w}, {v2}",
            "mov qword ptr [{o} + 16], {w}",
            "mov {w}, qword ptr [{x} + 24]",
            "sbb {w}, {v3}",
            "mov qword ptr [{o} + 24], {w}",
            "lea {n}, [{n} + 32]",
            "lea {x}, [{x} + 32]",
            "lea {o}, [{o} + 32]",
            "dec {c}",
            "jnz 2b",
            n = inout(reg) n.as_ptr() => _,
            x = inout(reg) x.as_ptr() => _,
            o = inout(reg) out.as_mut_ptr() => _,
            c = inout(reg) s / 4 => _,
            h = out(reg) _,
            v0 = out(reg) _,
            v1 = out(reg) _,
            v2 = out(reg) _,
            v3 = out(reg) _,
            w = out(reg) _,
            in("rdx") top,
            options(nostack),
        );
    }
}
