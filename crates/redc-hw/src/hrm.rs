//! The radix-2^k column-sharing super-pipeline of Zhao, Wang, Lu and Dai
//! (Zhao, Wang, Lu and Dai, "Hierarchical Optimizations for High Speed Implementation of Modular Exponentiation in ASIC": Alg. 1 and 2 of section 2, the pipeline
//! of section 3, eq. (1)).
//!
//! ## Arithmetic (Alg. 2)
//! `M` has `m = ⌈n/k⌉` digits of `k` bits; `M' = −M⁻¹ mod 2^k` and
//! `M~ = M'·M ≡ −1 (mod 2^k)`, so the quotient digit is simply the low digit
//! of the running sum (`q_i = r_(i−1)0`, no multiplier).  Inputs
//! `A, B < 2M~`; since `4M~ < 2^(k(m+2))` the output
//! `A·B·2^(−k(m+2)) mod M~` is again `< 2M~` (no final subtraction).  The
//! Montgomery constant is therefore `R = 2^(k(m+2))` and the congruence holds
//! modulo `M~`, hence modulo `M`.
//!
//! ## The top unit keeps its carry (fix of issue 12)
//! Alg. 2 takes `r_i(m+2) = 0`: the top PU `j = m + 2` is assumed to produce
//! no carry-out, i.e. every row `R_i < 2^(k(m+2))`.  The paper's conditions
//! (`A, B < 2M~`, `4M~ < 2^(k(m+2))`) guarantee this for the *final* row
//! only, not for the intermediate rows.  Row `i` computes
//! `R_i = (R_(i−1) + q_i·M~)/2^k + a_i·B`, with `q_i, a_i <= 2^k − 1`.
//! Put `T = 2^(k(m+1))`, so `M~ < T` (`M' < 2^k`, `M < 2^(km)`) and `B < 2T`.
//!
//! * **Where the claim fails.**  With `B` close to `2M~` (the squaring output
//!   fed back as `B = Z`), `M~` close to `T` (top bits of `M` set) and
//!   `a_i = 2^k − 1`, `R_i ≈ (2^k − 1)·2M~ + M~ ≈ 2^(k+1)·M~ ≈ 2·2^(k(m+2))`:
//!   one or two bits above the top unit.  Dropping them is what made
//!   `k = 2, 3, 4` return wrong results (issue 12's example is a test).
//! * **Bound kept instead.**  Claim: `R_i < 3·2^(k(m+2)) = 3·2^k·T` for every
//!   row.  `R_0 = a_0·B < 2^k·2T`.  If `R_(i−1) < 3·2^k·T` then
//!   `R_i < 3T + T + (2^k − 1)·2T = (2^(k+1) + 2)·T <= 3·2^k·T` for `k >= 1`.
//!   So the carry-out of PU `m + 2` (the sum of its `qMC`, `aB'C` and `C`
//!   outputs, all of weight `2^(k(m+2))` in `R_i`) is `floor(R_i / 2^(k(m+2)))
//!   <= 2`: two bits, below `2^k` for every `k >= 2`.  PU `m + 2` stores it
//!   in a 2-bit register as digit `r_i(m+2)` and adds it, like any other
//!   `r_(i−1)j`, when row `i + 1` passes.  No unit is added (`m` is unchanged)
//!   and the schedule is unchanged, so eq. (1) still holds clock for clock.
//! * **Final row.**  `R_(m+2) < A·B/2^(k(m+2)) + M~ < 4M~²/2^(k(m+2)) + M~ <
//!   2M~` because `4M~ < 2^(k(m+2))` (`k >= 2`); so the final row's top
//!   digit is 0 and results keep the width `k(m+1) + 1`.
//!
//! Any carry-out of PU `m + 2` above 3, a nonzero top digit in a final row,
//! or a nonzero low digit at PU 0 breaks these proofs: the model returns
//! [`HwError::Overflow`] (in release builds too) instead of a wrong number.
//!
//! A primitive operation `P_ij` (Definition 1) at processing unit `j`
//! computes, on k-bit digits:
//! `qMC:qMS = q_i·m~_j + qMC_in`, `aBC:aBS = a_i·b'_j + aBC_in`,
//! `C:r = r_(i−1)j + qMS + aBS + C_in`, and writes `r` as digit `j − 1` of
//! `R_i` (the k-bit right shift).  The extraction of the paper prints
//! `aB'S_ij = (a_i·b'_j + aB'S_i(j−1)) mod 2^k`; the carry-in must be
//! `aB'C_i(j−1)` as in the line above it, which is what the model uses.
//!
//! ## Pipeline (section 3) and registers
//! * `m + 3` PUs; PU `j` owns column `j`: `m~_j` and `b'_j` (= digit `j − 1`
//!   of `B`, `b'_0 = 0`), and, per context (MM, MS), digit `j` of the running
//!   `R_(i−1)`.  Invariant: when row `i` reaches PU `j`, that digit was
//!   written by row `i − 1` (at PU `j + 1`, one clock earlier or more; the
//!   kept carry `r_(i−1)(m+2)` at PU `m + 2` itself) — checked through
//!   per-digit version tags (an [`HwError::Overflow`] if it ever fails).
//! * A row token (`q_i`, `a_i`, the carries `qMC`, `aB'C` and the 2-bit `C`)
//!   enters PU 0 and moves one PU to the left per clock; rows of the
//!   multiplication (MM, `P·Z`) and of the squaring (MS, `Z·Z`) of one
//!   exponent step are issued alternately, since both share `b'_j` and `m~_j`.
//! * The controller issues a row only when its operands are ready: `q_i`
//!   needs digit 0 of `R_(i−1)` (written at PU 1), `a_i` is read over the
//!   multiplication / square bus from the register written by the previous
//!   step — one clock to write it into the PU, one to read it over the bus
//!   (the stall of section 3.2) — and `b'_j` must have been rewritten by the
//!   previous step's last squaring row before the new step enters PU `j`.
//!   No schedule is hard-wired: the one stall per step and the `m + 2` flush
//!   clocks emerge from these rules.
//! * The result of the MM is written to `A` only when the exponent bit is 1
//!   (a write enable); the control timing is the same either way.
//! * The run ends when the last result digit has been written to its PU and
//!   read over the bus (the same two-clock rule as the stall).
//!
//! The simulated count of the exponentiation loop equals eq. (1),
//! `K = l·[2(m+3)+1] + m + 2`, exactly (the tests check it).
//!
//! ## Pre- and post-processing (not in the paper's eq. (1))
//! The paper leaves them out; the model runs them on the same pipeline so
//! that the result is exact: one pass computing `Z_0 = base·R² ·R⁻¹` (MM
//! slot) and `P_0 = 1·R²·R⁻¹` (MS slot, same `B = R² mod M~`, computed
//! externally), and one pass `P·1·R⁻¹` at the end, followed by Euclid's
//! bit-serial reduction modulo `M` ([`crate::euclid`]), since the pipeline's
//! results are only reduced modulo `M~`.  These are counted in
//! `total_cycles` only.  Loading the PUs over the configuration bus is not
//! counted.

