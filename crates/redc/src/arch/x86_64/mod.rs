//! x86-64 kernels (MULX/ADX, AVX-512 IFMA), each behind runtime detection.
//!
//! - [`ifma`]: radix-2^52 almost-Montgomery multiplication and dedicated
//!   squaring on 512-bit IFMA with the two CRT halves interleaved lane by
//!   lane, and the dual constant-time fixed-window exponentiation. Portable
//!   twin: [`crate::arch::portable52`].
//! - [`adx`]: scalar Montgomery multiplication and squaring with MULX and the
//!   two carry chains ADCX/ADOX, with the `mont::Kernel` signature. Portable
//!   twin: [`crate::mont::fips`].
//!
//! Every public function here is safe: it checks lengths, and the AVX-512 /
//! ADX code is reached only after the features were detected at run time.

pub mod adx;
pub mod ifma;

use std::sync::OnceLock;

use zeroize::Zeroize;

use crate::arch::force_portable;
use crate::arch::portable52::{self, Modulus52};

use ifma::{DualMod, Lanes, MAX_NR};

/// True when this CPU has AVX-512F + AVX-512IFMA and `force_portable()` is
/// false. (Only 512-bit forms are used, so AVX-512VL is not required.) Cached.
pub fn ifma_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        !force_portable() && is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512ifma")
    })
}

/// True when BMI2 + ADX are present and `force_portable()` is false. Cached.
pub fn adx_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        !force_portable() && is_x86_feature_detected!("bmi2") && is_x86_feature_detected!("adx")
    })
}

/// An odd modulus prepared for IFMA radix-2^52 exponentiation: its
/// digits, k0 = -n^-1 mod 2^52 and R^2 mod n with R = 2^(52 d), where
/// d = 4 ceil((bits + 2) / 208), the least multiple of 4 with 4n < R (20, 32,
/// 40 digits for 1024, 1536, 2048 bits). Supported: odd n >= 3 of at most 2078 bits (d <= 40).
/// The value may be secret (a CRT prime): the setup is constant time in it
/// (only its size steers the work), `Debug` prints the size only, and the
/// digits are wiped on drop.
#[derive(Debug)]
pub struct Ifma52Modulus {
    m: Modulus52,
    /// The dual kernel's tables with both halves this modulus, built at first
    /// use (a public modulus's verifications, a prime's key-setup inverses).
    single: OnceLock<Option<DualKey>>,
}

impl Clone for Ifma52Modulus {
    fn clone(&self) -> Self {
        Ifma52Modulus {
            m: self.m.clone(),
            single: OnceLock::new(),
        }
    }
}

impl Ifma52Modulus {
    /// None if IFMA is unavailable or the modulus is unsupported (even, below
    /// 3, or more than 40 digits). `n`: little-endian u64 limbs, any length
    /// (high zero limbs ignored). Time depends on the size of n only.
    pub fn new(n: &[u64]) -> Option<Self> {
        if !ifma_available() {
            return None;
        }
        Self::new_unchecked_cpu(n)
    }

    /// As [`Ifma52Modulus::new`] without the CPU check: the portable twin
    /// ([`portable52`]) can run with it anywhere; the IFMA functions still
    /// check the CPU and fall back to the twin.
    pub fn new_unchecked_cpu(n: &[u64]) -> Option<Self> {
        let m = Modulus52::new(n)?;
        if m.d > 4 * MAX_NR {
            return None;
        }
        Some(Ifma52Modulus {
            m,
            single: OnceLock::new(),
        })
    }

    /// The tables for single exponentiations (both halves this modulus);
    /// None without IFMA.
    fn single(&self) -> Option<&DualKey> {
        self.single.get_or_init(|| DualKey::new(self, self)).as_ref()
    }

    /// Bit length of n.
    pub fn bits(&self) -> usize {
        self.m.bits
    }

    /// Digit count d (R = 2^(52 d)).
    pub fn digits(&self) -> usize {
        self.m.d
    }

    /// The radix-2^52 form and constants (for tests and the portable twin).
    pub fn radix52(&self) -> &Modulus52 {
        &self.m
    }
}

