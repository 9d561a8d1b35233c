//! Issue 14, item 4: no secret outlives its key. A global allocator scans
//! every heap block as it is freed (and every block a reallocation leaves)
//! for any 16-byte window of the key's p, q, d, dP, dQ and qInv in every
//! encoding redc holds them in (`common::secrets`). A hit is a secret left
//! in freed memory, where a later allocation or a memory scan can find it.
//!
//! Covered: generating the key (replayed with a seeded generator), writing key files (PKCS#8 and PKCS#1, PEM and DER), reading one
//! back, signing (PKCS#1 v1.5, PSS), decrypting (OAEP, PKCS#1 v1.5) and
//! the raw private operation on every backend this CPU has, and dropping
//! every key; then the same use of an RSA-6144 key, whose primes run on
//! the single-modulus IFMA kernel where the CPU has IFMA. The stack is scanned by `tests/secret_scan_stack.rs`;
//! registers are not covered.
//!
//! SCAN_TRACE=1 prints a backtrace at the first hit of each secret and form.
//!
//! The allocator needs `unsafe` (GlobalAlloc is an unsafe trait); it only
//! forwards to the system allocator and reads the block being freed.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use common::secrets::{self, Replay, exercise};

use redc::keyfile::{Encoding, PrivateKeyFormat};
use redc::rsa::{RsaPrivateKey, keygen};
use zeroize::Zeroizing;

static ARMED: AtomicBool = AtomicBool::new(false);
static HITS: [AtomicUsize; secrets::TAGS] = [const { AtomicUsize::new(0) }; secrets::TAGS];
static SCANNED: AtomicUsize = AtomicUsize::new(0);

/// Scan a block about to be freed.
fn scan(block: &[u8]) {
    SCANNED.fetch_add(block.len(), Relaxed);
    secrets::scan(block, |tag, _| {
        if HITS[tag].fetch_add(1, Relaxed) == 0 && std::env::var_os("SCAN_TRACE").is_some() {
            // First hit of this secret and form: say where (disarmed:
            // the backtrace allocates and frees).
            ARMED.store(false, Relaxed);
            eprintln!(
                "HIT {} in a freed block of {} bytes:\n{}",
                secrets::describe(tag),
                block.len(),
                std::backtrace::Backtrace::force_capture()
            );
            ARMED.store(true, Relaxed);
        }
    });
}

struct Scanning;

unsafe impl GlobalAlloc for Scanning {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if ARMED.load(Relaxed) {
            // The block is still ours until System.dealloc below.
            scan(unsafe { std::slice::from_raw_parts(ptr, layout.size()) });
        }
        unsafe { System.dealloc(ptr, layout) }
    }
    // realloc: the default (alloc, copy, dealloc) so the old block is scanned.
}

#[global_allocator]
static ALLOC: Scanning = Scanning;

fn hits() -> Vec<String> {
    let mut out = Vec::new();
    for (tag, h) in HITS.iter().enumerate().skip(1) {
        let n = h.load(Relaxed);
        if n > 0 {
            out.push(format!("{}: {n} windows", secrets::describe(tag)));
        }
    }
    out
}

#[test]
fn no_secret_is_left_in_freed_memory() {
    // Unarmed: make the key and learn its secrets.
    let key = keygen::generate(2048, 65537, &mut Replay(14)).unwrap();
    let key_secrets = secrets::of(&key);
    secrets::register(&key_secrets);
    let backends = common::backends();
    // Sanity: the scanner sees a secret freed without wiping.
    ARMED.store(true, Relaxed);
    drop(key_secrets[0].to_vec());
    ARMED.store(false, Relaxed);
    assert!(
        HITS[1].load(Relaxed) + HITS[2].load(Relaxed) > 0,
        "the scanner missed an unwiped copy of p"
    );
    for h in &HITS {
        h.store(0, Relaxed);
    }

    // Each phase runs armed; its hits are recorded under its name.
    let mut leaks: Vec<(String, Vec<String>)> = Vec::new();
    let mut phase = |name: String, f: &mut dyn FnMut()| {
        for h in &HITS {
            h.store(0, Relaxed);
        }
        ARMED.store(true, Relaxed);
        f();
        ARMED.store(false, Relaxed);
        let found = hits();
        if !found.is_empty() {
            leaks.push((name, found));
        }
    };
    phase("generating the key again (same seed)".into(), &mut || {
        let again = keygen::generate(2048, 65537, &mut Replay(14)).unwrap();
        assert_eq!(again.public_key(), key.public_key());
    });
    let mut files: Vec<Zeroizing<Vec<u8>>> = Vec::new();
    phase("writing key files".into(), &mut || {
        for format in [PrivateKeyFormat::Pkcs8, PrivateKeyFormat::Pkcs1] {
            for encoding in [Encoding::Pem, Encoding::Der] {
                files.push(key.to_key_file(format, encoding).unwrap());
            }
        }
    });
    phase("using the generated key".into(), &mut || exercise(&key));
    let mut loaded = Vec::new();
    phase("reading key files".into(), &mut || {
        for file in &files {
            loaded.push(RsaPrivateKey::from_key_file(file).unwrap());
        }
    });
    phase("using a loaded key".into(), &mut || exercise(&loaded[0]));
    for &b in backends {
        let mut forced = None;
        phase(format!("forcing {}", b.name()), &mut || {
            forced = loaded[0].with_backend(b)
        });
        let forced = forced.unwrap();
        phase(format!("using the key on {}", b.name()), &mut || {
            exercise(&forced)
        });
        phase(format!("dropping the key on {}", b.name()), &mut || {
            drop(forced.clone())
        });
    }
    // A large key: RSA-6144's 3072-bit primes (60 digits) run their secret
    // exponentiations on the single-modulus IFMA kernel's wide form where
    // the CPU has IFMA, on the scalar kernels elsewhere. Made unarmed.
    let large = keygen::generate(6144, 65537, &mut Replay(15)).unwrap();
    let large_secrets = secrets::of(&large);
    secrets::register(&large_secrets);
    for &b in backends {
        phase(format!("using an RSA-6144 key on {}", b.name()), &mut || {
            exercise(&large.with_backend(b).unwrap())
        });
    }
    phase("dropping the RSA-6144 key".into(), &mut || drop(large.clone()));
    let mut key = Some(key);
    phase("dropping keys and key files".into(), &mut || {
        loaded.clear();
        files.clear();
        key = None;
    });
    // The test's own copies are wiped by Zeroizing when `secrets` goes.
    drop(key_secrets);
    drop(large_secrets);
    eprintln!(
        "scanned {} MB of freed memory on backends {:?}",
        SCANNED.load(Relaxed) >> 20,
        backends.iter().map(|b| b.name()).collect::<Vec<_>>()
    );
    for (name, found) in &leaks {
        eprintln!("LEAK {name}: {found:?}");
    }
    assert!(leaks.is_empty(), "secrets left in freed memory: {leaks:?}");
}
