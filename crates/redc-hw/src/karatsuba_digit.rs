//! Karatsuba at the digit level (Shand and Vuillemin, "Fast Implementations
//! of RSA Cryptography", section 7.1, and the Karatsuba row of section 9's
//! table of speed-ups, 1.22 in the software column).
//!
//! The paper's multiply primitive on the MIPS R3000A is a 64 x 64 -> 128
//! bit product built from 32 x 32 -> 64 bit integer multiplies: three of
//! them with Karatsuba instead of the schoolbook's four. "The multiply
//! primitive on a MIPS takes 16 cycles, and all other operations are
//! overlapped"; the Karatsuba product takes 51 cycles, "all but three
//! cycles of the Karatsuba overhead" hidden in the multiply unit's busy
//! cycles. With it, "the conjunction of radix 2^64 and Karatsuba
//! multiplication brings a speed-up of 1.22" over the word-size radix
//! 2^32 that the argument after the paper's equation (6) recommends.
//!
//! # What is computed and counted
//!
//! * [`schoolbook`] and [`karatsuba`] form the exact 128-bit product of two
//!   64-bit digits from 32-bit halves, bit for bit (tested against `u128`
//!   multiplication), and count, in [`Ops`]: `muls`, the 32 x 32 -> 64
//!   multiplies; `adds`, the 32-bit additions and subtractions, each with a
//!   carry (borrow) in and out, as one add-with-carry instruction does, so
//!   that a carry moved into the next word is an add; `logic`, the 32-bit
//!   masks (AND) of Karatsuba's 33-bit middle term. Schoolbook: 4 muls,
//!   6 adds. Karatsuba, in the paper's additive form
//!   `(a1 + a0)(b1 + b0) - a1 b1 - a0 b0`: 3 muls, 14 adds, 3 logic. The
//!   sums `a1 + a0` and `b1 + b0` have 33 bits; the multiply takes their
//!   low words `sa`, `sb`, and the carries `ca`, `cb` add
//!   `ca sb 2^32 + cb sa 2^32 + ca cb 2^64` (masked adds, no branch). The
//!   code is straight-line, so the counts do not depend on the operands
//!   (the tests check this on random operands).
//! * [`montmul`] runs the paper's Algorithm 6 (the Hensel, or Montgomery,
//!   product, one digit of `B` per step) in radix `2^32` or `2^64` on
//!   operands of `k` bits, with every digit product going through one of
//!   the forms above (radix 2^32: one native 32 x 32 multiply), and checks
//!   its result. It counts the digit products as the paper's equation (6)
//!   counts `M(p)`: per step, `A b_t` (n products), `q_t M` (n products)
//!   and the quotient digit `q_t = mu (a_0 b_t + p_0) mod beta` (one
//!   product; its `a_0 b_t` is the first of `A b_t`), so `n (2n + 1)`
//!   digit products for `n = k/p` digits: 528 at `k = 512, p = 32`, 136 at
//!   `k = 512, p = 64`. Equation (6) counts the multiplies only, so the
//!   additions that accumulate the digit products are not counted here.
//!
//! # Cycle model
//!
//! The paper's R3000A figures ([`MUL_CYCLES`], [`KARATSUBA_EXPOSED_CYCLES`]):
//! a 32 x 32 multiply occupies the multiply unit for 16 cycles; every other
//! operation is issued while it is busy, except 3 cycles of the Karatsuba
//! overhead. So a digit product costs `16 muls + exposed` cycles: 16 at
//! radix 2^32 (one native multiply), 64 for the schoolbook 64 x 64 and 51
//! for Karatsuba, the paper's figure. The 3 exposed cycles are the paper's,
//! not derived here; [`DigitCost::fits_in_idle_cycles`] checks only that the
//! counted adds and masks fit in the multiply unit's idle cycles, as the
//! overlap assumes. [`DigitCost::serial_cycles`] is the other extreme, no
//! overlap at all (each add or mask one cycle after the multiplies), under
//! which Karatsuba saves little: 70 against 65 cycles.
//!
//! At 512-bit keys: radix 2^32, 528 multiplies and 8448 cycles; radix 2^64
//! schoolbook, 544 multiplies and 8704 cycles (the larger radix alone loses,
//! the second term of equation (6)); radix 2^64 with Karatsuba, 408
//! multiplies and 6936 cycles. The paper's comparison, radix 2^32 against
//! radix 2^64 with Karatsuba: 8448 / 6936 = 1.218 (paper: 1.22). At 1024-bit
//! keys (the heading of section 9's table): 33280 / 26928 = 1.236.

