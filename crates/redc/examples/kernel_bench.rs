//! Kernel benchmark: ns per Montgomery multiplication / squaring and per
//! exponentiation for the arch kernels, beside the portable
//! `redc::mont::fips::mont_mul` measured in the same run.
//!
//! `cargo run --release -p redc --features probes --example kernel_bench [-- reps]`; modes
//! (first argument): dual, steps, chain, pipe, pow, widths, mb8, mb8pow, ...
//!
//! Each figure is the best of `reps` (default 7) timed batches. The IFMA
//! "dual" figures do both CRT halves (two moduli) per call; compare them with
//! two portable multiplications.

#[cfg(target_arch = "x86_64")]
fn main() {
    bench::run();
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("kernel_bench: x86-64 only");
}

#[cfg(target_arch = "x86_64")]
mod bench {
    use std::hint::black_box;
    use std::time::Instant;

    use num_bigint::{BigUint, RandBigInt};
    use num_traits::One;
    use rand::{Rng, SeedableRng, rngs::StdRng};
    use redc::arch::portable52;
    use redc::arch::x86_64::{self as x86, Ifma52Modulus};
    use redc::mont::{MontContext, fips};

    fn limbs(x: &BigUint, s: usize) -> Vec<u64> {
        let mut out = vec![0u64; s];
        for (i, d) in x.iter_u64_digits().enumerate() {
            out[i] = d;
        }
        out
    }

    fn modulus(rng: &mut StdRng, bits: u64) -> BigUint {
        rng.gen_biguint(bits) | BigUint::one() | (BigUint::one() << (bits - 1))
    }

    /// Best (minimum) over `reps` batches (the machine is shared: the minimum is the
    /// least disturbed run) of the ns per iteration of `f(iters)`.
    fn time(reps: usize, iters: usize, mut f: impl FnMut(usize)) -> f64 {
        f(iters.div_ceil(10)); // warm up
        let mut v: Vec<f64> = (0..reps)
            .map(|_| {
                let t = Instant::now();
                f(iters);
                t.elapsed().as_nanos() as f64 / iters as f64
            })
            .collect();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[0]
    }

    /// ns per dual product and per dual squaring (feedback chains of `it`
    /// products, best of `reps`) on two random d-digit moduli.
    fn dual_times(rng: &mut StdRng, d: usize, reps: usize, it: usize) -> (f64, f64) {
        let (p, q, a, b) = dual_operands(rng, d);
        let run = |sqr: bool| {
            time(reps, 1, |_| {
                black_box(x86::amm52_dual(&p, &a, &a, &q, &b, &b, sqr, it));
            }) / it as f64
        };
        (run(false), run(true))
    }

    /// Two random moduli of d digits (52 d - 2 bits) and an operand below
    /// each, in d radix-2^52 digits.
    fn dual_operands(rng: &mut StdRng, d: usize) -> (Ifma52Modulus, Ifma52Modulus, Vec<u64>, Vec<u64>) {
        let bits = 52 * d as u64 - 2;
        let s = (bits as usize).div_ceil(64);
        let (np, nq) = (modulus(rng, bits), modulus(rng, bits));
        let p = Ifma52Modulus::new(&limbs(&np, s)).unwrap();
        let q = Ifma52Modulus::new(&limbs(&nq, s)).unwrap();
        let a = portable52::to_digits(&limbs(&rng.gen_biguint_below(&np), s), d);
        let b = portable52::to_digits(&limbs(&rng.gen_biguint_below(&nq), s), d);
        (p, q, a, b)
    }

    /// (x_p, x_q) as the dual key takes them, in `s` limbs.
    fn halves(xp: BigUint, xq: BigUint, s: usize) -> redc::elem::Halves {
        (
            redc::elem::Elem::assume_reduced(limbs(&xp, s)),
            redc::elem::Elem::assume_reduced(limbs(&xq, s)),
        )
    }

    /// Two random `bits`-bit moduli (a multiple of 64) and their dual key.
    fn dual_key(rng: &mut StdRng, bits: u64) -> (BigUint, BigUint, x86::DualKey) {
        let s = (bits / 64) as usize;
        let (np, nq) = (modulus(rng, bits), modulus(rng, bits));
        let p = Ifma52Modulus::new(&limbs(&np, s)).unwrap();
        let q = Ifma52Modulus::new(&limbs(&nq, s)).unwrap();
        let key = x86::DualKey::new(&p, &q).unwrap();
        (np, nq, key)
    }

    /// `kernel_bench pipe`: us per dual secret exponentiation (both CRT
    /// halves of RSA-3072: 1536-bit primes, 1536-bit exponents, blinded
    /// entry), plain and quotient-pipelined, with each squaring; best of 15
    /// batches of 20.
    fn pipe() {
        let mut rng = StdRng::seed_from_u64(9);
        let s = 24usize;
        let (np, nq, key) = dual_key(&mut rng, 1536);
        assert!(key.pipelined());
        let b = halves(rng.gen_biguint_below(&np), rng.gen_biguint_below(&nq), s);
        let f = key.factor(&halves(rng.gen_biguint_below(&np), rng.gen_biguint_below(&nq), s));
        let ep: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
        let eq: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
        for dedicated in [true, false] {
            let mut row = Vec::new();
            for pipelined in [false, true] {
                row.push(
                    time(15, 20, |n| {
                        for _ in 0..n {
                            black_box(key.pow_secret_chosen(
                                x86::Input::Halves(&b),
                                &ep,
                                &eq,
                                Some(&f),
                                x86::Choices {
                                    dedicated,
                                    pipelined,
                                    ..key.choices()
                                },
                            ));
                        }
                    }) / 1000.0,
                );
            }
            println!(
                "dedicated {dedicated}: plain {:.1} us  pipelined {:.1} us  ({:+.1}%)",
                row[0],
                row[1],
                100.0 * (row[1] / row[0] - 1.0)
            );
        }
    }

