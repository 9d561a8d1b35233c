//! Radix-2 carry-save Montgomery multipliers of McIvor, McLoone and McCanny
//! (McIvor, McLoone and McCanny, "Modified Montgomery Modular Multiplication and RSA Exponentiation Techniques", section 2.2: Alg. 2 "five-to-two" and
//! Alg. 3 "four-to-two plus multiplexer"; section 2.3: the BRFA).
//!
//! Inputs `A = A1 + A2`, `B = B1 + B2` and output `S = S1 + S2` are all in
//! carry-save form; `A_i` comes from the barrel-register full adder one bit
//! per clock.
//!
//! ## Bound (Walter, reference \[11\] of McIvor, McLoone and McCanny, "Modified Montgomery modular multiplication and RSA exponentiation techniques") and iteration count
//! With `k = bitlen(n)` and `R = 2^(k+2)` (so `4n < R`), inputs
//! `A, B < 2n` give `S = (A·B + Q·n)/R < 4n²/R + n < 2n`: outputs are valid
//! inputs again and no final subtraction is ever needed inside an
//! exponentiation.  The model therefore runs **k + 2 iterations** (one per
//! bit of `R`).  The paper writes `r = 2^k` and `k` iterations, which does
//! not satisfy Walter's condition `4n < r`; this is the model's one
//! departure, and it costs one clock per product (k + 2 instead of the
//! paper's k + 1 for Alg. 2; k + 3 instead of k + 2 for Alg. 3).
//!
//! ## Registers and their invariants (after iteration `i`)
//! * `S1, S2`: `2^i · (S1 + S2) = A mod 2^i · B + Q_i · n` where `Q_i < 2^i`
//!   collects the quotient bits so far; by induction `S1 + S2 < B + n < 3n`
//!   during the product (the bound of eq. (4) in seed 003) and `< 2n` at the
//!   end (Walter).  Width: the pre-shift sum is `< 2(B + n) < 6n < 2^(k+3)`,
//!   so the registers have `k + 4` bits rounded up to whole 64-bit words.
//! * `B1, B2` (and, for Alg. 3, `D1, D2 = CSR(B1 + B2 + n)`): constant during
//!   the product.
//! * BRFA: see [`crate::cs::Brfa`].
//! * `q_i = (S1_0 + S2_0 + A_i·(B1_0 + B2_0)) mod 2`: two XORs and one AND,
//!   exactly the paper's loop logic.
//!
//! ## Clocks
//! Alg. 2: one clock per iteration (k + 2).  Alg. 3: one extra clock first
//! to form `D1, D2`, then one per iteration (k + 3).  The clocks are counted
//! by [`CsaMultiplier::tick`].

use crate::HwError;
use crate::cs::{BitVec, Brfa, CsPair, csa3, step_4to2, step_5to2};
use num_bigint::BigUint;

/// Which of 004's two carry-save multipliers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsaDesign {
    /// Alg. 2: five-to-two CSA (three levels of carry-save logic).
    FiveToTwo,
    /// Alg. 3: four-to-two CSA plus a 4:1 multiplexer and the `D1, D2` registers.
    FourToTwo,
}

impl CsaDesign {
    /// The command-line name (`csa5to2` / `csa4to2`).
    pub fn name(self) -> &'static str {
        match self {
            CsaDesign::FiveToTwo => "csa5to2",
            CsaDesign::FourToTwo => "csa4to2",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    FormD,
    Iterate,
    Done,
}

/// One carry-save Montgomery multiplier as a clocked state machine.
#[derive(Clone, Debug)]
pub struct CsaMultiplier {
    design: CsaDesign,
    n: BitVec,
    k: usize,
    iterations: usize,
    words: usize,
    phase: Phase,
    i: usize,
    brfa: Brfa,
    b: CsPair,
    d: CsPair,
    s: CsPair,
    zero: BitVec,
}

impl CsaMultiplier {
    /// A multiplier for the odd modulus `n >= 3`.
    pub fn new(design: CsaDesign, n: &BigUint) -> Result<Self, HwError> {
        crate::check_modulus(n)?;
        let k = n.bits() as usize;
        let words = (k + 4).div_ceil(64);
        Ok(CsaMultiplier {
            design,
            n: BitVec::from_biguint(n, words),
            k,
            iterations: k + 2,
            words,
            phase: Phase::Idle,
            i: 0,
            brfa: Brfa::load(CsPair::zero(words)),
            b: CsPair::zero(words),
            d: CsPair::zero(words),
            s: CsPair::zero(words),
            zero: BitVec::zero(words),
        })
    }