use crate::HwError;
use num_bigint::BigUint;

/// Smallest supported radix exponent.
pub const MIN_RADIX_BITS: u32 = 2;
/// Largest supported radix exponent (digits are `u64`, products `u128`).
pub const MAX_RADIX_BITS: u32 = 64;

/// A super-pipeline configured for one modulus and radix.
#[derive(Clone, Debug)]
pub struct HrmPipeline {
    k: u32,
    m: usize,
    modulus: BigUint,
    mt: BigUint,
    mt_digits: Vec<u64>,
    mask: u64,
}

/// Result of one run of the pipeline.
#[derive(Clone, Debug)]
struct RunOut {
    /// final-row digits of the last step, per context (MM, MS)
    results: [BigUint; 2],
    /// A-operand registers after the run (MM: `P`)
    a_mm: BigUint,
    cycles: u64,
}

#[derive(Clone, Copy, Debug)]
struct Tok {
    ctx: usize,
    row: usize,
    step: i64,
    pu: usize,
    q: u64,
    a: u64,
    qmc: u64,
    abc: u64,
    c: u64,
}

const NEVER: i64 = i64::MIN / 4;

fn to_digits(x: &BigUint, k: u32, count: usize) -> Vec<u64> {
    let mut out = vec![0u64; count];
    let mask: u64 = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
    let bits = x.bits();
    for (j, d) in out.iter_mut().enumerate() {
        let lo = j as u64 * k as u64;
        if lo >= bits {
            break;
        }
        let chunk: BigUint = (x >> lo) & BigUint::from(mask);
        *d = chunk.to_u64_digits().first().copied().unwrap_or(0);
    }
    out
}

fn from_digits(d: &[u64], k: u32) -> BigUint {
    let mut x = BigUint::default();
    for &v in d.iter().rev() {
        x <<= k;
        x += BigUint::from(v);
    }
    x
}

