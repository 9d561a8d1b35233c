//! Carry-save building blocks of McIvor, McLoone and McCanny
//! (McIvor, McLoone and McCanny, "Modified Montgomery Modular Multiplication and RSA Exponentiation Techniques", sections 2.2 and 2.3).
//!
//! * [`BitVec`] is a fixed-width register: a vector of 64-bit words, least
//!   significant word first.  Its width never changes after creation; the
//!   hardware registers it models have a fixed number of flip-flops.
//! * [`CsPair`] is a value in carry-save representation (CSR): two bit
//!   vectors whose integer sum is the value (the paper's `S1, S2`, `A1, A2`,
//!   `B1, B2`, `D1, D2`).
//! * [`step_5to2`] is one clock of Alg. 2's three levels of carry-save logic
//!   (five-to-two CSA, Fig. 1) followed by the wired `div 2`.
//! * [`step_4to2`] is one clock of Alg. 3's two levels (four-to-two CSA,
//!   Fig. 2); the 4:1 multiplexer that chooses its last two inputs is the
//!   caller's `y, z` selection.
//! * [`Brfa`] is the barrel-register full adder of section 2.3 (Fig. 3): one
//!   full adder and a carry flip-flop that produce the bits of `A1 + A2` one
//!   per clock, least significant first.  The barrel shift is modelled by a
//!   bit pointer that advances once per clock, which reads exactly the bit the
//!   rotated register would present at its low end.
//! * [`final_add_reduce`] is the final addition `M = M1 + M2` of Alg. 5 on the
//!   BRFA, with a serial subtractor running beside it (a second full adder and
//!   a borrow flip-flop) so that the output is fully reduced without extra
//!   cycles; see docs/HARDWARE.md for why the reduction is needed at all.
//!
//! Invariant of every CSA step: the integer sum of the two output vectors
//! equals the sum of all inputs, divided by two; each output vector is
//! therefore bounded by that sum, so a register of `w` bits never overflows
//! as long as the sum stays below `2^w` (checked by `assert!`, in release builds too: an overflow is a broken invariant of the model, never a wrong result).

use num_bigint::BigUint;

/// A fixed-width register of bits, least significant word first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitVec {
    words: Vec<u64>,
}

impl BitVec {
    /// An all-zero register of `words` 64-bit words.
    pub fn zero(words: usize) -> Self {
        BitVec {
            words: vec![0; words.max(1)],
        }
    }

    /// Loads `x` into a register of `words` words (`x` must fit).
    pub fn from_biguint(x: &BigUint, words: usize) -> Self {
        let mut v = Self::zero(words);
        for (i, d) in x.to_u64_digits().into_iter().enumerate() {
            assert!(i < v.words.len(), "value does not fit the register");
            if i < v.words.len() {
                v.words[i] = d;
            }
        }
        v
    }

    /// The integer the register holds.
    pub fn to_biguint(&self) -> BigUint {
        let bytes: Vec<u8> = self.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        BigUint::from_bytes_le(&bytes)
    }

    /// Bit `i` (false beyond the register's width).
    pub fn bit(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }

    /// The register's words, least significant first.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Number of 64-bit words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the register has no words (never true: registers have at
    /// least one word).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether every bit is zero.
    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}

/// A value in carry-save representation: `s + c`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsPair {
    /// first vector (the paper's `X1`)
    pub s: BitVec,
    /// second vector (the paper's `X2`)
    pub c: BitVec,
}

impl CsPair {
    /// `x` in CSR as `(x, 0)`, the form in which Alg. 5 feeds binary inputs.
    pub fn from_binary(x: &BigUint, words: usize) -> Self {
        CsPair {
            s: BitVec::from_biguint(x, words),
            c: BitVec::zero(words),
        }
    }

    /// All-zero pair.
    pub fn zero(words: usize) -> Self {
        CsPair {
            s: BitVec::zero(words),
            c: BitVec::zero(words),
        }
    }

    /// The integer value `s + c` (for tests and reports; the hardware never
    /// forms it except in the final addition).
    pub fn value(&self) -> BigUint {
        self.s.to_biguint() + self.c.to_biguint()
    }
}

#[inline(always)]
fn maj(a: u64, b: u64, c: u64) -> u64 {
    (a & b) | (a & c) | (b & c)
}

