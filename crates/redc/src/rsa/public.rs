//! RSA public keys and the public primitive (RFC 8017 section 5.1.1 RSAEP,
//! section 5.2.2 RSAVP1: the same computation, c = m^e mod n).
//!
//! Everything in a public key is public: the exponentiation is the
//! variable-time sliding window ([`crate::exp::sliding`]).

use super::Error;
use super::parts::BigParts;
use crate::exp::MontEngine;
use crate::limb;
use crate::rsa::crt::Secret;
use zeroize::Zeroizing;

/// Smallest and largest moduli accepted, in bits.
///
/// ```
/// use redc::rsa::{Error, MIN_BITS, RsaPublicKey};
/// assert_eq!(MIN_BITS, 512);
/// assert_eq!(RsaPublicKey::new(&[0xff; 63], &[3]), Err(Error::UnsupportedKeySize(504)));
/// ```
pub const MIN_BITS: usize = 512;
/// See [`MIN_BITS`].
///
/// ```
/// use redc::rsa::{Error, MAX_BITS, RsaPublicKey};
/// assert_eq!(MAX_BITS, 16384);
/// let too_big = vec![u64::MAX; MAX_BITS / 64 + 1];
/// assert_eq!(RsaPublicKey::from_limbs(&too_big, &[3]), Err(Error::UnsupportedKeySize(MAX_BITS + 64)));
/// ```
pub const MAX_BITS: usize = 16384;

/// Moduli above this many bits take public exponents of at most
/// [`MAX_PUBEXP_BITS`] bits (OpenSSL's `RSA_SMALL_MODULUS_BITS`).
///
/// ```
/// use redc::rsa::{Error, RsaPublicKey, SMALL_MODULUS_BITS};
/// let n = vec![0xff; SMALL_MODULUS_BITS / 8 + 1]; // 3080 bits
/// let e = [&[1u8][..], &[0; 8], &[1]].concat(); // 2^72 + 1: 73 bits
/// assert_eq!(RsaPublicKey::new(&n, &e), Err(Error::ExponentTooLarge { modulus_bits: 3080, exponent_bits: 73 }));
/// assert!(RsaPublicKey::new(&n[1..], &e).is_ok()); // 3072 bits: no bound but e < n
/// ```
pub const SMALL_MODULUS_BITS: usize = 3072;
/// See [`SMALL_MODULUS_BITS`] (OpenSSL's `RSA_MAX_PUBEXP_BITS`).
pub const MAX_PUBEXP_BITS: usize = 64;

/// An RSA public key (n, e).
///
/// ```
/// use redc::rsa::{RsaPublicKey, keygen, os_rng};
/// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
/// let public: RsaPublicKey = key.to_public_key();
/// assert_eq!(public.bits(), 1024);
/// assert_eq!(RsaPublicKey::new(&public.n_bytes(), &public.e_bytes()).unwrap(), public);
/// ```
#[derive(Clone, Debug)]
pub struct RsaPublicKey {
    e: Vec<u64>,
    bits: usize,
    engine: MontEngine,
    /// n and e for [`super::PublicKeyParts`].
    big: BigParts,
}

impl PartialEq for RsaPublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.engine.modulus() == other.engine.modulus() && self.e == other.e
    }
}
impl Eq for RsaPublicKey {}

impl RsaPublicKey {
    /// A public key from big-endian n and e. Errors: n even or outside
    /// 512..=16384 bits, e even, below 3 or not below n, e over 64 bits
    /// with n over 3072 bits ([`SMALL_MODULUS_BITS`]).
    ///
    /// ```
    /// # use redc::rsa::RsaPublicKey;
    /// // A 512-bit odd modulus (0xcfcf...cf) and e = 65537.
    /// let key = RsaPublicKey::new(&[0xcf; 64], &[1, 0, 1]).unwrap();
    /// assert_eq!(key.bits(), 512);
    /// assert!(RsaPublicKey::new(&[0x0f; 64], &[1, 0, 1]).is_err()); // 508 bits: too small
    /// ```
    pub fn new(n: &[u8], e: &[u8]) -> Result<RsaPublicKey, Error> {
        Self::from_limbs(&limb::from_be_bytes(n), &limb::from_be_bytes(e))
    }

