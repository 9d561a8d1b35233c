//! RSA private keys and the private primitive with CRT, blinding and a
//! fault check (RFC 8017 section 5.1.2 RSADP / 5.2.1 RSASP1).
//!
//! Papers: Shand and Vuillemin, "Fast Implementations of RSA Cryptography", Algorithm 1 (CRT: two half-size
//! exponentiations, then recombination); McIvor, McLoone and McCanny, "Modified Montgomery Modular Multiplication and RSA Exponentiation Techniques",
//! section 3.2 (CRT decryption with dP, dQ).
//!
//! The CRT parameters and their per-key arithmetic (engines, the dual
//! kernel's tables, Garner's recombination, the domain types that keep p and
//! q apart) live in [`super::crt`]; this file holds the key and the RFC 8017
//! steps of one private operation.
//!
//! Secrets: d, p, q, dP, dQ, qInv and every intermediate. The exponentiations
//! are constant time; reductions mod p and q are Montgomery-based;
//! subtractions and the final comparison are masked. What may leak: the bit
//! lengths of p and q (public in every RSA key format's sizes), the key size,
//! and whether the fault check failed (an error is returned and no output is
//! released).
//!
//! Blinding: the exponentiations run on the input times r^e for a fresh
//! uniformly random r, and the result is multiplied by r^-1 mod n after
//! Garner's recombination. The input is blinded per half, inside the
//! kernel: (c mod p)(r^e mod p) is formed by the product that puts the base
//! in the Montgomery domain, so the exponentiation mod p sees (c r^e mod n)
//! mod p, as RFC 8017's blinding gives it, without a product mod n. The
//! pairs (r^e mod p, r^e mod q; r^-1) come from [`super::blinding`].

use super::Error;
use super::blinding::{Blind, BlindingKey, BlindingPool};
use super::crt::Crt;
use super::fermat::inverse_mod_prime;
use super::public::{RsaPublicKey, trimmed_be};
use crate::ct::Mask;
use crate::elem::{Elem, P, Plain, Q};
use crate::limb;
use crate::nat;
use rand_core::CryptoRng;
use std::sync::Mutex;
use zeroize::{Zeroize, Zeroizing};

pub(crate) use super::crt::Secret;

/// An RSA private key with its CRT parameters.
///
/// ```
/// use redc::rsa::{keygen, os_rng};
/// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
/// let mut x = vec![0u8; key.size()];
/// x[key.size() - 1] = 42;
/// let y = key.raw_private(&mut os_rng(), &x).unwrap(); // x^d mod n
/// assert_eq!(key.public_key().raw_public(&y).unwrap(), x); // (x^d)^e = x
/// ```
pub struct RsaPrivateKey {
    public: RsaPublicKey,
    d: Secret,
    /// p, q, dP, dQ, qInv and their per-key arithmetic, built once.
    crt: Crt,
    blinding: Mutex<BlindingPool>,
}

impl core::fmt::Debug for RsaPrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RsaPrivateKey")
            .field("bits", &self.public.bits())
            .finish_non_exhaustive()
    }
}

impl Clone for RsaPrivateKey {
    fn clone(&self) -> Self {
        RsaPrivateKey {
            public: self.public.clone(),
            d: self.d.clone(),
            crt: self.crt.clone(),
            blinding: Mutex::new(BlindingPool::default()),
        }
    }
}

/// The numbers of a private key, big-endian.
///
/// ```
/// use redc::rsa::{PrivateComponents, RsaPrivateKey, keygen, os_rng};
/// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
/// let (n, e) = (key.public_key().n_bytes(), key.public_key().e_bytes());
/// let (d, p, q) = (key.d_bytes(), key.p_bytes(), key.q_bytes());
/// // Without the CRT values: they are computed.
/// let c = PrivateComponents { n: &n, e: &e, d: &d, p: &p, q: &q, crt: None };
/// let again = RsaPrivateKey::from_components(c).unwrap();
/// assert_eq!(*again.qinv_bytes(), *key.qinv_bytes());
/// ```
pub struct PrivateComponents<'a> {
    /// Modulus n.
    pub n: &'a [u8],
    /// Public exponent e.
    pub e: &'a [u8],
    /// Private exponent d.
    pub d: &'a [u8],
    /// First prime p.
    pub p: &'a [u8],
    /// Second prime q.
    pub q: &'a [u8],
    /// d mod (p-1), q^-1 mod p: computed when absent, checked when present.
    pub crt: Option<(&'a [u8], &'a [u8], &'a [u8])>,
}

