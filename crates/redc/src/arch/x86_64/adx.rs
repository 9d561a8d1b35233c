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
//!
//! At limb counts that are multiples of 8 (every RSA size) the product is
//! SOS instead (seed 001, section 3): t = a b and the reduction of t both in
//! bands of eight rows whose running sum stays in registers
//! ([`super::adx_band`]). The squaring's reduction is banded too. Its
//! triangle goes by blocks of eight limbs: each block's own triangle
//! written out (`triangle8`), its products with the later blocks one band;
//! the doubling and the diagonal then run on the two flag chains
//! (`double_add_diagonal`). The rows above, one at a time through memory,
//! stay for other sizes.
//!
//! AMD Zen 5, `kernel_bench`, interleaved runs, before -> after: product
//! 16 limbs 236 -> 196 ns, 32 limbs 790 -> 660 ns, 64 limbs 2940 -> 2430
//! ns; squaring 226 -> 184-189 ns, 673 -> 556 ns, 2347 -> 1962 ns. OpenSSL
//! 3.0.19's `BN_mod_mul_montgomery` on the same CPU (an earlier session):
//! product 205 / 778 ns, squaring 153 / 546 ns at 16 / 32 limbs. The
//! final conditional subtraction in asm ([`reduce_into`], fourteenth
//! session) then took the product to 173-178 / 625-661 ns and the squaring
//! to 160-163 / 516-534 ns (16 / 32 limbs, two runs). Squaring
//! the blocks as bands of their own, instead of `triangle8` plus the
//! diagonal, measured slower: a band's fixed cost is about 20 cycles, a
//! row's 9.

use core::arch::asm;

use super::adx_band::{self, Band, ROWS};

/// Whether the register-blocked bands of [`adx_band`] serve `s` limbs: at
/// multiples of 8 (every RSA size). Elsewhere the rows run one at a time.
/// Public: the size.
fn banded(s: usize) -> bool {
    s.is_multiple_of(ROWS)
}

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
/// `scratch.len() >= s + 3` (the banded SOS form needs 2s + 1, which
/// `mont::scratch_len` gives; with less, CIOS runs). Panics on wrong lengths
/// or without BMI2/ADX.
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(s >= 1 && a.len() == s && b.len() == s && out.len() == s && scratch.len() >= s + 3);
    super::require_bmi2_adx();
    if banded(s) && scratch.len() > 2 * s {
        // SOS with eight rows per band: t = a b, then the banded reduction.
        let t = &mut scratch[..2 * s + 1];
        t.fill(0);
        for (k, bk) in b.chunks_exact(ROWS).enumerate() {
            // a b < R^2: no carry leaves t.
            let c = adx_band::band(t, ROWS * k, a, Band::Product(bk));
            debug_assert_eq!(c, 0);
        }
        redc(out, t, n, n0);
        return;
    }
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
    reduce_into(out, &t[..s], t[s], n);
}

/// `out = a^2 R^-1 mod n`, fully reduced: a dedicated squaring (separated
/// operand scanning, seed 003 section 7.2). The off-diagonal triangle
/// sum_{i<j} a_i a_j 2^(64(i+j)) takes s(s-1)/2 MULX products in rows of
/// shrinking length, is doubled once by a one-bit shift, and gets the
/// diagonal a_i^2 added; then s reduction rows (t += m_i n 2^(64 i)) leave
/// (a^2 + M n) / R < 2n in the upper half. 1.5 s^2 products instead of 2 s^2.
/// Same contract as [`mont_mul`] (`scratch.len() >= 2s + 1`).
pub fn mont_sqr(out: &mut [u64], a: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(s >= 1 && a.len() == s && out.len() == s && scratch.len() > 2 * s);
    super::require_bmi2_adx();
    let t = &mut scratch[..2 * s + 1];
    if banded(s) {
        // The triangle by blocks of eight limbs A_k = a[8k..8k+8]: each block's
        // own triangle written over limbs 16k..16k + 16 (together every limb
        // below 2s, so nothing is cleared first but the top one), then its
        // products with every later block as one band at limb 16k + 8.
        t[2 * s] = 0;
        for (k, ak) in a.chunks_exact(ROWS).enumerate() {
            adx_band::triangle8(&mut t[2 * ROWS * k..], ak);
        }
        for k in 0..s / ROWS - 1 {
            let (lo, hi) = (ROWS * k, ROWS * (k + 1));
            // The triangle is below R^2 / 2: no carry leaves t.
            let c = adx_band::band(t, lo + hi, &a[hi..], Band::Product(&a[lo..hi]));
            debug_assert_eq!(c, 0);
        }
    } else {
        // Triangle: row i adds a_i * a[i+1..] at limb 2i + 1; limb i + s + 1 is
        // still untouched when row i carries into it.
        t.fill(0);
        for i in 0..s - 1 {
            let c = row!(&mut t[2 * i + 1..=i + s], &a[i + 1..], a[i], "0");
            t[i + s + 1] += c;
        }
    }
    double_add_diagonal(&mut t[..2 * s], a);
    redc(out, t, n, n0);
}

