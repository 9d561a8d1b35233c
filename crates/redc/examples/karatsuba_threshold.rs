//! The Karatsuba recursion threshold: ns per n-limb product and square for
//! each candidate threshold, schoolbook alone in the last column.
//!
//! `cargo run --example karatsuba_threshold -p redc [-- reps]`
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
