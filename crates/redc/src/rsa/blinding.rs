//! Blinding pairs (r^e, r^-1 mod n) for the private operation, a fresh
//! uniformly random r for every operation.
//!
//! r^e is kept as its residues (r^e mod p, r^e mod q), plain and in the
//! dual kernel's form where that kernel runs ([`BlindFactor`]): the exponentiations
//! take the blinding factor inside the kernel, in the one product that
//! brings each base into the Montgomery domain
//! ([`super::crt::Crt::pow_private_blinded`]), so blinding costs no product
//! mod n, and r^e comes from half-size runs (eight lanes: four r per run).
//! r itself is drawn below n (whose bit length is public, so the rejection
//! sampling tells nothing) and reduced mod p and q; drawing the residues
//! directly would need p's and q's bit lengths in the sampler, and its
//! rejection rate would tell their top bits. Unblinding stays after
//! Garner's recombination, mod n, so that recombination only sees blinded
//! halves.
//!
//! An inverse mod n per operation would cost as much as the operation, so
//! pairs are made in batches with Montgomery's simultaneous-inversion
//! trick: for random r_1..r_B, form the prefix products P_i = r_1 ... r_i,
//! invert P_B once, and walk back: r_i^-1 = P_B^-1 P_(i-1) (r_B ... r_(i+1)).
//! The one inversion is constant time: P^-1 mod p = P^(p-2) mod p and the
//! same mod q (Fermat, secret exponents through the constant-time window),
//! recombined by CRT. Each pair is used once and wiped.
//!
//! The pool belongs to the process that filled it. A child made by
//! `fork` inherits a copy of the parent's unused pairs; used there and in
//! the parent, each would blind two operations. So every take compares the
//! process id (one `getpid` call; docs/PERFORMANCE.md, "Blinding: the
//! pool's process-id check") with the pool's owner, and a new process
//! discards the inherited pairs (wiping them) and makes its own. Limits,
//! for the caller:
//! - the new pairs are only as fresh as the caller's generator: a seeded
//!   generator copied by `fork` (not the OS generator, not the provider's
//!   OpenSSL DRBG) would give parent and child the same r again;
//! - a process id identifies a process only among live processes of one
//!   PID namespace: a child made with its own PID namespace can have its
//!   parent's id (1, under a container's init), and then keeps the pairs;
//! - as with any mutex, a fork while another thread holds the pool's lock
//!   leaves the child's copy locked: fork only while no thread signs.
//!
//! Cost per operation: r mod p and mod q, r^e (17 half-size products per
//! prime for e = 65537; four r per run of the eight-lane kernel where it
//! runs), r^e's form for the dual kernel where it runs (two radix
//! conversions and three dual products: [`Crt::blind_factor`], which takes
//! them off the signature), the walk (where the eight-lane
//! kernel runs n, RSA-2048 and below: eight chains at once, five eight-lane
//! products per value and the eight chains' totals through the scalar walk;
//! else three radix-2^64 products per value), and 1/B of a private
//! operation (the one inversion). A key's refills make B = 8, 32, then 128
//! pairs each (a key that signs once pays for eight; the refilling thread's
//! wait grows with the key's use, not all at once). What the eight-lane
//! walk and B = 128 save: docs/PERFORMANCE.md, "Blinding: refills in eight
//! lanes, B up to 128".

use super::Error;
use super::crt::{BlindFactor, Crt, Secret};
use super::fermat::minus_two;
use super::public::RsaPublicKey;
use crate::elem::Halves;
use crate::limb;
use rand_core::CryptoRng;
use std::sync::Mutex;
use zeroize::Zeroizing;

/// What blinding reads of a private key: the public key (n, e and n's
/// engine) and the CRT arithmetic (p, q and their engines).
#[derive(Clone, Copy)]
pub(crate) struct BlindingKey<'a> {
    pub(crate) public: &'a RsaPublicKey,
    pub(crate) crt: &'a Crt,
}

