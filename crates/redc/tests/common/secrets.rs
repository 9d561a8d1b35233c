//! A key's secrets as a table of 16-byte windows, to find them in memory
//! that should no longer hold them (freed heap blocks in
//! `tests/secret_scan.rs`, dead stack in `tests/secret_scan_stack.rs`).
//!
//! Every 16-byte window of p, q, d, dP, dQ and qInv is registered in each
//! encoding redc's code holds them in: little-endian 64-bit limbs,
//! big-endian bytes, radix-2^52 digits (the IFMA kernels), radix-2^28
//! digits (the AVX2 kernels), each digit in a little-endian u64; and for
//! the primes, the IFMA layouts that put two digits side by side: digit k
//! of p beside digit k of q (the dual kernel's lanes), and a digit beside
//! itself (eight lanes of one key). A window is 16 bytes, so a match is a
//! secret's copy, not chance (at least 2^-56 per position).
//!
//! The table is static and lookups allocate nothing, so that a global
//! allocator may scan with it.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use redc::hash::HashAlg;
use redc::rsa::{RsaPrivateKey, os_rng};
use zeroize::Zeroizing;

pub const NAMES: [&str; 6] = ["p", "q", "d", "dP", "dQ", "qInv"];
pub const FORMS: [&str; 6] = [
    "LE limbs",
    "BE bytes",
    "radix 2^52",
    "radix 2^28",
    "radix 2^52, p and q lanes",
    "radix 2^52, repeated lanes",
];

/// A window's tag: 1 + secret * FORMS.len() + form; 0 marks an empty slot.
pub const TAGS: usize = 1 + NAMES.len() * FORMS.len();

const TABLE_BITS: u32 = 16;
const TABLE: usize = 1 << TABLE_BITS;

/// Open-addressed table of windows: first 8 bytes, next 8 bytes, tag.
static K1: [AtomicU64; TABLE] = [const { AtomicU64::new(0) }; TABLE];
static K2: [AtomicU64; TABLE] = [const { AtomicU64::new(0) }; TABLE];
static TAG: [AtomicU32; TABLE] = [const { AtomicU32::new(0) }; TABLE];

fn slot(k1: u64) -> usize {
    (k1.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - TABLE_BITS)) as usize
}

fn word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().unwrap())
}

fn insert(window: &[u8], tag: usize) {
    let (k1, k2) = (word(window), word(&window[8..]));
    let mut i = slot(k1);
    while TAG[i].load(Relaxed) != 0 {
        i = (i + 1) % TABLE;
    }
    K1[i].store(k1, Relaxed);
    K2[i].store(k2, Relaxed);
    TAG[i].store(tag as u32, Relaxed);
}

fn insert_all(bytes: &[u8], secret: usize, form: usize) {
    for w in bytes.windows(16) {
        insert(w, 1 + secret * FORMS.len() + form);
    }
}

/// `le`'s value in digits of `bits` bits, each in a little-endian u64.
fn digits(le: &[u8], bits: usize) -> Vec<u64> {
    let total = le.len() * 8;
    let bit = |i: usize| i < total && (le[i / 8] >> (i % 8)) & 1 == 1;
    (0..total)
        .step_by(bits)
        .map(|start| (0..bits).fold(0u64, |d, j| d | u64::from(bit(start + j)) << j))
        .collect()
}

fn bytes_of(words: impl IntoIterator<Item = u64>) -> Vec<u8> {
    words.into_iter().flat_map(u64::to_le_bytes).collect()
}

/// A key's secrets, big-endian, in the order of [`NAMES`] (wiped on drop).
pub fn of(key: &RsaPrivateKey) -> [Zeroizing<Vec<u8>>; 6] {
    [
        key.p_bytes(),
        key.q_bytes(),
        key.d_bytes(),
        key.dp_bytes(),
        key.dq_bytes(),
        key.qinv_bytes(),
    ]
}

/// Register a key's secrets, as [`of`] gives them.
pub fn register(secrets: &[Zeroizing<Vec<u8>>; 6]) {
    let le: Vec<Vec<u8>> = secrets
        .iter()
        .map(|s| s.iter().rev().copied().collect())
        .collect();
    for (i, (be, le)) in secrets.iter().zip(&le).enumerate() {
        insert_all(le, i, 0);
        insert_all(be, i, 1);
        insert_all(&bytes_of(digits(le, 52)), i, 2);
        insert_all(&bytes_of(digits(le, 28)), i, 3);
    }
    let (p52, q52) = (digits(&le[0], 52), digits(&le[1], 52));
    // Whole digit pairs: each pair is one window.
    for (&pk, &qk) in p52.iter().zip(&q52) {
        insert(&bytes_of([pk, qk]), 1 + 4);
        insert(&bytes_of([qk, pk]), 1 + FORMS.len() + 4);
        insert(&bytes_of([pk, pk]), 1 + 5);
        insert(&bytes_of([qk, qk]), 1 + FORMS.len() + 5);
    }
}

/// Calls `hit(tag, offset)` for every registered window in `block`.
pub fn scan(block: &[u8], mut hit: impl FnMut(usize, usize)) {
    if block.len() < 16 {
        return;
    }
    for at in 0..=block.len() - 16 {
        let k1 = word(&block[at..]);
        let mut i = slot(k1);
        loop {
            let tag = TAG[i].load(Relaxed);
            if tag == 0 {
                break;
            }
            if K1[i].load(Relaxed) == k1 && K2[i].load(Relaxed) == word(&block[at + 8..]) {
                hit(tag as usize, at);
            }
            i = (i + 1) % TABLE;
        }
    }
}

/// "p as LE limbs" for a tag.
pub fn describe(tag: usize) -> String {
    format!(
        "{} as {}",
        NAMES[(tag - 1) / FORMS.len()],
        FORMS[(tag - 1) % FORMS.len()]
    )
}

/// A deterministic generator (splitmix64), so that key generation can be
/// replayed armed with secrets known in advance. Tests only.
pub struct Replay(pub u64);

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
pub fn exercise(key: &RsaPrivateKey) {
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
    // A batch: on IFMA CPUs the eight-lane kernel, with the key's lanes of
    // p and q built at its first run and kept in the key.
    let digests: Vec<&[u8]> = vec![&digest; 4];
    for sig in key.sign_pkcs1v15_batch(&mut rng, HashAlg::Sha256, &digests) {
        assert_eq!(
            sig.unwrap(),
            key.sign_pkcs1v15(&mut rng, HashAlg::Sha256, &digest).unwrap()
        );
    }
}
