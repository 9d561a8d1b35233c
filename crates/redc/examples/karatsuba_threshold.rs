//! The Karatsuba recursion threshold: ns per n-limb product and square for
//! each candidate threshold, schoolbook alone in the last column.
//!
//! `cargo run --example karatsuba_threshold -p redc [-- reps]`: the
//! portable product alone (`mont::karatsuba::mul_at`, `square_at`).
//!
//! `cargo run --example karatsuba_threshold -p redc -- adx [reps]`: the
//! whole MULX/ADX Montgomery product and square (`adx::mont_mul_by`,
//! `mont_sqr_by`, the reduction included, as the exponentiation sees them)
//! for each threshold of their Karatsuba product half (x86-64 with BMI2
//! and ADX).
//!
//! Each figure is the best of `reps` (default 7) timed batches of about a
//! millisecond each, on random operands (the minimum is the least disturbed
//! batch on a shared machine).

use std::hint::black_box;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng, rngs::StdRng};
use redc::mont::karatsuba;

const THRESHOLDS: [usize; 11] = [8, 12, 16, 20, 24, 32, 40, 48, 64, 96, usize::MAX];
const SIZES: [usize; 10] = [16, 24, 32, 40, 48, 64, 96, 128, 256, 512];

/// Best of `reps` batches of ns per call of `f`.
fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut count = 1;
    loop {
        let t = Instant::now();
        (0..count).for_each(|_| f());
        if t.elapsed() > Duration::from_millis(1) {
            break;
        }
        count *= 2;
    }
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            (0..count).for_each(|_| f());
            t.elapsed().as_nanos() as f64 / count as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("adx") {
        let reps = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(7);
        return adx(reps);
    }
    let reps = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(7);
    let mut rng = StdRng::seed_from_u64(0x6b61_7261);
    let header = |what: &str| {
        print!("{what:<8}");
        for t in THRESHOLDS {
            let name = if t == usize::MAX {
                "school".to_string()
            } else {
                format!("t={t}")
            };
            print!("{name:>10}");
        }
        println!();
    };
    for (what, square) in [("mul n", false), ("sqr n", true)] {
        header(what);
        for n in SIZES {
            let a: Vec<u64> = (0..n).map(|_| rng.r#gen()).collect();
            let b: Vec<u64> = (0..n).map(|_| rng.r#gen()).collect();
            let mut r = vec![0u64; 2 * n];
            print!("{n:<8}");
            for t in THRESHOLDS {
                let mut work = vec![0u64; karatsuba::work_len_at(t, n)];
                let ns = time(reps, || {
                    if square {
                        karatsuba::square_at(t, &mut r, black_box(&a), &mut work);
                    } else {
                        karatsuba::mul_at(t, &mut r, black_box(&a), black_box(&b), &mut work);
                    }
                    black_box(&r);
                });
                print!("{ns:>10.0}");
            }
            println!();
        }
    }
}

/// The `adx` mode: ns per Montgomery product and square at each threshold.
#[cfg(target_arch = "x86_64")]
fn adx(reps: usize) {
    use redc::arch::x86_64::adx::{Bands, mont_mul_by, mont_sqr_by};
    use redc::mont::{MontContext, scratch_len};
    const FROM: [usize; 8] = [16, 32, 48, 64, 96, 128, 192, usize::MAX];
    const LIMBS: [usize; 8] = [32, 48, 64, 96, 128, 192, 256, 512];
    if !redc::arch::x86_64::adx_available() {
        println!("SKIPPED: no BMI2/ADX on this CPU (or masked)");
        return;
    }
    let mut rng = StdRng::seed_from_u64(0x0061_6478);
    for (what, square) in [("mul n", false), ("sqr n", true)] {
        print!("{what:<8}");
        for t in FROM {
            let name = if t == usize::MAX {
                "bands".to_string()
            } else {
                format!("t={t}")
            };
            print!("{name:>10}");
        }
        println!();
        for n in LIMBS {
            let mut m: Vec<u64> = (0..n).map(|_| rng.r#gen()).collect();
            m[0] |= 1;
            m[n - 1] |= 1 << 63;
            let ctx = MontContext::new(&m).unwrap();
            let below = |rng: &mut StdRng| -> Vec<u64> {
                let mut x: Vec<u64> = (0..n).map(|_| rng.r#gen()).collect();
                x[n - 1] >>= 1;
                x
            };
            let (a, b) = (below(&mut rng), below(&mut rng));
            let mut out = vec![0u64; n];
            let mut scratch = vec![0u64; scratch_len(n)];
            print!("{n:<8}");
            for t in FROM {
                let bands = Bands { mul: t, sqr: t };
                let ns = time(reps, || {
                    if square {
                        mont_sqr_by(
                            bands,
                            &mut out,
                            black_box(&a),
                            ctx.modulus(),
                            ctx.n0(),
                            &mut scratch,
                        );
                    } else {
                        mont_mul_by(
                            bands,
                            &mut out,
                            black_box(&a),
                            black_box(&b),
                            ctx.modulus(),
                            ctx.n0(),
                            &mut scratch,
                        );
                    }
                    black_box(&out);
                });
                print!("{ns:>10.0}");
            }
            println!();
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn adx(_reps: usize) {
    println!("SKIPPED: the MULX/ADX kernels exist on x86-64 only");
}
