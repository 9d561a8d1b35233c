//! [`DualKey`]: one CRT pair's tables for the dual IFMA kernel
//! ([`super::ifma`]) and the secret exponentiations over them, with the
//! kernel [`Choices`] of each run. Bases and results are [`Halves`]
//! (residues typed by their prime, radix 2^64): they enter the kernel's
//! radix in one place (`Tables::bases`) and leave it in one
//! (`Tables::results`). Secrets: the primes (in the tables, wiped on drop),
//! the bases and the exponents; only the primes' sizes and the exponents'
//! lengths steer the work.

use zeroize::Zeroize;

use crate::arch::portable52::{self, Modulus52};
use crate::elem::{Elem, Halves};

use super::cpu::Ifma;
use super::ifma::{DualMod, Lanes};
use super::*;

/// The tables of the dual kernel for one CRT pair (p, q): the moduli
/// interleaved lane by lane with their shifted copies (`DualMod`), R^2 per
/// half interleaved, and each half's radix-2^52 constants. Built once per
/// key (at load) and read by every private operation, so a signature
/// rebuilds nothing that belongs to the key. Wiped on drop (the primes are
/// secret).
pub struct DualKey {
    tables: Box<dyn DualTables>,
    /// Register count (public: the primes' size).
    nr: usize,
    /// This key's number among the process's keys (public), carried by
    /// its factors ([`DualFactor`]) so that another key's are refused.
    id: u64,
}

/// The next [`DualKey`]'s `id`.
static NEXT_ID: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

impl core::fmt::Debug for DualKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DualKey").finish_non_exhaustive()
    }
}

impl DualKey {
    /// The tables of (p, q), or None when IFMA is unavailable or p and q
    /// need different digit counts (e.g. 1024 and 1100 bits). The setup is
    /// constant time in the primes' values. The tables are built on the
    /// stack and moved to the heap; the stack they were built on is wiped
    /// before this returns ([`crate::scrub`]), for every caller (a key's
    /// load, its clone, a forced backend).
    pub fn new(p: &Ifma52Modulus, q: &Ifma52Modulus) -> Option<DualKey> {
        let ifma = cpu::ifma()?;
        if p.m.d != q.m.d {
            return None;
        }
        crate::scrub::scrubbed_setup(|| Self::build(ifma, p, q))
    }

    /// [`DualKey::new`]'s tables, inside its stack scrub.
    fn build(ifma: Ifma, p: &Ifma52Modulus, q: &Ifma52Modulus) -> Option<DualKey> {
        let pipe = match (p.m.pipelined(), q.m.pipelined()) {
            (Some(pp), Some(pq)) => Some((pp, pq)),
            _ => None,
        };
        let tables: Box<dyn DualTables> = with_nr!(p.m.d.div_ceil(4), NR => Box::new(Tables::<NR> {
            m: DualMod::new(&p.m, &q.m),
            rr: Lanes::interleave(&p.m.rr, &q.m.rr),
            pipe: pipe.as_ref().map(|(pp, pq)| Box::new(Pipe {
                m: DualMod::pipelined(pp, pq),
                rr: Lanes::interleave(&pp.rr, &pq.rr),
            })),
            p: p.m.clone(),
            q: q.m.clone(),
            _fill: [0; TABLES_FILL],
            ifma,
        }));
        Some(DualKey {
            tables,
            nr: p.m.d.div_ceil(4),
            id: NEXT_ID.fetch_add(1, core::sync::atomic::Ordering::Relaxed),
        })
    }

    /// `(b_p^ep mod p, b_q^eq mod q)` for `b = (b_p, b_q)`, fully reduced,
    /// in p's and q's trimmed limb counts. Constant time in bases and
    /// exponents (fixed 5-bit windows, every table entry read on every
    /// lookup); the exponents' LENGTHS are public and may differ.
    pub fn pow_secret(&self, b: &Halves, ep: &[u64], eq: &[u64]) -> Halves {
        typed(
            self.tables
                .pow_secret(Base::of(Input::Halves(b)), ep, eq, None, self.choices())
                .expect("halves are always accepted"),
        )
    }

    /// [`DualKey::pow_secret`] with one modulus in both halves (a key built
    /// from `(m, m)`, which is no CRT pair): `base^exp mod m`, the second
    /// half's copy wiped.
    pub(super) fn pow_secret_same(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        let (out, mut copy) = self
            .tables
            .pow_secret(Base::Pair(base, base), exp, exp, None, self.choices())
            .expect("halves are always accepted");
        copy.zeroize();
        out
    }

