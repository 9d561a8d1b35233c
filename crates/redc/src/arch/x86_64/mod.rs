//! x86-64 kernels (MULX/ADX, AVX-512 IFMA), each behind runtime detection.
//!
//! - [`ifma`]: radix-2^52 almost-Montgomery multiplication and dedicated
//!   squaring on 512-bit IFMA with the two CRT halves interleaved lane by
//!   lane, and the dual constant-time fixed-window exponentiation. Portable
//!   twin: [`crate::arch::portable52`].
//! - [`ifma_single`]: the same product for ONE public modulus, eight digits
//!   a register (up to 80 digits): public-exponent work (verification).
//! - [`ifma_mb8`]: eight independent products, one per lane (batch signing).
//! - [`adx`]: scalar Montgomery multiplication and squaring with MULX and the
//!   two carry chains ADCX/ADOX, with the `mont::Kernel` signature. Portable
//!   twin: [`crate::mont::fips`].
//!
//! Every public function here is safe: it checks lengths, and the AVX-512 /
//! ADX code is reached only after the features were detected at run time.

/// Load a 64-byte row. Every row these kernels load is a `[u64; 8]` row of a
/// `repr(C, align(64))` struct made of such rows (`Lanes`, `Digits`, `Mb8`,
/// the `Shifted` copies), so it is 64-byte aligned.
macro_rules! ld {
    ($x:expr) => {{
        let p: &[u64; 8] = $x;
        // SAFETY: `p` is a 64-byte aligned row (see the macro's documentation).
        unsafe { _mm512_load_si512(p.as_ptr().cast()) }
    }};
}

/// The N part of step i = G g + S of the IFMA kernels' operand scanning
/// (`ifma`: G = 4 digit positions a register, `ifma_single`: G = 8; `$LAST`
/// = G - 1), with quotient digit `y`: n_j y at positions i + j (lo) and
/// i + j + 1 (hi), into the window `$st.wn` from the modulus rows
/// `$m.nsh` shifted by S and S + 1. `$off` = -1 (S = `$LAST` only: the
/// part of a group's last step, issued after the window slid) writes one
/// slot down and drops old slot 0, whose one term here, lo(n0 y) at
/// position i, is finished (its carry is in the quotient chain).
macro_rules! n_part {
    ($S:literal, $LAST:literal, $off:literal, $st:ident, $y:expr, $m:expr, $nr:expr) => {{
        const S: usize = $S;
        let y = $y;
        for_r!($nr, |r| {
            if $off == 0 {
                if !(S == 0 && r == $nr) {
                    $st.wn[r] = _mm512_madd52lo_epu64($st.wn[r], ld!($m.nsh.row(S, r)), y);
                }
                if !(S == $LAST && r == 0) {
                    $st.wn[r] = _mm512_madd52hi_epu64($st.wn[r], ld!($m.nsh.row(S + 1, r)), y);
                }
            } else if r > 0 {
                $st.wn[r - 1] = _mm512_madd52lo_epu64($st.wn[r - 1], ld!($m.nsh.row(S, r)), y);
                $st.wn[r - 1] = _mm512_madd52hi_epu64($st.wn[r - 1], ld!($m.nsh.row(S + 1, r)), y);
            }
        });
    }};
}

/// `for r in 0..=nr`, unrolled in the source so every register index is a
/// constant (LLVM then keeps the accumulator window in registers).
macro_rules! for_r {
    ($nr:expr, |$r:ident| $body:block) => {{
        for_r!(@one $nr, $r, 0, $body);
        for_r!(@one $nr, $r, 1, $body);
        for_r!(@one $nr, $r, 2, $body);
        for_r!(@one $nr, $r, 3, $body);
        for_r!(@one $nr, $r, 4, $body);
        for_r!(@one $nr, $r, 5, $body);
        for_r!(@one $nr, $r, 6, $body);
        for_r!(@one $nr, $r, 7, $body);
        for_r!(@one $nr, $r, 8, $body);
        for_r!(@one $nr, $r, 9, $body);
        for_r!(@one $nr, $r, 10, $body);
    }};
    (@one $nr:expr, $r:ident, $v:literal, $body:block) => {{
        #[allow(non_upper_case_globals)]
        const $r: usize = $v;
        if $r <= $nr $body
    }};
}

pub mod adx;
pub mod adx_band;
pub mod cpu;
pub mod ifma;
pub mod ifma_mb8;
pub mod ifma_single;

use std::sync::OnceLock;

use zeroize::Zeroize;

use crate::arch::portable52::{self, Modulus52};
use crate::arch::select::{self, Request, SqrChoice};

use ifma::{DualMod, Lanes, MAX_NR};

pub(crate) use cpu::require_bmi2_adx;
pub use cpu::{adx_available, avx2_available, brand_string, ifma_available, xmm_chain};

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
    // Both halves computed the same value: wipe the second copy.
    let (out, mut copy) = key.pow_secret(base, exp, base, exp);
    copy.zeroize();
    out
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
        Some(key) => {
            // The base may be secret: wipe the second half's copy.
            let (out, mut copy) = key.pow_public(base, base, exp);
            copy.zeroize();
            out
        }
        None => portable52::pow(&m.m, base, exp),
    }
}

/// A PUBLIC modulus prepared for the single-modulus IFMA kernel
/// ([`ifma_single`]: eight digits a register, up to 80 digits, i.e. moduli up
/// to 4158 bits): public-exponent work on it (verification, encryption).
pub struct SingleKey {
    tables: Box<dyn SingleTables>,
}

