//! `redc bench mont [--json]`: nanoseconds per Montgomery product for every
//! variant at 512 .. 4096 bits by default, any multiple of 64 bits up to
//! [`MAX_BENCH_BITS`] on request; on request also the kernels the engine
//! runs ([`Kernel`]: the portable path's fixed-size product, the MULX/ADX
//! bands with and without Karatsuba), to measure where Karatsuba pays.
//!
//! Method: per (size, variant), a random odd modulus with its top bit set
//! (for `almost`, whose bound needs 4N < R, the same limb count with the two
//! top bits clear); then `--runs` timed batches, each on fresh random
//! operands, each a chain of products where the output feeds the next
//! input, so no two products in a batch see the same inputs. A batch is
//! sized to last about half a millisecond. The figure is the median over
//! the batches of (batch time / products in the batch).

use redc::mont::{MontContext, Variant};
use redc::rsa::prime::mr_rounds;
use std::hint::black_box;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// The largest modulus `redc bench mont` measures, in bits: the largest
/// `redc mont` takes, where the Karatsuba variants are furthest ahead.
const MAX_BENCH_BITS: usize = 65536;

/// Arguments of `redc bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchWhat,
}

#[derive(clap::Subcommand, Debug)]
enum BenchWhat {
    /// Nanoseconds per Montgomery product, every variant and size.
    Mont(MontBenchArgs),
    /// Key generation time, `redc genrsa` beside `openssl genrsa`, timed the same way.
    Keygen(KeygenBenchArgs),
}

#[derive(clap::Args, Debug)]
struct KeygenBenchArgs {
    /// Key sizes in bits, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "2048,3072,4096")]
    bits: Vec<usize>,
    /// Keys generated per size and tool; the median is reported.
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// Print a JSON array instead of the table.
    #[arg(long)]
    json: bool,
    /// Show progress even when stderr is not a terminal.
    #[arg(long)]
    progress: bool,
}

/// OpenSSL 3's Miller-Rabin rounds per prime (`bn_mr_min_checks` in
/// crypto/bn/bn_prime.c: 64, or 128 for primes above 2048 bits).
fn openssl_mr_rounds(prime_bits: usize) -> usize {
    if prime_bits > 2048 { 128 } else { 64 }
}

#[derive(clap::Args, Debug)]
struct MontBenchArgs {
    /// Print a JSON array instead of the table.
    #[arg(long)]
    json: bool,
    /// Modulus sizes in bits, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "512,768,1024,2048,3072,4096")]
    bits: Vec<usize>,
    /// Variants to measure, comma separated (default: all): the names of
    /// `redc mont --list`, or the engine's kernels `portable-fixed`,
    /// `portable`, `portable-sqr`, `adx`, `adx-sqr`, `adx-schoolbook`,
    /// `adx-schoolbook-sqr`, `adx-karatsuba`, `adx-karatsuba-sqr`.
    #[arg(long, value_delimiter = ',')]
    variants: Vec<String>,
    /// Timed batches per figure; the median is reported.
    #[arg(long, default_value_t = 41)]
    runs: usize,
    /// Also draw ns per product against size (log scale), one line per
    /// variant, as an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<String>,
}

/// Run `redc bench`; returns the exit status.
pub fn run(args: BenchArgs) -> i32 {
    match args.what {
        BenchWhat::Mont(args) => bench_mont(args),
        BenchWhat::Keygen(args) => bench_keygen(args),
    }
}

struct Row {
    variant: Series,
    bits: usize,
    limbs: usize,
    ns: f64,
}

/// What `bench mont` times: a Montgomery variant (`redc mont --variant`),
/// or one of the engine's kernels by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Series {
    Variant(Variant),
    Kernel(Kernel),
}

/// The engine's kernels that `--variants` also takes (not variants of
/// `redc mont`: the same algorithms in the forms the exponentiation runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// `portable-fixed`: FIPS with a compile-time limb count at the RSA
    /// sizes (the portable path's product below its Karatsuba threshold).
    PortableFixed,
    /// `portable`, `portable-sqr`: the portable path's product and square
    /// as the engine picks them by size.
    Portable { square: bool },
    /// The MULX/ADX SOS form (bands; the dedicated squaring), its product
    /// half formed as the engine picks (`adx`, `adx-sqr`: Karatsuba from
    /// the measured thresholds), by bands alone (`adx-schoolbook`,
    /// `adx-schoolbook-sqr`) or by Karatsuba at every count that splits,
    /// multiples of 16 limbs down to 8-limb leaves (`adx-karatsuba`,
    /// `adx-karatsuba-sqr`).
    Adx { square: bool, bands: Bands },
}