/// Run `$body` with the const `$nr` set to the register count `$v` (1..=MAX_NR).
macro_rules! with_nr {
    ($v:expr, $nr:ident => $body:expr) => {
        match $v {
            1 => {
                const $nr: usize = 1;
                $body
            }
            2 => {
                const $nr: usize = 2;
                $body
            }
            3 => {
                const $nr: usize = 3;
                $body
            }
            4 => {
                const $nr: usize = 4;
                $body
            }
            5 => {
                const $nr: usize = 5;
                $body
            }
            6 => {
                const $nr: usize = 6;
                $body
            }
            7 => {
                const $nr: usize = 7;
                $body
            }
            8 => {
                const $nr: usize = 8;
                $body
            }
            9 => {
                const $nr: usize = 9;
                $body
            }
            10 => {
                const $nr: usize = 10;
                $body
            }
            _ => unreachable!("register count checked in Ifma52Modulus::new"),
        }
    };
}

/// The precondition on the base's length: extra limbs must be zero (checked
/// with an OR over all of them, not a short-circuit on secret values).
fn check_base(m: &Ifma52Modulus, base: &[u64]) {
    check_base_len(&m.m, base);
}

fn check_base_len(m: &Modulus52, base: &[u64]) {
    let extra = base
        .get(m.limbs.len()..)
        .unwrap_or(&[])
        .iter()
        .fold(0, |acc, &x| acc | x);
    assert!(extra == 0, "base has more limbs than the modulus");
}

/// base^exp mod n, fully reduced, as `n`'s trimmed number of u64 limbs.
/// `base < n` (u64 limbs, at most as many as n); `exp` little-endian u64 limbs
/// whose LENGTH is public and whose bits are secret. Constant time in the
/// values of base and exp: fixed 5-bit windows, every table entry read on
/// every lookup. Runs the dual kernel with both halves equal.
pub fn pow_secret(m: &Ifma52Modulus, base: &[u64], exp: &[u64]) -> Vec<u64> {
    check_base(m, base);
    if !ifma_available() {
        return portable52::pow(&m.m, base, exp);
    }
    let key = m
        .single()
        .expect("IFMA checked above; one modulus has one digit count");
    key.pow_secret(base, exp, base, exp).0
}

/// base^exp mod n for a PUBLIC exponent (an RSA public exponent such as
/// 65537: the fault check and blinding of a private operation), fully
/// reduced, as `n`'s trimmed number of u64 limbs. Left-to-right binary:
/// variable time in `exp` (public), constant time in `base < n`. Uses the dual
/// kernel with both halves equal, which at 2048 bits still takes about a third
/// of the time of a MULX/ADX product per step.
pub fn pow_public(m: &Ifma52Modulus, base: &[u64], exp: &[u64]) -> Vec<u64> {
    check_base(m, base);
    match m.single() {
        Some(key) => key.pow_public(base, base, exp).0,
        None => portable52::pow(&m.m, base, exp),
    }
}

/// The tables of the dual kernel for one CRT pair (p, q): the moduli
/// interleaved lane by lane with their shifted copies (`DualMod`), R^2 per
/// half interleaved, and each half's radix-2^52 constants. Built once per
/// key (at load) and read by every private operation, so a signature
/// rebuilds nothing that belongs to the key. Wiped on drop (the primes are
/// secret).
pub struct DualKey {
    tables: Box<dyn DualTables>,
}

impl core::fmt::Debug for DualKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DualKey").finish_non_exhaustive()
    }
}

impl DualKey {
    /// The tables of (p, q), or None when IFMA is unavailable or p and q
    /// need different digit counts (e.g. 1024 and 1100 bits). The setup is
    /// constant time in the primes' values.
    pub fn new(p: &Ifma52Modulus, q: &Ifma52Modulus) -> Option<DualKey> {
        if !ifma_available() || p.m.d != q.m.d {
            return None;
        }
        let tables: Box<dyn DualTables> = with_nr!(p.m.d.div_ceil(4), NR => Box::new(Tables::<NR> {
            m: DualMod::new(&p.m, &q.m),
            rr: Lanes::interleave(&p.m.rr, &q.m.rr),
            p: p.m.clone(),
            q: q.m.clone(),
        }));
        Some(DualKey { tables })
    }