fn secret(bytes: &[u8], limbs: usize) -> Result<Secret, Error> {
    let mut v = Zeroizing::new(vec![0u64; limbs]);
    limb::from_be_bytes_into(&mut v, bytes).map_err(|_| Error::InvalidKey("a CRT component is too long"))?;
    Ok(v)
}

/// The reasons [`prime_limbs`] gives, for p or for q.
struct PrimeErrors {
    zero: &'static str,
    one: &'static str,
    even: &'static str,
    short: &'static str,
    not_below_n: &'static str,
}

const PRIME_P: PrimeErrors = PrimeErrors {
    zero: "p is zero",
    one: "p is 1",
    even: "p is even",
    short: "p is shorter than 64 bits",
    not_below_n: "p is not below n (so q would be 1)",
};
const PRIME_Q: PrimeErrors = PrimeErrors {
    zero: "q is zero",
    one: "q is 1",
    even: "q is even",
    short: "q is shorter than 64 bits",
    not_below_n: "q is not below n (so p would be 1)",
};

/// Smallest prime accepted at import, in bits. Anything smaller factors n
/// at once; the floor also keeps p - 1 and q - 1 nonzero for the checks'
/// divisions.
pub const MIN_PRIME_BITS: usize = 64;

/// A prime factor from big-endian bytes, in its significant limbs, wiped
/// on drop. The prime's byte length is public (it is in the key file's
/// sizes); its value is read only to reject zero, one, even values and
/// values below 2^63 (a rejected key is not used).
fn prime_limbs(bytes: &[u8], why: &PrimeErrors) -> Result<Secret, Error> {
    let first = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    let significant = &bytes[first..];
    let Some(&top) = significant.first() else {
        return Err(Error::InvalidKey(why.zero));
    };
    let bits = 8 * significant.len() - top.leading_zeros() as usize;
    let v = secret(significant, significant.len().div_ceil(8))?;
    if bits == 1 {
        return Err(Error::InvalidKey(why.one));
    }
    if v[0] & 1 == 0 {
        return Err(Error::InvalidKey(why.even));
    }
    if bits < MIN_PRIME_BITS {
        return Err(Error::InvalidKey(why.short));
    }
    Ok(v)
}

/// The fault check's failure path, out of line, writing the whole `Err`
/// itself: then no join after the `leak_bool` branch selects the result's
/// discriminant from the (secret-derived) verdict. Otherwise the optimiser
/// may turn the two returns into a select and branch on it in the caller's
/// `?`, where the constant-time audit cannot see that it is the
/// declassified verdict.
#[cold]
#[inline(never)]
fn fault_detected(mut m: Secret) -> Result<Secret, Error> {
    m.zeroize();
    Err(Error::PrivateOperation)
}