/// `t = 2 t + sum a_i^2 2^(128 i)` over 2s limbs (= a^2 < R^2 when t holds
/// the triangle): the doubling on the OF chain (ADOX x, x adds x to itself,
/// the bit it shifts out waiting in OF for the next limb) and the diagonal
/// a_i^2 on the CF chain, one MULX per limb pair. The loop counts with LEA
/// and JRCXZ, which leave both flags alone (DEC would write OF).
fn double_add_diagonal(t: &mut [u64], a: &[u64]) {
    let s = a.len();
    assert!(s >= 1 && t.len() == 2 * s);
    // SAFETY: the loop reads a[0..s] and reads and writes t[0..2s] (asserted);
    // the caller checked BMI2/ADX. No stack use.
    unsafe {
        asm!(
            "xor eax, eax",
            "2:",
            "mov rdx, qword ptr [{a}]",
            "mulx {hi}, {lo}, rdx",
            "mov {x}, qword ptr [{t}]",
            "adox {x}, {x}",
            "adcx {x}, {lo}",
            "mov qword ptr [{t}], {x}",
            "mov {x}, qword ptr [{t} + 8]",
            "adox {x}, {x}",
            "adcx {x}, {hi}",
            "mov qword ptr [{t} + 8], {x}",
            "lea {a}, [{a} + 8]",
            "lea {t}, [{t} + 16]",
            "lea rcx, [rcx - 1]",
            "jrcxz 3f",
            "jmp 2b",
            "3:",
            a = inout(reg) a.as_ptr() => _,
            t = inout(reg) t.as_mut_ptr() => _,
            hi = out(reg) _,
            lo = out(reg) _,
            x = out(reg) _,
            inout("rcx") s => _,
            out("rax") _,
            out("rdx") _,
            options(nostack),
        );
    }
}

/// `out = top 2^(64 s) + x`, reduced once: `x - n` when that value is at
/// least n, else `x` (s = n.len() >= 1, `top` 0 or 1, the value below 2n).
/// The portable twin is `limb::reduce_once` (after a copy); this one is two
/// SBB chains through memory at about a cycle per limb, where the twin's
/// u128 borrows compile to about five dependent instructions per limb (at
/// 32 limbs 60 ns of a 660 ns product, `perf annotate`). Pass 1 only
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
    super::require_bmi2_adx();
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

/// `out = t R^-1 mod n`, fully reduced, for `t < n R` in 2s + 1 limbs (the
/// top one zero; t is overwritten): Montgomery reduction (seed 001, the
/// reduction half of SOS) in s rows t += m_i n 2^(64 i), m_i = t_i n0, on
/// the MULX/ADX rows. (t + M n) / R < 2n, so one conditional subtraction
/// finishes. The same contract as `mont::sos::redc`, its portable twin.
/// Panics on wrong lengths or without BMI2/ADX.
pub fn redc(out: &mut [u64], t: &mut [u64], n: &[u64], n0: u64) {
    let s = n.len();
    assert!(s >= 1 && t.len() == 2 * s + 1 && out.len() == s);
    super::require_bmi2_adx();
    if banded(s) {
        // Eight rows per band (`adx_band`): band k clears t's limbs 8k..8k+8.
        for k in 0..s / ROWS {
            // t + (sum of the bands' m n) < n R + R n = 2 n R < 2^(64 (2s + 1)).
            let c = adx_band::band(t, ROWS * k, n, Band::Reduce(n0));
            debug_assert_eq!(c, 0);
        }
    } else {
        // The carry out of each row's top limb waits in `extra` (0 or 1).
        let mut extra = 0u64;
        for i in 0..s {
            let m = t[i].wrapping_mul(n0);
            let c = row!(&mut t[i..=i + s], n, m, "0");
            let (v, o1) = t[i + s + 1].overflowing_add(c);
            let (v, o2) = v.overflowing_add(extra);
            t[i + s + 1] = v;
            extra = o1 as u64 + o2 as u64;
        }
        debug_assert_eq!(extra, 0);
    }
    // t < n R: (t + M n) / R < 2n, and limb 2s holds its top bit.
    reduce_into(out, &t[s..2 * s], t[2 * s], n);
}
