//! Issue 14, item 4: no secret outlives its key. A global allocator scans
//! every heap block as it is freed (and every block a reallocation leaves)
//! for any 16-byte window of the key's p, q, d, dP, dQ and qInv, as
//! little-endian 64-bit limbs, as big-endian bytes, and (p and q) as the
//! radix-2^52 digits of the IFMA code. A hit is a secret left in freed
//! memory, where a later allocation or a memory scan can find it.
//!
//! Covered: generating the key (replayed with a seeded generator), writing key files (PKCS#8 and PKCS#1, PEM and DER), reading one
//! back, signing (PKCS#1 v1.5, PSS), decrypting (OAEP, PKCS#1 v1.5) and
//! the raw private operation on every backend this CPU has, and dropping
//! every key. Not covered: the stack, and registers.
//!
//! SCAN_TRACE=1 prints a backtrace at the first hit of each secret and form.
//!
//! The allocator needs `unsafe` (GlobalAlloc is an unsafe trait); it only
//! forwards to the system allocator and reads the block being freed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};

use redc::exp::Backend;
use redc::hash::HashAlg;
use redc::keyfile::{Encoding, PrivateKeyFormat};
use redc::rsa::{RsaPrivateKey, keygen, os_rng};
use zeroize::Zeroizing;

const TABLE_BITS: u32 = 15;
const TABLE: usize = 1 << TABLE_BITS;
const NAMES: [&str; 6] = ["p", "q", "d", "dP", "dQ", "qInv"];
const FORMS: [&str; 3] = ["LE limbs", "BE bytes", "radix 2^52"];

/// Open-addressed table of 16-byte windows: first 8 bytes, next 8 bytes,
/// and a tag (1 + secret * 3 + form; 0 is empty).
static K1: [AtomicU64; TABLE] = [const { AtomicU64::new(0) }; TABLE];
static K2: [AtomicU64; TABLE] = [const { AtomicU64::new(0) }; TABLE];
static TAG: [AtomicU32; TABLE] = [const { AtomicU32::new(0) }; TABLE];
static ARMED: AtomicBool = AtomicBool::new(false);
static HITS: [AtomicUsize; 19] = [const { AtomicUsize::new(0) }; 19];
static SCANNED: AtomicUsize = AtomicUsize::new(0);

fn slot(k1: u64) -> usize {
    (k1.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - TABLE_BITS)) as usize
}

fn insert(window: &[u8], tag: u32) {
    let k1 = u64::from_le_bytes(window[..8].try_into().unwrap());
    let k2 = u64::from_le_bytes(window[8..16].try_into().unwrap());
    let mut i = slot(k1);
    while TAG[i].load(Relaxed) != 0 {
        i = (i + 1) % TABLE;
    }
    K1[i].store(k1, Relaxed);
    K2[i].store(k2, Relaxed);
    TAG[i].store(tag, Relaxed);
}