impl BlindingKey<'_> {
    /// `(x_p^e mod p, x_q^e mod q)` for each residue pair (secret: blinding
    /// factors): four per eight-lane run where that kernel runs the primes
    /// (groups of three or more; see `batch`), else one dual run each.
    fn public_pow_halves(&self, xs: &[Halves]) -> Vec<Halves> {
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut out: Vec<Halves> = Vec::with_capacity(xs.len());
        #[cfg(target_arch = "x86_64")]
        if self.crt.mb8_digits().is_some() {
            for chunk in xs.chunks(4).filter(|c| c.len() >= 3) {
                let ops: Vec<(&Crt, &Halves)> = chunk.iter().map(|x| (self.crt, x)).collect();
                match Crt::pow_public_halves_mb8(&ops, self.public.e_limbs()) {
                    Some(halves) => out.extend(halves),
                    None => break,
                }
            }
        }
        for x in &xs[out.len()..] {
            out.push(self.crt.pow_public_halves(x, self.public.e_limbs()));
        }
        out
    }

    /// The value mod n whose residues are `x^ep mod p` and `x^eq mod q`
    /// (secret exponents, constant time), recombined by Garner's formula.
    /// `x < n`, s_n limbs. Returns s_n limbs.
    fn crt_pow(&self, x: &[u64], exp_p: &[u64], exp_q: &[u64]) -> Secret {
        let (mp, mq) = self.crt.pow_secret(x, exp_p, exp_q);
        self.crt.garner(&mp, &mq, self.public.engine().limbs())
    }
}

/// Pairs made by a key's first, second and every later refill.
const REFILLS: [usize; 3] = [8, 32, 128];

/// One blinding pair: r^e as its residues (r^e mod p, r^e mod q), plain and
/// prepared for the key's dual engine ([`BlindFactor`]), and r^-1 R mod n
/// in n's Montgomery form.
pub(crate) struct Blind {
    pub(crate) re: BlindFactor,
    pub(crate) unblind: Secret,
}

/// Unused pairs, shared by the threads signing with one key (behind a mutex).
#[derive(Default)]
pub(crate) struct BlindingPool {
    pairs: Vec<Blind>,
    /// Refills started so far (the first ones are smaller).
    refills: usize,
    /// The process whose refills made `pairs` (None before the first).
    owner: Option<u32>,
}

impl BlindingPool {
    /// One fresh pair from `pool`, refilling it from `rng` when it is
    /// empty. The refill (a full private power and up to 128 r^e) runs with the
    /// lock released, so that other threads signing with the key keep
    /// taking pairs, or make their own, meanwhile; each pair still goes to
    /// one operation only.
    pub(crate) fn take<R: CryptoRng + ?Sized>(
        pool: &Mutex<BlindingPool>,
        key: BlindingKey<'_>,
        rng: &mut R,
    ) -> Result<Blind, Error> {
        Self::take_in(pool, key, rng, std::process::id())
    }

    /// [`Self::take`] in the process `pid`: pairs made by another process
    /// (the parent of a forked child) are discarded first, and the refills
    /// count again from the smallest.
    fn take_in<R: CryptoRng + ?Sized>(
        pool: &Mutex<BlindingPool>,
        key: BlindingKey<'_>,
        rng: &mut R,
        pid: u32,
    ) -> Result<Blind, Error> {
        let lock = || pool.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let count = {
            let mut pool = lock();
            if pool.owner != Some(pid) {
                // Dropping a pair wipes it.
                pool.pairs.clear();
                pool.refills = 0;
                pool.owner = Some(pid);
            }
            if let Some(pair) = pool.pairs.pop() {
                return Ok(pair);
            }
            let count = REFILLS[pool.refills.min(REFILLS.len() - 1)];
            pool.refills += 1;
            count
        };
        let mut fresh = make_pairs(key, rng, count)?;
        let mine = fresh.pop().ok_or(Error::PrivateOperation)?;
        let mut pool = lock();
        // Only into a pool of this process (the rest are wiped on drop).
        if pool.owner == Some(pid) {
            pool.pairs.append(&mut fresh);
        }
        Ok(mine)
    }
}

