//! Many private operations at once: each operation's exponentiations run in
//! two lanes (p and q) of the eight-lane IFMA kernel (`arch::x86_64::ifma::mb8`),
//! four operations per kernel run, with no dependency chain between lanes.
//! Everything else stays per operation: its own blinding factor, its own
//! Garner step and unblinding, its own fault check (a fault in one lane fails
//! that operation only, and no unchecked result leaves), results in input
//! order. The fault checks (m^e mod n, public exponent) of two groups run
//! together, eight lanes holding n, where n has at most 40 digits
//! (RSA-2048): about half the time of eight single-modulus checks.
//!
//! Which path a group takes depends only on public facts (how many
//! operations, the primes' digit count). An eight-lane run (four
//! operations) costs less than three dual runs at 20 digits per prime
//! (RSA-2048) and less than four at 32 and 40 digits (RSA-3072, RSA-4096)
//! (docs/PERFORMANCE.md, "Batch signing: when the eight-lane kernel runs").
//! So a group of 3 or 4 operations with 20-digit primes runs in the
//! eight-lane kernel, a full group of 4 with 32- or 40-digit primes does
//! too.
//!
//! Without IFMA, where AVX2 is the chosen family, operations run in the
//! radix-2^28 lane kernels (`arch::x86_64::lanes28`: p and q of each
//! operation in two lanes; four lanes with AVX2, eight with AVX-512F), in
//! full groups, where that measured faster than one operation at a time
//! (`lanes28_min_digits`): eight lanes at every RSA size, four lanes for
//! RSA-3072 and RSA-4096 (at RSA-2048's 37 digits four lanes are level). Everything else (a short group,
//! primes of unequal digit counts, no vector kernel) runs one operation at
//! a time on the single-operation path.

use super::Error;
use super::crt::Secret;
use super::private::{RsaPrivateKey, ZeroInput};
use super::public::RsaPublicKey;
use crate::hash::HashAlg;
use rand_core::CryptoRng;
use zeroize::Zeroizing;

/// An operation's index and its input as limbs below n.
type Pending = (usize, Vec<u64>);

/// One slot per operation, filled as its result is known.
type Results = Vec<Option<Result<Zeroizing<Vec<u8>>, Error>>>;

/// Operations per eight-lane run (two lanes each).
const GROUP: usize = 4;

/// The many-lane kernel a key's operations run in, with its primes' digit
/// count there (public: sizes only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lanes {
    /// The eight-lane IFMA kernel, radix 2^52: four operations a run.
    Eight(usize),
    /// The radix-2^28 lane kernels: (lanes, digits), lanes / 2 operations
    /// a run (x86-64 only).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Radix28(usize, usize),
}

impl Lanes {
    /// Operations per run.
    fn group(self) -> usize {
        match self {
            Lanes::Eight(_) => GROUP,
            Lanes::Radix28(lanes, _) => lanes / 2,
        }
    }

    /// The fewest operations worth a run.
    fn min_group(self) -> usize {
        match self {
            Lanes::Eight(d) => mb8_min_group(d),
            Lanes::Radix28(lanes, _) => lanes / 2,
        }
    }
}

/// The largest digit count per prime at which the eight-lane kernel beats
/// the dual kernel (measured; see the module documentation): all of them.
#[cfg(target_arch = "x86_64")]
const MB8_MAX_DIGITS: usize = 40;

/// The fewest operations in a group worth an eight-lane run, by digit count
/// (see the module documentation): 3 up to 20 digits, a full group above.
fn mb8_min_group(digits: usize) -> usize {
    if digits <= 20 { 3 } else { GROUP }
}

