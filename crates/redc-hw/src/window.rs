//! The β-ary exponentiation of Shand and Vuillemin with odd powers only
//! (Shand and Vuillemin, "Fast Implementations of RSA Cryptography", section 4.2).
//!
//! A table of the odd powers `A, A³, …, A^(β−1)` is built (`A²` and then
//! `β/2 − 1` multiplications: `β/2` products; none for `p = 1`).  The
//! exponent is read in digits of `p` bits from the top.  The top digit
//! `2^s·u` (`u` odd) initialises the accumulator with `A^u` and is followed
//! by `s` squarings ("the squaring sequence need not start until the second
//! most significant digit"); every other non-zero digit `2^s·u` costs
//! `p − s` squarings, one multiplication by `A^u` ("the multiply may occur
//! early in the squaring sequence") and `s` squarings; a zero digit costs `p`
//! squarings.  [`products`] counts the modular products of that schedule;
//! [`pow`] executes it (checked against `modpow` in the tests).
//!
//! The paper's expectation `β/2 + k − p + (k/p)(β − 1)/β` counts one
//! multiplication for the top digit and ignores its `s` squarings; the two
//! differ by `E[s] − (β − 1)/β`, under 0.05 products (see the tests).

use num_bigint::BigUint;

/// One operation of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Init(u64),
    Square,
    Mul(u64),
}

fn schedule(e: &BigUint, p: u32) -> (Vec<Op>, u64) {
    let mut ops = Vec::new();
    let table = if p == 1 { 0 } else { 1u64 << (p - 1) };
    let bits = e.bits();
    if bits == 0 {
        return (ops, 0);
    }
    // Digits are aligned on the most significant bit: the top digit is a full
    // p-bit digit and, when p does not divide k, the last digit is shorter.
    let mut hi = bits; // exclusive upper bit position of the next digit
    let mut top = true;
    while hi > 0 {
        let lo = hi.saturating_sub(p as u64);
        let width = (hi - lo) as u32;
        let mut v = 0u64;
        for b in lo..hi {
            if e.bit(b) {
                v |= 1 << (b - lo);
            }
        }
        hi = lo;
        if v == 0 {
            ops.extend(std::iter::repeat_n(Op::Square, width as usize));
            continue;
        }
        let s = v.trailing_zeros();
        let u = v >> s;
        if top {
            ops.push(Op::Init(u));
            top = false;
        } else {
            ops.extend(std::iter::repeat_n(Op::Square, (width - s) as usize));
            ops.push(Op::Mul(u));
        }
        ops.extend(std::iter::repeat_n(Op::Square, s as usize));
    }
    (ops, table)
}

/// Modular products the β-ary method (`β = 2^p`) spends on exponent `e`,
/// table included.
pub fn products(e: &BigUint, p: u32) -> u64 {
    let (ops, table) = schedule(e, p);
    table + ops.iter().filter(|o| !matches!(o, Op::Init(_))).count() as u64
}

/// `a^e mod m` by the β-ary method; returns the power and the products spent.
pub fn pow(a: &BigUint, e: &BigUint, m: &BigUint, p: u32) -> (BigUint, u64) {
    let (ops, table_cost) = schedule(e, p);
    let a = a % m;
    let mut table = vec![a.clone()]; // A^(2i+1) at index i
    if p > 1 {
        let a2 = &a * &a % m;
        for i in 1..(1usize << (p - 1)) {
            let next = &table[i - 1] * &a2 % m;
            table.push(next);
        }
    }
    let mut acc = BigUint::from(1u32) % m;
    let mut count = table_cost;
    for op in ops {
        match op {
            Op::Init(u) => acc = table[(u / 2) as usize].clone(),
            Op::Square => {
                acc = &acc * &acc % m;
                count += 1;
            }
            Op::Mul(u) => {
                acc = &acc * &table[(u / 2) as usize] % m;
                count += 1;
            }
        }
    }
    (acc, count)
}

/// Mean products per exponent over `samples` random `k`-bit exponents (top
/// bit set).
pub fn mean_products<R: rand::Rng>(k: u64, p: u32, samples: usize, rng: &mut R) -> f64 {
    use num_bigint::RandBigInt;
    let mut total = 0u64;
    for _ in 0..samples {
        let mut e = rng.gen_biguint(k);
        e.set_bit(k - 1, true);
        total += products(&e, p);
    }
    total as f64 / samples.max(1) as f64
}

/// The window size `p` in `1..=max_p` with the fewest mean products, and that
/// mean, measured over the same random exponents for every `p`.
pub fn optimum<R: rand::Rng>(k: u64, max_p: u32, samples: usize, rng: &mut R) -> (u32, f64) {
    use num_bigint::RandBigInt;
    let exps: Vec<BigUint> = (0..samples)
        .map(|_| {
            let mut e = rng.gen_biguint(k);
            e.set_bit(k - 1, true);
            e
        })
        .collect();
    let mut best = (1u32, f64::INFINITY);
    for p in 1..=max_p {
        let mean = exps.iter().map(|e| products(e, p)).sum::<u64>() as f64 / samples.max(1) as f64;
        if mean < best.1 {
            best = (p, mean);
        }
    }
    best
}
