//! Scalar Montgomery multiplication with MULX and the two carry chains
//! ADCX/ADOX (BMI2 + ADX), with the portable `mont::Kernel` signature.
//!
//! CIOS (seed 001): for each limb b_i, t += a b_i, then m = t_0 n0 mod 2^64,
//! t += m n, t >>= 64. Each row adds the low halves of the 64x64 products
//! on one carry chain (CF, ADCX) and the high halves, one limb up, on the
//! other (OF, ADOX), so the two chains interleave without serialising on one
//! flag. With a, b < n: t < 2n throughout (t + a b_i + m n < 2n + 2 n 2^64,
//! divided by 2^64 after each pair of rows), so t fits s + 1 limbs plus a
//! bit, and one constant-time conditional subtraction finishes. The shift
//! by one limb is folded into the stores of the reduction row.

use core::arch::asm;

use crate::limb::reduce_once;

/// One CIOS row: `t[0..=s] += x * y` (x of s limbs) with the low halves of
/// the products on the CF chain (ADCX) and the high halves, one limb up, on
/// the OF chain (ADOX): limb j becomes t[j] + lo(x_j y) + hi(x_{j-1} y). The
/// high half waits in a register for the next limb, so no store-to-load
/// forwarding sits on a carry chain. With `$shift`, limb j is stored at j - 1
/// (the division by 2^64 of the reduction row; the caller guarantees limb 0
/// is then zero and that `t[-1]` is writable scratch). Returns the carry out
/// of limb s (0..=2), which belongs to limb s + 1. The loop handles s mod 4
/// single limbs, then groups of four with the high-half register alternating
/// (four instructions per limb product).
macro_rules! row {
    ($t:expr, $x:expr, $y:expr, $shift:literal) => {{
        let t: &mut [u64] = $t;
        let x: &[u64] = $x;
        let s = x.len();
        assert!(s >= 1 && t.len() > s);
        let mut tp = t.as_mut_ptr();
        let xp = x.as_ptr();
        let top: u64;
        // SAFETY: tp points to s + 1 valid limbs and xp to s (asserted above; with
        // $shift the caller provides one writable limb before tp); BMI2 and ADX were
        // detected by the caller. rcx counts the limbs; LEA and JRCXZ leave CF and OF
        // alone (DEC would clobber OF).
        unsafe {
            asm!(
                "xor {z:e}, {z:e}",
                "xor {h0:e}, {h0:e}",
                // s mod 4 single limbs first.
                "jrcxz 4f",
                "5:",
                "mulx {h1}, {lo}, qword ptr [{xp}]",
                "adcx {lo}, qword ptr [{tp}]",
                "adox {lo}, {h0}",
                concat!("mov qword ptr [{tp} - ", $shift, "], {lo}"),
                "mov {h0}, {h1}",
                "lea {xp}, [{xp} + 8]",
                "lea {tp}, [{tp} + 8]",
                "lea rcx, [rcx - 1]",
                "jrcxz 4f",
                "jmp 5b",
                // Then s / 4 groups of four, the high-half register alternating.
                "4:",
                "mov rcx, {q}",
                "jrcxz 3f",
                "2:",
                "mulx {h1}, {lo}, qword ptr [{xp}]",
                "adcx {lo}, qword ptr [{tp}]",
                "adox {lo}, {h0}",
                concat!("mov qword ptr [{tp} - ", $shift, "], {lo}"),
                "mulx {h0}, {lo}, qword ptr [{xp} + 8]",
                "adcx {lo}, qword ptr [{tp} + 8]",
                "adox {lo}, {h1}",
                concat!("mov qword ptr [{tp} + 8 - ", $shift, "], {lo}"),
                "mulx {h1}, {lo}, qword ptr [{xp} + 16]",
                "adcx {lo}, qword ptr [{tp} + 16]",
                "adox {lo}, {h0}",
                concat!("mov qword ptr [{tp} + 16 - ", $shift, "], {lo}"),
                "mulx {h0}, {lo}, qword ptr [{xp} + 24]",
                "adcx {lo}, qword ptr [{tp} + 24]",
                "adox {lo}, {h1}",
                concat!("mov qword ptr [{tp} + 24 - ", $shift, "], {lo}"),
                "lea {xp}, [{xp} + 32]",
                "lea {tp}, [{tp} + 32]",
                "lea rcx, [rcx - 1]",
                "jrcxz 3f",
                "jmp 2b",
                // Limb s: + CF + the last high half; the carries out go to limb s + 1.
                "3:",
                "mov {lo}, qword ptr [{tp}]",
                "adcx {lo}, {z}",
                "adox {lo}, {h0}",
                concat!("mov qword ptr [{tp} - ", $shift, "], {lo}"),
                "mov {h1}, 0",
                "adcx {h1}, {z}",
                "adox {h1}, {z}",
                xp = inout(reg) xp => _,
                tp = inout(reg) tp,
                q = in(reg) s / 4,
                z = out(reg) _,
                h0 = out(reg) _,
                h1 = out(reg) top,
                lo = out(reg) _,
                inout("rcx") s % 4 => _,
                in("rdx") $y,
                options(nostack),
            );
        }
        let _ = tp;
        top
    }};
}

/// `out = a b R^-1 mod n` (R = 2^(64 s)), fully reduced. Preconditions as
/// `mont::Kernel`: equal lengths s >= 1, a, b < n, n odd, n0 = -n^-1 mod 2^64,
/// `scratch.len() >= s + 3`. Panics on wrong lengths or without BMI2/ADX.
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(s >= 1 && a.len() == s && b.len() == s && out.len() == s && scratch.len() >= s + 3);
    assert!(super::adx_available() || (is_x86_feature_detected!("bmi2") && is_x86_feature_detected!("adx")));
    // scratch[0] is the landing limb of the shifted store of the zero limb 0.
    let (_, t) = scratch[..s + 3].split_at_mut(1);
    t.fill(0);
    for &bi in b {
        // t < 2n before the row; t + a b_i < 2n + n 2^64 fits s + 2 limbs.
        let c = row!(&mut t[..s + 1], a, bi, "0");
        t[s + 1] += c;
        let m = t[0].wrapping_mul(n0);
        // (t + m n) / 2^64 < (2n + n 2^64 + n 2^64) / 2^64 < 2n + 1: the shifted store.
        let c = row!(&mut t[..s + 1], n, m, "8");
        t[s] = t[s + 1] + c;
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
