// Lab attachment (2026-11-29, AMD EPYC Zen 4): a C prototype of a four-lane
// radix-2^28 AVX2 Montgomery product and squaring, digit-major (one operation
// per 64-bit lane), checked against GMP. Not part of the build. Figures and
// method: 2026-11-29-zen4-lazy-products-and-the-16-limb-square.md.
// Build: gcc -O2 -mavx2 -mbmi2 THIS_FILE -lgmp -o mb4 && ./mb4 1024

// 4-lane radix-2^28 almost-Montgomery product on AVX2, digit-major:
// x[j] = digit j of 4 independent operands (one per 64-bit lane).
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define MASK 0xfffffff
typedef __m256i V;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}

// Variant 1: accumulators in memory, one step (row) at a time.
__attribute__((noinline)) void amm_rows(V *out, const V *a, const V *b, const V *m, V k0, int d, V *acc) {
  V mask = _mm256_set1_epi64x(MASK);
  for (int j = 0; j <= 2*d; j++) acc[j] = _mm256_setzero_si256();
  for (int i = 0; i < d; i++) {
    V bi = b[i];
    V *w = acc + i;
    V t0 = _mm256_add_epi64(w[0], _mm256_mul_epu32(a[0], bi));
    V q = _mm256_and_si256(_mm256_mul_epu32(t0, k0), mask);
    t0 = _mm256_add_epi64(t0, _mm256_mul_epu32(m[0], q));
    for (int j = 1; j < d; j++)
      w[j] = _mm256_add_epi64(w[j], _mm256_add_epi64(_mm256_mul_epu32(a[j], bi), _mm256_mul_epu32(m[j], q)));
    w[1] = _mm256_add_epi64(w[1], _mm256_srli_epi64(t0, 28));
  }
  // normalize acc[d..2d] into out (carry propagate)
  V c = _mm256_setzero_si256();
  for (int j = 0; j < d; j++) { V t = _mm256_add_epi64(acc[d+j], c); out[j] = _mm256_and_si256(t, mask); c = _mm256_srli_epi64(t, 28); }
}

// Variant 2: two rows per pass (band of 2): column P gets both rows' products.
__attribute__((noinline)) void amm_band2(V *out, const V *a, const V *b, const V *m, V k0, int d, V *acc) {
  V mask = _mm256_set1_epi64x(MASK);
  for (int j = 0; j <= 2*d+2; j++) acc[j] = _mm256_setzero_si256();
  for (int i = 0; i < d; i += 2) {
    V b0 = b[i], b1 = b[i+1];
    V *w = acc + i;
    V t0 = _mm256_add_epi64(w[0], _mm256_mul_epu32(a[0], b0));
    V q0 = _mm256_and_si256(_mm256_mul_epu32(t0, k0), mask);
    t0 = _mm256_add_epi64(t0, _mm256_mul_epu32(m[0], q0));
    V t1 = _mm256_add_epi64(w[1], _mm256_add_epi64(_mm256_mul_epu32(a[1], b0), _mm256_mul_epu32(m[1], q0)));
    t1 = _mm256_add_epi64(t1, _mm256_srli_epi64(t0, 28));
    t1 = _mm256_add_epi64(t1, _mm256_mul_epu32(a[0], b1));
    V q1 = _mm256_and_si256(_mm256_mul_epu32(t1, k0), mask);
    t1 = _mm256_add_epi64(t1, _mm256_mul_epu32(m[0], q1));
    V c1 = _mm256_srli_epi64(t1, 28);
    for (int j = 2; j < d; j++) {
      V s = _mm256_add_epi64(_mm256_mul_epu32(a[j], b0), _mm256_mul_epu32(m[j], q0));
      V u = _mm256_add_epi64(_mm256_mul_epu32(a[j-1], b1), _mm256_mul_epu32(m[j-1], q1));
      w[j] = _mm256_add_epi64(w[j], _mm256_add_epi64(s, u));
    }
    w[d] = _mm256_add_epi64(w[d], _mm256_add_epi64(_mm256_mul_epu32(a[d-1], b1), _mm256_mul_epu32(m[d-1], q1)));
    w[2] = _mm256_add_epi64(w[2], c1);
  }
  V c = _mm256_setzero_si256();
  for (int j = 0; j < d; j++) { V t = _mm256_add_epi64(acc[d+j], c); out[j] = _mm256_and_si256(t, mask); c = _mm256_srli_epi64(t, 28); }
}