impl RsaPrivateKey {
    /// RSADP / RSASP1 ([`RsaPrivateKey::raw_private`]) on many k-byte
    /// inputs, each blinded and checked on its own; results in input order,
    /// each `Ok` or `Err` independently (a bad input or a detected fault
    /// fails that operation only).
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let inputs: Vec<Vec<u8>> = (1..=5u8).map(|i| { let mut x = vec![0u8; key.size()]; x[127] = i; x }).collect();
    /// let refs: Vec<&[u8]> = inputs.iter().map(|x| &x[..]).collect();
    /// let outs = key.raw_private_batch(&mut os_rng(), &refs);
    /// for (x, y) in inputs.iter().zip(&outs) {
    ///     assert_eq!(key.public_key().raw_public(y.as_ref().unwrap()).unwrap(), *x);
    /// }
    /// ```
    pub fn raw_private_batch<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        inputs: &[&[u8]],
    ) -> Vec<Result<Zeroizing<Vec<u8>>, Error>> {
        let ops: Vec<(&RsaPrivateKey, &[u8])> = inputs.iter().map(|x| (self, *x)).collect();
        raw_private_many(rng, &ops)
    }

    /// RSASSA-PKCS1-v1_5 signatures ([`RsaPrivateKey::sign_pkcs1v15`]) of
    /// many digests made with `hash`, through the batch path; byte for byte
    /// the signatures one at a time would give, in input order.
    ///
    /// ```
    /// use redc::{hash::HashAlg, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let digests: Vec<Vec<u8>> = (0..4u8).map(|i| HashAlg::Sha256.digest(&[i])).collect();
    /// let refs: Vec<&[u8]> = digests.iter().map(|d| &d[..]).collect();
    /// let sigs = key.sign_pkcs1v15_batch(&mut os_rng(), HashAlg::Sha256, &refs);
    /// let one = key.sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, &digests[2]).unwrap();
    /// assert_eq!(*sigs[2].as_ref().unwrap(), one);
    /// ```
    pub fn sign_pkcs1v15_batch<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        digests: &[&[u8]],
    ) -> Vec<Result<Vec<u8>, Error>> {
        let encoded: Vec<Result<Vec<u8>, Error>> = digests
            .iter()
            .map(|d| self.encode_pkcs1v15_signature(hash, d))
            .collect();
        self.sign_encoded_batch(rng, encoded)
    }

    /// RSASSA-PSS signatures ([`RsaPrivateKey::sign_pss`], MGF1 with `hash`,
    /// a fresh random salt of `salt_len` bytes each, `None`: the hash length)
    /// of many digests, through the batch path; in input order.
    ///
    /// ```
    /// use redc::{hash::HashAlg, padding::SaltLen, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let digests: Vec<Vec<u8>> = (0..5u8).map(|i| HashAlg::Sha256.digest(&[i])).collect();
    /// let refs: Vec<&[u8]> = digests.iter().map(|d| &d[..]).collect();
    /// let sigs = key.sign_pss_batch(&mut os_rng(), HashAlg::Sha256, &refs, None);
    /// for (d, s) in digests.iter().zip(&sigs) {
    ///     key.public_key().verify_pss(HashAlg::Sha256, d, s.as_ref().unwrap(), SaltLen::Exact(32)).unwrap();
    /// }
    /// ```
    pub fn sign_pss_batch<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        digests: &[&[u8]],
        salt_len: Option<usize>,
    ) -> Vec<Result<Vec<u8>, Error>> {
        let encoded: Vec<Result<Vec<u8>, Error>> = digests
            .iter()
            .map(|d| self.encode_pss_signature(rng, hash, hash, d, salt_len))
            .collect();
        self.sign_encoded_batch(rng, encoded)
    }

    /// The private operation on every encoded message (k bytes each) that
    /// encoded; an encoding error stays that operation's result.
    fn sign_encoded_batch<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        encoded: Vec<Result<Vec<u8>, Error>>,
    ) -> Vec<Result<Vec<u8>, Error>> {
        let ok: Vec<(&RsaPrivateKey, &[u8])> = encoded
            .iter()
            .filter_map(|e| e.as_ref().ok().map(|em| (self, &em[..])))
            .collect();
        let mut signed = raw_private_many(rng, &ok).into_iter();
        encoded
            .iter()
            .map(|e| match e {
                Ok(_) => signed
                    .next()
                    .expect("one result per encoded digest")
                    .map(|s| s.to_vec()),
                Err(err) => Err(err.clone()),
            })
            .collect()
    }
}

/// The private operation for each `(key, input)` (keys may differ), results
/// in input order. Operations whose keys' primes share the eight-lane
/// kernel's digit count are grouped four by four (see the module
/// documentation); the rest run one at a time. The stack the run used is
/// wiped before it returns ([`crate::scrub`]), on every calling thread.
pub fn raw_private_many<R: CryptoRng + ?Sized>(
    rng: &mut R,
    ops: &[(&RsaPrivateKey, &[u8])],
) -> Vec<Result<Zeroizing<Vec<u8>>, Error>> {
    crate::scrub::scrubbed_batch(|| raw_private_many_in(rng, ops))
}