    /// `kernel_bench pow`: us per dual exponentiation (both CRT halves, full-length
    /// exponents, dedicated squaring, pipelined where the key is) for the primes of
    /// RSA-2048, -3072 and -4096: the private operation's kernel work alone.
    fn pow() {
        let mut rng = StdRng::seed_from_u64(11);
        for bits in [1024u64, 1536, 2048] {
            let s = (bits / 64) as usize;
            let (np, nq, key) = dual_key(&mut rng, bits);
            let b = halves(rng.gen_biguint_below(&np), rng.gen_biguint_below(&nq), s);
            let ep: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
            let eq: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
            let pipelined = key.pipelined();
            let f = key.factor(&halves(rng.gen_biguint_below(&np), rng.gen_biguint_below(&nq), s));
            let t = time(15, 20, |n| {
                for _ in 0..n {
                    black_box(key.pow_secret_chosen(
                        x86::Input::Halves(&b),
                        &ep,
                        &eq,
                        Some(&f),
                        x86::Choices {
                            dedicated: true,
                            pipelined,
                            ..key.choices()
                        },
                    ));
                }
            }) / 1000.0;
            println!(
                "RSA-{}: dual exponentiation {t:.1} us (pipelined: {pipelined})",
                2 * bits
            );
        }
    }

    /// `kernel_bench chain`: the two forms of the dual kernel's quotient
    /// chain (zmm broadcast, xmm pair; `ifma`, "The quotient chain in xmm")
    /// side by side: ns per dual product and square at 20, 32 and 40 digits
    /// (minimum of 101 batches), then us per plain (not pipelined) dual
    /// exponentiation with the dedicated squaring at RSA-2048, -3072 and
    /// -4096 (best of 15 batches of 20), the forms interleaved.
    fn chain() {
        let mut rng = StdRng::seed_from_u64(7);
        println!(
            "this CPU's form: {}",
            if x86::xmm_chain() { "xmm" } else { "zmm" }
        );
        println!(
            "{:>3} {:>9} {:>9} {:>9} {:>9}",
            "d", "zmm mul", "xmm mul", "zmm sqr", "xmm sqr"
        );
        for d in [20usize, 32, 40] {
            let (p, q, a, b) = dual_operands(&mut rng, d);
            let it = 2000;
            let run = |sqr: bool, xmm: bool| {
                time(101, 1, |_| {
                    if xmm {
                        black_box(x86::amm52_dual_xmm(&p, &a, &a, &q, &b, &b, sqr, it));
                    } else {
                        black_box(x86::amm52_dual(&p, &a, &a, &q, &b, &b, sqr, it));
                    }
                }) / it as f64
            };
            let (zm, xm, zs, xs) = (
                run(false, false),
                run(false, true),
                run(true, false),
                run(true, true),
            );
            println!("{d:>3} {zm:>9.1} {xm:>9.1} {zs:>9.1} {xs:>9.1}");
        }
        println!("{:>8} {:>9} {:>9}", "RSA", "zmm us", "xmm us");
        for bits in [1024u64, 1536, 2048] {
            let s = (bits / 64) as usize;
            let (np, nq, key) = dual_key(&mut rng, bits);
            let b = halves(rng.gen_biguint_below(&np), rng.gen_biguint_below(&nq), s);
            let one = key.factor(&halves(BigUint::one(), BigUint::one(), s));
            let ep: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
            let eq: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
            let mut best = [f64::MAX; 2];
            for _ in 0..3 {
                for (k, xmm) in [false, true].into_iter().enumerate() {
                    let t = time(5, 20, |n| {
                        for _ in 0..n {
                            black_box(key.pow_secret_chosen(
                                x86::Input::Halves(&b),
                                &ep,
                                &eq,
                                Some(&one),
                                x86::Choices {
                                    dedicated: true,
                                    pipelined: false,
                                    xmm,
                                },
                            ));
                        }
                    }) / 1000.0;
                    best[k] = best[k].min(t);
                }
            }
            println!("{:>8} {:>9.1} {:>9.1}", 2 * bits, best[0], best[1]);
        }
    }

    /// `kernel_bench steps`: ns per dual product at every digit count (the per-step cost).
    fn steps() {
        let mut rng = StdRng::seed_from_u64(7);
        println!("{:>3} {:>9} {:>9} {:>9}", "d", "mul2 ns", "sqr2 ns", "ns/step");
        for d in (1..=10).map(|nr| 4 * nr) {
            let (m, q2) = dual_times(&mut rng, d, 15, 20_000);
            println!("{:>3} {:>9.1} {:>9.1} {:>9.2}", d, m, q2, m / d as f64);
        }
    }

    /// `kernel_bench dual`: ns per dual product and dual squaring at the RSA
    /// sizes' digit counts (20, 32, 40), minimum of 101 short batches (on a
    /// shared machine the minimum is the least disturbed batch).
    fn dual() {
        let mut rng = StdRng::seed_from_u64(7);
        for d in [20usize, 32, 40] {
            let (m, q2) = dual_times(&mut rng, d, 101, 2000);
            print!("d{d}: mul {m:.1} sqr {q2:.1}  ");
        }
        // The single-modulus kernel (public-exponent work) at 2048 bits: 40 digits.
        let bits = 2048;
        let n = modulus(&mut rng, bits);
        let md = portable52::Modulus52::with_digit_multiple(&limbs(&n, 32), 8).unwrap();
        let d = md.d;
        let a = portable52::to_digits(&limbs(&rng.gen_biguint_below(&n), 32), d);
        let it = 2000;
        let s1 = time(101, 1, |_| {
            black_box(x86::amm52_single(&limbs(&n, 32), &a, &a, it));
        }) / it as f64;
        println!("single2048: {s1:.1}");
    }

    /// Eight random moduli of d digits (52 d - 2 bits): their limb count,
    /// the numbers, and their eight-lane forms.
    fn eight_moduli(rng: &mut StdRng, d: usize) -> (usize, Vec<BigUint>, Vec<Ifma52Modulus>) {
        let bits = 52 * d as u64 - 2;
        let s = (bits as usize).div_ceil(64);
        let ns: Vec<BigUint> = (0..8).map(|_| modulus(rng, bits)).collect();
        let mods = ns
            .iter()
            .map(|n| Ifma52Modulus::new(&limbs(n, s)).unwrap())
            .collect();
        (s, ns, mods)
    }