/// Report of an exponentiation on the pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HrmExpReport {
    /// `base^exp mod M`, fully reduced.
    pub result: BigUint,
    /// radix exponent `k`
    pub radix_bits: u32,
    /// digits of the modulus, `m = ⌈n/k⌉`
    pub m: usize,
    /// number of processing units, `m + 3`
    pub units: usize,
    /// `log2 R = k(m+2)`
    pub r_bits: u64,
    /// clocks of the main part (the exponent loop, eq. (1))
    pub cycles: u64,
    /// main part plus pre-/post-processing passes and the final reduction
    pub total_cycles: u64,
}

/// Report of a single Montgomery product on the pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HrmMontmulReport {
    /// `a·b·R⁻¹ mod M`, fully reduced
    pub result: BigUint,
    /// radix exponent `k`
    pub radix_bits: u32,
    /// digits of the modulus
    pub m: usize,
    /// `log2 R = k(m+2)`
    pub r_bits: u64,
    /// clocks of the pipeline pass (eq. (1) with `l = 1`)
    pub cycles: u64,
    /// pass plus the final reduction modulo `M`
    pub total_cycles: u64,
}

impl HrmPipeline {
    /// Configures the pipeline for the odd modulus `modulus >= 3` and radix
    /// `2^radix_bits`, `2 <= radix_bits <= 64`.
    pub fn new(modulus: &BigUint, radix_bits: u32) -> Result<Self, HwError> {
        crate::check_modulus(modulus)?;
        if !(MIN_RADIX_BITS..=MAX_RADIX_BITS).contains(&radix_bits) {
            return Err(HwError::RadixOutOfRange {
                bits: radix_bits,
                min: MIN_RADIX_BITS,
                max: MAX_RADIX_BITS,
            });
        }
        let k = radix_bits;
        let n = modulus.bits();
        let m = n.div_ceil(k as u64) as usize;
        let beta = BigUint::from(1u32) << k;
        let minv = crate::mod_inverse(&(modulus % &beta), &beta)?;
        let mprime = (&beta - minv) % &beta; // -M^-1 mod 2^k
        let mt = &mprime * modulus;
        let mt_digits = to_digits(&mt, k, m + 3);
        let mask = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
        Ok(HrmPipeline {
            k,
            m,
            modulus: modulus.clone(),
            mt,
            mt_digits,
            mask,
        })
    }

    /// Number of processing units, `m + 3`.
    pub fn units(&self) -> usize {
        self.m + 3
    }

    /// `m`, the number of k-bit digits of the modulus.
    pub fn m(&self) -> usize {
        self.m
    }

    /// `log2 R = k(m + 2)`.
    pub fn r_bits(&self) -> u64 {
        self.k as u64 * (self.m as u64 + 2)
    }

    /// `M~ = M'·M`.
    pub fn m_tilde(&self) -> &BigUint {
        &self.mt
    }

    /// Width of the result registers: results are `< 2M~ < 2^(k(m+1)+1)`.
    fn result_width(&self) -> u64 {
        self.k as u64 * (self.m as u64 + 1) + 1
    }