    /// `k`, the bit length of the modulus.
    pub fn k(&self) -> usize {
        self.k
    }

    /// `log2 R` = number of iterations = k + 2.
    pub fn r_bits(&self) -> usize {
        self.iterations
    }

    /// Words per register.
    pub fn words(&self) -> usize {
        self.words
    }

    /// The modulus register.
    pub fn modulus(&self) -> &BitVec {
        &self.n
    }

    /// Which design this is.
    pub fn design(&self) -> CsaDesign {
        self.design
    }

    /// Loads `A` (into the BRFA) and `B`, clears `S`.  Both must satisfy
    /// `A, B < 2n` (Walter's input bound).
    pub fn start(&mut self, a: CsPair, b: CsPair) {
        self.brfa = Brfa::load(a);
        self.b = b;
        self.s = CsPair::zero(self.words);
        self.i = 0;
        self.phase = match self.design {
            CsaDesign::FiveToTwo => Phase::Iterate,
            CsaDesign::FourToTwo => Phase::FormD,
        };
    }

    /// Whether the product is complete.
    pub fn done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Advances one clock.  Returns 1 if the multiplier did work this clock
    /// (the caller adds it to its cycle counter), 0 if idle or done.
    pub fn tick(&mut self) -> u64 {
        match self.phase {
            Phase::Idle | Phase::Done => 0,
            Phase::FormD => {
                // D1, D2 = CSR(B1 + B2 + n + 0): one clock of the 4:2 CSA.
                self.d = csa3(&self.b.s, &self.b.c, &self.n);
                self.phase = Phase::Iterate;
                1
            }
            Phase::Iterate => {
                let ai = self.brfa.next_bit();
                let q = self.s.s.bit(0) ^ self.s.c.bit(0) ^ (ai & (self.b.s.bit(0) ^ self.b.c.bit(0)));
                match self.design {
                    CsaDesign::FiveToTwo => step_5to2(&mut self.s, ai, &self.b, q, &self.n),
                    CsaDesign::FourToTwo => {
                        let (y, z) = match (ai, q) {
                            (false, false) => (&self.zero, &self.zero),
                            (true, false) => (&self.b.s, &self.b.c),
                            (false, true) => (&self.n, &self.zero),
                            (true, true) => (&self.d.s, &self.d.c),
                        };
                        step_4to2(&mut self.s, y, z);
                    }
                }
                self.i += 1;
                if self.i == self.iterations {
                    self.phase = Phase::Done;
                }
                1
            }
        }
    }

    /// The carry-save result `S1, S2` of the last completed product.
    pub fn result(&self) -> &CsPair {
        &self.s
    }
}

/// Report of one stand-alone Montgomery product on a carry-save multiplier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsaMontmulReport {
    /// `a·b·R⁻¹ mod n`, fully reduced.
    pub result: BigUint,
    /// `log2 R` (= k + 2).
    pub r_bits: usize,
    /// Clocks of the multiplier itself (004 Table 1: k + 1 / k + 2).
    pub cycles: u64,
    /// Everything simulated: the product, one clock to register `S1, S2`,
    /// and the final BRFA addition with its serial reduction.
    pub total_cycles: u64,
}

/// One Montgomery product `a·b·2^-(k+2) mod n` with `a, b < n` in binary,
/// fed to the multiplier as `(a, 0), (b, 0)`.
pub fn montmul(
    design: CsaDesign,
    n: &BigUint,
    a: &BigUint,
    b: &BigUint,
) -> Result<CsaMontmulReport, HwError> {
    let mut mul = CsaMultiplier::new(design, n)?;
    crate::check_reduced(a, n, "a")?;
    crate::check_reduced(b, n, "b")?;
    let w = mul.words();
    mul.start(CsPair::from_binary(a, w), CsPair::from_binary(b, w));
    let mut cycles = 0u64;
    while !mul.done() {
        cycles += mul.tick();
    }
    let mut total = cycles + 1; // register S1, S2 into the BRFA's barrel registers
    let (result, add_cycles) = crate::cs::final_add_reduce(mul.result(), mul.modulus(), mul.k() + 1);
    total += add_cycles;
    Ok(CsaMontmulReport {
        result,
        r_bits: mul.r_bits(),
        cycles,
        total_cycles: total,
    })
}
