//! Scalar Montgomery multiplication with MULX and the two carry chains
//! ADCX/ADOX (BMI2 + ADX), with the portable `mont::Kernel` signature.
//!
//! CIOS (seed 001): for each limb b_i, t += a b_i, then m = t_0 n0 mod 2^64,
//! t += m n, t >>= 64. Each row adds the low halves of the 64x64 products
//! on one carry chain (CF, ADCX) and the high halves, one limb up, on the
//! other (OF, ADOX), so the two chains interleave without serialising on one
//! flag. With a, b < n: t < 2n throughout (t + a b_i + m n < 2n + 2 n 2^64,
//! divided by 2^64 after each pair of rows), so t fits s + 1 limbs plus a
//! bit, and one constant-time conditional subtraction finishes.

use core::arch::asm;

use crate::limb::reduce_once;

/// `t[0..=s] += x * y` where `x` has s limbs, returning the carry out of
/// limb s (0 or 1) which the caller adds to limb s + 1.
///
/// # Safety
/// BMI2 and ADX must be available; `t` must have at least `x.len() + 1` limbs.
#[inline(always)]
unsafe fn row(t: &mut [u64], x: &[u64], y: u64) -> u64 {
    let s = x.len();
    debug_assert!(t.len() > s);
    let tp = t.as_mut_ptr();
    let xp = x.as_ptr();
    let mut top: u64;
    // SAFETY: tp has s + 1 valid limbs and xp s limbs (caller); BMI2/ADX present (caller).
    // Loop: for j in 0..s { (hi, lo) = x[j] * y; t[j] += lo (CF chain); t[j+1] += hi (OF chain) }.
    // After the loop CF is the carry into t[s] (already folded: see below) and OF into t[s+1].
    unsafe {
        asm!(
            "xor {top:e}, {top:e}",          // clears CF and OF
            "2:",
            "mulx {hi}, {lo}, qword ptr [{xp}]",
            "adcx {lo}, qword ptr [{tp}]",
            "mov qword ptr [{tp}], {lo}",
            "adox {hi}, qword ptr [{tp} + 8]",
            "mov qword ptr [{tp} + 8], {hi}",
            "lea {xp}, [{xp} + 8]",
            "lea {tp}, [{tp} + 8]",
            // LEA and JRCXZ leave CF and OF alone (DEC would clobber OF).
            "lea rcx, [rcx - 1]",
            "jrcxz 3f",
            "jmp 2b",
            "3:",
            // CF: carry into t[s] (position of the last hi, already OF-added) ; OF: carry into t[s+1].
            "mov {lo}, 0",
            "adcx {lo}, {top}",              // lo = CF
            "mov {hi}, 0",
            "adox {hi}, {top}",              // hi = OF
            "add qword ptr [{tp}], {lo}",    // t[s] += CF
            "adc {hi}, 0",
            "mov {top}, {hi}",
            xp = inout(reg) xp => _,
            tp = inout(reg) tp => _,
            inout("rcx") s => _,
            hi = out(reg) _,
            lo = out(reg) _,
            top = out(reg) top,
            in("rdx") y,
            options(nostack),
        );
    }
    top
}

/// `out = a b R^-1 mod n` (R = 2^(64 s)), fully reduced. Preconditions as
/// `mont::Kernel`: equal lengths s >= 1, a, b < n, n odd, n0 = -n^-1 mod 2^64,
/// `scratch.len() >= s + 2`. Panics on wrong lengths or without BMI2/ADX.
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(s >= 1 && a.len() == s && b.len() == s && out.len() == s && scratch.len() >= s + 2);
    assert!(super::adx_available() || (is_x86_feature_detected!("bmi2") && is_x86_feature_detected!("adx")));
    let t = &mut scratch[..s + 2];
    t.fill(0);
    for &bi in b {
        // SAFETY: BMI2/ADX asserted above; t has s + 2 limbs.
        let c = unsafe { row(t, a, bi) };
        t[s + 1] += c;
        let m = t[0].wrapping_mul(n0);
        // SAFETY: as above.
        let c = unsafe { row(t, n, m) };
        t[s + 1] += c;
        t.copy_within(1.., 0);
        t[s + 1] = 0;
    }
    let top = t[s];
    out.copy_from_slice(&t[..s]);
    reduce_once(out, top, n);
}

/// `out = a^2 R^-1 mod n`, fully reduced; same contract as [`mont_mul`].
pub fn mont_sqr(out: &mut [u64], a: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    mont_mul(out, a, a, n, n0, scratch);
}