use num_bigint::BigUint;

/// Cycles of one 32 x 32 -> 64 multiply on the paper's R3000A (section 7.1).
pub const MUL_CYCLES: u64 = 16;

/// Cycles of the Karatsuba overhead that the paper could not hide in the
/// multiply unit's busy cycles (section 7.1: 51 = 3 x 16 + 3).
pub const KARATSUBA_EXPOSED_CYCLES: u64 = 3;

/// Operation counts of one digit product.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ops {
    /// 32 x 32 -> 64 multiplies
    pub muls: u64,
    /// 32-bit additions and subtractions with carry (borrow) in and out
    pub adds: u64,
    /// 32-bit masks (AND) of the 33-bit middle term
    pub logic: u64,
}

impl Ops {
    fn mul(&mut self, a: u32, b: u32) -> (u32, u32) {
        self.muls += 1;
        let p = u64::from(a) * u64::from(b);
        (p as u32, (p >> 32) as u32)
    }

    /// `a + b + c_in`, returning the word and the carry out.
    fn adc(&mut self, a: u32, b: u32, c_in: u32) -> (u32, u32) {
        self.adds += 1;
        let s = u64::from(a) + u64::from(b) + u64::from(c_in);
        (s as u32, (s >> 32) as u32)
    }

    /// `a - b - b_in`, returning the word and the borrow out.
    fn sbb(&mut self, a: u32, b: u32, b_in: u32) -> (u32, u32) {
        self.adds += 1;
        let d = u64::from(a)
            .wrapping_sub(u64::from(b))
            .wrapping_sub(u64::from(b_in));
        (d as u32, ((d >> 32) & 1) as u32)
    }

    /// `x` if `bit` is 1, else 0: an AND with the mask `0 - bit`.
    fn select(&mut self, bit: u32, x: u32) -> u32 {
        self.logic += 1;
        x & 0u32.wrapping_sub(bit)
    }

    fn and(&mut self, a: u32, b: u32) -> u32 {
        self.logic += 1;
        a & b
    }

    fn plus(self, o: Ops) -> Ops {
        Ops {
            muls: self.muls + o.muls,
            adds: self.adds + o.adds,
            logic: self.logic + o.logic,
        }
    }
}

fn halves(x: u64) -> (u32, u32) {
    (x as u32, (x >> 32) as u32)
}

fn join(w: [u32; 4]) -> u128 {
    w.iter().rev().fold(0u128, |acc, &d| (acc << 32) | u128::from(d))
}

/// The 64 x 64 -> 128 product from four 32 x 32 -> 64 multiplies.
pub fn schoolbook(a: u64, b: u64) -> (u128, Ops) {
    let mut o = Ops::default();
    let ((a0, a1), (b0, b1)) = (halves(a), halves(b));
    let (l00, h00) = o.mul(a0, b0);
    let (l01, h01) = o.mul(a0, b1);
    let (l10, h10) = o.mul(a1, b0);
    let (l11, h11) = o.mul(a1, b1);
    // [l00, h00, l11, h11] + a0 b1 2^32 + a1 b0 2^32, word by word.
    let (r1, c) = o.adc(h00, l01, 0);
    let (r2, c) = o.adc(l11, h01, c);
    let (r3, _) = o.adc(h11, 0, c);
    let (r1, c) = o.adc(r1, l10, 0);
    let (r2, c) = o.adc(r2, h10, c);
    let (r3, _) = o.adc(r3, 0, c);
    (join([l00, r1, r2, r3]), o)
}