/// The MULX/ADX Karatsuba thresholds (a stand-in where the kernels do not exist).
#[cfg(target_arch = "x86_64")]
type Bands = redc::arch::x86_64::adx::Bands;
#[cfg(not(target_arch = "x86_64"))]
type Bands = ();

impl Series {
    fn from_name(name: &str) -> Result<Series, String> {
        if let Ok(v) = Variant::from_name(name) {
            return Ok(Series::Variant(v));
        }
        let k = match name {
            "portable-fixed" => Kernel::PortableFixed,
            "portable" => Kernel::Portable { square: false },
            "portable-sqr" => Kernel::Portable { square: true },
            _ => return Self::adx(name),
        };
        Ok(Series::Kernel(k))
    }

    #[cfg(target_arch = "x86_64")]
    fn adx(name: &str) -> Result<Series, String> {
        let (square, bands) = match name {
            "adx" => (false, Bands::CHOSEN),
            "adx-sqr" => (true, Bands::CHOSEN),
            "adx-schoolbook" => (false, Bands::NEVER),
            "adx-schoolbook-sqr" => (true, Bands::NEVER),
            "adx-karatsuba" => (false, Bands::ALWAYS),
            "adx-karatsuba-sqr" => (true, Bands::ALWAYS),
            _ => return Err(Self::unknown(name)),
        };
        if !redc::arch::x86_64::adx_available() {
            return Err(format!(
                "{name}: this CPU has no BMI2/ADX, or REDC_CPU_DISABLE hides them"
            ));
        }
        Ok(Series::Kernel(Kernel::Adx { square, bands }))
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn adx(name: &str) -> Result<Series, String> {
        if name.starts_with("adx") {
            return Err(format!("{name}: the MULX/ADX kernels exist on x86-64 only"));
        }
        Err(Self::unknown(name))
    }

    fn unknown(name: &str) -> String {
        format!(
            "{}; or one of the engine's kernels: portable-fixed, portable, portable-sqr, adx, \
             adx-sqr, adx-schoolbook, adx-schoolbook-sqr, adx-karatsuba, adx-karatsuba-sqr",
            redc::Error::UnknownVariant(name.to_string())
        )
    }

    fn name(self) -> &'static str {
        match self {
            Series::Variant(v) => v.name(),
            Series::Kernel(Kernel::PortableFixed) => "portable-fixed",
            Series::Kernel(Kernel::Portable { square: false }) => "portable",
            Series::Kernel(Kernel::Portable { square: true }) => "portable-sqr",
            #[cfg(target_arch = "x86_64")]
            Series::Kernel(Kernel::Adx { square, bands }) => match (square, bands) {
                (false, Bands::NEVER) => "adx-schoolbook",
                (true, Bands::NEVER) => "adx-schoolbook-sqr",
                (false, Bands::ALWAYS) => "adx-karatsuba",
                (true, Bands::ALWAYS) => "adx-karatsuba-sqr",
                (false, _) => "adx",
                (true, _) => "adx-sqr",
            },
            #[cfg(not(target_arch = "x86_64"))]
            Series::Kernel(Kernel::Adx { .. }) => "adx",
        }
    }

    /// Whether it needs 4N < R (the almost-Montgomery bound).
    fn almost(self) -> bool {
        self == Series::Variant(Variant::Almost)
    }

    /// One product (or square: `b` unread) `out = a b R^-1 mod n`, fully reduced.
    fn run(self, ctx: &MontContext, out: &mut [u64], a: &[u64], b: &[u64], scratch: &mut [u64]) {
        let (n, n0) = (ctx.modulus(), ctx.n0());
        match self {
            Series::Variant(v) => ctx.mul_into(v, out, a, b, scratch),
            Series::Kernel(Kernel::PortableFixed) => {
                redc::mont::fips_fixed::mont_mul(out, a, b, n, n0, scratch)
            }
            Series::Kernel(Kernel::Portable { square }) => {
                let (mul, sqr) = redc::exp::portable_kernels(n.len());
                if square {
                    sqr(out, a, a, n, n0, scratch)
                } else {
                    mul(out, a, b, n, n0, scratch)
                }
            }
            #[cfg(target_arch = "x86_64")]
            Series::Kernel(Kernel::Adx { square: false, bands }) => {
                redc::arch::x86_64::adx::mont_mul_by(bands, out, a, b, n, n0, scratch)
            }
            #[cfg(target_arch = "x86_64")]
            Series::Kernel(Kernel::Adx { square: true, bands }) => {
                redc::arch::x86_64::adx::mont_sqr_by(bands, out, a, n, n0, scratch)
            }
            #[cfg(not(target_arch = "x86_64"))]
            Series::Kernel(Kernel::Adx { .. }) => unreachable!("refused by from_name"),
        }
    }
}