    /// `(bp^ep mod p, bq^eq mod q)`, fully reduced, in p's and q's trimmed
    /// limb counts; `bp < p`, `bq < q`. Constant time in bases and exponents
    /// (fixed 5-bit windows, every table entry read on every lookup); the
    /// exponents' LENGTHS are public and may differ.
    pub fn pow_secret(&self, bp: &[u64], ep: &[u64], bq: &[u64], eq: &[u64]) -> (Vec<u64>, Vec<u64>) {
        self.tables.pow_secret(bp, ep, bq, eq)
    }

    /// `(bp^exp mod p, bq^exp mod q)` for a PUBLIC exponent (variable time in
    /// `exp` only, constant time in the bases), as [`DualKey::pow_secret`].
    pub fn pow_public(&self, bp: &[u64], bq: &[u64], exp: &[u64]) -> (Vec<u64>, Vec<u64>) {
        self.tables.pow_public(bp, bq, exp)
    }
}

/// The dual exponentiations over one register count's tables.
trait DualTables: Send + Sync {
    fn pow_secret(&self, bp: &[u64], ep: &[u64], bq: &[u64], eq: &[u64]) -> (Vec<u64>, Vec<u64>);
    fn pow_public(&self, bp: &[u64], bq: &[u64], exp: &[u64]) -> (Vec<u64>, Vec<u64>);
}

struct Tables<const NR: usize> {
    m: DualMod<NR>,
    rr: Lanes<NR>,
    p: Modulus52,
    q: Modulus52,
}

impl<const NR: usize> Drop for Tables<NR> {
    fn drop(&mut self) {
        self.rr.zeroize();
    }
}

impl<const NR: usize> Tables<NR> {
    /// Both bases in the kernel's form: radix 2^52, interleaved.
    fn bases(&self, bp: &[u64], bq: &[u64]) -> Lanes<NR> {
        check_base_len(&self.p, bp);
        check_base_len(&self.q, bq);
        let d = self.p.d;
        let mut dp = portable52::to_digits(bp, d);
        let mut dq = portable52::to_digits(bq, d);
        let base = Lanes::<NR>::interleave(&dp, &dq);
        dp.zeroize();
        dq.zeroize();
        base
    }

    /// The kernel's result (per half below 2m) fully reduced, out of radix 2^52.
    fn results(&self, mut y: Lanes<NR>) -> (Vec<u64>, Vec<u64>) {
        let d = self.p.d;
        let mut yp = y.half(0, d);
        let mut yq = y.half(1, d);
        portable52::final_reduce(&self.p, &mut yp);
        portable52::final_reduce(&self.q, &mut yq);
        let out = (
            portable52::from_digits(&yp, self.p.limbs.len()),
            portable52::from_digits(&yq, self.q.limbs.len()),
        );
        yp.zeroize();
        yq.zeroize();
        y.zeroize();
        out
    }
}

impl<const NR: usize> DualTables for Tables<NR> {
    fn pow_secret(&self, bp: &[u64], ep: &[u64], bq: &[u64], eq: &[u64]) -> (Vec<u64>, Vec<u64>) {
        let mut base = self.bases(bp, bq);
        // SAFETY: a `DualKey` exists only where ifma_available() held at its creation.
        let y = unsafe { ifma::pow_dual::<NR>(&self.m, &base, &self.rr, ep, eq) };
        base.zeroize();
        self.results(y)
    }

    fn pow_public(&self, bp: &[u64], bq: &[u64], exp: &[u64]) -> (Vec<u64>, Vec<u64>) {
        let mut base = self.bases(bp, bq);
        // SAFETY: as in `pow_secret`.
        let y = unsafe { ifma::pow_dual_public::<NR>(&self.m, &base, &self.rr, exp) };
        base.zeroize();
        self.results(y)
    }
}