impl core::fmt::Debug for SingleKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SingleKey").finish_non_exhaustive()
    }
}

trait SingleTables: Send + Sync {
    fn pow_public(&self, base: &[u64], exp: &[u64]) -> Vec<u64>;
}

struct Single<const NR: usize> {
    m: ifma_single::SingleMod<NR>,
    md: Modulus52,
}

impl<const NR: usize> SingleTables for Single<NR> {
    fn pow_public(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        check_base_len(&self.md, base);
        let d = self.md.d;
        let mut dg = portable52::to_digits(base, d);
        let mut b = ifma_single::Digits::<NR>::from_slice(&dg);
        // SAFETY: a `SingleKey` exists only where ifma_available() held at its creation.
        let mut y = unsafe { ifma_single::pow_public::<NR>(&self.m, &b, exp) };
        let mut yd = y.to_vec(d);
        portable52::final_reduce(&self.md, &mut yd);
        let out = portable52::from_digits(&yd, self.md.limbs.len());
        dg.zeroize();
        b.zeroize();
        y.zeroize();
        yd.zeroize();
        out
    }
}

impl SingleKey {
    /// The single-modulus tables of an odd public `n >= 3` (little-endian
    /// limbs), or None without IFMA or above 80 digits.
    pub fn new(n: &[u64]) -> Option<SingleKey> {
        if !ifma_available() {
            return None;
        }
        let md = Modulus52::with_digit_multiple(n, 8)?;
        let nr = md.d / 8;
        if nr == 0 || nr > ifma_single::MAX_NR {
            return None;
        }
        let tables: Box<dyn SingleTables> = with_nr!(nr, NR => Box::new(Single::<NR> {
            m: ifma_single::SingleMod::new(&md),
            md,
        }));
        Some(SingleKey { tables })
    }

    /// `base^exp mod n`, fully reduced, in n's trimmed limb count, for a
    /// PUBLIC exponent: variable time in `exp` only, constant time in
    /// `base < n` (which may be secret).
    pub fn pow_public(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        self.tables.pow_public(base, exp)
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
    /// Register count (public: the primes' size).
    nr: usize,
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
        }));
        Some(DualKey {
            tables,
            nr: p.m.d.div_ceil(4),
        })
    }

    /// `(bp^ep mod p, bq^eq mod q)`, fully reduced, in p's and q's trimmed
    /// limb counts; `bp < p`, `bq < q`. Constant time in bases and exponents
    /// (fixed 5-bit windows, every table entry read on every lookup); the
    /// exponents' LENGTHS are public and may differ.
    pub fn pow_secret(&self, bp: &[u64], ep: &[u64], bq: &[u64], eq: &[u64]) -> (Vec<u64>, Vec<u64>) {
        self.tables
            .pow_secret(Input::Halves(bp, bq), ep, eq, None, self.choices())
            .expect("halves are always accepted")
    }

    /// Whether the secret exponentiations run quotient-pipelined (the
    /// primes leave the 104 bits of margin in their digit count that it
    /// needs: RSA-3072, not RSA-2048 or RSA-4096; see `ifma`, "Quotient
    /// pipelining"). Public: depends on the primes' sizes only.
    pub fn pipelined(&self) -> bool {
        self.tables.pipelined()
    }

    /// This CPU's kernel choices for this key's register count.
    fn choices(&self) -> Choices {
        Choices {
            dedicated: dedicated_sqr(self.nr),
            pipelined: true,
            xmm: xmm_chain(),
        }
    }

    /// `((bp fp)^ep mod p, (bq fq)^eq mod q)`, as [`DualKey::pow_secret`]: the
    /// factors (blinding factors, `fp < p`, `fq < q`, each in its prime's
    /// limb count) enter the bases inside the kernel, in the product that
    /// puts each base in the Montgomery domain, at the cost of two dual
    /// products (f R, f R^2) instead of a product mod n before the run.
    pub fn pow_secret_blinded(
        &self,
        bp: &[u64],
        fp: &[u64],
        ep: &[u64],
        bq: &[u64],
        fq: &[u64],
        eq: &[u64],
    ) -> (Vec<u64>, Vec<u64>) {
        self.tables
            .pow_secret(Input::Halves(bp, bq), ep, eq, Some((fp, fq)), self.choices())
            .expect("halves are always accepted")
    }

    /// As [`DualKey::pow_secret_blinded`] with the input x < p q not yet
    /// reduced (n's limbs): x = x_lo + x_hi R (R = 2^(52 d)), so x f R =
    /// amm(x_lo, f R^2) + amm(x_hi, f R^3) mod each prime, three dual
    /// products (f R^3 included) in place of the reductions of x into p and
    /// q. None where the primes leave less margin in their digit count than
    /// this needs (5 bits plain, 109 pipelined: see [`ifma::pow_dual`] on its
    /// first entry); RSA-2048, -3072 and -4096 primes have it. Panics if x
    /// has bits at or above 2^(104 d - 10) (x < p q never has).
    pub fn pow_secret_blinded_wide(
        &self,
        x: &[u64],
        fp: &[u64],
        ep: &[u64],
        fq: &[u64],
        eq: &[u64],
    ) -> Option<(Vec<u64>, Vec<u64>)> {
        self.tables
            .pow_secret(Input::Wide(x), ep, eq, Some((fp, fq)), self.choices())
    }

    /// [`DualKey::pow_secret`] with the squaring chosen by the caller
    /// (`dedicated`: the dedicated squaring, else the product): both kernel
    /// candidates, for tests and benchmarks.
    pub fn pow_secret_with_sqr(
        &self,
        bp: &[u64],
        ep: &[u64],
        bq: &[u64],
        eq: &[u64],
        dedicated: bool,
    ) -> (Vec<u64>, Vec<u64>) {
        self.tables
            .pow_secret(
                Input::Halves(bp, bq),
                ep,
                eq,
                None,
                Choices {
                    dedicated,
                    pipelined: true,
                    xmm: xmm_chain(),
                },
            )
            .expect("halves are always accepted")
    }

    /// [`DualKey::pow_secret_blinded`] with the kernel choices made by the
    /// caller: the squaring (`dedicated`) and whether to run pipelined where
    /// the key allows it (`pipelined`; false always runs the plain form).
    /// The chain's form is this CPU's ([`xmm_chain`]). For tests and
    /// benchmarks.
    #[allow(clippy::too_many_arguments)]
    pub fn pow_secret_with(
        &self,
        bp: &[u64],
        fp: &[u64],
        ep: &[u64],
        bq: &[u64],
        fq: &[u64],
        eq: &[u64],
        dedicated: bool,
        pipelined: bool,
    ) -> (Vec<u64>, Vec<u64>) {
        self.pow_secret_with_chain(bp, fp, ep, bq, fq, eq, dedicated, pipelined, xmm_chain())
    }

    /// [`DualKey::pow_secret_with`] with the chain's form chosen too: `xmm`
    /// runs the plain (not pipelined) form's quotient chain in xmm registers
    /// (`ifma::amm_dual_xmm`), on any CPU. For tests and benchmarks.
    #[allow(clippy::too_many_arguments)]
    pub fn pow_secret_with_chain(
        &self,
        bp: &[u64],
        fp: &[u64],
        ep: &[u64],
        bq: &[u64],
        fq: &[u64],
        eq: &[u64],
        dedicated: bool,
        pipelined: bool,
        xmm: bool,
    ) -> (Vec<u64>, Vec<u64>) {
        self.tables
            .pow_secret(
                Input::Halves(bp, bq),
                ep,
                eq,
                Some((fp, fq)),
                Choices {
                    dedicated,
                    pipelined,
                    xmm,
                },
            )
            .expect("halves are always accepted")
    }

    /// [`DualKey::pow_secret_blinded_wide`] with the kernel choices made by
    /// the caller, as [`DualKey::pow_secret_with`]. For tests and benchmarks.
    #[allow(clippy::too_many_arguments)]
    pub fn pow_secret_wide_with(
        &self,
        x: &[u64],
        fp: &[u64],
        ep: &[u64],
        fq: &[u64],
        eq: &[u64],
        dedicated: bool,
        pipelined: bool,
    ) -> Option<(Vec<u64>, Vec<u64>)> {
        self.tables.pow_secret(
            Input::Wide(x),
            ep,
            eq,
            Some((fp, fq)),
            Choices {
                dedicated,
                pipelined,
                xmm: xmm_chain(),
            },
        )
    }

    /// `(bp^exp mod p, bq^exp mod q)` for a PUBLIC exponent (variable time in
    /// `exp` only, constant time in the bases), as [`DualKey::pow_secret`].
    pub fn pow_public(&self, bp: &[u64], bq: &[u64], exp: &[u64]) -> (Vec<u64>, Vec<u64>) {
        self.tables.pow_public(bp, bq, exp, dedicated_sqr(self.nr))
    }
}