/// [`raw_private_many`] inside the caller's stack scrub.
fn raw_private_many_in<R: CryptoRng + ?Sized>(
    rng: &mut R,
    ops: &[(&RsaPrivateKey, &[u8])],
) -> Vec<Result<Zeroizing<Vec<u8>>, Error>> {
    let mut results: Results = (0..ops.len()).map(|_| None).collect();
    // Inputs as limbs below n; a bad one fails alone.
    // The input 0 runs on a stand-in (`ZeroInput`, public).
    let mut pending: Vec<Pending> = Vec::with_capacity(ops.len());
    let mut zeros = vec![ZeroInput::default(); ops.len()];
    for (i, (key, x)) in ops.iter().enumerate() {
        match key.public_key().input_limbs(x) {
            Ok(mut c) => {
                zeros[i] = ZeroInput::stand_in(&mut c);
                pending.push((i, c))
            }
            Err(e) => results[i] = Some(Err(e)),
        }
    }
    // Batchable operations by kernel and digit count; the rest one at a time.
    let mut by_digits: Vec<(Lanes, Vec<Pending>)> = Vec::new();
    for (i, c) in pending {
        match lanes_of(ops[i].0) {
            Some(d) => match by_digits.iter_mut().find(|(dd, _)| *dd == d) {
                Some((_, v)) => v.push((i, c)),
                None => by_digits.push((d, vec![(i, c)])),
            },
            None => results[i] = Some(one(rng, ops[i].0, &c)),
        }
    }
    // Results of many-lane runs waiting for their fault checks.
    let mut unchecked: Vec<(usize, Vec<u64>, Secret)> = Vec::new();
    for (lanes, group_ops) in by_digits {
        for group in group_ops.chunks(lanes.group()) {
            if group.len() < lanes.min_group() {
                for (i, c) in group {
                    results[*i] = Some(one(rng, ops[*i].0, c));
                }
                continue;
            }
            for (i, outcome) in run_group(rng, ops, group, lanes) {
                match outcome {
                    Outcome::Done(r) => results[i] = Some(r),
                    Outcome::Unchecked(c, m) => unchecked.push((i, c, m)),
                }
            }
            if unchecked.len() >= CHECK_RUN {
                check_all(ops, &mut unchecked, &mut results);
            }
        }
    }
    check_all(ops, &mut unchecked, &mut results);
    results
        .into_iter()
        .zip(zeros)
        .map(|(r, zero)| {
            let mut r = r.expect("every operation has a result");
            if let Ok(out) = &mut r {
                zero.restore(out);
            }
            r
        })
        .collect()
}

/// The many-lane kernel of a key's operations, when a batch path applies:
/// the eight-lane one where it runs, else the four-lane one.
fn lanes_of(key: &RsaPrivateKey) -> Option<Lanes> {
    #[cfg(target_arch = "x86_64")]
    {
        mb8_digits(key).map(Lanes::Eight).or_else(|| {
            let lanes = crate::arch::x86_64::lanes28_available()?;
            key.crt().lanes28_digits().map(|d| Lanes::Radix28(lanes, d))
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        mb8_digits(key).map(Lanes::Eight)
    }
}

/// The eight-lane digit count of a key's primes, when its batch path applies.
fn mb8_digits(key: &RsaPrivateKey) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        key.crt().mb8_digits().filter(|&d| d <= MB8_MAX_DIGITS)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = key;
        None
    }
}

/// One operation on the single-operation path.
fn one<R: CryptoRng + ?Sized>(
    rng: &mut R,
    key: &RsaPrivateKey,
    c: &[u64],
) -> Result<Zeroizing<Vec<u8>>, Error> {
    // Inside raw_private_many's scrub: one wipe per run, not per operation.
    let m = key.private_op_unscrubbed(rng, c)?;
    Ok(Zeroizing::new(key.public_key().output_bytes(&m)))
}

