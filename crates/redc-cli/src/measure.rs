//! The measuring method of `redc speed`, shared word for word with the
//! OpenSSL anchor binary (`crates/redc-openssl-anchor` includes this file),
//! so that redc and every anchor are timed the same way.
//!
//! Per thread: a warm-up of at least 20 ms and two operations (not counted)
//! sizes a batch to about 50 ms; the threads then wait for each other and run
//! batches for `seconds` (at least three each). Batch i of every thread forms
//! round i, whose rate is the sum of the threads' rates in it (aggregate
//! ops/s); the figure is the median round, with the slowest and fastest
//! rounds as the spread. With one thread a round is one batch.
//! std only: the anchor binary has no other dependency in common with redc.

use std::sync::Barrier;
use std::time::{Duration, Instant};

/// The message every implementation hashes and signs.
pub const MESSAGE: &[u8; 64] = b"redc speed: the message every implementation signs, 64 bytes....";

/// Warm-up, per thread, before the timed batches.
pub const WARM_UP: &str = "20 ms and two operations per thread, not counted";

/// Aggregate operations per second over the rounds of batches.
#[derive(Clone, Copy, Debug)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Rounds measured.
    pub batches: usize,
}

impl Spread {
    /// (max - min) / median: 0.1 = the rounds spread over 10% of the median.
    pub fn relative_spread(&self) -> f64 {
        (self.max - self.min) / self.median
    }

    /// Every figure multiplied by `k` (operations per call).
    pub fn scaled(self, k: f64) -> Spread {
        Spread {
            median: self.median * k,
            min: self.min * k,
            max: self.max * k,
            batches: self.batches,
        }
    }
}

/// Measures `threads` threads, each running the operation `make()` gives it.
pub fn measure<M, F>(seconds: f64, threads: usize, make: M) -> Spread
where
    M: Fn() -> F + Sync,
    F: FnMut(),
{
    let threads = threads.max(1);
    let barrier = Barrier::new(threads);
    let per_thread: Vec<Vec<f64>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| s.spawn(|| one_thread(seconds, &barrier, make())))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("measuring thread"))
            .collect()
    });
    let rounds = per_thread.iter().map(Vec::len).min().unwrap_or(0);
    let mut rates: Vec<f64> = (0..rounds)
        .map(|i| per_thread.iter().map(|r| r[i]).sum())
        .collect();
    rates.sort_by(f64::total_cmp);
    Spread {
        median: rates[rates.len() / 2],
        min: rates[0],
        max: rates[rates.len() - 1],
        batches: rates.len(),
    }
}

fn one_thread(seconds: f64, barrier: &Barrier, mut op: impl FnMut()) -> Vec<f64> {
    let start = Instant::now();
    let mut warm = 0u64;
    while start.elapsed() < Duration::from_millis(20) || warm < 2 {
        op();
        warm += 1;
    }
    let per_op = start.elapsed().as_secs_f64() / warm as f64;
    let batch = ((0.05 / per_op) as u64).max(1);
    barrier.wait();
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut rates = Vec::new();
    while Instant::now() < deadline || rates.len() < 3 {
        let t = Instant::now();
        for _ in 0..batch {
            op();
        }
        rates.push(batch as f64 / t.elapsed().as_secs_f64());
    }
    rates
}