/// The two CRT halves together: (bp^ep mod p, bq^eq mod q), each fully
/// reduced, as p's and q's trimmed limb counts. None when p and q need
/// different digit counts (e.g. 1024 and 1100 bits). Same contract as
/// [`pow_secret`] per half; the exponent lengths (public) may differ. Builds
/// the pair's tables for this one call: a key keeps a [`DualKey`] instead.
pub fn pow_secret_dual(
    p: &Ifma52Modulus,
    bp: &[u64],
    ep: &[u64],
    q: &Ifma52Modulus,
    bq: &[u64],
    eq: &[u64],
) -> Option<(Vec<u64>, Vec<u64>)> {
    if p.m.d != q.m.d {
        return None;
    }
    check_base(p, bp);
    check_base(q, bq);
    if !ifma_available() {
        return Some((portable52::pow(&p.m, bp, ep), portable52::pow(&q.m, bq, eq)));
    }
    Some(DualKey::new(p, q)?.pow_secret(bp, ep, bq, eq))
}

/// `(bp^exp mod p, bq^exp mod q)` for a PUBLIC exponent, both halves in one
/// run of the dual kernel (the fault check and blinding of a CRT private
/// operation). None when p and q need different digit counts. Same contract
/// as [`pow_public`] per half: variable time in `exp` only. Builds the pair's
/// tables for this one call, as [`pow_secret_dual`].
pub fn pow_public_dual(
    p: &Ifma52Modulus,
    bp: &[u64],
    q: &Ifma52Modulus,
    bq: &[u64],
    exp: &[u64],
) -> Option<(Vec<u64>, Vec<u64>)> {
    if p.m.d != q.m.d {
        return None;
    }
    check_base(p, bp);
    check_base(q, bq);
    if !ifma_available() {
        return Some((portable52::pow(&p.m, bp, exp), portable52::pow(&q.m, bq, exp)));
    }
    Some(DualKey::new(p, q)?.pow_public(bp, bq, exp))
}

/// One dual almost-Montgomery product (or dedicated square when `sqr`; then
/// the b operands are ignored) on radix-2^52 digit vectors of length d, repeated
/// `iters` times with the output fed back as the a operand (iters >= 1). For
/// differential tests and benchmarks. Inputs: digits < 2^52, values < 2m.
/// None when the digit counts differ, lengths are wrong or IFMA is unavailable.
#[allow(clippy::too_many_arguments)]
pub fn amm52_dual(
    p: &Ifma52Modulus,
    ap: &[u64],
    bp: &[u64],
    q: &Ifma52Modulus,
    aq: &[u64],
    bq: &[u64],
    sqr: bool,
    iters: usize,
) -> Option<(Vec<u64>, Vec<u64>)> {
    let d = p.m.d;
    if !ifma_available() || q.m.d != d || iters == 0 {
        return None;
    }
    if [ap, bp, aq, bq]
        .iter()
        .any(|x| x.len() != d || x.iter().any(|&v| v > portable52::MASK))
    {
        return None;
    }
    Some(with_nr!(d.div_ceil(4), NR => {
        let dm = DualMod::<NR>::new(&p.m, &q.m);
        let mut x = Lanes::<NR>::interleave(ap, aq);
        let b = Lanes::<NR>::interleave(bp, bq);
        let mut y = Lanes::<NR>::ZERO;
        for _ in 0..iters {
            // SAFETY: ifma_available() was checked above.
            unsafe {
                if sqr {
                    ifma::amm_dual::<NR, true>(&mut y, &x, &x, &dm);
                } else {
                    ifma::amm_dual::<NR, false>(&mut y, &x, &b, &dm);
                }
            }
            x = y;
        }
        (x.half(0, d), x.half(1, d))
    }))
}

/// MULX/ADX Montgomery multiplication with the portable `mont::Kernel`
/// signature (R = 2^(64 s)): `out = a b R^-1 mod n`, fully reduced.
/// Panics on wrong lengths (programming contract) or when BMI2/ADX are absent;
/// callers check [`adx_available`] first.
pub fn mont_mul_adx(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    adx::mont_mul(out, a, b, n, n0, scratch);
}

/// MULX/ADX Montgomery squaring, `out = a^2 R^-1 mod n`; `b_ignored` is not read.
/// Same contract as [`mont_mul_adx`].
pub fn mont_sqr_adx(out: &mut [u64], a: &[u64], b_ignored: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let _ = b_ignored;
    adx::mont_sqr(out, a, n, n0, scratch);
}