// Dedicated squaring, band of 2 for the reduction; products a_i a_j (i<j) doubled via 2a.
__attribute__((noinline)) void ams_band2(V *out, const V *a, const V *m, V k0, int d, V *acc, V *a2) {
  V mask = _mm256_set1_epi64x(MASK);
  for (int j = 0; j <= 2*d+2; j++) acc[j] = _mm256_setzero_si256();
  for (int j = 0; j < d; j++) a2[j] = _mm256_add_epi64(a[j], a[j]);
  // t = a^2: column i+j gets a_i * 2a_j (j>i) and a_i^2
  for (int i = 0; i < d; i++) {
    V ai = a[i];
    acc[2*i] = _mm256_add_epi64(acc[2*i], _mm256_mul_epu32(ai, ai));
    for (int j = i+1; j < d; j++) acc[i+j] = _mm256_add_epi64(acc[i+j], _mm256_mul_epu32(ai, a2[j]));
  }
  // reduction rows, two at a time
  for (int i = 0; i < d; i += 2) {
    V *w = acc + i;
    V t0 = w[0];
    V q0 = _mm256_and_si256(_mm256_mul_epu32(t0, k0), mask);
    t0 = _mm256_add_epi64(t0, _mm256_mul_epu32(m[0], q0));
    V t1 = _mm256_add_epi64(w[1], _mm256_mul_epu32(m[1], q0));
    t1 = _mm256_add_epi64(t1, _mm256_srli_epi64(t0, 28));
    V q1 = _mm256_and_si256(_mm256_mul_epu32(t1, k0), mask);
    t1 = _mm256_add_epi64(t1, _mm256_mul_epu32(m[0], q1));
    V c1 = _mm256_srli_epi64(t1, 28);
    for (int j = 2; j < d; j++)
      w[j] = _mm256_add_epi64(w[j], _mm256_add_epi64(_mm256_mul_epu32(m[j], q0), _mm256_mul_epu32(m[j-1], q1)));
    w[d] = _mm256_add_epi64(w[d], _mm256_mul_epu32(m[d-1], q1));
    w[2] = _mm256_add_epi64(w[2], c1);
  }
  V c = _mm256_setzero_si256();
  for (int j = 0; j < d; j++) { V t = _mm256_add_epi64(acc[d+j], c); out[j] = _mm256_and_si256(t, mask); c = _mm256_srli_epi64(t, 28); }
}

