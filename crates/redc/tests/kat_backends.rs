//! Issue 14, item 5: known answers of the private operation through every
//! backend this CPU has, forced one by one (portable, ADX, IFMA with the
//! two CRT halves in one dual run, IFMA one half at a time), plus the
//! default dispatch.
//!
//! The data file (tests/data/private_kat_vectors.txt, made once by
//! scripts/make_kat_private.py) holds fixed keys with c^d mod n from
//! `openssl pkeyutl -pkeyopt rsa_padding_mode:none`, PKCS#1 v1.5 SHA-256
//! signatures from `openssl dgst -sha256 -sign`, the RFC 8017 OAEP
//! decryptions, and inputs not below n that must be refused.
//!
//! A backend the CPU lacks prints "SKIPPED: ..." and is not counted as
//! passed; with the environment variable CI set, a backend whose CPU
//! feature is present must run (a REDC_FORCE_PORTABLE=1 that hides it fails).

mod common;

use common::cpu_has;
use redc::exp::Backend;
use redc::hash::HashAlg;
use redc::rsa::{Error, PrivateComponents, RsaPrivateKey};

const DATA: &str = include_str!("data/private_kat_vectors.txt");

#[derive(Default)]
struct Key {
    name: String,
    fields: Vec<(String, Vec<u8>)>,
}

impl Key {
    fn one(&self, name: &str) -> &[u8] {
        &self
            .fields
            .iter()
            .find(|(k, _)| k == name)
            .unwrap_or_else(|| panic!("{}: no {name}", self.name))
            .1
    }
    fn all(&self, name: &str) -> Vec<&[u8]> {
        self.fields
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| &v[..])
            .collect()
    }
}

fn parse() -> Vec<Key> {
    let mut keys: Vec<Key> = Vec::new();
    for line in DATA.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[') {
            keys.push(Key {
                name: name.trim_end_matches(']').to_string(),
                ..Key::default()
            });
            continue;
        }
        let (k, v) = line
            .split_once(" = ")
            .unwrap_or_else(|| (line.trim_end_matches(" ="), ""));
        let v = hex::decode(v.trim()).unwrap_or_else(|e| panic!("{line}: {e}"));
        keys.last_mut()
            .expect("a [key] line first")
            .fields
            .push((k.trim().to_string(), v));
    }
    keys
}

fn load(k: &Key) -> RsaPrivateKey {
    RsaPrivateKey::from_components(PrivateComponents {
        n: k.one("n"),
        e: k.one("e"),
        d: k.one("d"),
        p: k.one("p"),
        q: k.one("q"),
        crt: None,
    })
    .unwrap_or_else(|e| panic!("{}: {e}", k.name))
}

/// Every known answer of `key` (the data file's `k`) on one key object.
/// Returns the number of checks made.
fn check_key(label: &str, k: &Key, key: &RsaPrivateKey) -> usize {
    let mut rng = redc::rsa::os_rng();
    let mut checks = 0;
    let raw_c = k.all("raw_c");
    let raw_m = k.all("raw_m");
    assert_eq!(raw_c.len(), raw_m.len());
    assert!(!raw_c.is_empty(), "{label}: no raw vectors");
    for (c, m) in raw_c.iter().zip(&raw_m) {
        let got = key
            .raw_private(&mut rng, c)
            .unwrap_or_else(|e| panic!("{label}: raw {e}"));
        assert_eq!(
            hex::encode(&*got),
            hex::encode(m),
            "{label}: c^d mod n for c = {}",
            hex::encode(c)
        );
        checks += 1;
    }
    for (msg, sig) in k.all("sign_msg").iter().zip(k.all("sign_sha256")) {
        let digest = HashAlg::Sha256.digest(msg);
        let got = key
            .sign_pkcs1v15(&mut rng, HashAlg::Sha256, &digest)
            .unwrap_or_else(|e| panic!("{label}: sign {e}"));
        assert_eq!(
            hex::encode(got),
            hex::encode(sig),
            "{label}: signature of {}",
            hex::encode(msg)
        );
        checks += 1;
    }
    for (c, m) in k.all("oaep_c").iter().zip(k.all("oaep_m")) {
        let got = key
            .decrypt_oaep_with_rng(&mut rng, HashAlg::Sha1, b"", c)
            .unwrap_or_else(|e| panic!("{label}: OAEP {e}"));
        assert_eq!(hex::encode(&*got), hex::encode(m), "{label}: OAEP decryption");
        checks += 1;
    }
    let rejects = k.all("reject");
    assert!(!rejects.is_empty(), "{label}: no out-of-range vectors");
    for c in rejects {
        assert_eq!(
            key.raw_private(&mut rng, c).map(|_| ()),
            Err(Error::OutOfRange),
            "{label}: c >= n"
        );
        assert_eq!(
            key.decrypt_pkcs1v15_with_rng(&mut rng, c).map(|_| ()),
            Err(Error::OutOfRange),
            "{label}: PKCS#1 v1.5 decryption of c >= n"
        );
        assert!(
            key.decrypt_oaep_with_rng(&mut rng, HashAlg::Sha1, b"", c)
                .is_err(),
            "{label}: OAEP of c >= n"
        );
        checks += 1;
    }
    // One byte too many or too few is a length error, not a result.
    let mut long = raw_c[0].to_vec();
    long.insert(0, 0);
    assert!(
        matches!(key.raw_private(&mut rng, &long), Err(Error::WrongLength { .. })),
        "{label}"
    );
    assert!(
        matches!(
            key.raw_private(&mut rng, &long[2..]),
            Err(Error::WrongLength { .. })
        ),
        "{label}"
    );
    checks
}

