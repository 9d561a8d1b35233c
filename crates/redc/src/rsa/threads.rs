//! Every core: the batch API ([`super::batch`]) split over threads.
//!
//! The operations are cut into one contiguous run per thread, each run a
//! multiple of the eight-lane group (four operations) except the last, so
//! every thread fills its kernel runs as the one-thread path would; results
//! are joined back in input order. Each thread draws its blinding factors
//! (and PSS salts) from its own handle on the operating system's generator
//! ([`super::os_rng`]): a caller's generator cannot be shared across threads.
//!
//! Threads are scoped (`std::thread::scope`), started per call and joined
//! before it returns; a call with fewer operations than one group per
//! thread uses fewer threads. Which operation lands on which thread depends
//! only on its index (public), never on a key's secrets.

use super::Error;
use super::batch::raw_private_many;
use super::os_rng;
use super::private::RsaPrivateKey;
use crate::hash::HashAlg;
use zeroize::Zeroizing;

/// Operations per eight-lane run: a thread's run is a multiple of it.
const GROUP: usize = 4;

/// The thread count for `threads` (0: every core the system reports).
///
/// ```
/// assert!(redc::rsa::thread_count(0) >= 1);
/// assert_eq!(redc::rsa::thread_count(3), 3);
/// ```
pub fn thread_count(threads: usize) -> usize {
    if threads > 0 {
        return threads;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `work` on contiguous runs of `items` in up to `threads` scoped threads;
/// the outputs joined in input order. `work` returns one output per item.
fn split<T: Sync, U: Send>(items: &[T], threads: usize, work: impl Fn(&[T]) -> Vec<U> + Sync) -> Vec<U> {
    let threads = thread_count(threads);
    // Per thread: an equal share, rounded up to whole groups.
    let run = items.len().div_ceil(threads).div_ceil(GROUP).max(1) * GROUP;
    if threads == 1 || items.len() <= run {
        return work(items);
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(run)
            .map(|chunk| scope.spawn(|| work(chunk)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(out) => out,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

/// [`raw_private_many`] over `threads` threads (0: every core); results
/// in input order.
///
/// ```
/// use redc::rsa::{RsaPrivateKey, keygen, os_rng, raw_private_many_threads};
/// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
/// let inputs: Vec<Vec<u8>> = (1..=9u8).map(|i| { let mut x = vec![0u8; 128]; x[127] = i; x }).collect();
/// let ops: Vec<(&RsaPrivateKey, &[u8])> = inputs.iter().map(|x| (&key, &x[..])).collect();
/// let outs = raw_private_many_threads(&ops, 2);
/// for (x, y) in inputs.iter().zip(&outs) {
///     assert_eq!(key.public_key().raw_public(y.as_ref().unwrap()).unwrap(), *x);
/// }
/// ```
pub fn raw_private_many_threads(
    ops: &[(&RsaPrivateKey, &[u8])],
    threads: usize,
) -> Vec<Result<Zeroizing<Vec<u8>>, Error>> {
    split(ops, threads, |run| raw_private_many(&mut os_rng(), run))
}

impl RsaPrivateKey {
    /// [`RsaPrivateKey::sign_pkcs1v15_batch`] over `threads` threads (0:
    /// every core), blinding from the OS generator; byte for byte the
    /// one-thread signatures, in input order.
    ///
    /// ```
    /// use redc::{hash::HashAlg, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let digests: Vec<Vec<u8>> = (0..10u8).map(|i| HashAlg::Sha256.digest(&[i])).collect();
    /// let refs: Vec<&[u8]> = digests.iter().map(|d| &d[..]).collect();
    /// let sigs = key.sign_pkcs1v15_batch_threads(HashAlg::Sha256, &refs, 2);
    /// let one = key.sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, &digests[9]).unwrap();
    /// assert_eq!(*sigs[9].as_ref().unwrap(), one);
    /// ```
    pub fn sign_pkcs1v15_batch_threads(
        &self,
        hash: HashAlg,
        digests: &[&[u8]],
        threads: usize,
    ) -> Vec<Result<Vec<u8>, Error>> {
        split(digests, threads, |run| {
            self.sign_pkcs1v15_batch(&mut os_rng(), hash, run)
        })
    }

    /// [`RsaPrivateKey::sign_pss_batch`] over `threads` threads (0: every
    /// core), salts and blinding from the OS generator; in input order.
    ///
    /// ```
    /// use redc::{hash::HashAlg, padding::SaltLen, rsa::{keygen, os_rng}};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let digests: Vec<Vec<u8>> = (0..10u8).map(|i| HashAlg::Sha384.digest(&[i])).collect();
    /// let refs: Vec<&[u8]> = digests.iter().map(|d| &d[..]).collect();
    /// let sigs = key.sign_pss_batch_threads(HashAlg::Sha384, &refs, None, 2);
    /// let public = key.public_key();
    /// public.verify_pss(HashAlg::Sha384, &digests[7], sigs[7].as_ref().unwrap(), SaltLen::Exact(48)).unwrap();
    /// ```
    pub fn sign_pss_batch_threads(
        &self,
        hash: HashAlg,
        digests: &[&[u8]],
        salt_len: Option<usize>,
        threads: usize,
    ) -> Vec<Result<Vec<u8>, Error>> {
        split(digests, threads, |run| {
            self.sign_pss_batch(&mut os_rng(), hash, run, salt_len)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item goes through `work` once, in order, whatever the split.
    #[test]
    fn split_keeps_order_and_covers_every_item() {
        for len in [0usize, 1, 3, 4, 5, 8, 9, 17, 33] {
            for threads in [1usize, 2, 3, 8] {
                let items: Vec<usize> = (0..len).collect();
                let out = split(&items, threads, |run| run.iter().map(|x| x * 10).collect());
                let want: Vec<usize> = (0..len).map(|x| x * 10).collect();
                assert_eq!(out, want, "len {len}, threads {threads}");
            }
        }
    }

    /// Runs are whole groups (but the last): the split never cuts a group.
    #[test]
    fn runs_are_whole_groups() {
        let items: Vec<usize> = (0..30).collect();
        let runs = std::sync::Mutex::new(Vec::new());
        split(&items, 2, |run| {
            runs.lock().unwrap().push(run.len());
            run.to_vec()
        });
        let mut runs = runs.into_inner().unwrap();
        runs.sort();
        assert_eq!(runs, vec![14, 16]);
    }
}
