//! No secret stays on the stack. Each phase of a key's life runs on a
//! thread of its own, below a painted stretch of stack; when it returns,
//! the stretch it used (its frames are dead then) is read back and
//! searched for every 16-byte window of p, q, d, dP, dQ and qInv in every
//! encoding redc holds them in (`common::secrets`). A hit is a secret that
//! outlived the call that needed it, readable by the next frames or a core
//! dump.
//!
//! Phases: generating a key, reading key files (PKCS#8 and PKCS#1, PEM and
//! DER, encrypted) and dropping the key, writing key files, and, on every
//! backend this CPU has, forcing the backend, dropping the forced key and
//! using it (signing, decrypting, the raw private operation, a batch of
//! four signatures: the eight-lane kernel where the CPU has IFMA), the
//! same use of an RSA-6144 key (the single-modulus IFMA kernel), and a
//! batch of RSA-4096 (the eight-lane kernel at 40 digits). A batch
//! signed on worker threads is scanned too: the workers' stacks, once they
//! exit, go back to the C library, which hands them to the next threads
//! of their size; threads started right after the batch read them. (glibc
//! discards all but the top 16 KiB of an exiting thread's stack with
//! MADV_DONTNEED; that top is what a worker's operation leaves behind.)
//! Controls leave a secret behind on purpose and must find it, so that a
//! scan that reads the wrong memory fails.
//!
//! Not covered: registers, and the few hundred bytes of a worker's stack
//! that the reading thread's own first frames overwrite.
//!
//! Reading dead stack needs `unsafe`: `read_dead` reads words below the
//! live frames of its own thread, inside the thread's stack mapping.

mod common;

use std::hint::black_box;

use common::secrets::{self, Replay, exercise};
use redc::hash::HashAlg;
use redc::keyfile::{self, Encoding, KeyCipher, KeyKdf, PrivateKeyFormat};
use redc::rsa::{RsaPrivateKey, keygen, os_rng};
use redc::scrub::scrubbed;
use zeroize::Zeroizing;

/// Bytes of dead stack read below a phase's first frame.
const SCAN: usize = 1 << 20;
/// Bytes between the reader's frame and the first byte it reads, so that
/// reading does not overwrite what it reads.
const PAD: usize = 32 << 10;
/// A phase's thread: room for the paint, the pad and the phase.
const PHASE_STACK: usize = 8 << 20;
/// The paint: a word no phase writes (a phase that writes it is seen as
/// using less stack than it did, and is scanned all the same).
const PAINT: u64 = 0xa5c3_5a3c_96e1_69f0;

/// Paints the stack below the caller's frame: SCAN + 2 PAD bytes.
#[inline(never)]
fn paint() {
    let mut area = [PAINT; (SCAN + 2 * PAD) / 8];
    black_box(&mut area);
}

/// Runs `op` below a pad of PAD bytes; returns the lowest address of the
/// pad (8-aligned), above which `op` never writes.
#[inline(never)]
fn beneath_pad(op: &mut dyn FnMut()) -> usize {
    let pad = [0u8; PAD];
    black_box(&pad);
    op();
    black_box(&pad).as_ptr() as usize & !7
}

/// Copies the `out.len()` bytes below `top` into `out`.
#[inline(never)]
fn read_dead(top: usize, out: &mut [u8]) {
    let start = top - out.len();
    for (i, word) in out.chunks_exact_mut(8).enumerate() {
        // SAFETY: [start, top) lies inside this thread's stack mapping,
        // below the frame of this function's caller (the callers keep at
        // least `out.len()` + PAD bytes of stack below them: PHASE_STACK,
        // or a worker's 2 MiB against a 1 MiB read), and no other thread
        // refers to it. The words are dead frames: read, never written.
        let v = unsafe { std::ptr::read_volatile((start + 8 * i) as *const u64) };
        word.copy_from_slice(&v.to_le_bytes());
    }
}

/// A secret found in dead stack, in one encoding.
#[derive(Debug)]
struct Hit {
    /// The secret and its encoding, e.g. "p as BE bytes".
    what: String,
    /// Its 16-byte windows found.
    windows: usize,
    /// The shallowest one's depth: bytes below the top.
    depth: usize,
}

/// What one read of dead stack held.
struct Dead {
    hits: Vec<Hit>,
    /// Bytes below the top that the phase wrote (the deepest word that is
    /// no longer the paint; the library's scrub writes 16 or 32 KiB of
    /// zeros below its own caller).
    used: usize,
}

fn search(copy: &[u8]) -> Dead {
    let mut found = vec![(0usize, usize::MAX); secrets::TAGS];
    secrets::scan(copy, |tag, at| {
        found[tag].0 += 1;
        found[tag].1 = found[tag].1.min(copy.len() - at);
    });
    let hits = found
        .iter()
        .enumerate()
        .filter(|(_, (n, _))| *n > 0)
        .map(|(tag, &(windows, depth))| Hit {
            what: secrets::describe(tag),
            windows,
            depth,
        })
        .collect();
    let deepest = copy
        .chunks_exact(8)
        .position(|w| u64::from_le_bytes(w.try_into().unwrap()) != PAINT)
        .unwrap_or(copy.len() / 8);
    Dead {
        hits,
        used: copy.len() - 8 * deepest,
    }
}