/// The kernel choices of one secret exponentiation (public: they follow
/// from the CPU and the key's sizes).
#[derive(Clone, Copy, Debug)]
struct Choices {
    /// The dedicated squaring, else the product.
    dedicated: bool,
    /// Quotient-pipelined where the key allows it.
    pipelined: bool,
    /// The quotient chain in xmm (`ifma::amm_dual_xmm`; not pipelined runs).
    xmm: bool,
}

/// The base of a secret exponentiation: its residues, or one value below p q
/// (n's limbs) that the kernel reduces on entry.
#[derive(Clone, Copy)]
enum Input<'a> {
    Halves(&'a [u64], &'a [u64]),
    Wide(&'a [u64]),
}

/// The dual exponentiations over one register count's tables.
trait DualTables: Send + Sync {
    /// With `factors` (fp, fq): the bases times them (see
    /// [`DualKey::pow_secret_blinded`]); `pipelined`: run pipelined where
    /// the key allows it. None only for an `Input::Wide` the primes' sizes
    /// leave no room for.
    fn pow_secret(
        &self,
        input: Input<'_>,
        ep: &[u64],
        eq: &[u64],
        factors: Option<(&[u64], &[u64])>,
        choices: Choices,
    ) -> Option<(Vec<u64>, Vec<u64>)>;
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

impl<const NR: usize> Tables<NR> {
    /// The secret exponentiations with the run's modulus `m` (the primes, or
    /// their pipelined forms when `PIPE`) and its `rr`; the last product is
    /// by the primes themselves either way.
    #[allow(clippy::too_many_arguments)]
    fn pow_secret_in<const PIPE: bool>(
        &self,
        m: &DualMod<NR>,
        rr: &Lanes<NR>,
        input: Input<'_>,
        ep: &[u64],
        eq: &[u64],
        factors: Option<(&[u64], &[u64])>,
        choices: Choices,
    ) -> (Vec<u64>, Vec<u64>) {
        // The entry product's second operand: R^2, or f R^2 for factors f.
        let mut entry = *rr;
        if let Some((fp, fq)) = factors {
            let mut f = self.bases(fp, fq);
            let mut fr = Lanes::<NR>::ZERO;
            // SAFETY: a `DualKey` exists only where ifma_available() held at its creation.
            unsafe {
                ifma::amm_dual::<NR, false, PIPE>(&mut fr, &f, rr, m);
                ifma::amm_dual::<NR, false, PIPE>(&mut entry, &fr, rr, m);
            }
            f.zeroize();
            fr.zeroize();
        }
        // Table entry 1: x f R per half.
        let mut first = Lanes::<NR>::ZERO;
        match input {
            Input::Halves(bp, bq) => {
                let mut base = self.bases(bp, bq);
                // SAFETY: as above.
                unsafe { ifma::amm_dual::<NR, false, PIPE>(&mut first, &base, &entry, m) };
                base.zeroize();
            }
            Input::Wide(x) => {
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
                let mut entry3 = Lanes::<NR>::ZERO;
                let (mut t_lo, mut t_hi) = (Lanes::<NR>::ZERO, Lanes::<NR>::ZERO);
                // SAFETY: as above.
                unsafe {
                    ifma::amm_dual::<NR, false, PIPE>(&mut entry3, &entry, rr, m);
                    ifma::amm_dual::<NR, false, PIPE>(&mut t_lo, &lo, &entry, m);
                    ifma::amm_dual::<NR, false, PIPE>(&mut t_hi, &hi, &entry3, m);
                    ifma::add_dual(&mut first, &t_lo, &t_hi);
                }
                digits.zeroize();
                for v in [&mut lo, &mut hi, &mut entry3, &mut t_lo, &mut t_hi] {
                    v.zeroize();
                }
            }
        }
        // SAFETY: as above.
        let y = unsafe {
            ifma::pow_dual::<NR, PIPE>(m, &self.m, &first, rr, ep, eq, choices.dedicated, choices.xmm)
        };
        first.zeroize();
        entry.zeroize();
        self.results(y)
    }
}

impl<const NR: usize> DualTables for Tables<NR> {
    fn pow_secret(
        &self,
        input: Input<'_>,
        ep: &[u64],
        eq: &[u64],
        factors: Option<(&[u64], &[u64])>,
        choices: Choices,
    ) -> Option<(Vec<u64>, Vec<u64>)> {
        // The margin a wide input needs below R: the run's modulus's bits + 5
        // (a pipelined modulus has up to 104 bits more). Public sizes.
        let wide_ok = |extra: usize| self.p.bits.max(self.q.bits) + extra + 5 <= 52 * 4 * NR;
        let wide = matches!(input, Input::Wide(_));
        // A wide input too large for the pipelined modulus runs plain.
        match (&self.pipe, choices.pipelined) {
            (Some(pipe), true) if !wide || wide_ok(portable52::PIPELINE_BITS) => {
                Some(self.pow_secret_in::<true>(&pipe.m, &pipe.rr, input, ep, eq, factors, choices))
            }
            _ => {
                if wide && !wide_ok(0) {
                    return None;
                }
                Some(self.pow_secret_in::<false>(&self.m, &self.rr, input, ep, eq, factors, choices))
            }
        }
    }

