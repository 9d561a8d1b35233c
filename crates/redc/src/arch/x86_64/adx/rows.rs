//! One CIOS row at a time with MULX and the two carry chains ADCX/ADOX,
//! for the limb counts the eight-row bands ([`super::band`]) do not serve
//! (not a multiple of 8). Koc, Acar and Kaliski, "Analyzing and Comparing
//! Montgomery Multiplication Algorithms", section 4 (CIOS).
//!
//! Secrets: the row's operands and t enter only as MULX and ADCX/ADOX
//! operands; the loop counts depend on the public length alone.

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
            core::arch::asm!(
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
