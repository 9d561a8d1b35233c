//! Shared helpers for the oracle tests: conversions between limbs and
//! num-bigint's BigUint (the independent oracle), random numbers, and
//! running the `openssl` binary (the oracle of the key-file and padding
//! tests).
#![allow(dead_code)]

use num_bigint::{BigUint, RandBigInt};
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng, rngs::StdRng};

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

pub fn big(x: &[u64]) -> BigUint {
    let mut bytes = Vec::with_capacity(x.len() * 8);
    for limb in x {
        bytes.extend_from_slice(&limb.to_le_bytes());
    }
    BigUint::from_bytes_le(&bytes)
}

pub fn limbs(x: &BigUint, s: usize) -> Vec<u64> {
    let mut out = vec![0u64; s];
    for (i, d) in x.iter_u64_digits().enumerate() {
        assert!(i < s, "value does not fit {s} limbs");
        out[i] = d;
    }
    out
}

/// (x_p, x_q) as the engines take a CRT pair's residues (each below its
/// prime, in `s` limbs).
pub fn halves(xp: &BigUint, xq: &BigUint, s: usize) -> redc::elem::Halves {
    (
        redc::elem::Elem::assume_reduced(limbs(xp, s)),
        redc::elem::Elem::assume_reduced(limbs(xq, s)),
    )
}

/// Both halves' limbs, to compare with an oracle's.
pub fn halves_limbs(h: &redc::elem::Halves) -> (Vec<u64>, Vec<u64>) {
    (h.0.limbs().to_vec(), h.1.limbs().to_vec())
}

/// A random odd modulus of exactly `s` limbs (top limb non-zero).
pub fn random_modulus(rng: &mut StdRng, s: usize) -> BigUint {
    loop {
        let n = rng.gen_biguint(64 * s as u64) | BigUint::one();
        if n.bits() > 64 * (s as u64 - 1) && n > BigUint::from(2u8) {
            return n;
        }
    }
}

/// Operands worth trying against modulus n: the edges and some random ones.
pub fn operands(rng: &mut StdRng, n: &BigUint, random: usize) -> Vec<BigUint> {
    let mut v = vec![BigUint::zero(), BigUint::one(), n - 1u8, n >> 1];
    let s = n.bits().div_ceil(64) as usize;
    // All-ones limbs, if below n.
    let ones = (BigUint::one() << (64 * (s - 1))) - 1u8;
    if &ones < n {
        v.push(ones);
    }
    for _ in 0..random {
        v.push(rng.gen_biguint_below(n));
    }
    v
}

/// The independent check of a Montgomery product: `got < n` and
/// `got * R == a * b (mod n)`, which fixes `got` uniquely as R is invertible.
pub fn assert_mont_product(got: &[u64], a: &BigUint, b: &BigUint, n: &BigUint, what: &str) {
    let s = n.bits().div_ceil(64) as usize;
    let r = BigUint::one() << (64 * s);
    let g = big(got);
    assert!(
        &g < n,
        "{what}: result not reduced\n n={n:x}\n a={a:x}\n b={b:x}\n got={g:x}"
    );
    assert_eq!(
        (&g * &r) % n,
        (a * b) % n,
        "{what}: wrong product\n n={n:x}\n a={a:x}\n b={b:x}\n got={g:x}"
    );
}

pub fn random_below(rng: &mut StdRng, n: &BigUint) -> BigUint {
    rng.gen_biguint_below(n)
}

pub fn coin(rng: &mut StdRng) -> bool {
    rng.gen_bool(0.5)
}

/// Whether a test of kernels this run cannot use skips. `available`: the
/// library runs them; `cpu_has`: the CPU has their feature. A skip prints
/// `skipped` on the process's stderr directly (the test harness captures
/// eprintln!). Under CI, with no REDC_KERNEL/REDC_FORCE_PORTABLE request, a
/// CPU that has the feature must run them: panics with `refusal` instead.
pub fn skip_unavailable(available: bool, cpu_has: bool, refusal: &str, skipped: &str) -> bool {
    use std::io::Write;
    if available {
        return false;
    }
    if cpu_has
        && std::env::var_os("CI").is_some()
        && redc::arch::select::request() == redc::arch::select::Request::Auto
    {
        panic!("{refusal}");
    }
    let _ = writeln!(std::io::stderr(), "{skipped}");
    true
}

