//! redc: fast, constant-time RSA built on Montgomery multiplication.
//!
//! Generate, save, load, sign, verify, encrypt and decrypt:
//!
//! ```
//! use redc::rsa::{RsaPrivateKey, RsaPublicKey, os_rng, pkcs1v15::SigningKey};
//! use redc::{hash::HashAlg, pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding}};
//! use redc::sha2::Sha256;
//! use redc::signature::{Signer, Verifier};
//!
//! let key = RsaPrivateKey::new(&mut os_rng(), 2048)?;            // e = 65537
//! let pem = key.to_pkcs8_pem(LineEnding::LF)?;                    // PKCS#8, as `openssl genrsa`
//! let key = RsaPrivateKey::from_pkcs8_pem(&pem)?;                 // or RsaPrivateKey::from_key_file
//! let public = RsaPublicKey::from(&key);
//!
//! let signer = SigningKey::<Sha256>::new(key.clone());           // RSASSA-PKCS1-v1_5 (or rsa::pss)
//! let sig = signer.sign(b"message");
//! signer.verifying_key().verify(b"message", &sig)?;
//! let msgs: [&[u8]; 3] = [b"one", b"two", b"three"];
//! let sigs = signer.try_sign_batch(&msgs)?;                      // many at once: faster
//! signer.verifying_key().verify(b"two", &sigs[1])?;
//!
//! let ct = public.encrypt_oaep(&mut os_rng(), HashAlg::Sha256, b"", b"secret")?;
//! assert_eq!(&key.decrypt_oaep(HashAlg::Sha256, b"", &ct)?[..], b"secret");
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```
//!
//! Typed keys name the hash as a type (`SigningKey::<Sha256>`), as the
//! `signature` crate's traits do; the byte-level methods
//! ([`rsa::RsaPrivateKey::sign_pkcs1v15`], `encrypt_oaep`, ...) take a
//! [`hash::HashAlg`] value, which a program can choose at run time, and
//! `HashAlg::of::<Sha256>()` is the one for a type.
//!
//! Coming from the `rsa` crate? [`migration`] maps each of its calls to
//! redc's. redc implements the traits of RustCrypto's current generation,
//! the one `rsa` 0.10 builds on: [signature] 3, [pkcs1] 0.8, [pkcs8] 0.11,
//! [spki] 0.8, `rand_core` 0.10. Those crates (and [sha2] 0.11, `sha1`,
//! `sha3`) are re-exported here, so that `redc::signature`,
//! `redc::pkcs8`, ... always match redc's versions.
//!
//! [signature]: https://docs.rs/signature/3
//! [pkcs1]: https://docs.rs/pkcs1/0.8
//! [pkcs8]: https://docs.rs/pkcs8/0.11
//! [spki]: https://docs.rs/spki/0.8
//! [sha2]: https://docs.rs/sha2/0.11
//!
//! The layers, bottom up:
//! - [`ct`]: masks for secret-dependent choices without branches;
//! - [`limb`]: little-endian `u64` limb arithmetic, constant time for
//!   equal-length inputs;
//! - [`elem`]: secret residues typed by their prime and encoding, the
//!   currency between the CRT layer and the engines;
//! - [`mont`]: the Montgomery context for an odd modulus and every
//!   multiplication algorithm of the seed papers, one module each;
//! - [`exp`], [`rsa`], [`padding`], [`keyfile`]: exponentiation, keys and
//!   the RFC 8017 schemes, key files.
//!
//! ```
//! use redc::mont::{MontContext, Variant};
//! let ctx = MontContext::from_hex("f1").unwrap(); // N = 241, R = 2^64
//! let a = ctx.to_mont(&[17]).unwrap();
//! let b = ctx.to_mont(&[30]).unwrap();
//! let ab = ctx.mul(Variant::Cios, &a, &b).unwrap();
//! assert_eq!(ctx.from_mont(&ab).unwrap(), vec![17 * 30 % 241]);
//! ```

// `unsafe` lives only in `arch`, behind CPU-feature dispatch, each kernel
// with a portable twin and a differential test against it.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod arch;
pub mod ct;
pub mod elem;
pub mod error;
pub mod exp;
pub mod hash;
pub mod keyfile;
pub mod limb;
pub mod mont;
pub mod nat;
pub mod padding;
pub mod rsa;
pub mod scrub;
mod variant;

pub use error::Error;

// The trait crates of the public API, re-exported so that users name the
// very versions redc implements.
pub use pkcs1;
pub use pkcs8;
pub use sha1;
pub use sha2;
pub use sha3;
pub use signature;
pub use spki;

#[doc = include_str!("migration.md")]
pub mod migration {}