// Reduction rows i..i+3 on acc (window w = acc + i): q's computed in sequence, then
// the columns from 4 on get all four rows' m-products at once.
static inline void reduce4(V *w, const V *m, V k0, int d, V mask) {
  V t0 = w[0];
  V q0 = _mm256_and_si256(_mm256_mul_epu32(t0, k0), mask);
  t0 = _mm256_add_epi64(t0, _mm256_mul_epu32(m[0], q0));
  V t1 = _mm256_add_epi64(w[1], _mm256_mul_epu32(m[1], q0));
  t1 = _mm256_add_epi64(t1, _mm256_srli_epi64(t0, 28));
  V q1 = _mm256_and_si256(_mm256_mul_epu32(t1, k0), mask);
  t1 = _mm256_add_epi64(t1, _mm256_mul_epu32(m[0], q1));
  V t2 = _mm256_add_epi64(w[2], _mm256_add_epi64(_mm256_mul_epu32(m[2], q0), _mm256_mul_epu32(m[1], q1)));
  t2 = _mm256_add_epi64(t2, _mm256_srli_epi64(t1, 28));
  V q2 = _mm256_and_si256(_mm256_mul_epu32(t2, k0), mask);
  t2 = _mm256_add_epi64(t2, _mm256_mul_epu32(m[0], q2));
  V t3 = _mm256_add_epi64(w[3], _mm256_add_epi64(_mm256_mul_epu32(m[3], q0), _mm256_mul_epu32(m[2], q1)));
  t3 = _mm256_add_epi64(t3, _mm256_add_epi64(_mm256_mul_epu32(m[1], q2), _mm256_srli_epi64(t2, 28)));
  V q3 = _mm256_and_si256(_mm256_mul_epu32(t3, k0), mask);
  t3 = _mm256_add_epi64(t3, _mm256_mul_epu32(m[0], q3));
  V c3 = _mm256_srli_epi64(t3, 28);
  for (int j = 4; j < d; j++) {
    V s = _mm256_add_epi64(_mm256_mul_epu32(m[j], q0), _mm256_mul_epu32(m[j-1], q1));
    V u = _mm256_add_epi64(_mm256_mul_epu32(m[j-2], q2), _mm256_mul_epu32(m[j-3], q3));
    w[j] = _mm256_add_epi64(w[j], _mm256_add_epi64(s, u));
  }
  w[d] = _mm256_add_epi64(w[d], _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(m[d-1], q1), _mm256_mul_epu32(m[d-2], q2)), _mm256_mul_epu32(m[d-3], q3)));
  w[d+1] = _mm256_add_epi64(w[d+1], _mm256_add_epi64(_mm256_mul_epu32(m[d-1], q2), _mm256_mul_epu32(m[d-2], q3)));
  w[d+2] = _mm256_add_epi64(w[d+2], _mm256_mul_epu32(m[d-1], q3));
  w[4] = _mm256_add_epi64(w[4], c3);
}

// Product: t = a b by bands of four rows (acc[P] += sum_r a[P-i-r] b[i+r]), then reduce4 bands.
// a, b, m hold d digits plus 4 zero digits above (reads past d return zero).
__attribute__((noinline)) void amm_sos4(V *out, const V *a, const V *b, const V *m, V k0, int d, V *acc) {
  V mask = _mm256_set1_epi64x(MASK);
  for (int j = 0; j <= 2*d+4; j++) acc[j] = _mm256_setzero_si256();
  for (int i = 0; i < d; i += 4) {
    V b0=b[i], b1=b[i+1], b2=b[i+2], b3=b[i+3];
    V *w = acc + i;
    w[0] = _mm256_add_epi64(w[0], _mm256_mul_epu32(a[0], b0));
    w[1] = _mm256_add_epi64(w[1], _mm256_add_epi64(_mm256_mul_epu32(a[1], b0), _mm256_mul_epu32(a[0], b1)));
    w[2] = _mm256_add_epi64(w[2], _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(a[2], b0), _mm256_mul_epu32(a[1], b1)), _mm256_mul_epu32(a[0], b2)));
    for (int j = 3; j < d + 3; j++) {
      V s = _mm256_add_epi64(_mm256_mul_epu32(a[j], b0), _mm256_mul_epu32(a[j-1], b1));
      V u = _mm256_add_epi64(_mm256_mul_epu32(a[j-2], b2), _mm256_mul_epu32(a[j-3], b3));
      w[j] = _mm256_add_epi64(w[j], _mm256_add_epi64(s, u));
    }
  }
  for (int i = 0; i < d; i += 4) reduce4(acc + i, m, k0, d, mask);
  V c = _mm256_setzero_si256();
  for (int j = 0; j < d; j++) { V t = _mm256_add_epi64(acc[d+j], c); out[j] = _mm256_and_si256(t, mask); c = _mm256_srli_epi64(t, 28); }
}