    /// Whether the secret exponentiations run quotient-pipelined (the
    /// primes leave the 104 bits of margin in their digit count that it
    /// needs: RSA-3072, not RSA-2048 or RSA-4096; see `ifma`, "Quotient
    /// pipelining"). Public: depends on the primes' sizes only.
    pub fn pipelined(&self) -> bool {
        self.tables.pipelined()
    }

    /// This CPU's kernel choices for this key's register count: the ones
    /// every private operation runs with.
    pub fn choices(&self) -> Choices {
        Choices {
            dedicated: dedicated_sqr(self.nr),
            pipelined: true,
            xmm: xmm_chain(),
        }
    }

    /// A blinding factor's residues `f` in this kernel's form, made once per
    /// factor so
    /// that the exponentiation it blinds takes it without converting or
    /// multiplying it again: f R^2 and f R^3 per half ([`DualFactor`]).
    /// Costs two radix conversions and three dual products. Constant time
    /// in the factor's value.
    pub fn factor(&self, f: &Halves) -> DualFactor {
        DualFactor {
            words: self.tables.factor(f.0.limbs(), f.1.limbs()),
            key: self.id,
        }
    }

    /// `f`, checked to come from this key's [`DualKey::factor`].
    fn own<'f>(&self, f: &'f DualFactor) -> &'f DualFactor {
        assert_eq!(f.key, self.id, "a blinding factor made by another key");
        f
    }

    /// `((b_p f_p)^ep mod p, (b_q f_q)^eq mod q)`, as [`DualKey::pow_secret`],
    /// for a factor f from [`DualKey::factor`] on this key (a blinding
    /// factor): f enters the bases inside the kernel, in the product that
    /// puts each base in the Montgomery domain (amm(b, f R^2) = b f R).
    /// Panics for a factor made by another key.
    pub fn pow_secret_blinded(&self, b: &Halves, f: &DualFactor, ep: &[u64], eq: &[u64]) -> Halves {
        typed(
            self.tables
                .pow_secret(
                    Base::of(Input::Halves(b)),
                    ep,
                    eq,
                    Some(self.own(f)),
                    self.choices(),
                )
                .expect("halves are always accepted"),
        )
    }

    /// As [`DualKey::pow_secret_blinded`] with the input x < p q not yet
    /// reduced (n's limbs): x = x_lo + x_hi R (R = 2^(52 d)), so x f R =
    /// amm(x_lo, f R^2) + amm(x_hi, f R^3) mod each prime, two dual
    /// products in place of the reductions of x into p and q. None where
    /// the primes leave less margin in their digit count than this needs
    /// (5 bits plain, 109 pipelined: see `ifma::pow_dual` on its first
    /// entry); RSA-2048, -3072 and -4096 primes have it. Panics if x has
    /// bits at or above 2^(104 d - 10) (x < p q never has), and for a
    /// factor made by another key.
    pub fn pow_secret_blinded_wide(
        &self,
        x: &[u64],
        f: &DualFactor,
        ep: &[u64],
        eq: &[u64],
    ) -> Option<Halves> {
        self.tables
            .pow_secret(Base::Wide(x), ep, eq, Some(self.own(f)), self.choices())
            .map(typed)
    }

    /// The secret exponentiation of [`DualKey::pow_secret`] (no `factor`),
    /// [`DualKey::pow_secret_blinded`] (a factor, with `Input::Halves`) or
    /// [`DualKey::pow_secret_blinded_wide`] (with `Input::Wide`), run with the
    /// kernel `choices` the caller makes (every candidate runs on any IFMA
    /// CPU, bit for bit the same result): for the tests that compare them
    /// and the benchmarks that choose. None only for an `Input::Wide` the
    /// primes' sizes leave no room for; panics for a factor made by another
    /// key.
    pub fn pow_secret_chosen(
        &self,
        input: Input<'_>,
        ep: &[u64],
        eq: &[u64],
        factor: Option<&DualFactor>,
        choices: Choices,
    ) -> Option<Halves> {
        self.tables
            .pow_secret(Base::of(input), ep, eq, factor.map(|f| self.own(f)), choices)
            .map(typed)
    }

    /// `(b_p^exp mod p, b_q^exp mod q)` for a PUBLIC exponent (variable time
    /// in `exp` only, constant time in the bases), as [`DualKey::pow_secret`].
    pub fn pow_public(&self, b: &Halves, exp: &[u64]) -> Halves {
        typed(
            self.tables
                .pow_public(b.0.limbs(), b.1.limbs(), exp, dedicated_sqr(self.nr)),
        )
    }

    /// [`DualKey::pow_public`] with one modulus in both halves, as
    /// [`DualKey::pow_secret_same`].
    pub(super) fn pow_public_same(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        let (out, mut copy) = self.tables.pow_public(base, base, exp, dedicated_sqr(self.nr));
        copy.zeroize();
        out
    }
}

