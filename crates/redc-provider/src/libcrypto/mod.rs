//! What the provider calls in the OpenSSL that loaded it: the core's error
//! queue (`errors`), async jobs ([`async_job`], for [`crate::queue`]) and
//! the private DRBG ([`rand`], for [`crate::rng`]).
//!
//! The safe modules call these, and nothing here calls into them or into
//! the provider's C face ([`crate::ffi`]): the dependencies run one way,
//! `ffi` to the operations (`keys`, `sig`, `cipher`, `queue`, `rng`) to
//! `libcrypto`. Like [`crate::ffi`], this module has `unsafe`, each block
//! with the reason it is sound.

pub mod async_job;
pub(crate) mod errors;
pub mod rand;