impl RsaPrivateKey {
    /// A private key from its numbers (big-endian). Checks that p and q are
    /// odd, at least [`MIN_PRIME_BITS`] bits and below n, n = p q, p != q,
    /// d < n, and the CRT values (given or computed): dP < p - 1,
    /// dQ < q - 1, qInv < p, d = dP mod (p-1) and dQ mod (q-1),
    /// e dP = 1 mod (p-1), e dQ = 1 mod (q-1), q qInv = 1 mod p. Every
    /// degenerate input (a zero, one, even or equal prime, p = n) is an
    /// [`Error::InvalidKey`] saying which check failed, never a panic.
    /// Descriptive errors: this is key parsing, not a private operation.
    /// (Primality is not tested: a composite factor fails the fault check
    /// of every private operation instead.)
    ///
    /// ```
    /// use redc::rsa::{Error, PrivateComponents, RsaPrivateKey, keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let (n, e) = (key.public_key().n_bytes(), key.public_key().e_bytes());
    /// let (d, p, q) = (key.d_bytes(), key.p_bytes(), key.q_bytes());
    /// let (dp, dq, qinv) = (key.dp_bytes(), key.dq_bytes(), key.qinv_bytes());
    /// let crt = Some((&dp[..], &dq[..], &qinv[..]));
    /// let ok = PrivateComponents { n: &n, e: &e, d: &d, p: &p, q: &q, crt };
    /// assert_eq!(RsaPrivateKey::from_components(ok).unwrap().public_key(), key.public_key());
    /// let bad = PrivateComponents { n: &n, e: &e, d: &d, p: &p, q: &p, crt: None };
    /// assert_eq!(RsaPrivateKey::from_components(bad).unwrap_err(), Error::InvalidKey("n is not p * q"));
    /// ```
    pub fn from_components(c: PrivateComponents<'_>) -> Result<RsaPrivateKey, Error> {
        crate::scrub::scrubbed_setup(|| Self::from_components_in(c))
    }

    /// [`RsaPrivateKey::from_components`] inside the caller's stack scrub.
    fn from_components_in(c: PrivateComponents<'_>) -> Result<RsaPrivateKey, Error> {
        let public = RsaPublicKey::new(c.n, c.e)?;
        let n = public.engine().modulus();
        // Each prime in exactly its significant limbs, read straight into
        // wiped memory (no unwiped temporary holds any of its bytes).
        let p = prime_limbs(c.p, &PRIME_P)?;
        let q = prime_limbs(c.q, &PRIME_Q)?;
        for (x, why) in [(&p, PRIME_P.not_below_n), (&q, PRIME_Q.not_below_n)] {
            // Limb counts are public; with as many limbs as n, compare the values.
            if x.len() > n.len() || (x.len() == n.len() && !limb::ct_lt(x, n).leak_bool()) {
                return Err(Error::InvalidKey(why));
            }
        }
        let d = secret(c.d, n.len()).map_err(|_| Error::InvalidKey("d is longer than n"))?;
        if !limb::ct_lt(&d, n).leak_bool() {
            return Err(Error::InvalidKey("d is not below n"));
        }
        let pq = Zeroizing::new(nat::mul(&p, &q));
        let pq_n =
            Zeroizing::new(limb::resize(&pq, n.len()).map_err(|_| Error::InvalidKey("n is not p * q"))?);
        if !limb::ct_eq(&pq_n, n).leak_bool() {
            return Err(Error::InvalidKey("n is not p * q"));
        }
        if p.len() == q.len() && limb::ct_eq(&p, &q).leak_bool() {
            return Err(Error::InvalidKey("p equals q"));
        }
        // p, q >= 2^63 + 1 and odd: p - 1 and q - 1 are even and nonzero.
        let mut p1 = p.clone();
        p1[0] ^= 1; // p - 1 (p odd)
        let mut q1 = q.clone();
        q1[0] ^= 1;
        let (dp, dq, qinv) = match c.crt {
            Some((dp, dq, qinv)) => (
                secret(dp, p.len()).map_err(|_| Error::InvalidKey("dP is longer than p"))?,
                secret(dq, q.len()).map_err(|_| Error::InvalidKey("dQ is longer than q"))?,
                secret(qinv, p.len()).map_err(|_| Error::InvalidKey("qInv is longer than p"))?,
            ),
            None => {
                let dp = Zeroizing::new(nat::rem(&d, &p1));
                let dq = Zeroizing::new(nat::rem(&d, &q1));
                let qinv = inverse_mod_prime(&p, &q).map_err(|_| Error::InvalidKey("bad p"))?;
                (dp, dq, qinv)
            }
        };
        // Canonical CRT values: dP < p - 1, dQ < q - 1, qInv < p, and d
        // agrees with them (d mod (p-1) = dP, d mod (q-1) = dQ).
        if !limb::ct_lt(&dp, &p1).leak_bool() {
            return Err(Error::InvalidKey("dP is not below p - 1"));
        }
        if !limb::ct_lt(&dq, &q1).leak_bool() {
            return Err(Error::InvalidKey("dQ is not below q - 1"));
        }
        if !limb::ct_lt(&qinv, &p).leak_bool() {
            return Err(Error::InvalidKey("qInv is not below p"));
        }
        let d_p = Zeroizing::new(nat::rem(&d, &p1));
        let d_q = Zeroizing::new(nat::rem(&d, &q1));
        if !(limb::ct_eq(&d_p, &dp) & limb::ct_eq(&d_q, &dq)).leak_bool() {
            return Err(Error::InvalidKey("d does not match dP and dQ"));
        }
        // e dP = 1 mod (p-1), e dQ = 1 mod (q-1), q qInv = 1 mod p.
        let e = public.e_limbs().to_vec();
        let one_mod = |x: &[u64], m: &[u64]| -> bool {
            let x = Zeroizing::new(x.to_vec());
            let r = Zeroizing::new(nat::rem(&x, m));
            let mut one = Zeroizing::new(vec![0u64; m.len()]);
            one[0] = 1; // m has at least one limb (p, q >= 2^63)
            limb::ct_eq(&r, &one).leak_bool()
        };
        let (edp, edq) = (
            Zeroizing::new(nat::mul(&e, &dp)),
            Zeroizing::new(nat::mul(&e, &dq)),
        );
        if !one_mod(&edp, &p1) || !one_mod(&edq, &q1) {
            return Err(Error::InvalidKey("e, d and the primes do not match"));
        }
        let q_qinv = Zeroizing::new(nat::mul(&q, &qinv));
        if !one_mod(&q_qinv, &p) {
            return Err(Error::InvalidKey("qInv is not q^-1 mod p"));
        }
        Self::assemble(public, d, Crt::new(p, q, dp, dq, qinv)?)
    }