/// The 64 x 64 -> 128 product from three 32 x 32 -> 64 multiplies:
/// `a b = z2 2^64 + ((a1 + a0)(b1 + b0) - z2 - z0) 2^32 + z0`, with
/// `z0 = a0 b0`, `z2 = a1 b1`; the 33-bit sums handled exactly.
pub fn karatsuba(a: u64, b: u64) -> (u128, Ops) {
    let mut o = Ops::default();
    let ((a0, a1), (b0, b1)) = (halves(a), halves(b));
    let (sa, ca) = o.adc(a0, a1, 0);
    let (sb, cb) = o.adc(b0, b1, 0);
    let (l0, h0) = o.mul(a0, b0);
    let (l2, h2) = o.mul(a1, b1);
    let (lm, hm) = o.mul(sa, sb);
    // (ca 2^32 + sa)(cb 2^32 + sb) = sa sb + (ca sb + cb sa) 2^32 + ca cb 2^64,
    // below 2^66: three words [lm, m1, m2], m2 <= 3.
    let x = o.select(ca, sb);
    let y = o.select(cb, sa);
    let (m1, c) = o.adc(hm, x, 0);
    let (m1, c2) = o.adc(m1, y, 0);
    let cc = o.and(ca, cb);
    let (m2, _) = o.adc(cc, c, c2);
    // Middle term a0 b1 + a1 b0 = m - z0 - z2, below 2^65: words [d0, d1, d2].
    let (d0, w) = o.sbb(lm, l0, 0);
    let (d1, w) = o.sbb(m1, h0, w);
    let (d2, _) = o.sbb(m2, 0, w);
    let (d0, w) = o.sbb(d0, l2, 0);
    let (d1, w) = o.sbb(d1, h2, w);
    let (d2, _) = o.sbb(d2, 0, w);
    // [l0, h0, l2, h2] + [d0, d1, d2] 2^32.
    let (r1, c) = o.adc(h0, d0, 0);
    let (r2, c) = o.adc(l2, d1, c);
    let (r3, _) = o.adc(h2, d2, c);
    (join([l0, r1, r2, r3]), o)
}

/// How a digit product is formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DigitProduct {
    /// radix 2^32: one native 32 x 32 -> 64 multiply
    Native32,
    /// radix 2^64: [`schoolbook`], four multiplies
    Schoolbook64,
    /// radix 2^64: [`karatsuba`], three multiplies
    Karatsuba64,
}

impl DigitProduct {
    /// Digit size p in bits.
    pub fn bits(self) -> u32 {
        match self {
            DigitProduct::Native32 => 32,
            _ => 64,
        }
    }

    /// Multiplies `a b` for digits below `2^p`, counting.
    pub fn product(self, a: u64, b: u64) -> (u128, Ops) {
        match self {
            DigitProduct::Native32 => {
                let mut o = Ops::default();
                let (lo, hi) = o.mul(a as u32, b as u32);
                (u128::from(lo) | (u128::from(hi) << 32), o)
            }
            DigitProduct::Schoolbook64 => schoolbook(a, b),
            DigitProduct::Karatsuba64 => karatsuba(a, b),
        }
    }

    /// Cycles the paper's R3000A overlaps but does not hide.
    pub fn exposed_cycles(self) -> u64 {
        match self {
            DigitProduct::Karatsuba64 => KARATSUBA_EXPOSED_CYCLES,
            _ => 0,
        }
    }

    /// The counts and cycles of one digit product (on fixed operands; the
    /// counts are the same for all operands).
    pub fn cost(self) -> DigitCost {
        let x = if self.bits() == 32 { 0xffff_ffff } else { u64::MAX };
        DigitCost {
            ops: self.product(x, x).1,
            exposed: self.exposed_cycles(),
        }
    }
}

/// The cost of one digit product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DigitCost {
    /// counted operations
    pub ops: Ops,
    /// cycles of the other operations not overlapped with the multiplies
    pub exposed: u64,
}

impl DigitCost {
    /// The paper's cost model: 16 cycles per multiply, the other operations
    /// overlapped except `exposed`.
    pub fn cycles(&self) -> u64 {
        MUL_CYCLES * self.ops.muls + self.exposed
    }