/// For the tests of the per-call kernel entry points when the tests were
/// built without redc's `probes` feature: SKIPPED on stderr, or a panic
/// under CI, whose test command always builds them with it.
pub fn probes_missing(what: &str) {
    use std::io::Write;
    if std::env::var_os("CI").is_some() {
        panic!("{what}: built without --features redc/probes, which the test command passes");
    }
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {what} (needs --features redc/probes)"
    );
}

/// Runs `openssl ARGS` in `dir`; its stdout, or a panic with its stderr.
pub fn openssl_in(dir: &std::path::Path, args: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the openssl binary");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Whether the CPU itself has what backend `b` needs (whatever
/// REDC_KERNEL, REDC_FORCE_PORTABLE or REDC_CPU_DISABLE say).
pub fn cpu_has(b: redc::exp::Backend) -> bool {
    use redc::exp::Backend;
    #[cfg(target_arch = "x86_64")]
    {
        match b {
            Backend::Portable => true,
            Backend::Adx => std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("adx"),
            Backend::Avx2 => std::is_x86_feature_detected!("avx2"),
            Backend::Ifma | Backend::IfmaSingle => {
                std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512ifma")
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        b == Backend::Portable
    }
}

/// Every backend of `redc::exp::Backend` this process runs, so that one
/// test binary reaches each kernel family the CPU has (the kernel choice of
/// `MontEngine::new` is fixed per process). Each backend it cannot run is
/// named once on stderr as SKIPPED; under CI, with no REDC_KERNEL or
/// REDC_FORCE_PORTABLE request, a backend the CPU has must run (see
/// [`skip_unavailable`]). None under such a request: the process was run
/// for the kernels it requested (scripts/test.sh's reruns), which the
/// default dispatch's engines and keys use, and the forced backends are
/// those of the run without a request.
pub fn backends() -> &'static [redc::exp::Backend] {
    static BACKENDS: std::sync::OnceLock<Vec<redc::exp::Backend>> = std::sync::OnceLock::new();
    BACKENDS.get_or_init(|| {
        use std::io::Write;
        if redc::arch::select::request() != redc::arch::select::Request::Auto {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: the forced backends (REDC_KERNEL or REDC_FORCE_PORTABLE chose this process's kernels: the default dispatch only)"
            );
            return Vec::new();
        }
        redc::exp::Backend::ALL
            .into_iter()
            .filter(|&b| {
                let missing = b.unavailable();
                !skip_unavailable(
                    missing.is_none(),
                    cpu_has(b),
                    &format!(
                        "CI is set and the CPU has what backend {} needs, but it is unavailable",
                        b.name()
                    ),
                    &format!(
                        "SKIPPED: backend {} (CPU lacks {})",
                        b.name(),
                        missing.unwrap_or("")
                    ),
                )
            })
            .collect()
    })
}

pub mod secrets;

/// The prime sizes the AVX2 family's kernels serve on this CPU, from
/// detection independent of redc's: 811 to 1594 bits (16 ymm registers),
/// to 2154 bits where AVX-512F, VL, BW and DQ are present and
/// `REDC_CPU_DISABLE` hides neither `avx512` nor `avx2` (32 registers).
pub fn avx2_prime_bits() -> std::ops::RangeInclusive<usize> {
    #[cfg(target_arch = "x86_64")]
    let wide = {
        use redc::arch::select::{CpuFeature, cpu_disabled};
        let off = cpu_disabled();
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512dq")
            && !off.contains(&CpuFeature::Avx512)
            && !off.contains(&CpuFeature::Avx2)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let wide = false;
    811..=if wide { 2154 } else { 1594 }
}