    /// Build the key from checked parts.
    pub(crate) fn assemble(public: RsaPublicKey, d: Secret, crt: Crt) -> Result<RsaPrivateKey, Error> {
        Ok(RsaPrivateKey {
            public,
            d,
            crt,
            blinding: Mutex::new(BlindingPool::default()),
        })
    }

    /// The same key with every engine (n, p, q) on a forced backend, for
    /// tests that must reach each backend this CPU has; `None` when this
    /// process cannot run it. Normal use never needs it:
    /// [`RsaPrivateKey::from_components`] picks the fastest.
    ///
    /// ```
    /// use redc::exp::Backend;
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let portable = key.with_backend(Backend::Portable).unwrap();
    /// assert_eq!(portable.kernel_names(), ["portable"; 3]);
    /// let x = vec![7u8; key.size()];
    /// assert_eq!(*portable.raw_private_os(&x).unwrap(), *key.raw_private_os(&x).unwrap());
    /// ```
    #[doc(hidden)]
    pub fn with_backend(&self, backend: crate::exp::Backend) -> Option<RsaPrivateKey> {
        crate::scrub::scrubbed_setup(|| {
            Some(RsaPrivateKey {
                public: self.public.with_backend(backend)?,
                crt: self.crt.with_backend(backend)?,
                ..self.clone()
            })
        })
    }

    /// The kernels of the engines of n, p and q ([`crate::exp::MontEngine::kernel_name`]).
    #[doc(hidden)]
    pub fn kernel_names(&self) -> [&'static str; 3] {
        let (p, q) = self.crt.kernel_names();
        [self.public.engine().kernel_name(), p, q]
    }

    /// The public half.
    ///
    /// ```
    /// use redc::rsa::{RsaPublicKey, keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let public: RsaPublicKey = key.to_public_key();
    /// drop(key); // the public key lives on alone
    /// assert_eq!(public.bits(), 1024);
    /// ```
    pub fn to_public_key(&self) -> RsaPublicKey {
        self.public.clone()
    }

    /// The public half, borrowed.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// assert_eq!(key.public_key().e_bytes(), [0x01, 0x00, 0x01]);
    /// ```
    pub fn public_key(&self) -> &RsaPublicKey {
        &self.public
    }

    /// Modulus size in bits.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// assert_eq!(key.bits(), 1024);
    /// ```
    pub fn bits(&self) -> usize {
        self.public.bits()
    }

