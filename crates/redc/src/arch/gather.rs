//! The constant-time table lookup of fixed-window exponentiation: one
//! entry of a table of equal-sized entries, chosen by a secret digit,
//! read by touching every entry and keeping the chosen one through masks
//! (no branch and no address depends on the digit).

use crate::ct::Mask;

/// `out = table[digit]`, reading every entry (constant time in `digit`).
///
/// ```
/// use redc::arch::gather::gather;
/// let table = [10, 11, 20, 21, 30, 31]; // three entries of s = 2 limbs
/// let mut out = [0u64; 2];
/// gather(&mut out, &table, 2, 2);
/// assert_eq!(out, [30, 31]);
/// ```
#[inline(always)]
pub fn gather(out: &mut [u64], table: &[u64], digit: u64, s: usize) {
    assert!(s >= 1 && out.len() == s && table.len().is_multiple_of(s));
    // Column blocks of 16, 8 or 1 limbs, each accumulated in registers over
    // all entries and stored once: the whole table is still read, but `out`
    // is not reloaded and stored per entry (at 32 limbs and 32 entries that
    // round trip was most of the gather's time).
    let mut col = 0;
    while col < s {
        let rest = s - col;
        if rest >= 16 {
            gather_block::<16>(&mut out[col..col + 16], table, digit, s, col);
            col += 16;
        } else if rest >= 8 {
            gather_block::<8>(&mut out[col..col + 8], table, digit, s, col);
            col += 8;
        } else {
            gather_block::<1>(&mut out[col..col + 1], table, digit, s, col);
            col += 1;
        }
    }
}

/// Limbs `col..col + W` of [`gather`]'s result. W = 16 limbs are eight
/// 128-bit or four 256-bit registers of accumulator, which leaves registers
/// for the loads; the fixed width lets the compiler keep them there.
#[inline(always)]
fn gather_block<const W: usize>(out: &mut [u64], table: &[u64], digit: u64, s: usize, col: usize) {
    let mut acc = [0u64; W];
    for (i, entry) in table.chunks_exact(s).enumerate() {
        let hit = Mask::is_zero(i as u64 ^ digit).word();
        let e: &[u64; W] = entry[col..col + W].try_into().expect("W limbs");
        for (a, &x) in acc.iter_mut().zip(e) {
            *a |= x & hit;
        }
    }
    out.copy_from_slice(&acc);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_reads_the_right_entry() {
        let table: Vec<u64> = (0..32 * 3).collect();
        let mut out = [0u64; 3];
        for d in 0..32u64 {
            gather(&mut out, &table, d, 3);
            assert_eq!(out, [3 * d, 3 * d + 1, 3 * d + 2]);
        }
        // Whole column blocks, a partial one, and both: every limb of the
        // chosen entry and nothing of the others (entries differ in every limb).
        for s in [1usize, 15, 16, 17, 32, 37, 64] {
            for entries in [1usize, 2, 32, 64] {
                let table: Vec<u64> = (0..entries * s)
                    .map(|v| (v as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
                    .collect();
                let mut out = vec![0u64; s];
                for d in 0..entries {
                    gather(&mut out, &table, d as u64, s);
                    assert_eq!(
                        out,
                        &table[d * s..(d + 1) * s],
                        "s = {s}, entries = {entries}, digit = {d}"
                    );
                }
            }
        }
    }
}