/// Where an operation stands after its group's run.
enum Outcome {
    /// Finished (the single-operation path, or an error).
    Done(Result<Zeroizing<Vec<u8>>, Error>),
    /// Input c and candidate result m, awaiting the fault check.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Unchecked(Vec<u64>, Secret),
}

/// Fault checks per eight-lane run on n ([`RsaPublicKey::public_op_many`]).
const CHECK_RUN: usize = 8;

/// Up to four operations in one eight-lane run (lanes / 2 in a radix-2^28 run):
/// blind each, exponentiate all, then Garner and unblinding for each. Their
/// fault checks are left to [`check_all`], which runs eight of them at once
/// where the eight-lane kernel takes n.
fn run_group<R: CryptoRng + ?Sized>(
    rng: &mut R,
    ops: &[(&RsaPrivateKey, &[u8])],
    group: &[Pending],
    lanes: Lanes,
) -> Vec<(usize, Outcome)> {
    let mut blinded = Vec::with_capacity(group.len());
    let mut out = Vec::with_capacity(group.len());
    for (i, c) in group {
        match ops[*i].0.blind(rng) {
            Ok(b) => blinded.push((*i, c, b)),
            Err(e) => out.push((*i, Outcome::Done(Err(e)))),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = lanes;
    #[cfg(target_arch = "x86_64")]
    {
        let lanes_kind = lanes;
        let lanes: Vec<(&super::crt::Crt, &[u64], &super::crt::BlindFactor)> = blinded
            .iter()
            .map(|(i, c, b)| (ops[*i].0.crt(), &c[..], &b.re))
            .collect();
        let halves = match lanes_kind {
            Lanes::Eight(_) => super::crt::Crt::pow_private_mb8(&lanes),
            Lanes::Radix28(n, _) => super::crt::Crt::pow_private_lanes28(&lanes, n),
        };
        if let Some(halves) = halves {
            for ((i, c, b), (mp, mq)) in blinded.iter().zip(&halves) {
                let m = ops[*i].0.unblinded(mp, mq, &b.unblind);
                out.push((*i, Outcome::Unchecked(c.to_vec(), m)));
            }
            return out;
        }
    }
    // The kernel is unavailable after all: the single-operation path.
    for (i, c, _) in blinded {
        out.push((i, Outcome::Done(one(rng, ops[i].0, c))));
    }
    out
}

/// The fault checks of the `unchecked` results, eight per run where the
/// eight-lane kernel takes n (see [`RsaPublicKey::public_op_many`]); each
/// result is released only when its own check passes
/// ([`RsaPrivateKey::checked`]). Empties `unchecked`.
fn check_all(
    ops: &[(&RsaPrivateKey, &[u8])],
    unchecked: &mut Vec<(usize, Vec<u64>, Secret)>,
    results: &mut Results,
) {
    let lanes: Vec<(&RsaPublicKey, &[u64])> = unchecked
        .iter()
        .map(|(i, _, m)| (ops[*i].0.public_key(), &m[..]))
        .collect();
    let checks = RsaPublicKey::public_op_many(&lanes);
    for ((i, c, m), check) in unchecked.drain(..).zip(checks) {
        let key = ops[i].0;
        let r = key
            .checked(&c, m, &check)
            .map(|m| Zeroizing::new(key.public_key().output_bytes(&m)));
        results[i] = Some(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsa::crt::Crt;
    use crate::rsa::{keygen, os_rng};

    /// RSA-3072's halves run in the eight-lane kernel at 30 digits, their
    /// own size, not the dual kernel's 32 (the batch tests then check every
    /// result against the single path, which runs at 32); without IFMA
    /// (or with it excluded by REDC_KERNEL) there is no eight-lane path.
    #[test]
    fn rsa_3072_batches_run_at_30_digits_where_ifma_runs() {
        let key = keygen::generate(3072, 65537, &mut os_rng()).unwrap();
        #[cfg(target_arch = "x86_64")]
        let want = crate::arch::x86_64::ifma_available().then_some(30);
        #[cfg(not(target_arch = "x86_64"))]
        let want = None;
        assert_eq!(mb8_digits(&key), want);
    }

    /// The kernel a key's batches take: eight lanes where IFMA runs; the
    /// radix-2^28 lanes where AVX2 is the chosen family: with eight lanes
    /// at every size, with four from 38 digits per prime (RSA-3072's 55),
    /// not at RSA-2048's 37; else none.
    #[test]
    fn batches_take_the_lanes_of_the_chosen_family() {
        let k2048 = keygen::generate(2048, 65537, &mut os_rng()).unwrap();
        let k3072 = keygen::generate(3072, 65537, &mut os_rng()).unwrap();
        #[cfg(target_arch = "x86_64")]
        let (want2048, want3072) = if crate::arch::x86_64::ifma_available() {
            (Some(Lanes::Eight(20)), Some(Lanes::Eight(30)))
        } else if let Some(lanes) = crate::arch::x86_64::lanes28_available() {
            // Eight lanes (AVX-512F) from 8 digits, four from 38.
            let w2048 = (lanes == 8).then_some(Lanes::Radix28(8, 37));
            (w2048, Some(Lanes::Radix28(lanes, 55)))
        } else {
            (None, None)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let (want2048, want3072) = (None, None);
        assert_eq!(lanes_of(&k2048), want2048);
        assert_eq!(lanes_of(&k3072), want3072);
        assert_eq!(Lanes::Radix28(4, 55).group(), 2);
        assert_eq!(Lanes::Radix28(8, 55).group(), 4);
        assert_eq!(Lanes::Eight(30).group(), 4);
    }

    /// A key whose dP is corrupted after import (standing in for a glitched
    /// lane) fails alone inside an eight-lane group; the others succeed.
    #[test]
    fn a_fault_in_one_lane_fails_that_operation_only() {
        a_fault_fails_alone(2048);
    }

    /// The same inside a radix-2^28 lane group (RSA-3072 where AVX2 is the
    /// chosen family; one operation at a time elsewhere, with the same
    /// outcome).
    #[test]
    fn a_fault_in_a_four_lane_group_fails_that_operation_only() {
        a_fault_fails_alone(3072);
    }

    fn a_fault_fails_alone(bits: usize) {
        let key = keygen::generate(bits, 65537, &mut os_rng()).unwrap();
        let s = |x: &[u64]| Zeroizing::new(x.to_vec());
        let crt = key.crt();
        let mut dp = s(crt.dp());
        dp[0] ^= 8;
        let bad = Crt::new(s(crt.p()), s(crt.q()), dp, s(crt.dq()), s(crt.qinv())).unwrap();
        let faulty = RsaPrivateKey::assemble(key.public_key().clone(), s(key.d_limbs()), bad).unwrap();
        let mut x = vec![0u8; key.size()];
        x[9] = 3;
        x[key.size() - 1] = 5;
        // The group runs in the eight-lane kernel wherever the CPU has it,
        // in the radix-2^28 lanes where AVX2 is the family (RSA-3072).
        #[cfg(target_arch = "x86_64")]
        if crate::arch::x86_64::ifma_available() && bits == 2048 {
            assert_eq!(mb8_digits(&key), Some(20));
        } else if let (Some(lanes), 3072) = (crate::arch::x86_64::lanes28_available(), bits) {
            assert_eq!(lanes_of(&key), Some(Lanes::Radix28(lanes, 55)));
        }
        // Four operations (one group, four fault checks at the end), then
        // nine (two groups whose eight fault checks share one eight-lane run
        // on n, and a tail of one on the single path).
        let bad_at: [&[usize]; 2] = [&[1], &[1, 6, 8]];
        for (len, bad) in [4, 9].into_iter().zip(bad_at) {
            let ops: Vec<(&RsaPrivateKey, &[u8])> = (0..len)
                .map(|k| (if bad.contains(&k) { &faulty } else { &key }, &x[..]))
                .collect();
            let out = raw_private_many(&mut os_rng(), &ops);
            assert_eq!(out.len(), len);
            for (k, r) in out.iter().enumerate() {
                if bad.contains(&k) {
                    assert_eq!(
                        r.as_ref().unwrap_err(),
                        &Error::PrivateOperation,
                        "operation {k} of {len}"
                    );
                } else {
                    let y = r.as_ref().unwrap();
                    assert_eq!(
                        key.public_key().raw_public(y).unwrap(),
                        x,
                        "operation {k} of {len}"
                    );
                }
            }
        }
    }
}
