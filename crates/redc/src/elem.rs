//! Secret residues with their prime and encoding in the type: the values
//! that cross between a private key's CRT layer ([`crate::rsa`]) and the
//! engines that exponentiate both halves ([`crate::exp::DualEngine`] and,
//! on x86-64, the dual IFMA kernel's `DualKey`).
//!
//! A value mod p is an [`Elem<P, E>`], a value mod q an [`Elem<Q, E>`]; `E`
//! says the encoding: [`Plain`] (x itself, fully reduced) or [`Mont`]
//! (x R mod the prime, R = 2^(64 s) for the prime's s limbs). Passing q's
//! residue where p's is meant, or a Montgomery form where a plain value is
//! meant, does not compile. Every element is in radix 2^64, in its prime's
//! limb count: a kernel with another radix converts on its way in and out,
//! once each, and nowhere else.
//!
//! The types name the prime's role in a pair, not the key: an element of
//! one key's p is an `Elem<P, _>` for every key. Inside the crate only the
//! CRT layer makes elements from numbers mod n (`Crt::reduce_p`,
//! `Crt::reduce_q`), and the engines return them.
//!
//! Secrets: every element. Wiped on drop; `Debug` prints nothing of it.

use core::marker::PhantomData;

use zeroize::Zeroizing;

/// The first prime of a CRT pair, p (the modulus of Garner's step).
pub enum P {}
/// The second prime, q.
pub enum Q {}
/// Encoding: the value itself, fully reduced.
pub enum Plain {}
/// Encoding: Montgomery form, x R mod the prime.
pub enum Mont {}

/// A secret value mod the prime `M` in encoding `E`: little-endian `u64`
/// limbs, the prime's limb count, fully reduced. Wiped on drop.
pub struct Elem<M, E> {
    limbs: Zeroizing<Vec<u64>>,
    _domain: PhantomData<(M, E)>,
}

/// Both halves of one value: (x mod p, x mod q).
pub type Halves = (Elem<P, Plain>, Elem<Q, Plain>);

impl<M, E> Elem<M, E> {
    /// The element whose limbs are `limbs`, on the caller's word that they
    /// are below the prime `M` and in its limb count: nothing here can
    /// check it (the prime is not at hand), and the engines that take it
    /// check only the length. For values made outside the crate's CRT
    /// layer: tests, benchmarks, and programs driving the engines directly.
    ///
    /// ```
    /// use redc::elem::{Elem, P, Plain};
    /// let x: Elem<P, Plain> = Elem::assume_reduced(vec![7]);
    /// assert_eq!(x.limbs(), &[7]);
    /// ```
    pub fn assume_reduced(limbs: Vec<u64>) -> Self {
        Elem {
            limbs: Zeroizing::new(limbs),
            _domain: PhantomData,
        }
    }

    /// The limbs (little-endian, the prime's limb count).
    pub fn limbs(&self) -> &[u64] {
        &self.limbs
    }
}

impl<M, E> Clone for Elem<M, E> {
    fn clone(&self) -> Self {
        Elem::assume_reduced(self.limbs.to_vec())
    }
}

impl<M, E> core::fmt::Debug for Elem<M, E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Elem").finish_non_exhaustive()
    }
}