    fn pipelined(&self) -> bool {
        self.pipe.is_some()
    }

    fn pow_public(&self, bp: &[u64], bq: &[u64], exp: &[u64], dedicated: bool) -> (Vec<u64>, Vec<u64>) {
        let mut base = self.bases(bp, bq);
        // SAFETY: as in `pow_secret`.
        let y = unsafe { ifma::pow_dual_public::<NR>(&self.m, &base, &self.rr, exp, dedicated) };
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
    amm52_dual_in(p, ap, bp, q, aq, bq, sqr, iters, Form::Plain)
}

/// As [`amm52_dual`] with the quotient chain in xmm registers
/// (`ifma::amm_dual_xmm`), on any CPU with the IFMA kernels: the same
/// results bit for bit.
#[allow(clippy::too_many_arguments)]
pub fn amm52_dual_xmm(
    p: &Ifma52Modulus,
    ap: &[u64],
    bp: &[u64],
    q: &Ifma52Modulus,
    aq: &[u64],
    bq: &[u64],
    sqr: bool,
    iters: usize,
) -> Option<(Vec<u64>, Vec<u64>)> {
    amm52_dual_in(p, ap, bp, q, aq, bq, sqr, iters, Form::Xmm)
}

/// As [`amm52_dual`] with the quotient-pipelined kernel, mod the pipelined
/// forms M of p and q (`Modulus52::pipelined`; inputs below 2M). Its twin is
/// the portable product mod M with k0 = 1. None also where the moduli have
/// no pipelined form.
#[allow(clippy::too_many_arguments)]
pub fn amm52_dual_pipelined(
    p: &Ifma52Modulus,
    ap: &[u64],
    bp: &[u64],
    q: &Ifma52Modulus,
    aq: &[u64],
    bq: &[u64],
    sqr: bool,
    iters: usize,
) -> Option<(Vec<u64>, Vec<u64>)> {
    amm52_dual_in(p, ap, bp, q, aq, bq, sqr, iters, Form::Pipelined)
}

/// Which dual kernel [`amm52_dual_in`] runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `ifma::amm_dual`, not pipelined.
    Plain,
    /// `ifma::amm_dual` on the pipelined moduli.
    Pipelined,
    /// `ifma::amm_dual_xmm` (not pipelined).
    Xmm,
}

#[allow(clippy::too_many_arguments)]
fn amm52_dual_in(
    p: &Ifma52Modulus,
    ap: &[u64],
    bp: &[u64],
    q: &Ifma52Modulus,
    aq: &[u64],
    bq: &[u64],
    sqr: bool,
    iters: usize,
    form: Form,
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
    let pipe = if form == Form::Pipelined {
        Some((p.m.pipelined()?, q.m.pipelined()?))
    } else {
        None
    };
    Some(with_nr!(d.div_ceil(4), NR => {
        let dm = match &pipe {
            Some((pp, pq)) => DualMod::<NR>::pipelined(pp, pq),
            None => DualMod::<NR>::new(&p.m, &q.m),
        };
        let mut x = Lanes::<NR>::interleave(ap, aq);
        let b = Lanes::<NR>::interleave(bp, bq);
        let mut y = Lanes::<NR>::ZERO;
        for _ in 0..iters {
            // SAFETY: ifma_available() was checked above.
            unsafe {
                match (sqr, form) {
                    (true, Form::Plain) => ifma::amm_dual::<NR, true, false>(&mut y, &x, &x, &dm),
                    (false, Form::Plain) => ifma::amm_dual::<NR, false, false>(&mut y, &x, &b, &dm),
                    (true, Form::Pipelined) => ifma::amm_dual::<NR, true, true>(&mut y, &x, &x, &dm),
                    (false, Form::Pipelined) => ifma::amm_dual::<NR, false, true>(&mut y, &x, &b, &dm),
                    (true, Form::Xmm) => ifma::amm_dual_xmm::<NR, true>(&mut y, &x, &x, &dm),
                    (false, Form::Xmm) => ifma::amm_dual_xmm::<NR, false>(&mut y, &x, &b, &dm),
                }
            }
            x = y;
        }
        (x.half(0, d), x.half(1, d))
    }))
}

/// One single-modulus almost-Montgomery product ([`ifma_single`]) on
/// radix-2^52 digit vectors of length d (the modulus's digit count for that
/// kernel, a multiple of 8: `Modulus52::with_digit_multiple(n, 8)`), repeated
/// `iters` times with the output fed back as the a operand. For differential
/// tests and benchmarks. Inputs: digits < 2^52, values < 2m. None when the
/// lengths are wrong, the modulus is unsupported or IFMA is unavailable.
pub fn amm52_single(n: &[u64], a: &[u64], b: &[u64], iters: usize) -> Option<Vec<u64>> {
    single_run(n, a, Some(b), iters)
}

/// [`amm52_single`] for the dedicated squaring: `iters` successive squares
/// of `a` (each output squared next). Same inputs and None cases.
pub fn sqr52_single(n: &[u64], a: &[u64], iters: usize) -> Option<Vec<u64>> {
    single_run(n, a, None, iters)
}

/// `iters` products by `b` (Some) or dedicated squarings (None), each
/// output fed back as the a operand: [`amm52_single`], [`sqr52_single`].
fn single_run(n: &[u64], a: &[u64], b: Option<&[u64]>, iters: usize) -> Option<Vec<u64>> {
    let md = Modulus52::with_digit_multiple(n, 8)?;
    let (d, nr) = (md.d, md.d / 8);
    if !ifma_available() || nr == 0 || nr > ifma_single::MAX_NR || iters == 0 {
        return None;
    }
    if [Some(a), b]
        .iter()
        .flatten()
        .any(|x| x.len() != d || x.iter().any(|&v| v > portable52::MASK))
    {
        return None;
    }
    Some(with_nr!(nr, NR => {
        let m = ifma_single::SingleMod::<NR>::new(&md);
        let mut x = ifma_single::Digits::<NR>::from_slice(a);
        let b = b.map(ifma_single::Digits::<NR>::from_slice);
        let mut y = ifma_single::Digits::<NR>::ZERO;
        let mut scratch = ifma_single::AScratch::<NR>::ZERO;
        for _ in 0..iters {
            // SAFETY: ifma_available() was checked above.
            unsafe {
                match &b {
                    Some(b) => ifma_single::amm_with::<NR>(&mut y, &x, b, &m, &mut scratch),
                    None => ifma_single::sqr_with::<NR>(&mut y, &x, &m, &mut scratch),
                }
            };
            x = y;
        }
        scratch.zeroize();
        x.to_vec(d)
    }))
}

/// Whether the eight-lane kernel has an instance for `d` digits (see
/// `with_mb8_digits`).
pub fn mb8_runs(d: usize) -> bool {
    (1..=ifma_mb8::MAX_D).contains(&d) && (d.is_multiple_of(4) || d == 30)
}

/// Run `$body` with the const `$d` set to the eight-lane digit count `$v`:
/// a multiple of 4 (the dual kernel's sizes), or 30, the CRT halves of
/// RSA-3072 at their own size ([`Modulus52::with_digit_multiple`] with 2),
/// which the eight-lane kernel runs with (30/32)^2 of the products of 32.
macro_rules! with_mb8_digits {
    ($v:expr, $d:ident => $body:expr) => {
        match $v {
            30 => {
                const $d: usize = 30;
                $body
            }
            v => with_nr!(v / 4, NR => {
                const $d: usize = 4 * NR;
                $body
            }),
        }
    };
}

/// Eight exponentiations at once on the eight-lane kernel ([`ifma_mb8`]):
/// `bases[l]^exps[l] mod moduli[l]`, each fully reduced in its modulus's
/// trimmed limb count. All moduli need the same digit count (at most 40, a
/// multiple of 4 or 30: see `with_mb8_digits`) and
/// all exponents the same limb count (public); bases below their moduli.
/// Constant time in bases, exponents and moduli. None when IFMA is
/// unavailable or the sizes differ.
pub fn pow_mb8(
    moduli: [&Modulus52; ifma_mb8::LANES],
    bases: [&[u64]; ifma_mb8::LANES],
    exps: [&[u64]; ifma_mb8::LANES],
) -> Option<Vec<Vec<u64>>> {
    if exps.iter().any(|e| e.len() != exps[0].len()) {
        return None;
    }
    run_mb8(moduli, bases, None, Mb8Exponent::Secret(&exps))
}

/// [`pow_mb8`] of the bases times per-lane factors (blinding factors, each
/// below its modulus): `(bases[l] factors[l])^exps[l] mod moduli[l]`, the
/// factor entering inside the kernel ([`ifma_mb8::pow`]).
pub fn pow_mb8_blinded(
    moduli: [&Modulus52; ifma_mb8::LANES],
    bases: [&[u64]; ifma_mb8::LANES],
    factors: [&[u64]; ifma_mb8::LANES],
    exps: [&[u64]; ifma_mb8::LANES],
) -> Option<Vec<Vec<u64>>> {
    if exps.iter().any(|e| e.len() != exps[0].len()) {
        return None;
    }
    run_mb8(moduli, bases, Some(factors), Mb8Exponent::Secret(&exps))
}

/// [`pow_mb8`] with one PUBLIC exponent for every lane (its bits choose the
/// steps, [`ifma_mb8::pow_public`]): `bases[l]^e mod moduli[l]`. Constant
/// time in the bases and moduli.
pub fn pow_public_mb8(
    moduli: [&Modulus52; ifma_mb8::LANES],
    bases: [&[u64]; ifma_mb8::LANES],
    e: &[u64],
) -> Option<Vec<Vec<u64>>> {
    run_mb8(moduli, bases, None, Mb8Exponent::Public(e))
}

/// The exponent(s) of an eight-lane run.
enum Mb8Exponent<'a> {
    /// One per lane, secret bits (fixed windows).
    Secret(&'a [&'a [u64]; ifma_mb8::LANES]),
    /// One for all lanes, public bits (binary, by its bits).
    Public(&'a [u64]),
}