    /// `kernel_bench mb8pow`: us per eight-lane exponentiation (eight
    /// full-length exponents, the table build and every gather included),
    /// for the CRT halves of RSA-2048, -3072 (at 30 digits, the kernel's own
    /// size, and at the dual kernel's 32) and -4096.
    fn mb8pow() {
        let mut rng = StdRng::seed_from_u64(11);
        println!(
            "{:>3} {:>5} {:>14} {:>14}",
            "d", "bits", "us per 8 pows", "us per pow"
        );
        for (bits, multiple) in [(1024u64, 2), (1536, 2), (1536, 4), (2048, 2)] {
            let s = (bits as usize).div_ceil(64);
            let ns: Vec<BigUint> = (0..8).map(|_| modulus(&mut rng, bits)).collect();
            let mods: Vec<portable52::Modulus52> = ns
                .iter()
                .map(|n| portable52::Modulus52::with_digit_multiple(&limbs(n, s), multiple).unwrap())
                .collect();
            let d = mods[0].d;
            let bases: Vec<Vec<u64>> = ns.iter().map(|n| limbs(&rng.gen_biguint_below(n), s)).collect();
            let exps: Vec<Vec<u64>> = (0..8).map(|_| (0..s).map(|_| rng.r#gen()).collect()).collect();
            let t = time(15, 1, |_| {
                black_box(x86::pow_mb8(
                    core::array::from_fn(|l| &mods[l]),
                    core::array::from_fn(|l| &bases[l][..]),
                    core::array::from_fn(|l| &exps[l][..]),
                ));
            }) / 1000.0;
            println!("{:>3} {:>5} {:>14.1} {:>14.2}", d, bits, t, t / 8.0);
        }
    }

    /// `kernel_bench mb8`: ns per product of the eight-lane kernel (eight
    /// products per call) beside the dual kernel (two per call), per operation.
    fn mb8() {
        let mut rng = StdRng::seed_from_u64(9);
        println!(
            "{:>3} {:>14} {:>14} {:>14} {:>14}",
            "d", "mb8 ns/8 ops", "sqr ns/8 ops", "mb8 ns/op", "dual ns/op"
        );
        for d in [20usize, 32, 40] {
            let (s, ns, mods) = eight_moduli(&mut rng, d);
            let a: Vec<Vec<u64>> = ns
                .iter()
                .map(|n| portable52::to_digits(&limbs(&rng.gen_biguint_below(n), s), d))
                .collect();
            let it = 5_000;
            let t8 = time(9, 1, |_| {
                black_box(x86::amm52_mb8(
                    core::array::from_fn(|l| &mods[l]),
                    core::array::from_fn(|l| &a[l][..]),
                    core::array::from_fn(|l| &a[l][..]),
                    it,
                ));
            }) / it as f64;
            let ts = time(9, 1, |_| {
                black_box(x86::sqr52_mb8(
                    core::array::from_fn(|l| &mods[l]),
                    core::array::from_fn(|l| &a[l][..]),
                    it,
                ));
            }) / it as f64;
            let t2 = time(9, 1, |_| {
                black_box(x86::amm52_dual(
                    &mods[0], &a[0], &a[0], &mods[1], &a[1], &a[1], false, it,
                ));
            }) / it as f64;
            let sq = format!("{ts:.1}");
            println!(
                "{:>3} {:>14.1} {:>14} {:>14.1} {:>14.1}",
                d,
                t8,
                sq,
                t8 / 8.0,
                t2 / 2.0
            );
        }
    }

    /// The AVX2 family's product (as a product and as a square) against the
    /// MULX/ADX kernels, per modulus size, in ns per call (best of the
    /// rounds, the four candidates interleaved in every round).
    /// The radix-2^28 lane kernels (four lanes in ymm, eight in zmm): ns
    /// per call and per lane of the product and square, and us per call
    /// and per lane of the exponentiation, beside the one-modulus AVX2
    /// exponentiation (one lane's work) where it fits.
    fn mb4() {
        use core::arch::x86_64::{__m256i, __m512i};
        use redc::arch::portable28::Modulus28;
        use redc::arch::x86_64::avx2::Avx2Modulus;
        use redc::arch::x86_64::cpu::Avx512;
        use redc::arch::x86_64::lanes28::{Mb, MbMod, Scratch, Vector};
        let Some(avx2) = redc::arch::x86_64::cpu::avx2() else {
            println!("mb4: SKIPPED: no AVX2 here (or masked)");
            return;
        };
        let zmm = Avx512::get();
        println!(
            "{:>5} {:>5} {:>3} {:>10} {:>10} {:>10} {:>10} {:>12} {:>12} {:>12}",
            "lanes",
            "bits",
            "d",
            "mul",
            "sqr",
            "lane mul",
            "lane sqr",
            "pow us",
            "lane pow us",
            "avx2 pow us"
        );
        fn row<V: Vector>(
            bits: usize,
            amm: impl Fn(&mut Mb<V>, &Mb<V>, &Mb<V>, &MbMod<V>, &mut Scratch<V>),
            sqr: impl Fn(&mut Mb<V>, &Mb<V>, &MbMod<V>, &mut Scratch<V>),
        ) {
            let lanes = V::LANES;
            let mut rng = StdRng::seed_from_u64(44);
            let l = bits.div_ceil(64);
            let ns: Vec<BigUint> = (0..lanes).map(|_| modulus(&mut rng, bits as u64)).collect();
            let nl: Vec<Vec<u64>> = ns.iter().map(|n| limbs(n, l)).collect();
            let mods: Vec<Modulus28> = nl.iter().map(|n| Modulus28::new(n).unwrap()).collect();
            let refs: Vec<&Modulus28> = mods.iter().collect();
            let mm = MbMod::<V>::new(&refs).unwrap();
            let d = mm.digits();
            let xs: Vec<Vec<u64>> = ns.iter().map(|n| limbs(&rng.gen_biguint_below(n), l)).collect();
            let xr: Vec<&[u64]> = xs.iter().map(|v| &v[..]).collect();
            let x = Mb::<V>::from_limbs(d, &xr);
            const IT: usize = 200;
            let mul = time(15, IT, |it| {
                let (mut a, mut b, mut sc) = (x.clone(), Mb::<V>::zero(d), Scratch::<V>::new());
                for _ in 0..it {
                    amm(&mut b, &a, &x, &mm, &mut sc);
                    core::mem::swap(&mut a, &mut b);
                }
                black_box(&a);
            });
            let sq = time(15, IT, |it| {
                let (mut a, mut b, mut sc) = (x.clone(), Mb::<V>::zero(d), Scratch::<V>::new());
                for _ in 0..it {
                    sqr(&mut b, &a, &mm, &mut sc);
                    core::mem::swap(&mut a, &mut b);
                }
                black_box(&a);
            });
            let es: Vec<Vec<u64>> = (0..lanes)
                .map(|_| limbs(&rng.gen_biguint(bits as u64), l))
                .collect();
            let er: Vec<&[u64]> = es.iter().map(|v| &v[..]).collect();
            let pow = time(5, 3, |it| {
                for _ in 0..it {
                    black_box(x86::pow_lanes28(&refs, &xr, None, &er));
                }
            }) / 1e3;
            let single = match Avx2Modulus::new(&nl[0]) {
                Some(m) => {
                    time(5, 3, |it| {
                        for _ in 0..it {
                            black_box(m.pow_secret(&xs[0], &es[0]));
                        }
                    }) / 1e3
                }
                None => f64::NAN,
            };
            let lf = lanes as f64;
            println!(
                "{:>5} {:>5} {:>3} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>12.1} {:>12.1} {:>12.1}",
                lanes,
                bits,
                d,
                mul,
                sq,
                mul / lf,
                sq / lf,
                pow,
                pow / lf,
                single
            );
        }
        for bits in [1024usize, 1536, 2048] {
            row::<__m256i>(
                bits,
                |o, a, b, m, sc| avx2.mb4_amm(o, a, b, m, sc),
                |o, a, m, sc| avx2.mb4_sqr(o, a, m, sc),
            );
            if let Some(z) = zmm {
                row::<__m512i>(
                    bits,
                    |o, a, b, m, sc| z.mb8z_amm(o, a, b, m, sc),
                    |o, a, m, sc| z.mb8z_sqr(o, a, m, sc),
                );
            }
        }
    }

    fn avx2() {
        use redc::arch::portable28;
        use redc::arch::x86_64::avx2::Avx2Modulus;
        let mut rng = StdRng::seed_from_u64(28);
        println!(
            "{:>5} {:>4} {:>12} {:>12} {:>12} {:>12}",
            "bits", "s", "avx2 mul", "avx2 square", "adx mul", "adx sqr"
        );
        for bits in [1024usize, 1280, 1536, 1594, 1800, 2048, 2154] {
            let n = rng.gen_biguint(bits as u64) | (BigUint::one() << (bits - 1)) | BigUint::one();
            let l = bits.div_ceil(64);
            let nl = limbs(&n, l);
            let Some(m) = Avx2Modulus::new(&nl) else {
                println!("avx2: SKIPPED: no AVX2 kernel here");
                return;
            };
            if !x86::adx_available() {
                println!("avx2: SKIPPED: no ADX here");
                return;
            }
            let s = m.digits();
            let a = rng.gen_biguint_below(&n);
            let ad = portable28::to_digits(&limbs(&a, l), s);
            let al = limbs(&a, l);
            let ctx = MontContext::new(&nl).unwrap();
            let n0 = ctx.n0();
            const IT: usize = 200;
            let mut best = [f64::MAX; 4];
            let (mut out, mut scratch) = (vec![0u64; l], ctx.scratch());
            for _ in 0..60 {
                for (k, b) in best.iter_mut().enumerate() {
                    let t = Instant::now();
                    match k {
                        0 => drop(black_box(m.chain_digits(&ad, Some(&ad), IT))),
                        1 => drop(black_box(m.chain_digits(&ad, None, IT))),
                        _ => {
                            let mut x = al.clone();
                            for _ in 0..IT {
                                if k == 2 {
                                    x86::mont_mul_adx(&mut out, &x, &al, &nl, n0, &mut scratch);
                                } else {
                                    x86::mont_sqr_adx(&mut out, &x, &al, &nl, n0, &mut scratch);
                                }
                                core::mem::swap(&mut x, &mut out);
                            }
                            black_box(&x);
                        }
                    }
                    *b = b.min(t.elapsed().as_secs_f64() * 1e9 / IT as f64);
                }
            }
            println!(
                "{:>5} {:>4} {:>12.1} {:>12.1} {:>12.1} {:>12.1}",
                bits, s, best[0], best[1], best[2], best[3]
            );
        }
    }

    /// `kernel_bench widths`: the measurements behind the choice of 512-bit
    /// registers: IFMA throughput (independent accumulators) and the latency of
    /// IFMA alone and of IFMA plus one shuffle, for zmm and ymm.
    fn widths() {
        if !x86::ifma_available() || !std::is_x86_feature_detected!("avx512vl") {
            println!("widths: needs AVX-512 IFMA and VL");
            return;
        }
        let n = 20_000_000usize;
        let per = |f: &dyn Fn(usize) -> u64, ops: usize| {
            let mut best = f64::MAX;
            for _ in 0..3 {
                let t = Instant::now();
                black_box(f(n));
                best = best.min(t.elapsed().as_nanos() as f64 / (n * ops) as f64);
            }
            best
        };
        // SAFETY (all calls below): AVX-512F/VL/IFMA were detected above.
        let z_tp = per(&|n| unsafe { width::zmm_throughput(n) }, 8);
        let y_tp = per(&|n| unsafe { width::ymm_throughput(n) }, 12);
        println!(
            "IFMA throughput: zmm {:.3} ns/instr = {:.1} lane-products/ns; ymm {:.3} ns/instr = {:.1} lane-products/ns",
            z_tp,
            8.0 / z_tp,
            y_tp,
            4.0 / y_tp
        );
        for (name, f) in [
            ("zmm IFMA", width::zmm_lat_ifma as unsafe fn(usize) -> u64),
            ("zmm IFMA + VSHUFI64X2", width::zmm_lat_shuf),
            ("zmm IFMA + VALIGNQ", width::zmm_lat_align),
            ("zmm IFMA + VPADDQ", width::zmm_lat_add),
            ("ymm IFMA", width::ymm_lat_ifma),
            ("ymm IFMA + VALIGNQ", width::ymm_lat_align),
            ("ymm IFMA + VPERMQ", width::ymm_lat_perm),
        ] {
            // SAFETY: features detected above.
            let ns = per(&|n| unsafe { f(n) }, 1);
            println!("latency {name:<24} {ns:.3} ns");
        }
    }

    /// `kernel_bench portable`: ns per product of the portable fixed-size
    /// kernels (feedback chains, the best of 7 batches, the kernels
    /// interleaved), at the limb counts of RSA-2048, -3072 and -4096 halves.
    fn portable() {
        use redc::mont::{Kernel, fips_fixed};
        let mut rng = StdRng::seed_from_u64(5);
        let kernels: [(&str, Kernel); 2] = [("fips", fips::mont_mul), ("fips_fixed", fips_fixed::mont_mul)];
        println!("{:>5} {:>12} {:>12}", "limbs", kernels[0].0, kernels[1].0);
        for s in [16usize, 24, 32] {
            let n = modulus(&mut rng, 64 * s as u64);
            let ctx = MontContext::new(&limbs(&n, s)).unwrap();
            let a = limbs(&rng.gen_biguint_below(&n), s);
            let b = limbs(&rng.gen_biguint_below(&n), s);
            let mut best = [f64::MAX; 2];
            for _ in 0..3 {
                for (k, (_, f)) in kernels.iter().enumerate() {
                    let mut out = vec![0u64; s];
                    let mut scratch = ctx.scratch();
                    let ns = time(3, 20_000, |it| {
                        let mut x = a.clone();
                        for _ in 0..it {
                            f(&mut out, &x, &b, ctx.modulus(), ctx.n0(), &mut scratch);
                            x.copy_from_slice(&out);
                        }
                        black_box(&x);
                    });
                    best[k] = best[k].min(ns);
                }
            }
            println!("{:>5} {:>12.1} {:>12.1}", s, best[0], best[1]);
        }
    }

    /// `kernel_bench single`: ns per single-modulus product (public-exponent
    /// work: verification, encryption, the fault check; the secret
    /// exponentiations of primes wider than 40 digits) at the RSA moduli
    /// (6144, 8192 and 16384 bits: the wide form; its column gives the wide
    /// form at every size),
    /// and per step, and per dedicated squaring; minimum of 101 short batches.
    fn single() {
        let mut rng = StdRng::seed_from_u64(11);
        println!(
            "{:>5} {:>3} {:>10} {:>8} {:>10} {:>10}",
            "bits", "d", "ns", "ns/step", "sqr ns", "wide ns"
        );
        for bits in [2048u64, 2432, 2880, 3072, 3584, 4096, 6144, 8192, 16384] {
            let n = modulus(&mut rng, bits);
            let s = bits as usize / 64;
            let md = x86::ifma::single::modulus(&limbs(&n, s)).unwrap();
            let d = md.d;
            let a = portable52::to_digits(&limbs(&rng.gen_biguint_below(&n), s), d);
            let it = 2000;
            let ns = time(101, 1, |_| {
                black_box(x86::amm52_single(&limbs(&n, s), &a, &a, it));
            }) / it as f64;
            let sq = time(101, 1, |_| {
                black_box(x86::sqr52_single(&limbs(&n, s), &a, it));
            }) / it as f64;
            // The wide form's product at the same size (the form of 16
            // registers and more, measured here against the register window).
            let wide = time(101, 1, |_| {
                black_box(x86::amm52_single_wide(&limbs(&n, s), &a, &a, it));
            }) / it as f64;
            println!(
                "{:>5} {:>3} {:>10.1} {:>8.2} {:>10.1} {:>10.1}",
                bits,
                d,
                ns,
                ns / d as f64,
                sq,
                wide
            );
        }
    }

    pub fn run() {
        if std::env::args().nth(1).as_deref() == Some("single") {
            return single();
        }
        if std::env::args().nth(1).as_deref() == Some("portable") {
            return portable();
        }
        if std::env::args().nth(1).as_deref() == Some("dual") {
            return dual();
        }
        if std::env::args().nth(1).as_deref() == Some("chain") {
            return chain();
        }
        if std::env::args().nth(1).as_deref() == Some("steps") {
            return steps();
        }
        if std::env::args().nth(1).as_deref() == Some("pipe") {
            return pipe();
        }
        if std::env::args().nth(1).as_deref() == Some("pow") {
            return pow();
        }
        if std::env::args().nth(1).as_deref() == Some("widths") {
            return widths();
        }
        if std::env::args().nth(1).as_deref() == Some("avx2") {
            return avx2();
        }
        if std::env::args().nth(1).as_deref() == Some("mb8pow") {
            return mb8pow();
        }
        if std::env::args().nth(1).as_deref() == Some("mb8") {
            return mb8();
        }
        if std::env::args().nth(1).as_deref() == Some("mb4") {
            return mb4();
        }
        if std::env::args().nth(1).as_deref() == Some("adxparts") {
            return adxparts();
        }
        if std::env::args().nth(1).as_deref() == Some("adxloop") {
            return adxloop();
        }
        if std::env::args().nth(1).as_deref() == Some("sqr") {
            // The calibration behind the IFMA squaring choice, per register count.
            println!(
                "{:>3} {:>14} {:>14} {:>8}",
                "d", "dedicated ns", "product ns", "ratio"
            );
            for nr in 1..=10 {
                let (d, p) = x86::calibrate_sqr(nr);
                println!("{:>3} {:>14.1} {:>14.1} {:>8.3}", 4 * nr, d, p, d / p);
            }
            return;
        }
        let reps: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(7);
        let mut rng = StdRng::seed_from_u64(42);
        println!(
            "ifma_available={} adx_available={}",
            x86::ifma_available(),
            x86::adx_available()
        );
        println!(
            "{:>5} {:>4} | {:>9} {:>9} | {:>9} {:>9} {:>9} {:>9} | {:>8} {:>8} | {:>11} {:>11} {:>11}",
            "bits",
            "d",
            "fips mul",
            "p52 mul",
            "ifma mul2",
            "ifma sqr2",
            "mul2/fips2",
            "sqr2/fips2",
            "adx mul",
            "adx sqr",
            "pow_secret",
            "pow_dual",
            "dual/2fips*"
        );
        for bits in [1024u64, 1536, 2048] {
            let s = (bits as usize).div_ceil(64);
            let (np, nq) = (modulus(&mut rng, bits), modulus(&mut rng, bits));
            let (lp, lq) = (limbs(&np, s), limbs(&nq, s));
            // Portable FIPS (R = 2^(64 s)), fully reduced.
            let ctx = MontContext::new(&lp).unwrap();
            let a = limbs(&rng.gen_biguint_below(&np), s);
            let b = limbs(&rng.gen_biguint_below(&np), s);
            let mut out = vec![0u64; s];
            let mut scratch = ctx.scratch();
            let fips_ns = time(reps, 20_000, |it| {
                let mut x = a.clone();
                for _ in 0..it {
                    fips::mont_mul(&mut out, &x, &b, ctx.modulus(), ctx.n0(), &mut scratch);
                    x.copy_from_slice(&out);
                }
                black_box(&x);
            });
            let adx = |sqr: bool, scratch: &mut Vec<u64>| {
                let mut out = vec![0u64; s];
                time(reps, 20_000, |it| {
                    let mut x = a.clone();
                    for _ in 0..it {
                        if sqr {
                            x86::mont_sqr_adx(&mut out, &x, &b, ctx.modulus(), ctx.n0(), scratch);
                        } else {
                            x86::mont_mul_adx(&mut out, &x, &b, ctx.modulus(), ctx.n0(), scratch);
                        }
                        x.copy_from_slice(&out);
                    }
                    black_box(&x);
                })
            };
            let (adx_mul, adx_sqr) = if x86::adx_available() {
                (adx(false, &mut scratch), adx(true, &mut scratch))
            } else {
                (f64::NAN, f64::NAN)
            };
            // Portable radix-2^52 twin.
            let p = Ifma52Modulus::new_unchecked_cpu(&lp).unwrap();
            let q = Ifma52Modulus::new_unchecked_cpu(&lq).unwrap();
            let d = p.digits();
            let ap = portable52::to_digits(&a, d);
            let bp = portable52::to_digits(&b, d);
            let aq = portable52::to_digits(&limbs(&rng.gen_biguint_below(&nq), s), d);
            let bq = portable52::to_digits(&limbs(&rng.gen_biguint_below(&nq), s), d);
            let m52 = p.radix52();
            let p52_ns = time(reps, 5_000, |it| {
                let mut x = ap.clone();
                let mut y = vec![0u64; d];
                for _ in 0..it {
                    portable52::amm_mul(&mut y, &x, &bp, &m52.m, m52.k0);
                    x.copy_from_slice(&y);
                }
                black_box(&x);
            });
            let (mut mul2, mut sqr2, mut pw, mut pw2) = (f64::NAN, f64::NAN, f64::NAN, f64::NAN);
            if x86::ifma_available() {
                mul2 = time(reps, 1, |_| {
                    black_box(x86::amm52_dual(&p, &ap, &bp, &q, &aq, &bq, false, 20_000));
                }) / 20_000.0;
                sqr2 = time(reps, 1, |_| {
                    black_box(x86::amm52_dual(&p, &ap, &bp, &q, &aq, &bq, true, 20_000));
                }) / 20_000.0;
                // Exponents of the CRT size (bits), random.
                let ep: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
                let eq: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
                let (bl, bq_) = (
                    limbs(&rng.gen_biguint_below(&np), s),
                    limbs(&rng.gen_biguint_below(&nq), s),
                );
                let setup = time(reps, 20, |it| {
                    for _ in 0..it {
                        black_box(Ifma52Modulus::new(&lp));
                    }
                });
                let pubop = time(reps, 2000, |it| {
                    for _ in 0..it {
                        black_box(x86::pow_public(&p, &a, &[65537]));
                    }
                });
                println!(
                    "  ({bits} bits: Ifma52Modulus::new {setup:.0} ns; pow_public e=65537 {pubop:.0} ns \
                     vs 17 ADX products {:.0} ns)",
                    17.0 * adx_mul
                );
                let pn = Ifma52Modulus::new(&lp).unwrap();
                let qn = Ifma52Modulus::new(&lq).unwrap();
                pw = time(reps, 20, |it| {
                    for _ in 0..it {
                        black_box(x86::pow_secret(&pn, &bl, &ep));
                    }
                });
                pw2 = time(reps, 20, |it| {
                    for _ in 0..it {
                        black_box(x86::pow_secret_dual(&pn, &bl, &ep, &qn, &bq_, &eq));
                    }
                });
            }
            // A fixed-window exponentiation of `bits` bits costs about bits squarings plus
            // bits/5 + 31 multiplications: the portable FIPS estimate for two halves.
            let fips_pow2 = 2.0 * fips_ns * (bits as f64 * 1.2 + 31.0);
            println!(
                "{:>5} {:>4} | {:>9.1} {:>9.1} | {:>9.1} {:>9.1} {:>9.3} {:>9.3} | {:>8.1} {:>8.1} | {:>11.0} {:>11.0} {:>11.3}",
                bits,
                d,
                fips_ns,
                p52_ns,
                mul2,
                sqr2,
                mul2 / (2.0 * fips_ns),
                sqr2 / (2.0 * fips_ns),
                adx_mul,
                adx_sqr,
                pw,
                pw2,
                pw2 / fips_pow2
            );
        }
        println!("all figures ns; mul2/sqr2 = one dual (p and q) product; pow figures per call;");
        println!("dual/2fips* = pow_dual against an estimated 2 x (1.2 bits + 31) portable FIPS products");
        // MULX/ADX kernel against FIPS at the scalar sizes.
        if x86::adx_available() {
            println!(
                "\n{:>6} | {:>9} {:>9} {:>9} {:>7} {:>7}",
                "limbs", "fips mul", "adx mul", "adx sqr", "mul x", "sqr x"
            );
            for s in [8usize, 16, 24, 32, 48, 64] {
                let n = modulus(&mut rng, 64 * s as u64);
                let ctx = MontContext::new(&limbs(&n, s)).unwrap();
                let a = limbs(&rng.gen_biguint_below(&n), s);
                let mut out = vec![0u64; s];
                let mut scratch = ctx.scratch();
                let mut t = |k: u8| {
                    time(reps, 10_000, |it| {
                        let mut x = a.clone();
                        for _ in 0..it {
                            match k {
                                0 => fips::mont_mul(&mut out, &x, &a, ctx.modulus(), ctx.n0(), &mut scratch),
                                1 => {
                                    x86::mont_mul_adx(&mut out, &x, &a, ctx.modulus(), ctx.n0(), &mut scratch)
                                }
                                _ => {
                                    x86::mont_sqr_adx(&mut out, &x, &a, ctx.modulus(), ctx.n0(), &mut scratch)
                                }
                            }
                            x.copy_from_slice(&out);
                        }
                        black_box(&x);
                    })
                };
                let (f, m, q) = (t(0), t(1), t(2));
                println!(
                    "{:>6} | {:>9.1} {:>9.1} {:>9.1} {:>7.2} {:>7.2}",
                    s,
                    f,
                    m,
                    q,
                    f / m,
                    f / q
                );
            }
        }
    }

    /// `adxparts`: ns per call of each piece of the 16-limb MULX/ADX square
    /// (best of 9 batches), and one band's time at 8 to 64 limbs (its fixed
    /// cost per call against its cost per row).
    fn adxparts() {
        use redc::arch::x86_64::adx::{self, band, triangle};
        let s = 16;
        let mut rng = StdRng::seed_from_u64(42);
        let n = modulus(&mut rng, 64 * s as u64);
        let ctx = MontContext::new(&limbs(&n, s)).unwrap();
        let nl = ctx.modulus().to_vec();
        let n0 = ctx.n0();
        let a = limbs(&rng.gen_biguint_below(&n), s);
        let mut t = vec![0u64; 2 * s + 1];
        let mut out = vec![0u64; s];
        let mut scratch = ctx.scratch();
        let time1 = |name: &str, f: &mut dyn FnMut()| {
            let ns = time(9, 20_000, |it| {
                for _ in 0..it {
                    f();
                }
            });
            println!("{name:>14} {ns:8.1} ns");
        };
        time1("triangle8 x2", &mut || {
            triangle::triangle8(&mut t[..], &a[..8]);
            triangle::triangle8(&mut t[16..], &a[8..]);
            black_box(&t);
        });
        time1("triangle16", &mut || {
            triangle::triangle16(&mut t[..], &a);
            black_box(&t);
        });
        let mut t = vec![0u64; 2 * s + 1];
        time1("band 8x8", &mut || {
            black_box(band::band_chained(
                &mut t,
                8,
                &a[8..],
                band::Band::Product(&a[..8]),
                0,
            ));
        });
        let mut t = vec![0u64; 2 * s + 1];
        time1("carry_up 8", &mut || {
            black_box(band::carry_up(&mut t[24..32], 1));
        });
        let mut t = a.repeat(3);
        time1("reduce band x2", &mut || {
            let c = band::band_chained(&mut t, 0, &nl, band::Band::Reduce(n0), 0);
            black_box(band::band_chained(&mut t, 8, &nl, band::Band::Reduce(n0), c));
        });
        let mut t = a.repeat(3);
        time1("product band16 x2", &mut || {
            let c = band::band_chained(&mut t, 0, &nl, band::Band::Product(&a[..8]), 0);
            black_box(band::band_chained(
                &mut t,
                8,
                &nl,
                band::Band::Product(&a[8..]),
                c,
            ));
        });
        for w in [8usize, 16, 32, 64] {
            let big: Vec<u64> = (0..w).map(|i| a[i % 16] ^ (i as u64)).collect();
            let mut t = vec![0u64; 2 * w + 16];
            let ns = time(9, 20_000, |it| {
                for _ in 0..it {
                    black_box(band::band_chained(
                        &mut t,
                        0,
                        &big,
                        band::Band::Product(&a[..8]),
                        0,
                    ));
                }
            });
            // A w-limb odd "modulus" for the reduction band (n0 from the
            // 16-limb one: the band's time does not depend on the values).
            let nw: Vec<u64> = (0..w).map(|i| nl[i % 16]).collect();
            let mut t = big.repeat(3);
            let nr = time(9, 20_000, |it| {
                for _ in 0..it {
                    black_box(band::band_chained(&mut t, 0, &nw, band::Band::Reduce(n0), 0));
                }
            });
            println!(
                "band s={w:>2}: product {ns:7.1} ns ({:5.2} ns per row of 8 products), reduce {nr:7.1} ns",
                ns / w as f64
            );
        }
        if let Ok(Some(engine)) = redc::exp::MontEngine::with_backend(&nl, redc::exp::Backend::Adx) {
            let e: Vec<u64> = (0..s).map(|_| rng.r#gen()).collect();
            let us = time(9, 200, |it| {
                for _ in 0..it {
                    black_box(engine.pow_secret(&a, &e).unwrap());
                }
            }) / 1000.0;
            println!(
                "{:>14} {us:8.1} us (1024-bit exponent, window {})",
                "pow_secret",
                redc::exp::window::window_bits(64 * s, s)
            );
        }
        let table: Vec<u64> = (0..32 * s as u64).collect();
        let mut digit = 0u64;
        time1("gather 32x16", &mut || {
            redc::arch::gather::gather(&mut out, &table, digit & 31, s);
            digit = digit.wrapping_add(black_box(7));
            black_box(&out);
        });
        time1("gather avx2", &mut || {
            x86::gather_avx2(&mut out, &table, digit & 31, s);
            digit = digit.wrapping_add(black_box(7));
            black_box(&out);
        });
        let mut t = vec![0u64; 2 * s];
        time1("double_add_diag", &mut || {
            triangle::double_add_diagonal(&mut t, &a);
            black_box(&t);
        });
        let mut t = vec![0u64; 2 * s + 1];
        time1("redc", &mut || {
            t[..s].copy_from_slice(&a);
            adx::redc(&mut out, &mut t, &nl, n0);
            black_box(&out);
        });
        let x = a.clone();
        time1("reduce_into", &mut || {
            adx::reduce_into(&mut out, &x, 0, &nl);
            black_box(&out);
        });
        let mut x = a.clone();
        time1("mont_sqr_lazy", &mut || {
            adx::mont_sqr_lazy(&mut out, &x, &nl, n0, &mut scratch);
            x.copy_from_slice(&out);
        });
        let x = a.clone();
        time1("subtract_if_top", &mut || {
            adx::subtract::subtract_if_top(&mut out, &x, 1, &nl);
            black_box(&out);
        });
        let mut x = a.clone();
        time1("mont_sqr", &mut || {
            adx::mont_sqr(&mut out, &x, &nl, n0, &mut scratch);
            x.copy_from_slice(&out);
        });
    }

    /// `adxloop S [sqr|mul] [SECONDS]`: one MULX/ADX kernel at S limbs in a
    /// loop for the given time (default 5 s), for `perf record`; prints ns
    /// per call.
    fn adxloop() {
        let arg = |i: usize| std::env::args().nth(i);
        let s: usize = arg(2).and_then(|v| v.parse().ok()).unwrap_or(16);
        let sqr = arg(3).as_deref() != Some("mul");
        let secs: f64 = arg(4).and_then(|v| v.parse().ok()).unwrap_or(5.0);
        let mut rng = StdRng::seed_from_u64(42);
        let n = modulus(&mut rng, 64 * s as u64);
        let ctx = MontContext::new(&limbs(&n, s)).unwrap();
        let a = limbs(&rng.gen_biguint_below(&n), s);
        let mut x = a.clone();
        let mut out = vec![0u64; s];
        let mut scratch = ctx.scratch();
        let start = Instant::now();
        let mut calls = 0u64;
        while start.elapsed().as_secs_f64() < secs {
            for _ in 0..10_000 {
                if sqr {
                    x86::mont_sqr_adx(&mut out, &x, &a, ctx.modulus(), ctx.n0(), &mut scratch);
                } else {
                    x86::mont_mul_adx(&mut out, &x, &a, ctx.modulus(), ctx.n0(), &mut scratch);
                }
                x.copy_from_slice(&out);
            }
            calls += 10_000;
        }
        black_box(&x);
        println!(
            "{:.1} ns per call",
            start.elapsed().as_secs_f64() * 1e9 / calls as f64
        );
    }

    /// Microbenchmarks for `widths` (x86-64 with AVX-512 only).
    // AVX-512 intrinsics are stable since 1.89 (the workspace says 1.85; see arch/x86_64/ifma/mod.rs).
    #[allow(unsafe_code, clippy::incompatible_msrv, clippy::missing_safety_doc)]
    mod width {
        use core::arch::x86_64::*;
        use std::hint::black_box;

        fn sum512(v: &[__m512i]) -> u64 {
            // SAFETY: plain reinterpretation of initialised vectors as u64 lanes.
            v.iter()
                .map(|x| unsafe { core::mem::transmute::<__m512i, [u64; 8]>(*x) }[0])
                .sum()
        }

        #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
        pub unsafe fn zmm_throughput(n: usize) -> u64 {
            let k = black_box(_mm512_set1_epi64(5));
            let k2 = black_box(_mm512_set1_epi64(7));
            let mut a = [_mm512_set1_epi64(1); 8];
            for _ in 0..n {
                for x in a.iter_mut() {
                    *x = _mm512_madd52lo_epu64(*x, k, k2);
                }
            }
            sum512(&a)
        }

        #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
        pub unsafe fn ymm_throughput(n: usize) -> u64 {
            let k = black_box(_mm256_set1_epi64x(5));
            let k2 = black_box(_mm256_set1_epi64x(7));
            let mut a = [_mm256_set1_epi64x(1); 12];
            for _ in 0..n {
                for x in a.iter_mut() {
                    *x = _mm256_madd52lo_epu64(*x, k, k2);
                }
            }
            // SAFETY: plain reinterpretation of initialised vectors as u64 lanes.
            a.iter()
                .map(|x| unsafe { core::mem::transmute::<__m256i, [u64; 4]>(*x) }[0])
                .sum()
        }

        macro_rules! lat512 {
            ($name:ident, |$x:ident, $k:ident| $body:expr) => {
                #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
                pub unsafe fn $name(n: usize) -> u64 {
                    let $k = black_box(_mm512_set1_epi64(5));
                    let mut $x = black_box(_mm512_set1_epi64(3));
                    for _ in 0..n {
                        $x = $body;
                    }
                    sum512(&[$x])
                }
            };
        }
        lat512!(zmm_lat_ifma, |x, k| _mm512_madd52lo_epu64(k, x, k));
        lat512!(zmm_lat_shuf, |x, k| _mm512_madd52lo_epu64(
            k,
            _mm512_shuffle_i64x2::<0x1b>(x, x),
            k
        ));
        lat512!(zmm_lat_align, |x, k| _mm512_madd52lo_epu64(
            k,
            _mm512_alignr_epi64::<2>(k, x),
            k
        ));
        lat512!(zmm_lat_add, |x, k| _mm512_madd52lo_epu64(
            k,
            _mm512_add_epi64(x, x),
            k
        ));

        macro_rules! lat256 {
            ($name:ident, |$x:ident, $k:ident| $body:expr) => {
                #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
                pub unsafe fn $name(n: usize) -> u64 {
                    let $k = black_box(_mm256_set1_epi64x(5));
                    let mut $x = black_box(_mm256_set1_epi64x(3));
                    for _ in 0..n {
                        $x = $body;
                    }
                    // SAFETY: plain reinterpretation of an initialised vector.
                    let lanes = unsafe { core::mem::transmute::<__m256i, [u64; 4]>($x) };
                    lanes[0]
                }
            };
        }
        lat256!(ymm_lat_ifma, |x, k| _mm256_madd52lo_epu64(k, x, k));
        lat256!(ymm_lat_align, |x, k| _mm256_madd52lo_epu64(
            k,
            _mm256_alignr_epi64::<1>(k, x),
            k
        ));
        lat256!(ymm_lat_perm, |x, k| _mm256_madd52lo_epu64(
            k,
            _mm256_permute4x64_epi64::<0x1b>(x),
            k
        ));
    }
}