/// The kernel's two results as the residues they are (fully reduced, in
/// p's and q's limb counts: `Tables::results`).
fn typed((yp, yq): (Vec<u64>, Vec<u64>)) -> Halves {
    (Elem::assume_reduced(yp), Elem::assume_reduced(yq))
}

/// [`Input`] as the tables read it: limbs.
#[derive(Clone, Copy)]
enum Base<'a> {
    /// (b_p, b_q), each below its prime in its limb count; equal slices
    /// for a key built from one modulus twice.
    Pair(&'a [u64], &'a [u64]),
    /// x < p q.
    Wide(&'a [u64]),
}

impl<'a> Base<'a> {
    fn of(input: Input<'a>) -> Self {
        match input {
            Input::Halves(b) => Base::Pair(b.0.limbs(), b.1.limbs()),
            Input::Wide(x) => Base::Wide(x),
        }
    }
}

/// The kernel choices of one secret exponentiation (public data: they
/// follow from the CPU and the key's sizes). [`DualKey::choices`] gives
/// this CPU's; [`DualKey::pow_secret_chosen`] runs any of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choices {
    /// The dedicated squaring, else the product.
    pub dedicated: bool,
    /// Quotient-pipelined where the key allows it (false: always the plain
    /// form).
    pub pipelined: bool,
    /// The plain form's quotient chain in xmm registers
    /// (`ifma::amm_dual_xmm`); pipelined runs have their own chain.
    pub xmm: bool,
}

/// The base of a secret exponentiation: its residues mod p and q, or one
/// value below p q (n's limbs) that the kernel reduces on entry
/// ([`DualKey::pow_secret_blinded_wide`]).
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// (b_p, b_q).
    Halves(&'a Halves),
    /// x < p q.
    Wide(&'a [u64]),
}

/// A blinding factor in the dual kernel's form ([`DualKey::factor`]): the
/// interleaved radix-2^52 digits of f R^2 and f R^3 per half (R =
/// 2^(52 d)), each below twice its prime. Mod the primes themselves, so
/// one factor serves plain and pipelined runs alike: a pipelined modulus
/// is its prime times s < 2^104 at the same digit count, so the same R,
/// and a value mod the prime is a representative mod it. Secret: wiped on
/// drop, `Debug` prints nothing of it.
pub struct DualFactor {
    /// f R^2's rows, then f R^3's: 2 NR rows of 8 words.
    words: zeroize::Zeroizing<Vec<u64>>,
    /// The `id` of the key that made it (public).
    key: u64,
}

impl core::fmt::Debug for DualFactor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DualFactor").finish_non_exhaustive()
    }
}

impl DualFactor {
    /// Entry `k` (0: f R^2, 1: f R^3) as a register operand.
    fn lanes<const NR: usize>(&self, k: usize) -> Lanes<NR> {
        assert_eq!(
            self.words.len(),
            16 * NR,
            "a blinding factor of another key's size"
        );
        Lanes::from_words(&self.words[8 * NR * k..8 * NR * (k + 1)])
    }
}

/// The dual exponentiations over one register count's tables.
trait DualTables: Send + Sync {
    /// With a `factor`: the bases times it (see
    /// [`DualKey::pow_secret_blinded`]); `choices.pipelined`: run
    /// pipelined where the key allows it. None only for an `Input::Wide`
    /// the primes' sizes leave no room for.
    fn pow_secret(
        &self,
        input: Base<'_>,
        ep: &[u64],
        eq: &[u64],
        factor: Option<&DualFactor>,
        choices: Choices,
    ) -> Option<(Vec<u64>, Vec<u64>)>;
    /// The words of the factor's kernel form: see [`DualFactor`].
    fn factor(&self, fp: &[u64], fq: &[u64]) -> zeroize::Zeroizing<Vec<u64>>;
    fn pipelined(&self) -> bool;
    fn pow_public(&self, bp: &[u64], bq: &[u64], exp: &[u64], dedicated: bool) -> (Vec<u64>, Vec<u64>);
}