    /// Runs `steps` exponent steps (or, with `exp = None`, one pass without
    /// write-back) with the A registers of the MM and MS contexts and the
    /// B register preloaded.  Returns the final-row digits and the clocks.
    fn run(
        &self,
        a_mm: &BigUint,
        a_ms: &BigUint,
        b: &BigUint,
        exp: Option<&[bool]>,
    ) -> Result<RunOut, HwError> {
        let w = self.m + 3;
        let k = self.k;
        let mask = self.mask;
        let steps: i64 = match exp {
            Some(bits) => bits.len() as i64,
            None => 1,
        };
        let write_back = exp.is_some();
        // A-operand registers per context, with write time and version (step)
        let mut areg = [to_digits(a_mm, k, w), to_digits(a_ms, k, w)];
        let mut areg_t = [vec![NEVER; w], vec![NEVER; w]];
        let mut areg_v = [vec![-1i64; w], vec![-1i64; w]];
        // B register: b'_j = b_(j-1), b'_0 = 0
        let bd = to_digits(b, k, w);
        let mut breg = vec![0u64; w];
        breg[1..w].copy_from_slice(&bd[..(w - 1)]);
        let mut breg_t = vec![NEVER; w];
        let mut breg_v = vec![-1i64; w];
        // running R digits per context, tagged with (step, row) of the writer
        let mut r = [vec![0u64; w], vec![0u64; w]];
        let mut r_tag = [vec![(i64::MIN, usize::MAX); w], vec![(i64::MIN, usize::MAX); w]];
        let mut r0_time = [NEVER; 2];
        let mut res = [vec![0u64; w], vec![0u64; w]];
        // issue pointer
        let (mut s, mut row, mut ctx) = (0i64, 0usize, 0usize);
        let mut last_b_writer_issue = NEVER; // issue time of the last MS final row
        let mut last_final_write = NEVER;
        let mut inflight: std::collections::VecDeque<Tok> = std::collections::VecDeque::with_capacity(w + 2);
        let mut now: i64 = 0;
        if steps == 0 {
            return Ok(RunOut {
                results: [a_mm.clone(), a_ms.clone()],
                a_mm: a_mm.clone(),
                cycles: 0,
            });
        }
        loop {
            // ---- controller: issue at most one row into PU 0 ----
            if s < steps {
                let q_ok = row == 0 || (r_tag[ctx][0] == (s, row - 1) && r0_time[ctx] < now);
                let a_ok = if s == 0 {
                    true
                } else {
                    areg_v[ctx][row] == s - 1 && areg_t[ctx][row] + 2 <= now || row >= w - 1 // a_(m+2) = 0 is never written
                };
                let b_ok = s == 0 || last_b_writer_issue < now;
                if q_ok && a_ok && b_ok {
                    let q = if row == 0 { 0 } else { r[ctx][0] };
                    inflight.push_back(Tok {
                        ctx,
                        row,
                        step: s,
                        pu: 0,
                        q,
                        a: areg[ctx][row],
                        qmc: 0,
                        abc: 0,
                        c: 0,
                    });
                    if ctx == 1 && row == w - 1 {
                        last_b_writer_issue = now;
                    }
                    // advance: MM row i, MS row i, MM row i+1, ...
                    if ctx == 0 {
                        ctx = 1;
                    } else {
                        ctx = 0;
                        row += 1;
                        if row == w {
                            row = 0;
                            s += 1;
                        }
                    }
                }
            }
            // ---- datapath: every PU executes the PO of the token it holds ----
            // Writes are applied in place: in one clock no two PUs touch the
            // same register (same-context rows are issued at least two
            // clocks apart), which the version tags check in debug builds.
            for t in inflight.iter_mut() {
                let j = t.pu;
                let bj = breg[j];
                if t.step > 0 && j > 0 && !(breg_v[j] == t.step - 1 && breg_t[j] < now) {
                    return Err(HwError::Overflow("hrm: b' register read before it was rewritten"));
                }
                let rin = if t.row == 0 {
                    0
                } else {
                    if r_tag[t.ctx][j] != (t.step, t.row - 1) {
                        return Err(HwError::Overflow("hrm: r digit read before it was written"));
                    }
                    r[t.ctx][j]
                };
                let qm = t.q as u128 * self.mt_digits[j] as u128 + t.qmc as u128;
                let ab = t.a as u128 * bj as u128 + t.abc as u128;
                let sum = rin as u128 + (qm as u64 & mask) as u128 + (ab as u64 & mask) as u128 + t.c as u128;
                t.qmc = (qm >> k) as u64;
                t.abc = (ab >> k) as u64;
                t.c = (sum >> k) as u64;
                let rout = sum as u64 & mask;
                if j == 0 && rout != 0 {
                    return Err(HwError::Overflow("hrm: q_i did not clear the low digit"));
                }
                if j == w - 1 {
                    // the top unit keeps its carry-out as r_i(m+2) (module header: <= 2)
                    let top = t.qmc as u128 + t.abc as u128 + t.c as u128;
                    if top > 3 || (t.row == w - 1 && top != 0) {
                        return Err(HwError::Overflow("hrm: carry-out of the top processing unit"));
                    }
                    r[t.ctx][j] = top as u64;
                    r_tag[t.ctx][j] = (t.step, t.row);
                }
                if j == 0 {
                    continue;
                }
                let (c, d, v) = (t.ctx, j - 1, rout);
                r[c][d] = v;
                r_tag[c][d] = (t.step, t.row);
                if d == 0 {
                    r0_time[c] = now;
                }
                if t.row == w - 1 {
                    res[c][d] = v;
                    last_final_write = now;
                    if write_back {
                        if c == 0 {
                            if exp.is_some_and(|e| e[t.step as usize]) {
                                areg[0][d] = v; // write enable = exponent bit
                            }
                            areg_t[0][d] = now;
                            areg_v[0][d] = t.step;
                        } else {
                            areg[1][d] = v;
                            areg_t[1][d] = now;
                            areg_v[1][d] = t.step;
                            breg[d + 1] = v;
                            breg_t[d + 1] = now;
                            breg_v[d + 1] = t.step;
                        }
                    }
                }
            }
            for t in inflight.iter_mut() {
                t.pu += 1;
            }
            while inflight.front().is_some_and(|t| t.pu >= w) {
                inflight.pop_front();
            }
            now += 1; // one clock elapsed
            if s >= steps && inflight.is_empty() {
                break;
            }
        }
        // the last result digit is read over the bus the clock after its write
        while now < last_final_write + 2 {
            now += 1;
        }
        Ok(RunOut {
            results: [from_digits(&res[0], k), from_digits(&res[1], k)],
            a_mm: from_digits(&areg[0], k),
            cycles: now as u64,
        })
    }

