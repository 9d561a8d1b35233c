//! Each register width's instances of the lane kernels: the generic
//! product, square and table read (`kernels`, `pow`) inlined into functions
//! compiled with the width's CPU feature (`avx2` for 256 bits, `avx512f`
//! for 512), and [`Vector`]'s entries to them.

use core::arch::x86_64::*;

use super::kernels;
use super::pow;
use super::widths::Vector;
use super::{Mb, MbMod, Oct, Quad, Scratch};

impl Vector for __m256i {
    const LANES: usize = 4;
    type Row = Quad;

    unsafe fn amm(out: &mut Mb<Self>, a: &Mb<Self>, b: &Mb<Self>, m: &MbMod<Self>, sc: &mut Scratch<Self>) {
        // SAFETY: the caller's contract: the CPU has AVX2.
        unsafe { amm_avx2(out, a, b, m, sc) }
    }

    unsafe fn sqr(out: &mut Mb<Self>, a: &Mb<Self>, m: &MbMod<Self>, sc: &mut Scratch<Self>) {
        // SAFETY: the caller's contract: the CPU has AVX2.
        unsafe { sqr_avx2(out, a, m, sc) }
    }

    unsafe fn gather(out: &mut Mb<Self>, table: &[Mb<Self>], idx: &[u64]) {
        // SAFETY: the caller's contract: the CPU has AVX2.
        unsafe { gather_avx2(out, table, idx) }
    }
}

impl Vector for __m512i {
    const LANES: usize = 8;
    type Row = Oct;

    unsafe fn amm(out: &mut Mb<Self>, a: &Mb<Self>, b: &Mb<Self>, m: &MbMod<Self>, sc: &mut Scratch<Self>) {
        // SAFETY: the caller's contract: the CPU has AVX-512F.
        unsafe { amm_avx512(out, a, b, m, sc) }
    }

    unsafe fn sqr(out: &mut Mb<Self>, a: &Mb<Self>, m: &MbMod<Self>, sc: &mut Scratch<Self>) {
        // SAFETY: the caller's contract: the CPU has AVX-512F.
        unsafe { sqr_avx512(out, a, m, sc) }
    }

    unsafe fn gather(out: &mut Mb<Self>, table: &[Mb<Self>], idx: &[u64]) {
        // SAFETY: the caller's contract: the CPU has AVX-512F.
        unsafe { gather_avx512(out, table, idx) }
    }
}

#[target_feature(enable = "avx2")]
fn amm_avx2(
    out: &mut Mb<__m256i>,
    a: &Mb<__m256i>,
    b: &Mb<__m256i>,
    m: &MbMod<__m256i>,
    sc: &mut Scratch<__m256i>,
) {
    kernels::amm(out, a, b, m, sc)
}

#[target_feature(enable = "avx2")]
fn sqr_avx2(out: &mut Mb<__m256i>, a: &Mb<__m256i>, m: &MbMod<__m256i>, sc: &mut Scratch<__m256i>) {
    kernels::sqr(out, a, m, sc)
}

#[target_feature(enable = "avx2")]
fn gather_avx2(out: &mut Mb<__m256i>, table: &[Mb<__m256i>], idx: &[u64]) {
    pow::gather(out, table, idx)
}

#[target_feature(enable = "avx512f")]
fn amm_avx512(
    out: &mut Mb<__m512i>,
    a: &Mb<__m512i>,
    b: &Mb<__m512i>,
    m: &MbMod<__m512i>,
    sc: &mut Scratch<__m512i>,
) {
    kernels::amm(out, a, b, m, sc)
}

#[target_feature(enable = "avx512f")]
fn sqr_avx512(out: &mut Mb<__m512i>, a: &Mb<__m512i>, m: &MbMod<__m512i>, sc: &mut Scratch<__m512i>) {
    kernels::sqr(out, a, m, sc)
}

#[target_feature(enable = "avx512f")]
fn gather_avx512(out: &mut Mb<__m512i>, table: &[Mb<__m512i>], idx: &[u64]) {
    pow::gather(out, table, idx)
}