/// One clock of the five-to-two CSA (Alg. 2, eq. 5):
/// `(S1, S2) <- CSR(S1 + S2 + X3 + X4 + X5) div 2`, where
/// `X3 = A_i·B1`, `X4 = A_i·B2`, `X5 = q_i·n`.
///
/// Three levels of full adders; each level's carry vector is the majority
/// shifted left one place.  The sum of the three-level output is even (the
/// caller chose `q_i` for that), and the low bit of the carry vector is
/// always 0, so `div 2` is a wired one-place right shift of both vectors.
pub fn step_5to2(s: &mut CsPair, ai: bool, b: &CsPair, q: bool, n: &BitVec) {
    let len = s.s.words.len();
    let mb = if ai { u64::MAX } else { 0 };
    let mq = if q { u64::MAX } else { 0 };
    let (mut c1, mut c2, mut c3) = (0u64, 0u64, 0u64);
    let (mut prev_t, mut prev_u) = (0u64, 0u64);
    let (s1, s2) = (&mut s.s.words, &mut s.c.words);
    for w in 0..len {
        let x3 = b.s.words[w] & mb;
        let x4 = b.c.words[w] & mb;
        let x5 = n.words[w] & mq;
        let (a0, b0) = (s1[w], s2[w]);
        let t1 = a0 ^ b0 ^ x3;
        let m1 = maj(a0, b0, x3);
        let u1 = (m1 << 1) | c1;
        c1 = m1 >> 63;
        let t2 = t1 ^ u1 ^ x4;
        let m2 = maj(t1, u1, x4);
        let u2 = (m2 << 1) | c2;
        c2 = m2 >> 63;
        let t3 = t2 ^ u2 ^ x5;
        let m3 = maj(t2, u2, x5);
        let u3 = (m3 << 1) | c3;
        c3 = m3 >> 63;
        if w == 0 {
            assert_eq!(t3 & 1, 0, "five-to-two sum must be even");
        } else {
            s1[w - 1] = (prev_t >> 1) | (t3 << 63);
            s2[w - 1] = (prev_u >> 1) | (u3 << 63);
        }
        prev_t = t3;
        prev_u = u3;
    }
    s1[len - 1] = prev_t >> 1;
    s2[len - 1] = prev_u >> 1;
    assert_eq!(c1 | c2 | c3, 0, "carry-save register overflow");
}

/// One clock of the four-to-two CSA (Alg. 3, eq. 6):
/// `(S1, S2) <- CSR(S1 + S2 + y + z) div 2`, two levels of full adders.
pub fn step_4to2(s: &mut CsPair, y: &BitVec, z: &BitVec) {
    let len = s.s.words.len();
    let (mut c1, mut c2) = (0u64, 0u64);
    let (mut prev_t, mut prev_u) = (0u64, 0u64);
    let (s1, s2) = (&mut s.s.words, &mut s.c.words);
    for w in 0..len {
        let (a0, b0, x3, x4) = (s1[w], s2[w], y.words[w], z.words[w]);
        let t1 = a0 ^ b0 ^ x3;
        let m1 = maj(a0, b0, x3);
        let u1 = (m1 << 1) | c1;
        c1 = m1 >> 63;
        let t2 = t1 ^ u1 ^ x4;
        let m2 = maj(t1, u1, x4);
        let u2 = (m2 << 1) | c2;
        c2 = m2 >> 63;
        if w == 0 {
            assert_eq!(t2 & 1, 0, "four-to-two sum must be even");
        } else {
            s1[w - 1] = (prev_t >> 1) | (t2 << 63);
            s2[w - 1] = (prev_u >> 1) | (u2 << 63);
        }
        prev_t = t2;
        prev_u = u2;
    }
    s1[len - 1] = prev_t >> 1;
    s2[len - 1] = prev_u >> 1;
    assert_eq!(c1 | c2, 0, "carry-save register overflow");
}

/// `CSR(x + y + z)` without the division: one level of full adders, used by
/// Alg. 3 to form `D1, D2 = CSR(B1 + B2 + n + 0)` in one clock.
pub fn csa3(x: &BitVec, y: &BitVec, z: &BitVec) -> CsPair {
    let len = x.words.len();
    let mut s = BitVec::zero(len);
    let mut c = BitVec::zero(len);
    let mut cin = 0u64;
    for w in 0..len {
        let (a, b, d) = (x.words[w], y.words[w], z.words[w]);
        s.words[w] = a ^ b ^ d;
        let m = maj(a, b, d);
        c.words[w] = (m << 1) | cin;
        cin = m >> 63;
    }
    assert_eq!(cin, 0, "carry-save register overflow");
    CsPair { s, c }
}