    /// No overlap: 16 cycles per multiply and one per add or mask.
    pub fn serial_cycles(&self) -> u64 {
        MUL_CYCLES * self.ops.muls + self.ops.adds + self.ops.logic
    }

    /// Whether the adds and masks that the paper overlaps fit in the
    /// multiply unit's idle cycles (one issue per cycle, 15 idle cycles per
    /// multiply).
    pub fn fits_in_idle_cycles(&self) -> bool {
        let hidden = (self.ops.adds + self.ops.logic).saturating_sub(self.exposed);
        hidden <= (MUL_CYCLES - 1) * self.ops.muls
    }
}

/// What [`montmul`] counted for one modular product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MontCount {
    /// the result, `A B beta^-n mod M`, fully reduced
    pub result: BigUint,
    /// digits per operand, `n = ceil(k / p)`
    pub digits: u64,
    /// digit products formed (equation (6)'s `M(p)` count)
    pub digit_products: u64,
    /// the operations of all the digit products
    pub ops: Ops,
    /// cycles under the paper's cost model (multiplies only, as eq. (6))
    pub cycles: u64,
}

fn to_digits(x: &BigUint, p: u32, n: usize) -> Vec<u64> {
    let mut d: Vec<u64> = if p == 64 {
        x.to_u64_digits()
    } else {
        x.to_u32_digits().into_iter().map(u64::from).collect()
    };
    d.resize(n, 0);
    d
}

fn from_digits(d: &[u64], p: u32) -> BigUint {
    d.iter()
        .rev()
        .fold(BigUint::default(), |acc, &x| (acc << p) + BigUint::from(x))
}

/// `-m0^-1 mod 2^p` for odd `m0`.
fn neg_inv(m0: u64, p: u32) -> u64 {
    let mut inv = 1u64;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
    }
    let r = inv.wrapping_neg();
    if p == 64 { r } else { r & 0xffff_ffff }
}

/// Adds the 2p-bit product `x` into `acc` at digit `i`, propagating the
/// carry (radix 2^p digits held in u64).
fn add_at(acc: &mut [u64], i: usize, x: u128, p: u32) {
    let mask = if p == 64 {
        u128::from(u64::MAX)
    } else {
        0xffff_ffff
    };
    let mut carry = x;
    let mut j = i;
    while carry != 0 && j < acc.len() {
        let s = u128::from(acc[j]) + (carry & mask);
        acc[j] = (s & mask) as u64;
        carry = (carry >> p) + (s >> p);
        j += 1;
    }
}

/// One Montgomery product `A B beta^-n mod M` by the paper's Algorithm 6 in
/// radix `beta = 2^p` (`p` of `form`), every digit product formed by
/// `form` and counted. `M` odd; `A, B < M`. `None` if the inputs are not
/// valid, or (a broken invariant of the model) the result is wrong.
pub fn montmul(form: DigitProduct, m: &BigUint, a: &BigUint, b: &BigUint) -> Option<MontCount> {
    if crate::check_modulus(m).is_err() || a >= m || b >= m {
        return None;
    }
    let p = form.bits();
    let n = m.bits().div_ceil(u64::from(p)) as usize;
    let (ad, bd, md) = (to_digits(a, p, n), to_digits(b, p, n), to_digits(m, p, n));
    let mu = neg_inv(md[0], p);
    let low = |x: u128| -> u64 {
        if p == 64 {
            x as u64
        } else {
            (x & 0xffff_ffff) as u64
        }
    };
    let mut ops = Ops::default();
    let mut products = 0u64;
    let mut prod = |x: u64, y: u64, ops: &mut Ops| -> u128 {
        let (r, o) = form.product(x, y);
        *ops = ops.plus(o);
        products += 1;
        r
    };
    // P[t] in n + 2 digits (P < A + M < 2 beta^n, plus room for the sum).
    let mut pt = vec![0u64; n + 2];
    for &bt in &bd {
        let mut acc = pt.clone();
        let a0bt = prod(ad[0], bt, &mut ops);
        // q_t = mu (a_0 b_t + p_0(t)) mod beta: one more digit product.
        let r0 = low(u128::from(low(a0bt)) + u128::from(pt[0]));
        let q = low(prod(mu, r0, &mut ops));
        add_at(&mut acc, 0, a0bt, p);
        for (i, &ai) in ad.iter().enumerate().skip(1) {
            let x = prod(ai, bt, &mut ops);
            add_at(&mut acc, i, x, p);
        }
        for (i, &mi) in md.iter().enumerate() {
            let x = prod(q, mi, &mut ops);
            add_at(&mut acc, i, x, p);
        }
        if acc[0] != 0 {
            return None; // q_t did not cancel the low digit
        }
        pt = acc[1..].to_vec();
        pt.push(0);
    }
    let mut result = from_digits(&pt, p);
    if &result >= m {
        result -= m;
    }
    // Check: result beta^n = A B (mod M) and result < M.
    let r_bits = p as usize * n;
    if &result >= m || ((&result << r_bits) % m) != ((a * b) % m) {
        return None;
    }
    let cycles = products * form.cost().cycles();
    Some(MontCount {
        result,
        digits: n as u64,
        digit_products: products,
        ops,
        cycles,
    })
}