    /// [`RsaPublicKey::new`] from little-endian limbs.
    ///
    /// ```
    /// use redc::rsa::{Error, RsaPublicKey};
    /// let key = RsaPublicKey::from_limbs(&[u64::MAX; 8], &[65537]).unwrap();
    /// assert_eq!(key.bits(), 512);
    /// let mut even = [u64::MAX; 8];
    /// even[0] -= 1;
    /// assert_eq!(RsaPublicKey::from_limbs(&even, &[65537]), Err(Error::InvalidKey("the modulus is even")));
    /// ```
    pub fn from_limbs(n: &[u64], e: &[u64]) -> Result<RsaPublicKey, Error> {
        let n = limb::trim_vartime(n);
        let bits = limb::bit_len_vartime(n);
        if !(MIN_BITS..=MAX_BITS).contains(&bits) {
            return Err(Error::UnsupportedKeySize(bits));
        }
        if n[0] & 1 == 0 {
            return Err(Error::InvalidKey("the modulus is even"));
        }
        let e = limb::trim_vartime(e).to_vec();
        let e_bits = limb::bit_len_vartime(&e);
        let e_below_n = e.len() < n.len() || (e.len() == n.len() && limb::ct_lt(&e, n).leak_bool()); // public values
        if e.first().is_none_or(|&e0| e0 & 1 == 0) || e_bits < 2 || !e_below_n {
            return Err(Error::InvalidExponent);
        }
        // The public operation's cost grows with e's length: bound it as
        // OpenSSL does (RSA_MAX_PUBEXP_BITS above RSA_SMALL_MODULUS_BITS).
        if bits > SMALL_MODULUS_BITS && e_bits > MAX_PUBEXP_BITS {
            return Err(Error::ExponentTooLarge {
                modulus_bits: bits,
                exponent_bits: e_bits,
            });
        }
        let engine = MontEngine::new(n).map_err(|_| Error::InvalidKey("the modulus is not odd"))?;
        let big = BigParts::new(n, &e);
        Ok(RsaPublicKey { e, bits, engine, big })
    }

    /// Modulus size in bits.
    ///
    /// ```
    /// use redc::rsa::RsaPublicKey;
    /// let n = [&[0x01][..], &[0xff; 64]].concat(); // 2^513 - 1
    /// assert_eq!(RsaPublicKey::new(&n, &[3]).unwrap().bits(), 513);
    /// ```
    pub fn bits(&self) -> usize {
        self.bits
    }

    /// Modulus size in bytes, k in RFC 8017.
    ///
    /// ```
    /// use redc::rsa::RsaPublicKey;
    /// let n = [&[0x01][..], &[0xff; 64]].concat(); // 513 bits
    /// assert_eq!(RsaPublicKey::new(&n, &[3]).unwrap().size(), 65);
    /// ```
    pub fn size(&self) -> usize {
        self.bits.div_ceil(8)
    }

    /// n, big-endian, no leading zeros.
    ///
    /// ```
    /// use redc::rsa::RsaPublicKey;
    /// let key = RsaPublicKey::new(&[&[0, 0][..], &[0xff; 64]].concat(), &[3]).unwrap();
    /// assert_eq!(key.n_bytes(), [0xff; 64]); // leading zeros dropped
    /// ```
    pub fn n_bytes(&self) -> Vec<u8> {
        trimmed_be(self.engine.modulus())
    }

    /// e, big-endian, no leading zeros.
    ///
    /// ```
    /// use redc::rsa::RsaPublicKey;
    /// let key = RsaPublicKey::new(&[0xff; 64], &[0, 1, 0, 1]).unwrap();
    /// assert_eq!(key.e_bytes(), [1, 0, 1]);
    /// ```
    pub fn e_bytes(&self) -> Vec<u8> {
        trimmed_be(&self.e)
    }