    fn r2_mod_mt(&self) -> BigUint {
        (BigUint::from(1u32) << (2 * self.r_bits())) % &self.mt
    }

    /// `base^exp mod M` on the pipeline (right-to-left binary method with
    /// the MM and MS of each step interleaved).  Requires `base < M`.
    pub fn modexp(&self, base: &BigUint, exp: &BigUint) -> Result<HrmExpReport, HwError> {
        crate::check_reduced(base, &self.modulus, "the base")?;
        let r2 = self.r2_mod_mt();
        let one = BigUint::from(1u32);
        // pre-processing pass: Z0 = base*R (MM slot), P0 = 1*R (MS slot)
        let pre = self.run(base, &one, &r2, None)?;
        let z0 = pre.results[0].clone();
        let p0 = pre.results[1].clone();
        // main part
        let bits = crate::exponent_bits_lsb_first(exp);
        let main = self.run(&p0, &z0, &z0, Some(&bits))?;
        let p = if bits.is_empty() { p0 } else { main.a_mm.clone() };
        // post-processing pass: P*1*R^-1, then reduction modulo M
        let post = self.run(&p, &BigUint::default(), &one, None)?;
        let (result, red_cycles) =
            crate::euclid::reduce(&post.results[0], &self.modulus, self.result_width());
        Ok(HrmExpReport {
            result,
            radix_bits: self.k,
            m: self.m,
            units: self.units(),
            r_bits: self.r_bits(),
            cycles: main.cycles,
            total_cycles: pre.cycles + main.cycles + post.cycles + red_cycles,
        })
    }

    /// One Montgomery product `a·b·R⁻¹ mod M`, `R = 2^(k(m+2))`, run as one
    /// pipeline pass (MM slot `a·b`; the MS slot squares `b` as the
    /// fixed-function pipeline always does), then reduced modulo `M`.
    pub fn montmul(&self, a: &BigUint, b: &BigUint) -> Result<HrmMontmulReport, HwError> {
        crate::check_reduced(a, &self.modulus, "a")?;
        crate::check_reduced(b, &self.modulus, "b")?;
        let pass = self.run(a, b, b, None)?;
        let (result, red_cycles) =
            crate::euclid::reduce(&pass.results[0], &self.modulus, self.result_width());
        Ok(HrmMontmulReport {
            result,
            radix_bits: self.k,
            m: self.m,
            r_bits: self.r_bits(),
            cycles: pass.cycles,
            total_cycles: pass.cycles + red_cycles,
        })
    }

    /// The exponent loop alone (the part eq. (1) times), on operands already
    /// in the Montgomery domain (`p0, z0 < 2M~`).  Returns the MM register
    /// after the loop (with `p0 ≡ R` and `z0 ≡ x·R`, `P ≡ x^exp·R (mod M~)`)
    /// and the clocks.
    pub fn exp_loop(&self, p0: &BigUint, z0: &BigUint, exp: &BigUint) -> Result<(BigUint, u64), HwError> {
        let bits = crate::exponent_bits_lsb_first(exp);
        let out = self.run(p0, z0, z0, Some(&bits))?;
        Ok((out.a_mm, out.cycles))
    }
}

/// Convenience: `base^exp mod modulus` on a pipeline of radix `2^radix_bits`.
pub fn modexp(
    modulus: &BigUint,
    base: &BigUint,
    exp: &BigUint,
    radix_bits: u32,
) -> Result<HrmExpReport, HwError> {
    HrmPipeline::new(modulus, radix_bits)?.modexp(base, exp)
}

/// Convenience: one Montgomery product on a pipeline of radix `2^radix_bits`.
pub fn montmul(
    modulus: &BigUint,
    a: &BigUint,
    b: &BigUint,
    radix_bits: u32,
) -> Result<HrmMontmulReport, HwError> {
    HrmPipeline::new(modulus, radix_bits)?.montmul(a, b)
}