/// Eight values in u64 limbs (each below its lane's modulus, D digits'
/// worth) as one eight-lane operand; the digit copies are wiped.
fn mb8_in<const D: usize>(vals: [&[u64]; ifma_mb8::LANES]) -> ifma_mb8::Mb8<D> {
    let mut digits = vals.map(|v| portable52::to_digits(v, D));
    let x = ifma_mb8::Mb8::<D>::from_lanes(&digits.each_ref().map(|v| &v[..]));
    for v in digits.iter_mut() {
        v.zeroize();
    }
    x
}

/// Lane `l` of `y` (below 2m) fully reduced mod `m`, in m's limb count; the
/// digit copy is wiped.
fn mb8_out<const D: usize>(y: &ifma_mb8::Mb8<D>, l: usize, m: &Modulus52) -> Vec<u64> {
    let mut v = y.lane(l);
    portable52::final_reduce(m, &mut v);
    let r = portable52::from_digits(&v, m.limbs.len());
    v.zeroize();
    r
}

/// The set-up and tear-down both eight-lane powers share: digits in, the
/// kernel, each lane fully reduced and back in u64 limbs, every copy wiped.
fn run_mb8(
    moduli: [&Modulus52; ifma_mb8::LANES],
    bases: [&[u64]; ifma_mb8::LANES],
    factors: Option<[&[u64]; ifma_mb8::LANES]>,
    exp: Mb8Exponent<'_>,
) -> Option<Vec<Vec<u64>>> {
    let d = moduli[0].d;
    if !ifma_available() || moduli.iter().any(|m| m.d != d) || !mb8_runs(d) {
        return None;
    }
    for (m, b) in moduli.iter().zip(bases) {
        check_base_len(m, b);
    }
    for (m, f) in moduli.iter().zip(factors.iter().flatten()) {
        check_base_len(m, f);
    }
    Some(with_mb8_digits!(d, D => {
        let mm = ifma_mb8::Mb8Mod::<D>::new(moduli);
        let mut base = mb8_in::<D>(bases);
        let mut factor = factors.map(mb8_in::<D>);
        // SAFETY: ifma_available() was checked above.
        let mut y = unsafe {
            match exp {
                Mb8Exponent::Secret(exps) => ifma_mb8::pow::<D>(&mm, &base, factor.as_ref(), exps),
                Mb8Exponent::Public(e) => ifma_mb8::pow_public::<D>(&mm, &base, e),
            }
        };
        let out = (0..ifma_mb8::LANES).map(|l| mb8_out(&y, l, moduli[l])).collect();
        base.zeroize();
        factor.zeroize();
        y.zeroize();
        out
    }))
}

