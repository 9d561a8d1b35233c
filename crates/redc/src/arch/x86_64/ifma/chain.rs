//! The dual kernel's quotient chain, as macros expanded into the product's
//! body (`amm`): the broadcast form (`chain!` with `false`), the pipelined
//! form (`chain!` with `true`, see `pipelined`) and the xmm form
//! (`chain_xmm!`), and the read of the window's next position
//! (`window_position!`). Montgomery's quotient digit per step (Koc, Acar
//! and Kaliski, "Analyzing and Comparing Montgomery Multiplication
//! Algorithms", operand scanning), its carry taken without waiting for it.
//!
//! # The quotient chain, in broadcast form
//!
//! y_i needs position i in full, carries included. That value, x0, is kept
//! separately with (p, q) in every lane pair, so y = lo(x0 k0) needs no
//! shuffle (IFMA reads only the low 52 bits of x0: no masking either):
//!
//! ```text
//! y_i      = lo(x0_i k0)
//! c_i      = (x0_i + 2^52 - 1) >> 52      the carry out of position i after + lo(n0 y_i)
//! x0_{i+1} = [bcast(position i+1 of wa + wn) + lo(a0 b_{i+1})] + lo(n1 y_i) + hi(n0 y_i) + c_i
//! ```
//!
//! The state holds X_i = x0_i + 2^52 - 1 rather than x0_i: then c_i = X_i >> 52
//! (one operation on the chain, not two) and y_i = lo(X_i k0) + k0 (as
//! X_i + 1 = x0_i mod 2^52; IFMA reads only y's low 52 bits). The bias comes with every
//! position for free: `wn` starts each position at 2^52 - 1, so the bracket
//! already carries it, and it is subtracted from the result positions once.
//!
//! The bracket does not depend on y_i (it is read before step i's n part),
//! and c_i does not wait for y_i (x0 = H 2^52 + L; L + lo(n0 y) is 0 or 2^52,
//! the latter exactly when L != 0), so the chain per step is IFMA (y), IFMA
//! (lo n1 y, hi n0 y with c as addend), one add: about 10 cycles of latency
//! (docs/PERFORMANCE.md, "IFMA dual kernel: the quotient chain's length",
//! for its measured time per step). The accumulators never get
//! carries: positions below d are dropped, and the carry out of position
//! d - 1 (c_{d-1}) is added to position d at the end.
//!
//! # The quotient chain in xmm (Zen 4)
//!
//! In broadcast form every chain instruction works on all eight lanes for
//! one (p, q) pair. AMD Zen 4 runs a zmm instruction as two 256-bit halves,
//! so there the chain's zmm IFMAs (four a step in a product, five in a
//! square) take the multipliers twice as long as the pair needs, and its
//! zmm add has two cycles of latency. [`amm_dual_xmm`](super::amm::amm_dual_xmm) keeps x0, c, y and
//! the chain's constants as one (p, q) pair in xmm registers: the bracket
//! is one 128-bit extract of the window (in place of the broadcast), and
//! y is broadcast once a step for the N part, off the chain. The terms and
//! results are those of the broadcast form, bit for bit. On Zen 4 the xmm
//! chain measured faster for the plain runs and slower for the pipelined
//! chain (shift and add, one IFMA), so the pipelined form keeps the
//! broadcast chain (docs/PERFORMANCE.md, "IFMA dual kernel: the quotient
//! chain in xmm on Zen 4"). `arch::x86_64::xmm_chain` picks the xmm form on
//! family 25 only: the other CPUs run zmm at full width and were tuned with
//! the broadcast form.

/// Position i + 1 of step i = 4 g + S as the window holds it (wa, doubled
/// for a square, plus wn), broadcast to every lane pair: the chain's bracket
/// before its own terms.
macro_rules! window_position {
    ($S:expr, $st:ident, $sqr:expr) => {{
        const PAIR: i32 = ((($S + 1) % 4) * 0x55) as i32;
        let reg = window_position!(@reg $S, $st, $sqr);
        _mm512_shuffle_i64x2::<PAIR>(reg, reg)
    }};
    // The same position as one (p, q) pair in an xmm register.
    ($S:expr, $st:ident, $sqr:expr, xmm) => {{
        const PAIR: i32 = (($S + 1) % 4) as i32;
        let reg = window_position!(@reg $S, $st, $sqr);
        _mm512_extracti32x4_epi32::<PAIR>(reg)
    }};
    (@reg $S:expr, $st:ident, $sqr:expr) => {{
        const SLOT: usize = ($S + 1) / 4;
        let wa = if $sqr {
            _mm512_add_epi64($st.wa[SLOT], $st.wa[SLOT])
        } else {
            $st.wa[SLOT]
        };
        _mm512_add_epi64(wa, $st.wn[SLOT])
    }};
}