    /// Modulus size in bytes.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// assert_eq!(key.size(), 128);
    /// ```
    pub fn size(&self) -> usize {
        self.public.size()
    }

    /// d, big-endian (no leading zeros), wiped on drop.
    ///
    /// ```
    /// use redc::{limb, nat, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// // e d = 1 mod (p - 1)
    /// let d = limb::from_be_bytes(&key.d_bytes());
    /// let mut p1 = limb::from_be_bytes(&key.p_bytes());
    /// p1[0] -= 1;
    /// let ed = nat::mul(&d, &[65537]);
    /// assert_eq!(limb::trim_vartime(&nat::rem(&ed, &p1)), [1]);
    /// ```
    pub fn d_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(trimmed_be(&self.d))
    }
    /// d as exactly k big-endian bytes (leading zeros kept): built without
    /// looking at d's bytes, for constant-time uses such as implicit rejection.
    pub(crate) fn d_be_fixed(&self) -> Zeroizing<Vec<u8>> {
        // d < n < 2^(8k): the bytes of d above k are zero and are not read.
        let k = self.size();
        let mut out = Zeroizing::new(vec![0u8; k]);
        for (i, byte) in out.iter_mut().rev().enumerate() {
            *byte = (self.d[i / 8] >> (8 * (i % 8))) as u8;
        }
        out
    }

    /// p, big-endian, wiped on drop.
    ///
    /// ```
    /// use redc::{limb, nat, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let (p, q) = (limb::from_be_bytes(&key.p_bytes()), limb::from_be_bytes(&key.q_bytes()));
    /// let n = limb::from_be_bytes(&key.public_key().n_bytes());
    /// assert_eq!(limb::trim_vartime(&nat::mul(&p, &q)), limb::trim_vartime(&n));
    /// ```
    pub fn p_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(trimmed_be(self.crt.p()))
    }
    /// q, big-endian, wiped on drop.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// assert_eq!(key.q_bytes().len(), 64); // a 512-bit prime
    /// assert_ne!(*key.q_bytes(), *key.p_bytes());
    /// ```
    pub fn q_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(trimmed_be(self.crt.q()))
    }
    /// d mod (p-1), big-endian, wiped on drop.
    ///
    /// ```
    /// use redc::{limb, nat, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let d = limb::from_be_bytes(&key.d_bytes());
    /// let mut p1 = limb::from_be_bytes(&key.p_bytes());
    /// p1[0] -= 1;
    /// let dp = limb::from_be_bytes(&key.dp_bytes());
    /// assert_eq!(limb::trim_vartime(&nat::rem(&d, &p1)), limb::trim_vartime(&dp));
    /// ```
    pub fn dp_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(trimmed_be(self.crt.dp()))
    }
    /// d mod (q-1), big-endian, wiped on drop.
    ///
    /// ```
    /// use redc::{limb, nat, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let d = limb::from_be_bytes(&key.d_bytes());
    /// let mut q1 = limb::from_be_bytes(&key.q_bytes());
    /// q1[0] -= 1;
    /// let dq = limb::from_be_bytes(&key.dq_bytes());
    /// assert_eq!(limb::trim_vartime(&nat::rem(&d, &q1)), limb::trim_vartime(&dq));
    /// ```
    pub fn dq_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(trimmed_be(self.crt.dq()))
    }
    /// q^-1 mod p, big-endian, wiped on drop.
    ///
    /// ```
    /// use redc::{limb, nat, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let (p, q) = (limb::from_be_bytes(&key.p_bytes()), limb::from_be_bytes(&key.q_bytes()));
    /// let qinv = limb::from_be_bytes(&key.qinv_bytes());
    /// assert_eq!(limb::trim_vartime(&nat::rem(&nat::mul(&q, &qinv), &p)), [1]);
    /// ```
    pub fn qinv_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(trimmed_be(self.crt.qinv()))
    }

    /// RSADP / RSASP1 on k-byte big-endian strings: `x^d mod n`, blinded
    /// with a fresh random r from `rng`, computed with CRT, and checked
    /// with e before it is released.
    ///
    /// Errors: [`Error::WrongLength`] and [`Error::OutOfRange`] for a bad
    /// input (public facts); [`Error::PrivateOperation`] for anything that
    /// goes wrong inside, including a detected fault.
    ///
    /// ```
    /// use redc::rsa::{Error, keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let mut x = vec![0u8; key.size()];
    /// x[key.size() - 1] = 7;
    /// let y = key.raw_private(&mut os_rng(), &x).unwrap();
    /// assert_eq!(key.public_key().raw_public(&y).unwrap(), x);
    /// let short = key.raw_private(&mut os_rng(), &[7]);
    /// assert_eq!(short.unwrap_err(), Error::WrongLength { expected: 128, got: 1 });
    /// ```
    pub fn raw_private<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        x: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        let mut c = self.public.input_limbs(x)?;
        let zero = ZeroInput::stand_in(&mut c);
        let m = self.private_op_limbs(rng, &c)?;
        let mut out = Zeroizing::new(self.public.output_bytes(&m));
        zero.restore(&mut out);
        Ok(out)
    }

    /// [`RsaPrivateKey::raw_private`] with the operating system's generator.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let mut x = vec![0u8; key.size()];
    /// x[key.size() - 1] = 7;
    /// let y = key.raw_private_os(&x).unwrap();
    /// assert_eq!(key.public_key().raw_public(&y).unwrap(), x);
    /// ```
    pub fn raw_private_os(&self, x: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        self.raw_private(&mut super::os_rng(), x)
    }

    /// The private operation on limbs: `c < n`, s_n limbs. The stack it
    /// used is wiped before it returns ([`crate::scrub`]).
    pub(crate) fn private_op_limbs<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        c: &[u64],
    ) -> Result<Secret, Error> {
        crate::scrub::scrubbed(|| self.private_op_unscrubbed(rng, c))
    }

    /// [`RsaPrivateKey::private_op_limbs`] for a caller that wipes the stack
    /// itself once its whole run is done (the batch path).
    pub(crate) fn private_op_unscrubbed<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        c: &[u64],
    ) -> Result<Secret, Error> {
        let blind = self.blind(rng)?;
        let (mp, mq) = self.crt.pow_private_blinded(c, &blind.re);
        self.finish(c, &mp, &mq, &blind.unblind)
    }

    /// The blinding pair of one operation, for a fresh random r (from the
    /// pool, see [`super::blinding`]): RFC 8017's blinded input c r^e is
    /// formed inside the exponentiations, from r^e's residues.
    pub(crate) fn blind<R: CryptoRng + ?Sized>(&self, rng: &mut R) -> Result<Blind, Error> {
        BlindingPool::take(&self.blinding, self.blinding_key(), rng)
    }

    /// What blinding reads of this key.
    pub(crate) fn blinding_key(&self) -> BlindingKey<'_> {
        BlindingKey {
            public: &self.public,
            crt: &self.crt,
        }
    }

    /// RFC 8017 steps after the exponentiations of the blinded input:
    /// Garner's recombination of `(mp, mq)`, unblinding, and the fault check
    /// against the input `c`.
    pub(crate) fn finish(
        &self,
        c: &[u64],
        mp: &Elem<P, Plain>,
        mq: &Elem<Q, Plain>,
        unblind: &[u64],
    ) -> Result<Secret, Error> {
        let m = self.unblinded(mp, mq, unblind);
        let check = Zeroizing::new(self.public.public_op_limbs(&m));
        self.checked(c, m, &check)
    }

    /// Garner's recombination of the blinded halves `(mp, mq)`, then
    /// unblinding: the candidate result m, not yet fault-checked.
    pub(crate) fn unblinded(&self, mp: &Elem<P, Plain>, mq: &Elem<Q, Plain>, unblind: &[u64]) -> Secret {
        let engine_n = self.public.engine();
        let mut m = self.crt.garner(mp, mq, engine_n.limbs());
        // m = m' r^-1 mod n (unblind holds r^-1 R mod n).
        engine_n.mul_in_place(&mut m, unblind, &mut engine_n.workspace());
        m
    }

    /// The fault check (RFC 8017 leaves it to the implementation): `check`,
    /// which is m^e mod n, must give back the input c. x -> x^e permutes Z_n
    /// (gcd(e, lambda(n)) = 1), so any wrong m (a fault in either half, in
    /// Garner's step or in unblinding) fails it. m^e is computed mod the
    /// PUBLIC modulus n (on n's single-modulus kernel, or, for a batch, in
    /// an eight-lane run whose lanes hold n), apart from the p and q moduli
    /// and tables that produced m, so one corrupted value there cannot also
    /// vouch for its own result; and with the public exponent, so a fault in
    /// dP or dQ cannot cancel. m is released only when the check passes.
    pub(crate) fn checked(&self, c: &[u64], m: Secret, check: &[u64]) -> Result<Secret, Error> {
        if !limb::ct_eq(check, c).leak_bool() {
            return fault_detected(m);
        }
        Ok(m)
    }

    /// The CRT value (the eight-lane batch path and tests read it).
    #[cfg(any(test, target_arch = "x86_64"))]
    pub(crate) fn crt(&self) -> &Crt {
        &self.crt
    }

    /// d as limbs (for tests that rebuild a key around a corrupted part).
    #[cfg(test)]
    pub(crate) fn d_limbs(&self) -> &[u64] {
        &self.d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsa::{keygen, os_rng};

    /// A fault in one CRT half (here a corrupted dP, standing in for a
    /// glitched exponentiation) must give the opaque error and no output.
    #[test]
    fn a_faulty_half_never_releases_a_result() {
        let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
        let mut dp = Zeroizing::new(key.crt.dp().to_vec());
        dp[0] ^= 4;
        let s = |x: &[u64]| Zeroizing::new(x.to_vec());
        let crt = Crt::new(
            s(key.crt.p()),
            s(key.crt.q()),
            dp,
            s(key.crt.dq()),
            s(key.crt.qinv()),
        )
        .unwrap();
        let faulty = RsaPrivateKey::assemble(key.public.clone(), key.d.clone(), crt).unwrap();
        let mut x = vec![0u8; key.size()];
        x[5] = 7;
        x[key.size() - 1] = 1;
        assert!(key.raw_private_os(&x).is_ok());
        assert_eq!(faulty.raw_private_os(&x).unwrap_err(), Error::PrivateOperation);
    }
}