#[test]
fn known_answers_through_every_backend() {
    let keys = parse();
    assert!(keys.len() >= 8, "data file has {} keys", keys.len());
    // The large key of the data: RSA-8192 from `openssl genrsa 8192`.
    assert!(keys.iter().any(|k| k.one("n").len() == 1024), "no 8192-bit key");
    let loaded: Vec<RsaPrivateKey> = keys.iter().map(load).collect();
    let ci = std::env::var_os("CI").is_some();
    let mut passed = Vec::new();
    // The default dispatch first, then each backend forced.
    let mut total = 0;
    for (k, key) in keys.iter().zip(&loaded) {
        total += check_key(&format!("default / {}", k.name), k, key);
    }
    passed.push("default".to_string());
    for backend in Backend::ALL {
        if let Some(missing) = backend.unavailable() {
            assert!(
                !(ci && cpu_has(backend)),
                "CI is set and the CPU has what {} needs, but it did not run ({missing})",
                backend.name()
            );
            eprintln!("SKIPPED: {} (CPU lacks {missing})", backend.name());
            continue;
        }
        for (k, key) in keys.iter().zip(&loaded) {
            let forced = key
                .with_backend(backend)
                .unwrap_or_else(|| panic!("{} reported available but refused", backend.name()));
            let [_, kp, kq] = forced.kernel_names();
            // The forcing took effect on both primes. Primes up to the dual
            // kernel's 40 digits run on it, wider ones up to the single-modulus
            // kernel's 320 digits (16638 bits; the 8192-bit key's primes have
            // 80) on that one; wider still, the portable kernels, as
            // `with_backend` says.
            let bits = |b: &[u8]| 8 * b.len() - b[0].leading_zeros() as usize;
            let ifma_fits = bits(k.one("p")) <= 16638 && bits(k.one("q")) <= 16638;
            let or_portable = |name: &'static str| if ifma_fits { name } else { "portable" };
            match backend {
                Backend::Portable => assert_eq!((kp, kq), ("portable", "portable"), "{}", k.name),
                Backend::Adx => assert_eq!((kp, kq), ("adx", "adx"), "{}", k.name),
                Backend::Avx2 => {
                    // The AVX2 exponentiation serves primes of 811 to 1594
                    // bits (RSA-2048 and -3072), to 2154 bits (RSA-4096)
                    // where AVX-512VL gives it 32 registers; the others
                    // stay on the scalar kernels.
                    let scalar = if Backend::Adx.unavailable().is_none() {
                        "adx"
                    } else {
                        "portable"
                    };
                    let want = |prime: &str| {
                        if common::avx2_prime_bits().contains(&bits(k.one(prime))) {
                            if scalar == "adx" { "avx2+adx" } else { "avx2" }
                        } else {
                            scalar
                        }
                    };
                    assert_eq!((kp, kq), (want("p"), want("q")), "{}", k.name)
                }
                Backend::Ifma => {
                    assert_eq!((kp, kq), (or_portable("ifma"), or_portable("ifma")), "{}", k.name)
                }
                Backend::IfmaSingle => assert_eq!(
                    (kp, kq),
                    (or_portable("ifma-single"), or_portable("ifma-single")),
                    "{}",
                    k.name
                ),
            }
            total += check_key(&format!("{} / {}", backend.name(), k.name), k, &forced);
        }
        passed.push(backend.name().to_string());
    }
    eprintln!("known answers: {total} checks passed on backends {passed:?}");
}