/// Montgomery's simultaneous inversion in eight chains at once, every lane
/// on the one modulus `m` (n of an RSA key: the blinding factors' inverses).
/// `xs` (each below m, invertible, m's limb count or fewer) are dealt to
/// the lanes in turn (lane l takes x_l, x_(l+8), ...; a short last round
/// is padded with 1); each lane forms its prefix products
/// P_k = x_l x_(l+8) ... in the Montgomery domain, the eight totals leave
/// it and go to `invert8` (the caller's one real inversion, which needs the
/// key's factors), and each lane walks back: x_k^-1 = P_k^-1 P_(k-1), then
/// P_(k-1)^-1 = P_k^-1 x_k. Results are `x^-1 scale mod m`, fully reduced
/// (`scale` below m: R mod m gives the inverses in a radix-2^64 Montgomery
/// form). Five eight-lane products per value, against the three radix-2^64
/// products and two conversions of the walk on one modulus.
///
/// Constant time in the values (every lane runs the same products; only the
/// count, public, sets the rounds). None without IFMA, for a digit count the
/// kernel lacks, or when `invert8` gives None.
pub fn invert_many_mb8(
    m: &Modulus52,
    xs: &[&[u64]],
    scale: &[u64],
    invert8: impl FnOnce(&[Vec<u64>]) -> Option<Vec<Vec<u64>>>,
) -> Option<Vec<Vec<u64>>> {
    let d = m.d;
    if !ifma_available() || !mb8_runs(d) || xs.is_empty() {
        return None;
    }
    for x in xs.iter().chain([&scale]) {
        check_base_len(m, x);
    }
    const L: usize = ifma_mb8::LANES;
    let rounds = xs.len().div_ceil(L);
    with_mb8_digits!(d, D => {
        use ifma_mb8::{Mb8, amm_scratch};
        let mm = ifma_mb8::Mb8Mod::<D>::new([m; L]);
        let mut sc = ifma_mb8::Scratch::new();
        let mut one = Mb8::<D>::ZERO;
        one.0[0] = [1; L];
        // SAFETY (every amm_scratch below): ifma_available() was checked above.
        let mut amm = |a: &Mb8<D>, b: &Mb8<D>| {
            let mut out = Mb8::<D>::ZERO;
            unsafe { amm_scratch::<D>(&mut out, a, b, &mm, &mut sc) };
            out
        };
        // x in the Montgomery domain per round, and the running prefixes.
        let mut xm: Vec<Mb8<D>> = Vec::with_capacity(rounds);
        let mut prefix: Vec<Mb8<D>> = Vec::with_capacity(rounds);
        for k in 0..rounds {
            let mut x = mb8_in::<D>(core::array::from_fn(|l| xs.get(k * L + l).copied().unwrap_or(&[1])));
            let x_r = amm(&x, mm.rr());
            x.zeroize();
            let p = match prefix.last() {
                Some(prev) => amm(prev, &x_r),
                None => x_r,
            };
            xm.push(x_r);
            prefix.push(p);
        }
        // The eight totals, out of the Montgomery domain and fully reduced.
        let mut total = amm(&prefix[rounds - 1], &one);
        let mut totals: Vec<Vec<u64>> = (0..L).map(|l| mb8_out(&total, l, m)).collect();
        total.zeroize();
        let inverses = invert8(&totals);
        for v in totals.iter_mut() {
            v.zeroize();
        }
        let mut inverses = inverses?;
        if inverses.len() != L {
            return None;
        }
        let mut inv_plain = mb8_in::<D>(core::array::from_fn(|l| &inverses[l][..]));
        for v in inverses.iter_mut() {
            v.zeroize();
        }
        // P_k^-1 in the Montgomery domain, walking down.
        let mut inv = amm(&inv_plain, mm.rr());
        inv_plain.zeroize();
        let scale_lanes = mb8_in::<D>([scale; L]);
        let mut out: Vec<Vec<u64>> = vec![Vec::new(); xs.len()];
        for k in (0..rounds).rev() {
            let mut u = if k > 0 {
                let u = amm(&inv, &prefix[k - 1]);
                inv = amm(&inv, &xm[k]);
                u
            } else {
                inv
            };
            let mut y = amm(&u, &scale_lanes);
            for l in 0..L {
                if let Some(slot) = out.get_mut(k * L + l) {
                    *slot = mb8_out(&y, l, m);
                }
            }
            u.zeroize();
            y.zeroize();
        }
        inv.zeroize();
        for v in xm.iter_mut().chain(prefix.iter_mut()) {
            v.zeroize();
        }
        sc.wipe();
        Some(out)
    })
}