fn bench_mont(args: MontBenchArgs) -> i32 {
    let variants = if args.variants.is_empty() {
        Variant::ALL.iter().map(|&v| Series::Variant(v)).collect()
    } else {
        match args
            .variants
            .iter()
            .map(|n| Series::from_name(n))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(v) => v,
            Err(e) => return crate::fail("bench mont", e),
        }
    };
    if let Some(&bad) = args
        .bits
        .iter()
        .find(|&&b| !(64..=MAX_BENCH_BITS).contains(&b) || b % 64 != 0)
    {
        return crate::fail(
            "bench mont",
            format!("--bits {bad}: sizes must be multiples of 64 from 64 to {MAX_BENCH_BITS}"),
        );
    }
    if args.runs == 0 {
        return crate::fail("bench mont", "--runs must be at least 1");
    }
    if args.plot.as_deref().is_some_and(|p| p == "-" || p.is_empty()) {
        return crate::fail("bench mont", "--plot needs a file name (FILE.svg)");
    }
    let progress = std::io::stderr().is_terminal();
    let mut rng = SplitMix(0x005e_ed0f_ba5e_ba11);
    let mut rows = Vec::new();
    for &bits in &args.bits {
        for &variant in &variants {
            if progress {
                eprint!("\rbench mont: {bits:>5} bits, {:<14}", variant.name());
                let _ = std::io::stderr().flush();
            }
            let ns = measure(variant, bits, args.runs, &mut rng);
            rows.push(Row {
                variant,
                bits,
                limbs: bits / 64,
                ns,
            });
        }
    }
    if progress {
        eprint!("\r{:60}\r", "");
    }
    if let Some(path) = &args.plot
        && let Err(e) = plot_mont(path, &rows, &variants, args.runs)
    {
        return crate::fail("bench mont", e);
    }
    if args.json {
        let json: Vec<_> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "variant": r.variant.name(), "bits": r.bits, "limbs": r.limbs,
                    "ns_per_product": (r.ns * 10.0).round() / 10.0, "runs": args.runs,
                })
            })
            .collect();
        crate::outln(&serde_json::to_string_pretty(&json).expect("plain JSON"));
    } else {
        print_table(&rows, &variants, &args.bits, args.runs);
    }
    0
}

/// `--plot`: one line per variant, ns per product against modulus size.
fn plot_mont(path: &str, rows: &[Row], variants: &[Series], runs: usize) -> Result<(), String> {
    let series: Vec<_> = variants
        .iter()
        .map(|&v| crate::plot::Series {
            label: v.name().to_string(),
            points: rows
                .iter()
                .filter(|r| r.variant == v)
                .map(|r| (r.bits as f64, r.ns))
                .collect(),
        })
        .collect();
    let title = format!(
        "Montgomery product, median of {runs} batches: {}",
        redc::arch::select::cpu_model()
    );
    crate::plot::line_chart(path, &title, "modulus size (bits)", "ns per product", &series)
}

fn print_table(rows: &[Row], variants: &[Series], sizes: &[usize], runs: usize) {
    let mut text = format!("Montgomery product A*B*R^-1 mod N, ns per product (median of {runs} batches)\n");
    text += &format!("{:<14}", "variant");
    for bits in sizes {
        text += &format!("{:>10}", format!("{bits} b"));
    }
    text += "\n";
    for &v in variants {
        text += &format!("{:<14}", v.name());
        for &bits in sizes {
            let r = rows
                .iter()
                .find(|r| r.variant == v && r.bits == bits)
                .expect("measured");
            text += &format!("{:>10.1}", r.ns);
        }
        text += "\n";
    }
    crate::out(&text);
}