    /// e, little-endian limbs. (`e()` is [`PublicKeyParts::e`], a
    /// `BigUint` as in the `rsa` crate.)
    ///
    /// [`PublicKeyParts::e`]: super::PublicKeyParts::e
    ///
    /// ```
    /// use redc::rsa::RsaPublicKey;
    /// let key = RsaPublicKey::new(&[0xff; 64], &[1, 0, 1]).unwrap();
    /// assert_eq!(key.e_limbs(), [65537]);
    /// ```
    pub fn e_limbs(&self) -> &[u64] {
        &self.e
    }

    /// The Montgomery engine of n.
    ///
    /// ```
    /// use redc::rsa::RsaPublicKey;
    /// let key = RsaPublicKey::new(&[0xff; 64], &[3]).unwrap();
    /// assert_eq!(key.engine().modulus(), [u64::MAX; 8]);
    /// // 2^3 mod n, with the engine directly.
    /// assert_eq!(key.engine().pow_public_vartime(&[2], &[3]).unwrap()[0], 8);
    /// ```
    pub fn engine(&self) -> &MontEngine {
        &self.engine
    }

    /// n and e as `BigUint`s, for [`super::PublicKeyParts`].
    pub(crate) fn big(&self) -> &BigParts {
        &self.big
    }

    /// The same key on a forced backend, or `None` when this process
    /// cannot run it (see [`crate::exp::Backend`]).
    #[doc(hidden)]
    pub fn with_backend(&self, backend: crate::exp::Backend) -> Option<RsaPublicKey> {
        let engine = MontEngine::with_backend(self.engine.modulus(), backend).ok()??;
        Some(RsaPublicKey {
            e: self.e.clone(),
            bits: self.bits,
            engine,
            big: self.big.clone(),
        })
    }

    /// Parse an RSA primitive's input: exactly k big-endian bytes, below n.
    pub(crate) fn input_limbs(&self, x: &[u8]) -> Result<Vec<u64>, Error> {
        if x.len() != self.size() {
            return Err(Error::WrongLength {
                expected: self.size(),
                got: x.len(),
            });
        }
        let mut v = vec![0u64; self.engine.limbs()];
        limb::from_be_bytes_into(&mut v, x).map_err(|_| Error::OutOfRange)?;
        if !limb::ct_lt(&v, self.engine.modulus()).leak_bool() {
            return Err(Error::OutOfRange);
        }
        Ok(v)
    }

    /// k big-endian bytes of a value below n.
    pub(crate) fn output_bytes(&self, v: &[u64]) -> Vec<u8> {
        let mut out = vec![0u8; self.size()];
        limb::to_be_bytes_into(&mut out, v).expect("value below n fits k bytes");
        out
    }

    /// RSAEP / RSAVP1: `x^e mod n` on k-byte big-endian strings.
    /// Errors: [`Error::WrongLength`], [`Error::OutOfRange`].
    ///
    /// ```
    /// use redc::rsa::{Error, RsaPublicKey};
    /// let key = RsaPublicKey::new(&[0xff; 64], &[3]).unwrap();
    /// let mut x = [0u8; 64];
    /// x[63] = 2;
    /// let y = key.raw_public(&x).unwrap();
    /// assert_eq!((y.len(), y[63]), (64, 8)); // 2^3
    /// assert_eq!(key.raw_public(&[2]), Err(Error::WrongLength { expected: 64, got: 1 }));
    /// assert_eq!(key.raw_public(&[0xff; 64]), Err(Error::OutOfRange)); // x = n
    /// ```
    pub fn raw_public(&self, x: &[u8]) -> Result<Vec<u8>, Error> {
        let v = self.input_limbs(x)?;
        let y = self
            .engine
            .pow_public_vartime(&v, &self.e)
            .expect("input is reduced");
        Ok(self.output_bytes(&y))
    }