/// The input 0, which blinding cannot hide: c r^e = 0 for c = 0 only, so
/// for that one input every product of both exponentiations, and the fault
/// check's m^e, would run on zeros, which can run measurably faster than
/// random data through the same instructions (a data effect of the
/// hardware: docs/CONSTANT_TIME.md, "Findings on other CPUs", the zero
/// input). The input is public and 0^d = 0 tells nothing, but the run's
/// time should not be set by its data. So the private operation on 0 runs
/// on the stand-in 1 (blinded to r^e, as random as any input) and its
/// result, 1, is replaced by 0.
///
/// Without a branch, although c is public: with a branch the zero class
/// would pay a full scan where other inputs stop at their first limb, two
/// mispredictions and a fill, which measured a larger difference than the
/// one it removes (same section of docs/CONSTANT_TIME.md). Here every input
/// pays one full scan and one masked pass over the output.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ZeroInput(Mask);

impl Default for ZeroInput {
    fn default() -> ZeroInput {
        ZeroInput(Mask::FALSE)
    }
}

impl ZeroInput {
    /// When `c` (below n, at least one limb) is 0, make it 1.
    pub(crate) fn stand_in(c: &mut [u64]) -> ZeroInput {
        let zero = Mask::is_zero(c.iter().fold(0, |acc, &w| acc | w));
        c[0] |= zero.word() & 1;
        ZeroInput(zero)
    }

    /// The result for the original input: 0 (as k bytes) in place of the
    /// stand-in's 1; else `out` unchanged.
    pub(crate) fn restore(self, out: &mut [u8]) {
        let keep = (!self.0).word() as u8;
        for b in out.iter_mut() {
            *b &= keep;
        }
    }
}