/// Scan `len` bytes at `ptr` (a block about to be freed).
fn scan(block: &[u8]) {
    SCANNED.fetch_add(block.len(), Relaxed);
    if block.len() < 16 {
        return;
    }
    for at in 0..=block.len() - 16 {
        let k1 = u64::from_le_bytes(block[at..at + 8].try_into().unwrap());
        let mut i = slot(k1);
        loop {
            let tag = TAG[i].load(Relaxed);
            if tag == 0 {
                break;
            }
            let second = u64::from_le_bytes(block[at + 8..at + 16].try_into().unwrap());
            if K1[i].load(Relaxed) == k1
                && K2[i].load(Relaxed) == second
                && HITS[tag as usize].fetch_add(1, Relaxed) == 0
                && std::env::var_os("SCAN_TRACE").is_some()
            {
                // First hit of this secret and form: say where (disarmed:
                // the backtrace allocates and frees).
                ARMED.store(false, Relaxed);
                eprintln!(
                    "HIT {} as {} in a freed block of {} bytes:\n{}",
                    NAMES[(tag as usize - 1) / 3],
                    FORMS[(tag as usize - 1) % 3],
                    block.len(),
                    std::backtrace::Backtrace::force_capture()
                );
                ARMED.store(true, Relaxed);
            }
            i = (i + 1) % TABLE;
        }
    }
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

/// Register a secret's windows in every form.
fn register(index: usize, be: &[u8], radix52: bool) {
    let le: Vec<u8> = be.iter().rev().copied().collect();
    // LE limbs: the little-endian bytes (the top limb's zero padding aside).
    for w in le.windows(16) {
        insert(w, 1 + (index * 3) as u32);
    }
    for w in be.windows(16) {
        insert(w, 2 + (index * 3) as u32);
    }
    if radix52 {
        // Digits of 52 bits, each in a little-endian u64.
        let mut digits = Vec::new();
        let bits = le.len() * 8;
        let bit = |i: usize| i < bits && (le[i / 8] >> (i % 8)) & 1 == 1;
        for start in (0..bits).step_by(52) {
            let mut d = 0u64;
            for j in 0..52 {
                d |= u64::from(bit(start + j)) << j;
            }
            digits.extend_from_slice(&d.to_le_bytes());
        }
        for w in digits.windows(16) {
            insert(w, 3 + (index * 3) as u32);
        }
    }
}

fn hits() -> Vec<String> {
    let mut out = Vec::new();
    for (tag, h) in HITS.iter().enumerate().skip(1) {
        let n = h.load(Relaxed);
        if n > 0 {
            out.push(format!(
                "{} as {}: {n} windows",
                NAMES[(tag - 1) / 3],
                FORMS[(tag - 1) % 3]
            ));
        }
    }
    out
}

/// A deterministic generator (splitmix64), so that key generation can be
/// replayed armed with secrets known in advance. Tests only.
struct Replay(u64);

impl rand_core::TryRng for Replay {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.try_next_u64()? as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Ok(z ^ (z >> 31))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let v = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(())
    }
}

impl rand_core::TryCryptoRng for Replay {}

/// Everything a key's life does, on one key object.
fn exercise(key: &RsaPrivateKey) {
    let mut rng = os_rng();
    let digest = HashAlg::Sha256.digest(b"scan me");
    let sig = key.sign_pkcs1v15(&mut rng, HashAlg::Sha256, &digest).unwrap();
    key.public_key()
        .verify_pkcs1v15(HashAlg::Sha256, &digest, &sig)
        .unwrap();
    let pss = key.sign_pss(&mut rng, HashAlg::Sha256, &digest, None).unwrap();
    assert_eq!(pss.len(), key.size());
    let ct = key
        .public_key()
        .encrypt_oaep(&mut rng, HashAlg::Sha256, b"", b"secret")
        .unwrap();
    assert_eq!(
        key.decrypt_oaep_with_rng(&mut rng, HashAlg::Sha256, b"", &ct)
            .unwrap()
            .as_slice(),
        b"secret"
    );
    let ct = key.public_key().encrypt_pkcs1v15(&mut rng, b"secret").unwrap();
    assert_eq!(
        key.decrypt_pkcs1v15_with_rng(&mut rng, &ct).unwrap().as_slice(),
        b"secret"
    );
    let mut bad = ct.clone();
    bad[5] ^= 1;
    let _synthetic = key.decrypt_pkcs1v15_with_rng(&mut rng, &bad).unwrap();
    let x = vec![3u8; key.size()];
    let _ = key.raw_private(&mut rng, &x).unwrap();
}

#[test]
fn no_secret_is_left_in_freed_memory() {
    // Unarmed: make the key and learn its secrets.
    let key = keygen::generate(2048, 65537, &mut Replay(14)).unwrap();
    let secrets = [
        key.p_bytes(),
        key.q_bytes(),
        key.d_bytes(),
        key.dp_bytes(),
        key.dq_bytes(),
        key.qinv_bytes(),
    ];
    for (i, s) in secrets.iter().enumerate() {
        register(i, s, i < 2);
    }
    let backends: Vec<Backend> = Backend::ALL
        .into_iter()
        .filter(|b| match b.unavailable() {
            None => true,
            Some(why) => {
                eprintln!("SKIPPED: scan on {} (CPU lacks {why})", b.name());
                false
            }
        })
        .collect();
    // Sanity: the scanner sees a secret freed without wiping.
    ARMED.store(true, Relaxed);
    drop(secrets[0].to_vec());
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
    for &b in &backends {
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
    let mut key = Some(key);
    phase("dropping keys and key files".into(), &mut || {
        loaded.clear();
        files.clear();
        key = None;
    });
    // The test's own copies are wiped by Zeroizing when `secrets` goes.
    drop(secrets);
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