/// The figures of section 9's Karatsuba row at `k`-bit keys, from
/// [`montmul`] on a random `k`-bit modulus and operands.
#[derive(Clone, Debug, PartialEq)]
pub struct Section9 {
    /// key size in bits
    pub k: u64,
    /// radix 2^32, native multiplies
    pub word32: MontCount,
    /// radix 2^64, schoolbook digit products
    pub school64: MontCount,
    /// radix 2^64, Karatsuba digit products
    pub karat64: MontCount,
}

impl Section9 {
    /// Runs the three forms on the same random operands.
    pub fn run<R: rand::Rng>(k: u64, rng: &mut R) -> Option<Section9> {
        use num_bigint::RandBigInt;
        let m = crate::operands::random_modulus(k, rng);
        let a = rng.gen_biguint_below(&m);
        let b = rng.gen_biguint_below(&m);
        Some(Section9 {
            k,
            word32: montmul(DigitProduct::Native32, &m, &a, &b)?,
            school64: montmul(DigitProduct::Schoolbook64, &m, &a, &b)?,
            karat64: montmul(DigitProduct::Karatsuba64, &m, &a, &b)?,
        })
    }

    /// The paper's speed-up: radix 2^32 against radix 2^64 with Karatsuba,
    /// in cycles.
    pub fn speedup(&self) -> f64 {
        self.word32.cycles as f64 / self.karat64.cycles as f64
    }