/// A uniformly random value in [1, n), s_n limbs (rejection sampling on
/// values that are then discarded: the loop count reveals nothing kept).
pub(crate) fn random_below<R: CryptoRng + ?Sized>(rng: &mut R, n: &[u64]) -> Secret {
    randoms_below(rng, n, 1).pop().expect("one value")
}

/// `count` values as [`random_below`]'s, the random bytes drawn in one
/// request per round: a system generator pays a system call per request
/// (docs/PERFORMANCE.md, "Blinding: random bytes in one request per round").
fn randoms_below<R: CryptoRng + ?Sized>(rng: &mut R, n: &[u64], count: usize) -> Vec<Secret> {
    let bits = limb::bit_len_vartime(n);
    let top_bits = bits - 64 * (n.len() - 1);
    let mut bytes = Zeroizing::new(vec![0u8; count * n.len() * 8]);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        rng.fill_bytes(&mut bytes);
        for chunk in bytes.chunks_exact(n.len() * 8) {
            if out.len() == count {
                break;
            }
            let mut v = Zeroizing::new(vec![0u64; n.len()]);
            for (i, word) in chunk.chunks_exact(8).enumerate() {
                v[i] = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            }
            if top_bits < 64 {
                let last = n.len() - 1;
                v[last] &= (1u64 << top_bits) - 1;
            }
            if limb::ct_lt(&v, n).leak_bool() && !limb::ct_is_zero(&v).leak_bool() {
                out.push(v);
            }
        }
    }
    out
}

fn make_pairs<R: CryptoRng + ?Sized>(
    key: BlindingKey<'_>,
    rng: &mut R,
    count: usize,
) -> Result<Vec<Blind>, Error> {
    let crt = key.crt;
    let rs = randoms_below(rng, key.public.engine().modulus(), count);
    let residues: Vec<Halves> = rs.iter().map(|r| (crt.reduce_p(r), crt.reduce_q(r))).collect();
    // r^e four per eight-lane run (see `public_pow_halves`).
    let powers = key.public_pow_halves(&residues);
    let unblinds = inverses_mont(key, &rs)?;
    Ok(powers
        .into_iter()
        .zip(unblinds)
        .map(|(re, unblind)| Blind {
            re: crt.blind_factor(re),
            unblind,
        })
        .rev()
        .collect())
}

/// `x^-1 R mod n` for each x (below n, invertible; R = 2^(64 s), the
/// Montgomery form of n's engine): eight chains at once on the eight-lane
/// kernel where it runs n (RSA-2048 and below, [`MB8_MIN`] values or more),
/// their eight totals inverted by [`inverses_mont_scalar`]; else that
/// function for all. Which path runs depends on sizes only.
fn inverses_mont(key: BlindingKey<'_>, xs: &[Secret]) -> Result<Vec<Secret>, Error> {
    #[cfg(target_arch = "x86_64")]
    if xs.len() >= MB8_MIN && key.public.mb8_digits().is_some() {
        let en = key.public.engine();
        let m = en.ifma52().expect("mb8_digits implies the IFMA form").radix52();
        let refs: Vec<&[u64]> = xs.iter().map(|x| &x[..]).collect();
        let mut failed = false;
        let got = crate::arch::x86_64::invert_many_mb8(m, &refs, &en.one_mont(), |totals| {
            // The eight totals' plain inverses: x^-1 R, then out of the domain.
            let totals: Vec<Secret> = totals.iter().map(|t| Zeroizing::new(t.clone())).collect();
            match inverses_mont_scalar(key, &totals) {
                Ok(inv) => {
                    let mut ws = en.workspace();
                    Some(inv.iter().map(|v| en.from_mont(v, &mut ws)).collect())
                }
                Err(_) => {
                    failed = true;
                    None
                }
            }
        });
        if failed {
            return Err(Error::PrivateOperation);
        }
        if let Some(got) = got {
            return Ok(got.into_iter().map(Zeroizing::new).collect());
        }
    }
    inverses_mont_scalar(key, xs)
}