/// Runs `op` on a fresh thread below a painted stretch, then reads what it
/// left there.
fn phase(op: impl FnOnce() + Send) -> Dead {
    let mut copy = vec![0u8; SCAN];
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(PHASE_STACK)
            .spawn_scoped(s, || {
                let mut op = Some(op);
                paint();
                let top = beneath_pad(&mut || (op.take().unwrap())());
                read_dead(top, &mut copy);
            })
            .unwrap()
            .join()
            .unwrap()
    });
    search(&copy)
}

/// Leaves `secret` on the stack unwiped, at the bottom of a frame of
/// DEPTH bytes (about DEPTH bytes below the caller).
#[inline(never)]
fn leave_behind<const DEPTH: usize>(secret: &[u8]) {
    let mut frame = [0u8; DEPTH];
    frame[..secret.len()].copy_from_slice(secret);
    black_box(&mut frame);
}

/// Starts `n` threads of the default stack size at once; each reads the
/// dead stack below its first frame, which an exited thread of the same
/// size left (glibc hands a joined thread's stack to the next thread of
/// its size).
fn worker_stacks(n: usize) -> Vec<Dead> {
    let barrier = std::sync::Barrier::new(n);
    let mut copies = vec![vec![0u8; SCAN]; n];
    std::thread::scope(|s| {
        let readers: Vec<_> = copies
            .iter_mut()
            .map(|copy| {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    let here = 0u64;
                    let top = black_box(&here) as *const u64 as usize & !7;
                    read_dead(top - 8, copy);
                })
            })
            .collect();
        for r in readers {
            r.join().unwrap();
        }
    });
    copies.iter().map(|c| search(c)).collect()
}

/// Runs `f` on `n` threads of the default stack size and joins each:
/// pthread_join returns a thread's stack to glibc's cache before it returns
/// (a scope's end alone waits for the closures, not for the threads' exit).
fn joined(n: usize, f: impl Fn() + Sync) {
    std::thread::scope(|s| {
        let threads: Vec<_> = (0..n).map(|_| s.spawn(&f)).collect();
        for t in threads {
            t.join().unwrap();
        }
    });
}

/// Ends with a message naming every phase that left a secret.
fn report(leaks: &[(String, Vec<Hit>)]) {
    for (name, hits) in leaks {
        eprintln!("LEAK {name}:");
        for h in hits {
            eprintln!(
                "    {}: {} windows, the shallowest {} bytes below the phase's first frame",
                h.what, h.windows, h.depth
            );
        }
    }
    assert!(
        leaks.is_empty(),
        "secrets left on the stack in {} phases",
        leaks.len()
    );
}