/// Median nanoseconds per product of `variant` on a random `bits`-bit modulus.
fn measure(variant: Series, bits: usize, runs: usize, rng: &mut SplitMix) -> f64 {
    let s = bits / 64;
    let mut n: Vec<u64> = (0..s).map(|_| rng.next()).collect();
    n[0] |= 1;
    if variant.almost() {
        n[s - 1] = (n[s - 1] >> 2) | (1 << 61);
    } else {
        n[s - 1] |= 1 << 63;
    }
    let ctx = MontContext::new(&n).expect("odd modulus of s limbs");
    let mut scratch = ctx.scratch();
    let mut out = vec![0u64; s];
    let mut operand = || {
        let mut x: Vec<u64> = (0..s).map(|_| rng.next()).collect();
        x[s - 1] &= n[s - 1] >> 1; // below N
        x
    };
    // A chain of `count` products on fresh operands; returns its duration.
    let mut batch = |count: usize| -> Duration {
        let mut a = operand();
        let b = operand();
        let start = Instant::now();
        for _ in 0..count {
            variant.run(&ctx, &mut out, black_box(&a), black_box(&b), &mut scratch);
            a.copy_from_slice(&out);
        }
        let elapsed = start.elapsed();
        black_box(&a);
        elapsed
    };
    let mut count = 1;
    while batch(count) < Duration::from_micros(500) && count < 1 << 24 {
        count *= 2;
    }
    let mut samples: Vec<f64> = (0..runs)
        .map(|_| batch(count).as_nanos() as f64 / count as f64)
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// SplitMix64: benchmark operands only, never secrets.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Median wall time of `redc genrsa` and `openssl genrsa`, each run as a
/// process writing a PEM key to a temporary file, alternating the two so
/// that machine noise falls on both.
fn bench_keygen(args: KeygenBenchArgs) -> i32 {
    use std::process::{Command, Stdio};
    if args.runs == 0 {
        return crate::fail("bench keygen", "--runs must be at least 1");
    }
    if let Some(&bad) = args.bits.iter().find(|&&b| !(1024..=16384).contains(&b)) {
        return crate::fail(
            "bench keygen",
            format!("--bits {bad}: sizes from 1024 to 16384 bits"),
        );
    }
    let redc = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => return crate::fail("bench keygen", e),
    };
    let out = std::env::temp_dir().join(format!("redc-keygen-bench-{}.pem", std::process::id()));
    let out_s = out.to_string_lossy().into_owned();
    let time = |cmd: &mut Command| -> Result<f64, String> {
        let _ = std::fs::remove_file(&out);
        let start = Instant::now();
        let status = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        let t = start.elapsed().as_secs_f64() * 1e3;
        if !status.success() {
            return Err(format!("{cmd:?} failed"));
        }
        Ok(t)
    };
    let steps = (args.bits.len() * args.runs * 2) as u64;
    let bar = crate::progress::bar(args.progress, steps, "bench keygen".into());
    let mut rows = Vec::new();
    for &bits in &args.bits {
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for i in 0..args.runs {
            let b = bits.to_string();
            if let Some(bar) = &bar {
                bar.set_message(format!(
                    "bench keygen: {bits} bits, redc key {}/{}",
                    i + 1,
                    args.runs
                ));
            }
            let r = time(Command::new(&redc).args(["genrsa", "--bits", &b, "-o", &out_s]));
            if let Some(bar) = &bar {
                bar.inc(1);
                bar.set_message(format!(
                    "bench keygen: {bits} bits, openssl key {}/{}",
                    i + 1,
                    args.runs
                ));
            }
            match r {
                Ok(t) => ours.push(t),
                Err(e) => return crate::fail("bench keygen", e),
            }
            let o = time(Command::new("openssl").args(["genrsa", "-out", &out_s, &b]));
            if let Some(bar) = &bar {
                bar.inc(1);
            }
            match o {
                Ok(t) => theirs.push(t),
                Err(e) => return crate::fail("bench keygen", format!("openssl genrsa: {e}")),
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        rows.push((bits, median(&mut ours), median(&mut theirs)));
    }
    let _ = std::fs::remove_file(&out);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let rounds = |bits: usize| (mr_rounds(bits.div_ceil(2)), openssl_mr_rounds(bits.div_ceil(2)));
    if args.json {
        let json: Vec<_> = rows
            .iter()
            .map(|&(bits, r, o)| {
                let (mr_redc, mr_openssl) = rounds(bits);
                serde_json::json!({"bits": bits, "redc_ms": r, "openssl_ms": o, "runs": args.runs,
                    "redc_mr_rounds": mr_redc, "openssl_mr_rounds": mr_openssl})
            })
            .collect();
        crate::outln(&serde_json::to_string_pretty(&json).expect("plain JSON"));
    } else {
        let mut text = format!(
            "RSA key generation, median wall time of {} keys (process start included)\n",
            args.runs
        );
        text += &format!(
            "{:>6}{:>14}{:>18}{:>8}{:>22}\n",
            "bits", "redc genrsa", "openssl genrsa", "ratio", "M-R rounds redc/ossl"
        );
        for (bits, r, o) in rows {
            let (mr_redc, mr_openssl) = rounds(bits);
            text += &format!(
                "{bits:>6}{:>11.1} ms{:>15.1} ms{:>7.2}x{:>22}\n",
                r,
                o,
                o / r,
                format!("{mr_redc}/{mr_openssl}")
            );
        }
        text += "ratio = openssl time / redc time (above 1: redc is faster)\n";
        text += "Miller-Rabin rounds per prime differ: redc runs the FIPS 186-5 minimum (Table B.1: \
                 error below 2^-112 at 1024-bit primes, 2^-144 at 2048), OpenSSL 3 runs 64 (128 for \
                 primes above 2048 bits)\n";
        crate::out(&text);
    }
    0
}