    /// `x^e mod n` on limbs (x < n, s limbs).
    /// `x` may be secret (a blinding factor, a result being fault-checked):
    /// it is not compared with n again, as that check's answer is known.
    pub(crate) fn public_op_limbs(&self, x: &[u64]) -> Vec<u64> {
        debug_assert_eq!(x.len(), self.engine.limbs());
        self.engine.pow_public_reduced(x, &self.e)
    }

    /// [`RsaPublicKey::public_op_limbs`] for many `(key, x)` at once (keys
    /// may differ): eight per run of the eight-lane kernel where at least
    /// [`MB8_MIN_LANES`] operations share n's digit count (at most 40: n of
    /// up to 2080 bits) and the exponent, the rest one at a time. An
    /// eight-lane run at 40 digits costs about what four single-modulus
    /// runs do (docs/PERFORMANCE.md, "Eight-lane public operations: one run
    /// against four single runs"). Constant time in every x; only counts,
    /// sizes and exponents (public) choose.
    pub(crate) fn public_op_many(ops: &[(&RsaPublicKey, &[u64])]) -> Vec<Secret> {
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut out: Vec<Option<Vec<u64>>> = vec![None; ops.len()];
        #[cfg(target_arch = "x86_64")]
        {
            use crate::arch::x86_64::{self as x86, ifma};
            // Operations by (digit count, exponent), in input order.
            type Class<'a> = (usize, &'a [u64]);
            let mut groups: Vec<(Class<'_>, Vec<usize>)> = Vec::new();
            for (i, (key, _)) in ops.iter().enumerate() {
                let Some(digits) = key.mb8_digits() else {
                    continue;
                };
                let class = (digits, key.e_limbs());
                match groups.iter_mut().find(|(c, _)| *c == class) {
                    Some((_, v)) => v.push(i),
                    None => groups.push((class, vec![i])),
                }
            }
            for ((_, e), members) in groups {
                for run in members
                    .chunks(ifma::mb8::LANES)
                    .filter(|r| r.len() >= MB8_MIN_LANES)
                {
                    // Unused lanes repeat the run's first operation.
                    let lane = |l: usize| ops[run[if l < run.len() { l } else { 0 }]];
                    let moduli =
                        core::array::from_fn(|l| lane(l).0.engine.ifma52().expect("grouped above").radix52());
                    let Some(ys) = x86::pow_public_mb8(moduli, core::array::from_fn(|l| lane(l).1), e) else {
                        continue;
                    };
                    for (&i, mut y) in run.iter().zip(ys) {
                        y.resize(ops[i].0.engine.limbs(), 0);
                        out[i] = Some(y);
                    }
                }
            }
        }
        ops.iter()
            .zip(out)
            .map(|((key, x), y)| Zeroizing::new(y.unwrap_or_else(|| key.public_op_limbs(x))))
            .collect()
    }

    /// n's digit count in the eight-lane kernel, when it runs n (this CPU
    /// has IFMA and n has at most 40 digits of 52 bits).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn mb8_digits(&self) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        {
            let m = self.engine.ifma52()?;
            crate::arch::x86_64::mb8_runs(m.digits()).then_some(m.digits())
        }
        #[cfg(not(target_arch = "x86_64"))]
        None
    }
}

/// The fewest operations of one size worth an eight-lane run in
/// [`RsaPublicKey::public_op_many`] (see there).
#[cfg(target_arch = "x86_64")]
const MB8_MIN_LANES: usize = 4;

/// Big-endian bytes without leading zeros (at least one byte).
/// The full-width temporary is wiped: `x` may be secret (qInv, a prime).
pub(crate) fn trimmed_be(x: &[u64]) -> Vec<u8> {
    let bytes = zeroize::Zeroizing::new(limb::to_be_bytes(x));
    let first = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len() - 1);
    bytes[first..].to_vec()
}