#[test]
fn no_secret_is_left_on_the_stack() {
    let key = keygen::generate(2048, 65537, &mut Replay(39)).unwrap();
    let key_secrets = secrets::of(&key);
    secrets::register(&key_secrets);

    // Controls: a secret left on purpose is found, near the top and deep,
    // and is gone when the library's scrub wraps the frame that left it.
    let p = key_secrets[0].clone();
    let has_p = |dead: &Dead| dead.hits.iter().any(|h| h.what == "p as BE bytes");
    for (depth, dead) in [
        (4 << 10, phase(|| leave_behind::<{ 4 << 10 }>(&p))),
        (512 << 10, phase(|| leave_behind::<{ 512 << 10 }>(&p))),
    ] {
        assert!(
            has_p(&dead),
            "the scan missed p left {depth} bytes deep: {:?}",
            dead.hits
        );
    }
    let dead = phase(|| scrubbed(|| leave_behind::<{ 8 << 10 }>(&p)));
    assert!(dead.hits.is_empty(), "the scrub left {:?}", dead.hits);

    let backends = common::backends();

    let mut files: Vec<Zeroizing<Vec<u8>>> = Vec::new();
    for format in [PrivateKeyFormat::Pkcs8, PrivateKeyFormat::Pkcs1] {
        for encoding in [Encoding::Pem, Encoding::Der] {
            files.push(key.to_key_file(format, encoding).unwrap());
        }
    }
    let encrypt = |format| {
        keyfile::encode_private_key_encrypted(
            &key.private_components(),
            format,
            Encoding::Pem,
            b"stack",
            KeyCipher::Aes256Cbc,
            KeyKdf::Pbkdf2Sha256 { iterations: 16 },
            &mut os_rng(),
        )
        .unwrap()
    };
    let encrypted = [encrypt(PrivateKeyFormat::Pkcs8), encrypt(PrivateKeyFormat::Pkcs1)];

    let mut leaks = Vec::new();
    let mut deepest = (0, String::new());
    let mut check = |name: String, dead: Dead| {
        eprintln!("{name}: {} KiB of stack written", dead.used.div_ceil(1024));
        assert!(
            dead.used <= SCAN - 4096,
            "{name} used {} bytes of stack, near the {SCAN} the scan reads: raise SCAN",
            dead.used
        );
        if dead.used > deepest.0 {
            deepest = (dead.used, name.clone());
        }
        if !dead.hits.is_empty() {
            leaks.push((name, dead.hits));
        }
    };
    check(
        "generating a key (replayed)".into(),
        phase(|| {
            let again = keygen::generate(2048, 65537, &mut Replay(39)).unwrap();
            assert_eq!(again.public_key(), key.public_key());
        }),
    );
    check(
        "writing key files".into(),
        phase(|| {
            for format in [PrivateKeyFormat::Pkcs8, PrivateKeyFormat::Pkcs1] {
                drop(key.to_key_file(format, Encoding::Der).unwrap());
                drop(encrypt(format));
            }
        }),
    );
    for (i, file) in files.iter().enumerate() {
        check(
            format!("reading key file {i} and dropping the key"),
            phase(|| drop(RsaPrivateKey::from_key_file(file).unwrap())),
        );
    }
    for (file, name) in encrypted.iter().zip(["PKCS#8", "legacy PKCS#1"]) {
        check(
            format!("reading an encrypted {name} key file and dropping the key"),
            phase(|| drop(RsaPrivateKey::from_key_file_with_passphrase(file, Some(b"stack")).unwrap())),
        );
    }
    let loaded = RsaPrivateKey::from_key_file(&files[0]).unwrap();
    for &b in backends {
        check(
            format!("forcing {} and dropping the key", b.name()),
            phase(|| drop(loaded.with_backend(b).unwrap())),
        );
        let forced = loaded.with_backend(b).unwrap();
        check(
            format!("using the key on {}", b.name()),
            phase(|| exercise(&forced)),
        );
    }
    // A large key: RSA-6144's 3072-bit primes run their secret
    // exponentiations on the single-modulus IFMA kernel's wide form where
    // the CPU has IFMA, on the scalar kernels elsewhere. Made unscanned.
    let large = keygen::generate(6144, 65537, &mut Replay(40)).unwrap();
    let large_secrets = secrets::of(&large);
    secrets::register(&large_secrets);
    for &b in backends {
        let forced = large.with_backend(b).unwrap();
        check(
            format!("using an RSA-6144 key on {}", b.name()),
            phase(|| exercise(&forced)),
        );
    }
    // A batch of RSA-4096: the eight-lane kernel at its largest digit
    // count (40), on its column kernels (the register-window kernels up
    // to 20 digits, RSA-2048's, reach deeper). Made unscanned.
    let wide = keygen::generate(4096, 65537, &mut Replay(41)).unwrap();
    let wide_secrets = secrets::of(&wide);
    secrets::register(&wide_secrets);
    let digest = HashAlg::Sha256.digest(b"wide batch");
    check(
        "a batch of four RSA-4096 signatures".into(),
        phase(|| {
            let sigs = wide.sign_pkcs1v15_batch(&mut os_rng(), HashAlg::Sha256, &[&digest[..]; 4]);
            assert!(sigs.iter().all(Result::is_ok));
        }),
    );
    eprintln!("deepest phase: {} ({} bytes)", deepest.1, deepest.0);

    // A batch on worker threads (the batch API's own threads), then the
    // workers' stacks as the next threads of their size receive them.
    let digests: Vec<Vec<u8>> = (0..16u8).map(|i| HashAlg::Sha256.digest(&[i])).collect();
    let refs: Vec<&[u8]> = digests.iter().map(|m| &m[..]).collect();
    if cfg!(target_env = "gnu") {
        let sigs = loaded.sign_pkcs1v15_batch_threads(HashAlg::Sha256, &refs, 2);
        assert!(sigs.iter().all(Result::is_ok));
        for (i, dead) in worker_stacks(2).into_iter().enumerate() {
            if !dead.hits.is_empty() {
                leaks.push((format!("a batch's worker thread {i}"), dead.hits));
            }
        }
        // Controls, after the batch so as not to leave p where it looks:
        // two workers that leave p in the top 16 KiB of their stacks (what
        // glibc keeps when a thread exits), then two that wipe it.
        joined(2, || leave_behind::<{ 8 << 10 }>(&p));
        let found = worker_stacks(2).iter().filter(|d| has_p(d)).count();
        assert_eq!(
            found,
            2,
            "the scan of exited workers' stacks missed p in {} of 2",
            2 - found
        );
        joined(2, || scrubbed(|| leave_behind::<{ 8 << 10 }>(&p)));
        let found = worker_stacks(2).iter().filter(|d| has_p(d)).count();
        assert_eq!(found, 0, "p was left on {found} scrubbed workers' stacks");
    } else {
        eprintln!("SKIPPED: the batch's worker stacks (their reuse is a glibc behaviour)");
    }
    drop(key_secrets);
    report(&leaks);
}