struct Tables<const NR: usize> {
    m: DualMod<NR>,
    rr: Lanes<NR>,
    /// The pipelined moduli, where the primes' sizes allow them. Boxed: an
    /// inline `None` would leave its payload's bytes uninitialised, i.e.
    /// whatever the stack held (a prime's digits, say), in the freed block.
    pipe: Option<Box<Pipe<NR>>>,
    p: Modulus52,
    q: Modulus52,
    /// Zeros where the 64-byte alignment would otherwise leave padding:
    /// padding is copied with the struct from the stack where it was built
    /// (and may hold a prime's digits from an earlier frame) into the heap
    /// block that outlives it (`tests/secret_scan.rs` finds such bytes).
    _fill: [u64; TABLES_FILL],
    /// The token for the dual kernels: the tables exist only where it did.
    ifma: Ifma,
}

/// Words of `Tables::_fill`: the fields after the two 64-byte aligned ones
/// (the pipe's box, two `Modulus52`) rounded up to a multiple of 64 bytes.
const TABLES_FILL: usize = (64 - (8 + 2 * core::mem::size_of::<Modulus52>()) % 64) % 64 / 8;

// No padding left in `Tables` (for every register count: only the 64-byte
// multiples of the aligned fields depend on NR).
const _: () = {
    use core::mem::size_of;
    let rest = size_of::<Option<Box<Pipe<1>>>>() + 2 * size_of::<Modulus52>() + 8 * TABLES_FILL;
    assert!(size_of::<Tables<1>>() == size_of::<DualMod<1>>() + size_of::<Lanes<1>>() + rest);
    assert!(size_of::<Tables<10>>() == size_of::<DualMod<10>>() + size_of::<Lanes<10>>() + rest);
};

/// Both primes' pipelined forms M (`Modulus52::pipelined`) and R^2 mod M.
struct Pipe<const NR: usize> {
    m: DualMod<NR>,
    rr: Lanes<NR>,
}

impl<const NR: usize> Drop for Tables<NR> {
    fn drop(&mut self) {
        self.rr.zeroize();
    }
}

impl<const NR: usize> Drop for Pipe<NR> {
    fn drop(&mut self) {
        self.rr.zeroize();
    }
}

impl<const NR: usize> Tables<NR> {
    /// Both bases in the kernel's form: radix 2^52, interleaved (the one
    /// conversion in).
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

    /// Whether a wide input fits the run's modulus with `extra` bits over
    /// the primes' (0 plain, `PIPELINE_BITS` pipelined). Public sizes.
    fn wide_ok(&self, extra: usize) -> bool {
        // The margin a wide input needs below R: the run's modulus's bits + 5
        // (a pipelined modulus has up to 104 bits more).
        self.p.bits.max(self.q.bits) + extra + 5 <= 52 * 4 * NR
    }