// Squaring: the triangle by four rows at once against 2a, the diagonal, then reduce4 bands.
__attribute__((noinline)) void ams_sos4(V *out, const V *a, const V *m, V k0, int d, V *acc, V *a2) {
  V mask = _mm256_set1_epi64x(MASK);
  for (int j = 0; j <= 2*d+4; j++) acc[j] = _mm256_setzero_si256();
  for (int j = 0; j < d + 4; j++) a2[j] = _mm256_add_epi64(a[j], a[j]);
  for (int i = 0; i < d; i++) acc[2*i] = _mm256_mul_epu32(a[i], a[i]);
  // rows i..i+3: row r adds a[i+r] * 2a[j] for j > i + r at column i + r + j.
  for (int i = 0; i < d; i += 4) {
    V x0=a[i], x1=a[i+1], x2=a[i+2], x3=a[i+3];
    // columns P = 2i+1 .. : row r contributes a[i+r]*2a[P-i-r] when P-i-r > i+r
    V *w = acc;
    int P0 = 2*i + 1;
    // the first few columns: only some rows
    w[P0]   = _mm256_add_epi64(w[P0],   _mm256_mul_epu32(x0, a2[i+1]));
    w[P0+1] = _mm256_add_epi64(w[P0+1], _mm256_mul_epu32(x0, a2[i+2]));
    w[P0+2] = _mm256_add_epi64(w[P0+2], _mm256_add_epi64(_mm256_mul_epu32(x0, a2[i+3]), _mm256_mul_epu32(x1, a2[i+2])));
    w[P0+3] = _mm256_add_epi64(w[P0+3], _mm256_add_epi64(_mm256_mul_epu32(x0, a2[i+4]), _mm256_mul_epu32(x1, a2[i+3])));
    w[P0+4] = _mm256_add_epi64(w[P0+4], _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(x0, a2[i+5]), _mm256_mul_epu32(x1, a2[i+4])), _mm256_mul_epu32(x2, a2[i+3])));
    w[P0+5] = _mm256_add_epi64(w[P0+5], _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(x0, a2[i+6]), _mm256_mul_epu32(x1, a2[i+5])), _mm256_mul_epu32(x2, a2[i+4])));
    for (int P = P0 + 6; P < i + d + 3; P++) {
      V s = _mm256_add_epi64(_mm256_mul_epu32(x0, a2[P-i]), _mm256_mul_epu32(x1, a2[P-i-1]));
      V u = _mm256_add_epi64(_mm256_mul_epu32(x2, a2[P-i-2]), _mm256_mul_epu32(x3, a2[P-i-3]));
      w[P] = _mm256_add_epi64(w[P], _mm256_add_epi64(s, u));
    }
  }
  for (int i = 0; i < d; i += 4) reduce4(acc + i, m, k0, d, mask);
  V c = _mm256_setzero_si256();
  for (int j = 0; j < d; j++) { V t = _mm256_add_epi64(acc[d+j], c); out[j] = _mm256_and_si256(t, mask); c = _mm256_srli_epi64(t, 28); }
}