/// The forced keys agree with each other on fresh random inputs too (a
/// second net under the fixed vectors): every available backend gives the
/// default key's result.
#[test]
fn backends_agree_on_random_inputs() {
    use rand::{Rng, SeedableRng};
    let keys = parse();
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let mut os = redc::rsa::os_rng();
    for k in &keys {
        let key = load(k);
        let forced: Vec<RsaPrivateKey> = Backend::ALL.iter().filter_map(|&b| key.with_backend(b)).collect();
        for _ in 0..4 {
            let mut x = vec![0u8; key.size()];
            rng.fill(&mut x[1..]);
            let want = key.raw_private(&mut os, &x).unwrap();
            for f in &forced {
                assert_eq!(
                    *f.raw_private(&mut os, &x).unwrap(),
                    *want,
                    "{} {:?}",
                    k.name,
                    f.kernel_names()
                );
            }
        }
    }
}

/// A batch operation: key, input, and the expected output (None: refused as
/// out of range).
type BatchCase<'a> = (&'a RsaPrivateKey, &'a [u8], Option<&'a [u8]>);

/// The known answers through the batch path (`raw_private_many`,
/// `sign_pkcs1v15_batch`): every key's vectors, repeated to fill eight-lane
/// groups (keys whose primes have at most 24 radix-2^52 digits, i.e. up to
/// RSA-2048, run four operations per eight-lane IFMA run where the CPU has
/// it), all keys mixed in one call, the out-of-range inputs among them.
#[test]
fn known_answers_through_the_batch_path() {
    let keys = parse();
    let loaded: Vec<RsaPrivateKey> = keys.iter().map(load).collect();
    let mut rng = redc::rsa::os_rng();
    let mut ops: Vec<BatchCase> = Vec::new();
    for round in 0..3 {
        for (k, key) in keys.iter().zip(&loaded) {
            for (c, m) in k.all("raw_c").into_iter().zip(k.all("raw_m")) {
                ops.push((key, c, Some(m)));
            }
            if round == 1 {
                for c in k.all("reject") {
                    ops.push((key, c, None));
                }
            }
        }
    }
    let inputs: Vec<(&RsaPrivateKey, &[u8])> = ops.iter().map(|(k, c, _)| (*k, *c)).collect();
    let got = redc::rsa::raw_private_many(&mut rng, &inputs);
    assert_eq!(got.len(), ops.len());
    for (i, ((_, c, want), got)) in ops.iter().zip(&got).enumerate() {
        match want {
            Some(m) => assert_eq!(
                hex::encode(&**got.as_ref().unwrap_or_else(|e| panic!("batch op {i}: {e}"))),
                hex::encode(m),
                "batch op {i}: c^d mod n for c = {}",
                hex::encode(c)
            ),
            None => assert_eq!(got.as_ref().map(|_| ()), Err(&Error::OutOfRange), "batch op {i}"),
        }
    }
    // Signatures, one key per call, each key's messages repeated to eight.
    for (k, key) in keys.iter().zip(&loaded) {
        let pairs: Vec<(&[u8], &[u8])> = k.all("sign_msg").into_iter().zip(k.all("sign_sha256")).collect();
        let many: Vec<(&[u8], &[u8])> = pairs.iter().cycle().take(8.max(pairs.len())).copied().collect();
        let digests: Vec<Vec<u8>> = many.iter().map(|(msg, _)| HashAlg::Sha256.digest(msg)).collect();
        let refs: Vec<&[u8]> = digests.iter().map(|d| &d[..]).collect();
        let sigs = key.sign_pkcs1v15_batch(&mut rng, HashAlg::Sha256, &refs);
        for ((_, want), got) in many.iter().zip(&sigs) {
            assert_eq!(
                hex::encode(got.as_ref().unwrap()),
                hex::encode(want),
                "{}: batch signature",
                k.name
            );
        }
    }
}