/// The fewest values for the eight-lane walk of [`inverses_mont`]: below
/// two rounds of eight it saves nothing over the scalar walk.
#[cfg(target_arch = "x86_64")]
const MB8_MIN: usize = 16;

/// [`inverses_mont`] on n's engine alone: prefix products P_i = x_1 ... x_i,
/// one inversion of P_B ([`invert_mod_n`]), and the walk back
/// x_i^-1 = P_B^-1 P_(i-1) (x_B ... x_(i+1)).
fn inverses_mont_scalar(key: BlindingKey<'_>, xs: &[Secret]) -> Result<Vec<Secret>, Error> {
    let en = key.public.engine();
    let s = en.limbs();
    let count = xs.len();
    let mut ws = en.workspace();
    // x_i and the prefix products P_i, in Montgomery form.
    let mut x_mont: Vec<Secret> = Vec::with_capacity(count);
    let mut prefix: Vec<Secret> = Vec::with_capacity(count);
    for (i, x) in xs.iter().enumerate() {
        let xm = Zeroizing::new(en.to_mont(x, &mut ws));
        let p = if i == 0 {
            xm.clone()
        } else {
            let mut next = Zeroizing::new(vec![0u64; s]);
            en.mul_into(&mut next, &prefix[i - 1], &xm, &mut ws);
            next
        };
        x_mont.push(xm);
        prefix.push(p);
    }
    // inv = P_B^-1 in Montgomery form.
    let product = Zeroizing::new(en.from_mont(&prefix[count - 1], &mut ws));
    let inv_plain = invert_mod_n(key, &product)?;
    let mut inv = Zeroizing::new(en.to_mont(&inv_plain, &mut ws));
    let mut out: Vec<Secret> = vec![Zeroizing::new(Vec::new()); count];
    for i in (0..count).rev() {
        // inv = (x_1 .. x_i)^-1 here.
        out[i] = if i == 0 {
            inv.clone()
        } else {
            let mut u = Zeroizing::new(vec![0u64; s]);
            en.mul_into(&mut u, &inv, &prefix[i - 1], &mut ws);
            en.mul_in_place(&mut inv, &x_mont[i], &mut ws);
            u
        };
    }
    Ok(out)
}