    /// Karatsuba alone at radix 2^64: schoolbook cycles over Karatsuba's.
    pub fn digit_speedup(&self) -> f64 {
        self.school64.cycles as f64 / self.karat64.cycles as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn edges() -> Vec<u64> {
        let mut v = vec![0, 1, 2, 3, u64::MAX, u64::MAX - 1];
        for s in [31u32, 32, 33, 63] {
            v.push(1 << s);
            v.push((1 << s) - 1);
            v.push((1u64 << s).wrapping_add(1));
        }
        // halves that make a0 + a1 carry (33-bit sums) or not
        v.extend([
            0xffff_ffff_0000_0000,
            0x0000_0000_ffff_ffff,
            0x8000_0000_8000_0000,
            0x7fff_ffff_8000_0001,
            0xffff_fffe_0000_0002,
        ]);
        v
    }

    #[test]
    fn exact_on_edge_values() {
        let e = edges();
        for &a in &e {
            for &b in &e {
                let want = u128::from(a) * u128::from(b);
                assert_eq!(schoolbook(a, b).0, want, "{a:#x} {b:#x}");
                assert_eq!(karatsuba(a, b).0, want, "{a:#x} {b:#x}");
            }
        }
    }

    #[test]
    fn exact_and_operand_independent_counts_on_random_values() {
        let mut rng = StdRng::seed_from_u64(0x7a1);
        let s0 = schoolbook(0, 0).1;
        let k0 = karatsuba(0, 0).1;
        for i in 0..200_000u32 {
            // every other pair with halves forced high, so that the 33-bit
            // sums carry on one side, both or neither
            let (mut a, mut b): (u64, u64) = (rng.r#gen(), rng.r#gen());
            if i % 2 == 1 {
                a |= 0x8000_0000_8000_0000;
                if i % 4 == 1 {
                    b |= 0x8000_0000_8000_0000;
                }
            }
            let want = u128::from(a) * u128::from(b);
            let (s, so) = schoolbook(a, b);
            let (k, ko) = karatsuba(a, b);
            assert_eq!(s, want, "{a:#x} {b:#x}");
            assert_eq!(k, want, "{a:#x} {b:#x}");
            assert_eq!((so, ko), (s0, k0));
        }
    }

    #[test]
    fn counts_per_digit_product() {
        let s = DigitProduct::Schoolbook64.cost();
        let k = DigitProduct::Karatsuba64.cost();
        let w = DigitProduct::Native32.cost();
        assert_eq!((w.ops.muls, w.ops.adds, w.ops.logic), (1, 0, 0));
        assert_eq!((s.ops.muls, s.ops.adds, s.ops.logic), (4, 6, 0));
        assert_eq!((k.ops.muls, k.ops.adds, k.ops.logic), (3, 14, 3));
        // The paper's cycles: 16 per native multiply, 51 for Karatsuba.
        assert_eq!((w.cycles(), s.cycles(), k.cycles()), (16, 64, 51));
        assert_eq!((s.serial_cycles(), k.serial_cycles()), (70, 65));
        assert!(s.fits_in_idle_cycles() && k.fits_in_idle_cycles());
    }

    #[test]
    fn montmul_counts_equation_6_and_is_exact() {
        let mut rng = StdRng::seed_from_u64(0x7a2);
        for k in [64u64, 65, 96, 200, 512, 1024] {
            let f = Section9::run(k, &mut rng).unwrap();
            for (c, p) in [(&f.word32, 32), (&f.school64, 64), (&f.karat64, 64)] {
                let n = k.div_ceil(p);
                assert_eq!(c.digits, n);
                assert_eq!(c.digit_products, 2 * n * n + n, "k = {k}, p = {p}");
            }
            // (radix 2^32 has another R = beta^n when 32 n32 != 64 n64;
            // montmul checks each result against A B mod M.)
            assert_eq!(f.school64.result, f.karat64.result);
            assert_eq!(f.school64.ops.muls, 4 * f.karat64.digit_products);
            assert_eq!(f.karat64.ops.muls, 3 * f.karat64.digit_products);
        }
        // Small moduli, every operand pair, against BigUint.
        for m in [3u32, 5, 7, 0xffff_fff1, 0xffff_ffff] {
            let m = BigUint::from(m);
            for a in [0u32, 1, 2] {
                let a = BigUint::from(a);
                let b = &m - 1u32;
                for form in [
                    DigitProduct::Native32,
                    DigitProduct::Schoolbook64,
                    DigitProduct::Karatsuba64,
                ] {
                    assert!(montmul(form, &m, &a, &b).is_some());
                }
            }
        }
        assert!(
            montmul(
                DigitProduct::Karatsuba64,
                &BigUint::from(8u32),
                &0u32.into(),
                &0u32.into()
            )
            .is_none()
        );
    }

    #[test]
    fn the_paper_speedup_at_512_and_1024_bits() {
        let mut rng = StdRng::seed_from_u64(0x7a3);
        let f = Section9::run(512, &mut rng).unwrap();
        assert_eq!(
            (f.word32.ops.muls, f.school64.ops.muls, f.karat64.ops.muls),
            (528, 544, 408)
        );
        assert_eq!(
            (f.word32.cycles, f.school64.cycles, f.karat64.cycles),
            (8448, 8704, 6936)
        );
        assert!((f.speedup() - 1.22).abs() < 0.005, "{}", f.speedup());
        let g = Section9::run(1024, &mut rng).unwrap();
        assert_eq!((g.word32.cycles, g.karat64.cycles), (33280, 26928));
    }
}