/// One eight-lane almost-Montgomery product ([`ifma_mb8::amm`]) per lane on
/// radix-2^52 digit vectors of each modulus's digit count d (the same for
/// all), for differential tests and benchmarks, repeated `iters` times with
/// the output fed back as a. None on wrong lengths or without IFMA.
pub fn amm52_mb8(
    moduli: [&Ifma52Modulus; ifma_mb8::LANES],
    a: [&[u64]; ifma_mb8::LANES],
    b: [&[u64]; ifma_mb8::LANES],
    iters: usize,
) -> Option<Vec<Vec<u64>>> {
    let d = moduli[0].m.d;
    if !ifma_available() || iters == 0 || moduli.iter().any(|m| m.m.d != d) {
        return None;
    }
    if a.iter()
        .chain(&b)
        .any(|x| x.len() != d || x.iter().any(|&v| v > portable52::MASK))
    {
        return None;
    }
    Some(with_nr!(d / 4, NR => {
        const D: usize = 4 * NR;
        let mm = ifma_mb8::Mb8Mod::<D>::new(moduli.map(|m| &m.m));
        let mut x = ifma_mb8::Mb8::<D>::from_lanes(&a);
        let b = ifma_mb8::Mb8::<D>::from_lanes(&b);
        let mut y = ifma_mb8::Mb8::<D>::ZERO;
        for _ in 0..iters {
            // SAFETY: ifma_available() was checked above.
            unsafe { ifma_mb8::amm::<D>(&mut y, &x, &b, &mm) };
            x = y;
        }
        (0..ifma_mb8::LANES).map(|l| x.lane(l)).collect()
    }))
}