/// x^-1 mod n for x < n: x^(p-2) mod p and x^(q-2) mod q (Fermat, secret
/// exponents through the constant-time window) recombined by CRT. A
/// non-invertible x (probability about 2^-(bits/2)) gives a value whose
/// product with x is not 1: an error.
fn invert_mod_n(key: BlindingKey<'_>, x: &[u64]) -> Result<Secret, Error> {
    let (p, q) = (key.crt.p(), key.crt.q());
    let inv = key.crt_pow(x, &minus_two(p), &minus_two(q));
    let en = key.public.engine();
    let mut ws = en.workspace();
    let mut check = Zeroizing::new(en.to_mont(x, &mut ws));
    en.mul_in_place(&mut check, &inv, &mut ws); // x inv
    let one = limb::resize(&[1], en.limbs()).expect("a limb");
    if !limb::ct_eq(&check, &one).leak_bool() {
        return Err(Error::PrivateOperation);
    }
    Ok(inv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsa::{big, keygen, os_rng};
    use num_bigint::BigUint;

    /// Refills make 8, 32, then 128 pairs, and every pair holds inverse
    /// blinding factors: (r^e mod p, r^e mod q) and r^-1 R mod n with
    /// r^e (r^-1)^e = 1 mod p and mod q, checked with num-bigint. A
    /// 1024-bit key: its later refills take the eight-lane runs and walk
    /// where the CPU has IFMA, the dual runs and scalar walk elsewhere.
    #[test]
    fn refills_grow_and_every_pair_unblinds() {
        let mut rng = os_rng();
        let key = keygen::generate(1024, 65537, &mut rng).unwrap();
        let en = key.public_key().engine();
        let n = big(en.modulus());
        let (p, q) = (big(key.crt().p()), big(key.crt().q()));
        let r_inv = {
            // R^-1 mod n, R = 2^(64 s): the unblinding factor is in Montgomery form.
            let r = BigUint::from(1u8) << (64 * en.limbs());
            r.modinv(&n).unwrap()
        };
        let e = big(key.public_key().e_limbs());
        let pool = Mutex::new(BlindingPool::default());
        let mut sizes = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..8 + 32 + 128 + 1 {
            let empty = pool.lock().unwrap().pairs.is_empty();
            let blind = BlindingPool::take(&pool, key.blinding_key(), &mut rng).unwrap();
            if empty {
                sizes.push(pool.lock().unwrap().pairs.len() + 1);
            }
            let (rep, req) = (big(blind.re.halves.0.limbs()), big(blind.re.halves.1.limbs()));
            assert!(rep < p && req < q);
            let rinv = big(&blind.unblind) * &r_inv % &n;
            let rinv_e = rinv.modpow(&e, &n);
            assert_eq!(rep * &rinv_e % &p, BigUint::from(1u8));
            assert_eq!(req * &rinv_e % &q, BigUint::from(1u8));
            // A fresh r each time (a repeat among 169 would mean a broken generator).
            assert!(seen.insert(rinv), "a blinding factor repeated");
        }
        assert_eq!(sizes, REFILLS.iter().chain([&128]).copied().collect::<Vec<_>>());
    }

    /// A forked child inherits the parent's pool: in another process, take
    /// never hands out a pair the first process made, discards them, and
    /// refills from the smallest batch again; in the same process it keeps
    /// using its pool. (The process id is passed in: a test cannot fork the
    /// multi-threaded test runner safely.)
    #[test]
    fn another_process_discards_the_inherited_pairs() {
        let mut rng = os_rng();
        let key = keygen::generate(1024, 65537, &mut rng).unwrap();
        let pool = Mutex::new(BlindingPool::default());
        let unblind = |b: &Blind| b.unblind.to_vec();
        let first = BlindingPool::take_in(&pool, key.blinding_key(), &mut rng, 100).unwrap();
        let second = BlindingPool::take_in(&pool, key.blinding_key(), &mut rng, 100).unwrap();
        // The parent's unused pairs, as the child inherits them.
        let inherited: Vec<Vec<u64>> = pool.lock().unwrap().pairs.iter().map(unblind).collect();
        assert_eq!(inherited.len(), REFILLS[0] - 2);
        assert!(!inherited.contains(&unblind(&first)) && !inherited.contains(&unblind(&second)));

        let child = BlindingPool::take_in(&pool, key.blinding_key(), &mut rng, 200).unwrap();
        assert!(
            !inherited.contains(&unblind(&child)),
            "the child used an inherited pair"
        );
        {
            let pool = pool.lock().unwrap();
            assert_eq!(pool.owner, Some(200));
            assert_eq!(pool.refills, 1, "the child's first refill is its smallest");
            assert_eq!(pool.pairs.len(), REFILLS[0] - 1);
            for pair in &pool.pairs {
                assert!(!inherited.contains(&unblind(pair)), "an inherited pair kept");
            }
        }
        // The child's next take pops its own pool: no refill.
        let next = BlindingPool::take_in(&pool, key.blinding_key(), &mut rng, 200).unwrap();
        assert!(!inherited.contains(&unblind(&next)));
        assert_eq!(pool.lock().unwrap().pairs.len(), REFILLS[0] - 2);
        assert_eq!(pool.lock().unwrap().refills, 1);
    }
}
