//! Batching inside servers (issue 13, item 5): private operations that
//! OpenSSL runs inside async jobs (`SSL_MODE_ASYNC`, nginx's `ssl_async`,
//! HAProxy's `ssl-mode-async`, `openssl speed -async_jobs N`) are queued,
//! and the job pauses; when a paused job is resumed and its result is not
//! there yet, it runs everything queued at once through the library's
//! batch path (`redc::rsa::raw_private_many`: four operations per
//! eight-lane IFMA run, blinding and the fault check per operation) and
//! leaves the other jobs' results for them to pick up.
//!
//! How the jobs meet: an application with N jobs starts each in turn; each
//! one queues its operation and pauses (its wait fd readable, see
//! [`crate::libcrypto::async_job::pause_async_job`]). When the application comes back to
//! the first job, N operations are queued: that job runs them all, and
//! the other N - 1 find their results on resumption. Outside an async job
//! nothing changes: the operation runs at once on the single-operation
//! path.
//!
//! Decryptions with pad modes "none", PKCS#1 v1.5 without implicit
//! rejection, and TLS 1.2's RSA key exchange (mode 7) take the same queue;
//! their results are secret and wiped on drop wherever they are held.
//! (OAEP and the implicit-rejection decryption run their private
//! operation inside the library and are not queued.) Nothing here
//! branches on a secret.
//!
//! Every batch, one operation included, runs on a helper thread: an async
//! job runs on a small stack (32 KiB, `crypto/async/arch/async_posix.c`),
//! and a batch on the IFMA kernels writes deeper than that (the
//! eight-lane kernel's frames), then zeroes below it
//! (`redc::scrub::scrubbed_batch`, `BATCH_EXTRA_BYTES`).

use crate::keys::Key;
use redc::rsa::raw_private_many;
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use zeroize::Zeroizing;

/// An operation waiting for a batch: its ticket, key and input.
type Pending = (u64, Arc<Key>, Vec<u8>);

/// A result: a signature, or a decrypted message (secret: wiped on drop).
type Output = Option<Zeroizing<Vec<u8>>>;

/// Queued operations and finished results, shared by every job and thread.
#[derive(Default)]
struct Queue {
    next: u64,
    pending: Vec<Pending>,
    done: HashMap<u64, Output>,
}

/// Results not collected after this many newer ones are dropped (a job the
/// application abandoned while paused never collects its result).
const MAX_DONE: usize = 4096;

fn queue() -> (&'static Mutex<Queue>, &'static Condvar) {
    static Q: std::sync::OnceLock<(Mutex<Queue>, Condvar)> = std::sync::OnceLock::new();
    let (m, c) = Q.get_or_init(Default::default);
    (m, c)
}

fn lock(m: &Mutex<Queue>) -> MutexGuard<'_, Queue> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// RSASP1 / RSADP of `x` (k bytes) with `key`'s private half: queued and
/// batched inside an async job, at once otherwise. None on any failure.
pub fn private_op(key: &Arc<Key>, x: &[u8]) -> Output {
    let private = key.private()?;
    if !crate::libcrypto::async_job::in_async_job() {
        return private.raw_private(&mut crate::rng::ProviderRng, x).ok();
    }
    let ticket = enqueue(key, x);
    crate::libcrypto::async_job::pause_async_job();
    collect(ticket)
}

/// Queue `x` for `key`; the ticket that [`collect`] takes.
fn enqueue(key: &Arc<Key>, x: &[u8]) -> u64 {
    let mut q = lock(queue().0);
    q.next += 1;
    let t = q.next;
    q.pending.push((t, Arc::clone(key), x.to_vec()));
    t
}

