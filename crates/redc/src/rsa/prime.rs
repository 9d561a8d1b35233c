//! Random probable primes for RSA keys: a sieve over small primes, then
//! Miller-Rabin with the round counts of FIPS 186-5 Table B.1.
//!
//! Candidates are secret. The sieve keeps each candidate's residues modulo
//! the small primes and steps the candidate by 2, updating them; residues
//! are computed with multiplications (Barrett), not division, and the
//! verdict over all of them is one mask. A rejected candidate's timing is
//! harmless (it is discarded); for the accepted one, what leaks is how many
//! candidates were tried and the 2-adic valuation a of p - 1 (the
//! Miller-Rabin squaring count), as in other constant-time key generators.

use crate::ct::Mask;
use crate::exp::MontEngine;
use crate::limb;
use rand_core::CryptoRng;
use std::sync::OnceLock;
use zeroize::Zeroizing;

/// Odd primes below this bound sieve the candidates.
const SIEVE_BOUND: u64 = 1 << 14;

/// Miller-Rabin rounds for a prime of `bits` bits: FIPS 186-5 Table B.1
/// (random probable primes p, q: 1024 bits, 5 rounds, error 2^-112; 1536
/// bits, 4 rounds, 2^-128; 2048 bits, 4 rounds, 2^-144) and FIPS 186-4
/// Table C.3 for 512-bit primes (7 rounds).
///
/// ```
/// use redc::rsa::prime::mr_rounds;
/// assert_eq!(mr_rounds(512), 7);
/// assert_eq!(mr_rounds(1024), 5);
/// assert_eq!(mr_rounds(2048), 4);
/// ```
pub fn mr_rounds(bits: usize) -> usize {
    match bits {
        0..=767 => 7,
        768..=1279 => 5,
        _ => 4,
    }
}

/// Odd primes below [`SIEVE_BOUND`], with Barrett constants floor(2^64 / q).
fn small_primes() -> &'static [(u64, u64)] {
    static PRIMES: OnceLock<Vec<(u64, u64)>> = OnceLock::new();
    PRIMES.get_or_init(|| {
        let n = SIEVE_BOUND as usize;
        let mut composite = vec![false; n];
        let mut out = Vec::new();
        for i in 2..n {
            if !composite[i] {
                if i > 2 {
                    out.push((i as u64, (u128::from(u64::MAX) + 1).div_euclid(i as u128) as u64));
                }
                for j in (i * i..n).step_by(i) {
                    composite[j] = true;
                }
            }
        }
        out
    })
}

/// `x mod q` for a small prime q, constant time in x: 32-bit chunks from the
/// top, each step `v = r 2^32 + chunk < 2^48`, quotient estimate
/// `floor(v mu / 2^64)` off by at most one, so one masked correction.
fn residue(x: &[u64], q: u64, mu: u64) -> u64 {
    let mut r = 0u64;
    for &limb in x.iter().rev() {
        for chunk in [limb >> 32, limb & 0xffff_ffff] {
            let v = (r << 32) | chunk;
            let est = ((v as u128 * mu as u128) >> 64) as u64;
            let t = v - est * q;
            r = Mask::from_bit((t.wrapping_sub(q) >> 63) ^ 1).select(t.wrapping_sub(q), t);
        }
    }
    r
}

/// Whether `n` (odd, > 3) is probably prime after `rounds` Miller-Rabin
/// rounds with random bases. Constant time in n except for the squaring
/// count a (the 2-adic valuation of n - 1) and the early exit on a
/// composite verdict.
///
/// ```
/// use redc::rsa::{os_rng, prime::miller_rabin};
/// assert!(miller_rabin(&[65537], 20, &mut os_rng()));
/// assert!(miller_rabin(&[0xffff_ffff_ffff_ffc5], 20, &mut os_rng())); // 2^64 - 59
/// // 561 = 3 * 11 * 17, a Carmichael number: it fools Fermat, not this.
/// assert!(!miller_rabin(&[561], 20, &mut os_rng()));
/// ```
pub fn miller_rabin<R: CryptoRng + ?Sized>(n: &[u64], rounds: usize, rng: &mut R) -> bool {
    let engine = match MontEngine::new(n) {
        Ok(e) => e,
        Err(_) => return false,
    };
    let s = engine.limbs();
    let mut n1 = Zeroizing::new(n.to_vec());
    n1[0] &= !1; // n - 1
    // n - 1 = 2^a m, m odd.
    let a = {
        let mut a = 0;
        while (n1[a / 64] >> (a % 64)) & 1 == 0 {
            a += 1;
        }
        a
    };
    let mut m = Zeroizing::new(vec![0u64; s]);
    for i in 0..s {
        let lo = n1.get(i + a / 64).copied().unwrap_or(0);
        let hi = n1.get(i + a / 64 + 1).copied().unwrap_or(0);
        m[i] = if a % 64 == 0 {
            lo
        } else {
            (lo >> (a % 64)) | (hi << (64 - a % 64))
        };
    }
    let one = limb::resize(&[1], s).expect("a limb");
    let mut ws = engine.workspace();
    for _ in 0..rounds {
        // Base in [2, n - 2]: redraw 1 and n - 1 (discarded draws reveal nothing kept).
        let b = loop {
            let b = super::blinding::random_below(rng, n);
            if !limb::ct_eq(&b, &one).leak_bool() && !limb::ct_eq(&b, &n1).leak_bool() {
                break b;
            }
        };
        let mut x = Zeroizing::new(engine.pow_secret_reduced(&b, &m));
        if limb::ct_eq(&x, &one).leak_bool() || limb::ct_eq(&x, &n1).leak_bool() {
            continue;
        }
        let mut witness = true;
        let mut xm = Zeroizing::new(engine.to_mont(&x, &mut ws));
        for _ in 1..a {
            engine.sqr_in_place(&mut xm, &mut ws);
            x = Zeroizing::new(engine.from_mont(&xm, &mut ws));
            if limb::ct_eq(&x, &n1).leak_bool() {
                witness = false;
                break;
            }
        }
        if witness {
            return false;
        }
    }
    true
}