/// Eight-lane dedicated squarings ([`ifma_mb8::sqr`] up to
/// [`ifma_mb8::REG_MAX_D`] digits, [`ifma_mb8::sqr_cols`] above) repeated
/// `iters` times (a -> a^2 R^-1), for differential tests and benchmarks.
/// None on wrong lengths or without IFMA.
pub fn sqr52_mb8(
    moduli: [&Ifma52Modulus; ifma_mb8::LANES],
    a: [&[u64]; ifma_mb8::LANES],
    iters: usize,
) -> Option<Vec<Vec<u64>>> {
    let d = moduli[0].m.d;
    if !ifma_available() || iters == 0 || moduli.iter().any(|m| m.m.d != d) {
        return None;
    }
    if a.iter()
        .any(|x| x.len() != d || x.iter().any(|&v| v > portable52::MASK))
    {
        return None;
    }
    Some(with_nr!(d / 4, NR => {
        const D: usize = 4 * NR;
        let mm = ifma_mb8::Mb8Mod::<D>::new(moduli.map(|m| &m.m));
        let mut x = ifma_mb8::Mb8::<D>::from_lanes(&a);
        let mut y = ifma_mb8::Mb8::<D>::ZERO;
        let mut scratch = ifma_mb8::Scratch::new();
        for _ in 0..iters {
            // SAFETY: ifma_available() was checked above.
            unsafe { ifma_mb8::sqr_any::<D>(&mut y, &x, &mm, &mut scratch) };
            x = y;
        }
        (0..ifma_mb8::LANES).map(|l| x.lane(l)).collect()
    }))
}

/// [`crate::exp::window::gather`] compiled with AVX2 (four limbs per load
/// and logic operation, against two with the baseline's SSE2), where the
/// CPU has AVX2 and the kernel request allows more than the portable code.
/// Returns false, having done nothing, elsewhere. The same code as the
/// portable gather, so the same constant-time argument: every entry is read
/// and the digit only makes masks.
pub fn gather_avx2(out: &mut [u64], table: &[u64], digit: u64, s: usize) -> bool {
    let avx2 = avx2_available();
    if avx2 {
        // SAFETY: AVX2 was detected above.
        unsafe { gather_with_avx2(out, table, digit, s) };
    }
    avx2
}

#[target_feature(enable = "avx2")]
fn gather_with_avx2(out: &mut [u64], table: &[u64], digit: u64, s: usize) {
    crate::exp::window::gather(out, table, digit, s);
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

/// Whether the dual IFMA kernel squares with the dedicated squaring at `nr`
/// registers (1..=MAX_NR): as requested, or measured once per process (see
/// [`calibrate_sqr`]).
pub fn dedicated_sqr(nr: usize) -> bool {
    match select::request() {
        Request::Ifma(SqrChoice::Dedicated) => true,
        Request::Ifma(SqrChoice::AsProduct) => false,
        _ => {
            static CHOICE: [OnceLock<bool>; MAX_NR + 1] = [const { OnceLock::new() }; MAX_NR + 1];
            *CHOICE[nr.min(MAX_NR)].get_or_init(|| {
                let (dedicated, product) = calibrate_sqr(nr);
                dedicated <= product
            })
        }
    }
}

/// The calibration behind [`dedicated_sqr`]: (dedicated, product) nanoseconds
/// per dual square at `nr` registers, the best of 5 runs of 64 squarings on
/// a fixed public modulus pair (no key is involved). About 0.2 ms at 10
/// registers.
pub fn calibrate_sqr(nr: usize) -> (f64, f64) {
    if !ifma_available() || nr == 0 || nr > MAX_NR {
        return (0.0, 0.0);
    }
    // Public, fixed inputs: odd moduli of 52 d - 2 bits from a xorshift, a base below them.
    let d = 4 * nr;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let limbs = (52 * d - 2).div_ceil(64);
    let mut modulus = || {
        let mut n: Vec<u64> = (0..limbs).map(|_| next()).collect();
        n[0] |= 1;
        let top = (52 * d - 2) - 64 * (limbs - 1);
        n[limbs - 1] = (n[limbs - 1] & (u64::MAX >> (64 - top))) | (1 << (top - 1));
        Modulus52::new(&n).expect("odd, large")
    };
    let (p, q) = (modulus(), modulus());
    with_nr!(nr, NR => {
        let m = DualMod::<NR>::new(&p, &q);
        let mut a = Lanes::<NR>::interleave(&p.m[..d - 1], &q.m[..d - 1]);
        let mut y = Lanes::<NR>::ZERO;
        let mut time = |dedicated: bool| {
            let t = std::time::Instant::now();
            for _ in 0..32 {
                // SAFETY: ifma_available() was checked above.
                unsafe {
                    ifma::sqr_dual::<NR, false>(&mut y, &a, &m, dedicated);
                    ifma::sqr_dual::<NR, false>(&mut a, &y, &m, dedicated);
                }
            }
            t.elapsed().as_nanos() as f64 / 64.0
        };
        let (mut best_d, mut best_p) = (f64::MAX, f64::MAX);
        for _ in 0..5 {
            best_d = best_d.min(time(true));
            best_p = best_p.min(time(false));
        }
        (best_d, best_p)
    })
}