    /// The kernel's result (per half below 2m) fully reduced, out of radix
    /// 2^52 (the one conversion out).
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

impl<const NR: usize> Tables<NR> {
    /// The secret exponentiations with the run's modulus `m` (the primes, or
    /// their pipelined forms when `PIPE`) and its `rr`; the last product is
    /// by the primes themselves either way.
    #[allow(clippy::too_many_arguments)]
    fn pow_secret_in<const PIPE: bool>(
        &self,
        m: &DualMod<NR>,
        rr: &Lanes<NR>,
        input: Base<'_>,
        ep: &[u64],
        eq: &[u64],
        factor: Option<&DualFactor>,
        choices: Choices,
    ) -> (Vec<u64>, Vec<u64>) {
        // The entry product's second operand: R^2, or f R^2 for a factor f
        // (below 2p: a representative mod M too, see `DualFactor`).
        let mut entry = match factor {
            Some(f) => f.lanes::<NR>(0),
            None => *rr,
        };
        // Table entry 1: x f R per half.
        let mut first = Lanes::<NR>::ZERO;
        match input {
            Base::Pair(bp, bq) => {
                let mut base = self.bases(bp, bq);
                self.ifma
                    .amm_dual::<NR, false, PIPE>(&mut first, &base, &entry, m);
                base.zeroize();
            }
            Base::Wide(x) => {
                // x = lo + hi R: lo < R gives amm(lo, f R^2) < 3m; hi < R / 2^10
                // (x < p q, each prime 5 bits below R) gives amm(hi, f R^3) < m
                // + m / 2^9. The sum, x f R mod m, is below 4.1m with 17m < R,
                // which `pow_dual` accepts as its first entry.
                let d = 4 * NR;
                // The bound on hi, checked: x < 2^(104 d - 10). x is the operation's
                // input (public); the OR runs over every limb above the bound.
                let limit = 104 * d - 10;
                let (top, top_bits) = (limit.div_ceil(64), limit % 64);
                let high = x.iter().skip(top).fold(0, |acc, &l| acc | l);
                let partial = match (x.get(top - 1), top_bits) {
                    (Some(&l), b) if b > 0 => l >> b,
                    _ => 0,
                };
                assert!(high | partial == 0, "input at or above 2^(104 d - 10)");
                let mut digits = portable52::to_digits(x, 2 * d);
                let mut lo = Lanes::<NR>::interleave(&digits[..d], &digits[..d]);
                let mut hi = Lanes::<NR>::interleave(&digits[d..], &digits[d..]);
                // f R^3: the factor's second entry, else R^3 from R^2.
                let mut entry3 = match factor {
                    Some(f) => f.lanes::<NR>(1),
                    None => {
                        let mut e3 = Lanes::<NR>::ZERO;
                        self.ifma.amm_dual::<NR, false, PIPE>(&mut e3, &entry, rr, m);
                        e3
                    }
                };
                let (mut t_lo, mut t_hi) = (Lanes::<NR>::ZERO, Lanes::<NR>::ZERO);
                self.ifma.amm_dual::<NR, false, PIPE>(&mut t_lo, &lo, &entry, m);
                self.ifma.amm_dual::<NR, false, PIPE>(&mut t_hi, &hi, &entry3, m);
                self.ifma.add_dual(&mut first, &t_lo, &t_hi);
                digits.zeroize();
                for v in [&mut lo, &mut hi, &mut entry3, &mut t_lo, &mut t_hi] {
                    v.zeroize();
                }
            }
        }
        let y =
            self.ifma
                .pow_dual::<NR, PIPE>(m, &self.m, &first, rr, ep, eq, choices.dedicated, choices.xmm);
        first.zeroize();
        entry.zeroize();
        self.results(y)
    }
}

impl<const NR: usize> DualTables for Tables<NR> {
    fn pow_secret(
        &self,
        input: Base<'_>,
        ep: &[u64],
        eq: &[u64],
        factor: Option<&DualFactor>,
        choices: Choices,
    ) -> Option<(Vec<u64>, Vec<u64>)> {
        let wide = matches!(input, Base::Wide(_));
        // A wide input too large for the pipelined modulus runs plain.
        match (&self.pipe, choices.pipelined) {
            (Some(pipe), true) if !wide || self.wide_ok(portable52::PIPELINE_BITS) => {
                Some(self.pow_secret_in::<true>(&pipe.m, &pipe.rr, input, ep, eq, factor, choices))
            }
            _ => {
                if wide && !self.wide_ok(0) {
                    return None;
                }
                Some(self.pow_secret_in::<false>(&self.m, &self.rr, input, ep, eq, factor, choices))
            }
        }
    }

    fn factor(&self, fp: &[u64], fq: &[u64]) -> zeroize::Zeroizing<Vec<u64>> {
        // f R = amm(f, R^2), f R^2 = amm(f R, R^2), f R^3 = amm(f R^2, R^2),
        // all mod the primes (each below 2p: `amm_dual`'s bound).
        let mut f = self.bases(fp, fq);
        let mut fr = Lanes::<NR>::ZERO;
        let mut entries = [Lanes::<NR>::ZERO; 2];
        self.ifma
            .amm_dual::<NR, false, false>(&mut fr, &f, &self.rr, &self.m);
        let [e2, e3] = &mut entries;
        self.ifma.amm_dual::<NR, false, false>(e2, &fr, &self.rr, &self.m);
        self.ifma.amm_dual::<NR, false, false>(e3, e2, &self.rr, &self.m);
        let mut words = zeroize::Zeroizing::new(Vec::with_capacity(16 * NR));
        for e in &entries {
            words.extend_from_slice(e.words());
        }
        f.zeroize();
        fr.zeroize();
        entries.zeroize();
        words
    }

    fn pipelined(&self) -> bool {
        self.pipe.is_some()
    }

    fn pow_public(&self, bp: &[u64], bq: &[u64], exp: &[u64], dedicated: bool) -> (Vec<u64>, Vec<u64>) {
        let mut base = self.bases(bp, bq);
        let y = self
            .ifma
            .pow_dual_public::<NR>(&self.m, &base, &self.rr, exp, dedicated);
        base.zeroize();
        self.results(y)
    }
}