/// The barrel-register full adder (section 2.3): presents the bits of
/// `A1 + A2`, least significant first, one per clock.
///
/// Register invariant: after `i` clocks, `bits_so_far + 2^i · (carry + (A1 +
/// A2) >> i) = A1 + A2`, i.e. the carry flip-flop holds exactly the carry
/// into bit `i`.
#[derive(Clone, Debug)]
pub struct Brfa {
    a: CsPair,
    pos: usize,
    carry: bool,
}

impl Brfa {
    /// Loads `A1, A2` into the barrel registers and clears the carry.
    pub fn load(a: CsPair) -> Self {
        Brfa {
            a,
            pos: 0,
            carry: false,
        }
    }

    /// One clock: the next bit `A_i` of `A1 + A2`.
    pub fn next_bit(&mut self) -> bool {
        let x = self.a.s.bit(self.pos);
        let y = self.a.c.bit(self.pos);
        let c = self.carry;
        self.pos += 1;
        self.carry = (x & y) | (x & c) | (y & c);
        x ^ y ^ c
    }
}

/// Final addition of a carry-save result on the BRFA, fully reduced.
///
/// Runs the BRFA over `width` bit positions (one clock each, counted in the
/// returned cycle count) and, in the same clocks, a serial subtractor that
/// forms `(M1 + M2) - n` bit by bit.  After the last bit, the borrow
/// flip-flop selects `M - n` when `M >= n`, else `M`.  The caller must
/// guarantee `M1 + M2 < 2n` and `M1 + M2 < 2^width`.
pub fn final_add_reduce(m: &CsPair, n: &BitVec, width: usize) -> (BigUint, u64) {
    let mut brfa = Brfa::load(m.clone());
    let mut sum = BitVec::zero(width.div_ceil(64));
    let mut diff = BitVec::zero(width.div_ceil(64));
    let mut borrow = false;
    let mut cycles = 0u64;
    for i in 0..width {
        cycles += 1; // one clock of the BRFA and the serial subtractor
        let x = brfa.next_bit();
        let y = n.bit(i);
        let d = x ^ y ^ borrow;
        borrow = (!x & y) | (!(x ^ y) & borrow);
        if x {
            sum.words[i / 64] |= 1 << (i % 64);
        }
        if d {
            diff.words[i / 64] |= 1 << (i % 64);
        }
    }
    assert!(!brfa.carry, "final addition overflowed its width");
    let out = if borrow { sum } else { diff };
    (out.to_biguint(), cycles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn rnd(rng: &mut StdRng, words: usize, bits: usize) -> BitVec {
        let mut v = BitVec::zero(words);
        for i in 0..bits {
            if rng.r#gen::<bool>() {
                v.words[i / 64] |= 1 << (i % 64);
            }
        }
        v
    }

    #[test]
    fn csa_steps_preserve_sums() {
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..200 {
            let words = rng.gen_range(1..5);
            let bits = words * 64 - 4;
            let mut s = CsPair {
                s: rnd(&mut rng, words, bits),
                c: rnd(&mut rng, words, bits),
            };
            let y = rnd(&mut rng, words, bits);
            let mut z = rnd(&mut rng, words, bits);
            // make the total even
            let total = s.value() + y.to_biguint() + z.to_biguint();
            if total.bit(0) {
                z.words[0] ^= 1;
            }
            let total = s.value() + y.to_biguint() + z.to_biguint();
            step_4to2(&mut s, &y, &z);
            assert_eq!(s.value() * 2u32, total);
        }
    }

    #[test]
    fn brfa_adds() {
        let mut rng = StdRng::seed_from_u64(2);
        for _ in 0..100 {
            let a = CsPair {
                s: rnd(&mut rng, 3, 150),
                c: rnd(&mut rng, 3, 150),
            };
            let v = a.value();
            let mut b = Brfa::load(a);
            for i in 0..160 {
                assert_eq!(b.next_bit(), v.bit(i as u64));
            }
        }
    }
}
