//! redc: fast, constant-time RSA built on Montgomery multiplication.
//!
//! The layers, bottom up:
//! - [`ct`]: masks for secret-dependent choices without branches;
//! - [`limb`]: little-endian `u64` limb arithmetic, constant time for
//!   equal-length inputs;
//! - [`mont`]: the Montgomery context for an odd modulus and every
//!   multiplication algorithm of the seed papers, one module each.
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
pub mod error;
pub mod exp;
pub mod hash;
pub mod keyfile;
pub mod limb;
pub mod mont;
pub mod nat;
pub mod padding;
pub mod rsa;

pub use error::Error;