#include <gmp.h>
static uint64_t rs=0x9E3779B97F4A7C15ULL; static uint64_t rnd(){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return rs;}
static void to_digits(V *x, mpz_t *v, int d){ // v[4]
  for(int j=0;j<d;j++){ int64_t l[4]; for(int k=0;k<4;k++){ mpz_t t; mpz_init(t); mpz_fdiv_q_2exp(t,v[k],28*j); l[k]=mpz_get_ui(t)&MASK; mpz_clear(t);} x[j]=_mm256_set_epi64x(l[3],l[2],l[1],l[0]); }
}
static void from_digits(mpz_t *v, const V *x, int d){
  for(int k=0;k<4;k++) mpz_set_ui(v[k],0);
  for(int j=d-1;j>=0;j--){ uint64_t l[4]; memcpy(l,&x[j],32); for(int k=0;k<4;k++){ mpz_mul_2exp(v[k],v[k],28); mpz_add_ui(v[k],v[k],l[k]); } }
}
int main(int argc,char**argv){
  int bits = argc>1? atoi(argv[1]):1024;
  int d = (bits+2+27)/28; while(d&3) d++;
  V *a=aligned_alloc(32,32*(d+8)),*b=aligned_alloc(32,32*(d+8)),*m=aligned_alloc(32,32*(d+8)),*o=aligned_alloc(32,32*(d+8)),*acc=aligned_alloc(32,32*(2*d+16)),*a2=aligned_alloc(32,32*(d+8));
  mpz_t M[4],A[4],B[4],O[4],R,t,k0m; mpz_init(R); mpz_init(t); mpz_init(k0m); mpz_setbit(R,28*d);
  int64_t k0l[4];
  for(int k=0;k<4;k++){ mpz_init(M[k]);mpz_init(A[k]);mpz_init(B[k]);mpz_init(O[k]);
    mpz_set_ui(M[k],0); for(int w=0;w<bits/64;w++){ mpz_mul_2exp(M[k],M[k],64); mpz_add_ui(M[k],M[k],rnd()); }
    mpz_setbit(M[k],bits-1); mpz_setbit(M[k],0);
  }
  gmp_randstate_t st; gmp_randinit_default(st);
  for(int k=0;k<4;k++){ mpz_urandomm(A[k],st,M[k]); mpz_urandomm(B[k],st,M[k]);
    mpz_t two28; mpz_init(two28); mpz_set_ui(two28,1); mpz_mul_2exp(two28,two28,28);
    mpz_invert(t,M[k],two28); mpz_sub(t,two28,t); k0l[k]=mpz_get_ui(t); mpz_clear(two28); }
  V k0=_mm256_set_epi64x(k0l[3],k0l[2],k0l[1],k0l[0]);
  to_digits(a,A,d); to_digits(b,B,d); to_digits(m,M,d); for(int j=d;j<d+8;j++) a[j]=b[j]=m[j]=o[j]=_mm256_setzero_si256();
  int ok=1;
  for(int variant=0;variant<5;variant++){
    if(variant==3) amm_sos4(o,a,b,m,k0,d,acc); else if(variant==4) ams_sos4(o,a,m,k0,d,acc,a2); else if(variant==0) amm_rows(o,a,b,m,k0,d,acc); else if(variant==1) amm_band2(o,a,b,m,k0,d,acc); else ams_band2(o,a,m,k0,d,acc,a2);
    from_digits(O,o,d);
    for(int k=0;k<4;k++){ mpz_t e,ri; mpz_init(e); mpz_init(ri); mpz_invert(ri,R,M[k]);
      mpz_mul(e,A[k],(variant==2||variant==4)?A[k]:B[k]); mpz_mul(e,e,ri); mpz_mod(e,e,M[k]);
      mpz_mod(t,O[k],M[k]); if(mpz_cmp(t,e)){ ok=0; printf("variant %d lane %d WRONG\n",variant,k);} 
      mpz_mul_2exp(ri,M[k],1); if(mpz_cmp(O[k],ri)>=0){ok=0;printf("variant %d lane %d >= 2m\n",variant,k);} }
  }
  printf("bits %d d %d correct %d\n",bits,d,ok);
  // timing: chains
  for(int variant=0;variant<5;variant++){
    double best=1e18;
    for(int rep=0;rep<15;rep++){ int N=2000; double t0=now();
      for(int i=0;i<N;i++){ if(variant==3) amm_sos4(o,o,b,m,k0,d,acc); else if(variant==4) ams_sos4(o,o,m,k0,d,acc,a2); else if(variant==0) amm_rows(o,o,b,m,k0,d,acc); else if(variant==1) amm_band2(o,o,b,m,k0,d,acc); else ams_band2(o,o,m,k0,d,acc,a2);} 
      double t1=(now()-t0)/N; if(t1<best)best=t1; }
    printf("  %s: %.1f ns per 4 products, %.1f ns per product\n", variant==0?"amm rows ":variant==1?"amm band2":variant==2?"ams band2":variant==3?"amm sos4 ":"ams sos4 ", best, best/4);
  }
}