/// A random probable prime of exactly `bits` bits whose top two bits are
/// set (so that the product of two such primes has exactly the sum of their
/// lengths in bits) and with gcd(p - 1, e) = 1. `e` is odd and at least 3,
/// below 2^64. `bits >= 16`.
///
/// ```
/// use redc::{limb, rsa::{os_rng, prime}};
/// let p = prime::random_prime(128, 65537, &mut os_rng());
/// assert_eq!(limb::bit_len_vartime(&p), 128);
/// assert_eq!(p[1] >> 62, 0b11); // the top two bits are set
/// assert!(prime::miller_rabin(&p, 20, &mut os_rng()));
/// ```
pub fn random_prime<R: CryptoRng + ?Sized>(bits: usize, e: u64, rng: &mut R) -> Zeroizing<Vec<u64>> {
    assert!(bits >= 16 && e & 1 == 1 && e >= 3);
    let s = bits.div_ceil(64);
    let primes = small_primes();
    let rounds = mr_rounds(bits);
    loop {
        let mut bytes = Zeroizing::new(vec![0u8; s * 8]);
        rng.fill_bytes(&mut bytes);
        let mut p = Zeroizing::new(vec![0u64; s]);
        for (i, chunk) in bytes.chunks_exact(8).enumerate() {
            p[i] = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        }
        let top = (bits - 1) % 64;
        p[s - 1] &= if top == 63 {
            u64::MAX
        } else {
            (1u64 << (top + 1)) - 1
        };
        p[s - 1] |= 1 << top;
        let second = bits - 2;
        p[second / 64] |= 1 << (second % 64);
        p[0] |= 1;
        let mut residues: Zeroizing<Vec<u64>> =
            Zeroizing::new(primes.iter().map(|&(q, mu)| residue(&p, q, mu)).collect());
        // Step by 2 from the random start, at most 2^12 steps before a fresh start.
        for _ in 0..4096 {
            // p >= 2^15 > every sieve prime, so a zero residue means composite.
            let divisible = residues
                .iter()
                .fold(Mask::FALSE, |acc, &r| acc | Mask::is_zero(r));
            let top_ok = (p[s - 1] >> top) & 1 == 1; // stepping may carry past the length (public: discard)
            if !divisible.leak_bool() && top_ok && gcd_with_e_is_one(&p, e) && miller_rabin(&p, rounds, rng) {
                return p;
            }
            let two = limb::resize(&[2], s).expect("a limb");
            limb::add_assign(&mut p, &two);
            for (r, &(q, _)) in residues.iter_mut().zip(primes) {
                let t = *r + 2;
                *r = Mask::from_bit((t.wrapping_sub(q) >> 63) ^ 1).select(t.wrapping_sub(q), t);
            }
        }
    }
}

/// gcd(p - 1, e) == 1 for odd e < 2^64. The verdict is revealed (a
/// candidate that fails is discarded).
fn gcd_with_e_is_one(p: &[u64], e: u64) -> bool {
    let mut p1 = Zeroizing::new(p.to_vec());
    p1[0] &= !1;
    let r = crate::nat::rem(&p1, &[e]);
    crate::nat::inv_mod_word(r[0], e).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn residues_match_remainders() {
        let x = [
            0xdead_beef_0123_4567u64,
            0xffff_ffff_ffff_ffff,
            0x8000_0000_0000_0001,
        ];
        for &(q, mu) in small_primes().iter().take(200) {
            let want = {
                let mut r = 0u128;
                for &l in x.iter().rev() {
                    r = ((r << 64) | l as u128) % q as u128;
                }
                r as u64
            };
            assert_eq!(residue(&x, q, mu), want, "q = {q}");
        }
    }
}