/// The quotient chain of step i = 4 g + S: y_i, and position i + 1 in full
/// (X_{i+1}); the last argument `true` selects the pipelined form (`pipelined`'s
/// module comment, "Quotient pipelining"). Its A part was issued before it (see `amm_dual`). In a product
/// the N part of step i - 1 was issued before it too, so the bracket read
/// here holds that part's terms at position i + 1; in a square that N part
/// comes after this chain (the order `amm_dual` describes), and its two
/// terms at position i + 1 are computed here from y_{i-1}.
macro_rules! chain {
    ($S:literal, $g:expr, $st:ident, $src:expr, $nr:expr, $sqr:expr, true) => {{
        // Pipelined: the modulus is M = S - 1 with S = 0 mod 2^104 (the rows
        // hold S). y_i is position i itself (IFMA reads its low 52 bits); the
        // carry out of position i is exact (U_i - y_i = (U_i >> 52) 2^52); and
        // y_i reaches positions i + 2 and above only, so position i + 1 needs
        // no term of y_i. `x0` holds U_i (no bias).
        const S: usize = $S;
        let g: usize = $g;
        let i = 4 * g + S;
        let zero = _mm512_setzero_si512();
        let x = $st.x0;
        $st.c = _mm512_srli_epi64::<52>(x);
        let rb = window_position!(S, $st, $sqr);
        // A square issues step i - 1's N part after this chain: its one term
        // at position i + 1 is lo(s2 y_{i-1}) (s0 = s1 = 0). A product issued
        // it before, so the window has it; there the next step's a part at
        // position i + 1 goes on top instead.
        let rb = if $sqr {
            _mm512_madd52lo_epu64(rb, $st.n2, $st.y_prev)
        } else if i + 1 < 4 * $nr {
            _mm512_add_epi64(rb, _mm512_madd52lo_epu64(zero, $st.a0, bcast_digit!($src, i + 1)))
        } else {
            rb
        };
        $st.x0 = _mm512_add_epi64(rb, $st.c);
        $st.y_prev = x;
    }};
    ($S:literal, $g:expr, $st:ident, $src:expr, $nr:expr, $sqr:expr, false) => {{
        const S: usize = $S;
        let g: usize = $g;
        let i = 4 * g + S;
        let zero = _mm512_setzero_si512();
        // The quotient chain in broadcast form (every lane pair holds (p, q)):
        // x0 is position i in full (all earlier terms and carries, this step's a part).
        // The state holds X = x0 + 2^52 - 1 (the bias comes with every position:
        // see `wn`'s initial value). X = x0 - 1 mod 2^52, so y = lo(X k0) + k0.
        let x = $st.x0;
        let y = _mm512_madd52lo_epu64($st.k0, x, $st.k0);
        // Carry out of position i once lo(n0 y) is added, without waiting for y:
        // x0 = H 2^52 + L, and L + lo(n0 y) is 0 or 2^52, the latter exactly when
        // L != 0; so the carry is H + [L != 0] = (x0 + 2^52 - 1) >> 52 = X >> 52.
        $st.c = _mm512_srli_epi64::<52>(x);
        // Position i + 1 as accumulated so far: this step's a part, and the n
        // parts of steps up to i - 2 (step i - 1's is issued after this chain).
        let rb = window_position!(S, $st, $sqr);
        // Step i - 1's n part at position i + 1, lo(n2 y_{i-1}) + hi(n1 y_{i-1})
        // (zero for i = 0: y_prev starts at zero), with the next step's a part
        // at position i + 1 (a product only; zero for a square) on top. All of
        // it waits on y_{i-1} only, which is 10 cycles older than y_i.
        let rb = if $sqr {
            _mm512_add_epi64(
                rb,
                _mm512_madd52hi_epu64(
                    _mm512_madd52lo_epu64(zero, $st.n2, $st.y_prev),
                    $st.n1,
                    $st.y_prev,
                ),
            )
        } else if i + 1 < 4 * $nr {
            _mm512_add_epi64(rb, _mm512_madd52lo_epu64(zero, $st.a0, bcast_digit!($src, i + 1)))
        } else {
            rb
        };
        // Position i + 1 in full: + lo(n1 y) + hi(n0 y) + carry. The carry enters as
        // an addend, which the IFMA needs only after y; no add waits on the chain but one.
        $st.x0 = _mm512_add_epi64(
            _mm512_madd52lo_epu64(rb, $st.n1, y),
            _mm512_madd52hi_epu64($st.c, $st.n0, y),
        );
        $st.y_prev = y;
    }};
}

/// The quotient chain of step i = 4 g + S in xmm registers: the same terms
/// as the broadcast form above (`false`), on one (p, q) pair, with y_i
/// broadcast once for the N parts (module comment, "The quotient chain in
/// xmm").
macro_rules! chain_xmm {
    ($S:literal, $g:expr, $st:ident, $src:expr, $nr:expr, $sqr:expr) => {{
        const S: usize = $S;
        let g: usize = $g;
        let i = 4 * g + S;
        let zero = _mm_setzero_si128();
        let x = $st.x0x;
        let y = _mm_madd52lo_epu64($st.k0x, x, $st.k0x);
        $st.cx = _mm_srli_epi64::<52>(x);
        let rb = window_position!(S, $st, $sqr, xmm);
        let rb = if $sqr {
            let yp = $st.yx_prev;
            _mm_add_epi64(
                rb,
                _mm_madd52hi_epu64(_mm_madd52lo_epu64(zero, $st.n2x, yp), $st.n1x, yp),
            )
        } else if i + 1 < 4 * $nr {
            _mm_add_epi64(rb, _mm_madd52lo_epu64(zero, $st.a0x, bpair!($src, i + 1)))
        } else {
            rb
        };
        $st.x0x = _mm_add_epi64(
            _mm_madd52lo_epu64(rb, $st.n1x, y),
            _mm_madd52hi_epu64($st.cx, $st.n0x, y),
        );
        $st.yx_prev = y;
        $st.y_prev = _mm512_broadcast_i32x4(y);
    }};
}