/// The result of `ticket`: left by an earlier batch, or made now by running
/// everything queued, or (when another thread is running the batch that
/// holds it) waited for.
fn collect(ticket: u64) -> Output {
    let (m, ready) = queue();
    let mut q = lock(m);
    loop {
        if let Some(r) = q.done.remove(&ticket) {
            return r;
        }
        if q.pending.iter().any(|(t, ..)| *t == ticket) {
            // Ours is still queued: run the whole queue now.
            let work = std::mem::take(&mut q.pending);
            drop(q);
            let results = run(&work);
            q = lock(m);
            for ((t, ..), r) in work.iter().zip(results) {
                q.done.insert(*t, r);
            }
            if q.done.len() > MAX_DONE {
                let newest = q.next;
                q.done.retain(|t, _| newest - t < MAX_DONE as u64);
            }
            ready.notify_all();
        } else {
            // Another thread is running the batch that holds ours.
            q = ready.wait(q).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

/// The private operations of `work`, in order, on a helper thread.
fn run(work: &[Pending]) -> Vec<Output> {
    crate::trace(format_args!("batch of {}", work.len()));
    let batch = || {
        // Only private keys are queued ([`private_op`]); a public one would
        // get None, and every result stays at its operation's index.
        let (index, ops): (Vec<usize>, Vec<_>) = work
            .iter()
            .enumerate()
            .filter_map(|(i, (_, k, x))| Some((i, (k.private()?, &x[..]))))
            .unzip();
        let mut out: Vec<Output> = (0..work.len()).map(|_| None).collect();
        for (i, r) in index
            .into_iter()
            .zip(raw_private_many(&mut crate::rng::ProviderRng, &ops))
        {
            out[i] = r.ok();
        }
        out
    };
    std::thread::scope(|s| s.spawn(batch).join()).unwrap_or_else(|_| (0..work.len()).map(|_| None).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use redc::rsa::keygen;

    /// Outside an async job (always, in a unit test) the operation runs at
    /// once and gives the single-operation result.
    #[test]
    fn outside_a_job_the_operation_runs_at_once() {
        let k = keygen::generate(1024, 65537, &mut crate::rng::ProviderRng).unwrap();
        let mut x = vec![0u8; k.size()];
        x[5] = 9;
        let want = k.raw_private(&mut crate::rng::ProviderRng, &x).unwrap().to_vec();
        let key = Arc::new(Key::Private(k));
        assert_eq!(private_op(&key, &x).map(|s| s.to_vec()), Some(want));
    }

    /// Jobs that queue and then collect in any order each get the result
    /// of their own input (what a paused job finds when it resumes), with
    /// two keys mixed in one batch, and nothing is left behind.
    #[test]
    fn queued_operations_each_collect_their_own_result() {
        let keys: Vec<Arc<Key>> = (0..2)
            .map(|_| {
                Arc::new(Key::Private(
                    keygen::generate(1024, 65537, &mut crate::rng::ProviderRng).unwrap(),
                ))
            })
            .collect();
        let inputs: Vec<(Arc<Key>, Vec<u8>)> = (0..7u8)
            .map(|i| {
                let mut x = vec![0u8; 128];
                x[9] = i + 1;
                (Arc::clone(&keys[i as usize % 2]), x)
            })
            .collect();
        let tickets: Vec<u64> = inputs.iter().map(|(k, x)| enqueue(k, x)).collect();
        // The last job resumes first and runs the batch; the others collect.
        for i in [6, 0, 3, 1, 5, 2, 4] {
            let sig = collect(tickets[i]).expect("a result");
            let (key, x) = &inputs[i];
            assert_eq!(key.public().raw_public(&sig).unwrap(), *x, "operation {i}");
        }
        let q = lock(queue().0);
        assert!(tickets.iter().all(|t| !q.done.contains_key(t)));
        assert!(q.pending.iter().all(|(t, ..)| !tickets.contains(t)));
    }

    /// A public key in a batch (never queued by `private_op`) gets None
    /// and does not shift the other operations' results.
    #[test]
    fn a_public_key_in_a_batch_fails_alone() {
        let k = keygen::generate(1024, 65537, &mut crate::rng::ProviderRng).unwrap();
        let public = Arc::new(Key::Public(k.public_key().clone()));
        let private = Arc::new(Key::Private(k));
        let x = |i: u8| {
            let mut x = vec![0u8; 128];
            x[3] = i;
            x
        };
        let work: Vec<Pending> = vec![
            (1, Arc::clone(&private), x(1)),
            (2, public, x(2)),
            (3, Arc::clone(&private), x(3)),
            (4, Arc::clone(&private), x(4)),
        ];
        let results = run(&work);
        assert!(results[1].is_none());
        for i in [0, 2, 3] {
            let sig = results[i].as_ref().expect("a result");
            assert_eq!(
                private.public().raw_public(sig).unwrap(),
                work[i].2,
                "operation {i}"
            );
        }
    }
}
