// Lab attachment (2026-11-29, AMD EPYC Zen 4): OpenSSL's own x86-64 Montgomery
// kernels timed from C through its static library (bn_mul_mont: mulx4x, or
// sqrx8x when a == b; bn_power5: five squarings and a gathered product).
// Not part of the build. Build against the anchor's vendored OpenSSL:
// gcc -O2 THIS_FILE target/anchor-vendored/release/build/redc-openssl-anchor-*/out/openssl-build/install/lib/libcrypto.a -lpthread -ldl
// and run with OPENSSL_ia32cap=":~0x200000" (IFMA hidden) or without.

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef uint64_t BN_ULONG;
int bn_mul_mont(BN_ULONG *rp, const BN_ULONG *ap, const BN_ULONG *bp, const BN_ULONG *np, const BN_ULONG *n0, int num);
void bn_power5(BN_ULONG *rp, const BN_ULONG *ap, const void *table, const BN_ULONG *np, const BN_ULONG *n0, int num, int power);
void bn_scatter5(const BN_ULONG *inp, size_t num, void *table, size_t power);
int bn_mul_mont_gather5(BN_ULONG *rp, const BN_ULONG *ap, const void *table, const BN_ULONG *np, const BN_ULONG *n0, int num, int power);
void OPENSSL_cpuid_setup(void);
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
static uint64_t rnd(){static uint64_t s=88172645463325252ULL; s^=s<<13;s^=s>>7;s^=s<<17;return s;}
int main(){
  OPENSSL_cpuid_setup();
  for(int num=16;num<=32;num+=8){
    BN_ULONG *n=aligned_alloc(64,num*8),*a=aligned_alloc(64,num*8),*b=aligned_alloc(64,num*8),*r=aligned_alloc(64,num*8*2);
    for(int i=0;i<num;i++){n[i]=rnd();a[i]=rnd();b[i]=rnd();}
    n[0]|=1; n[num-1]|=1ULL<<63; a[num-1]>>=2; b[num-1]>>=2;
    BN_ULONG inv=1; for(int i=0;i<6;i++) inv*=2-n[0]*inv; BN_ULONG n0[2]={-inv,0};
    void *tab=aligned_alloc(64,32*num*8);
    for(int p=0;p<32;p++){ for(int i=0;i<num;i++) r[i]=rnd(); r[num-1]>>=2; bn_scatter5(r,num,tab,p);}
    double best[4]={1e18,1e18,1e18,1e18};
    for(int rep=0;rep<15;rep++){
      int N=20000; double t;
      t=now(); for(int i=0;i<N;i++) bn_mul_mont(a,a,b,n,n0,num); t=(now()-t)/N; if(t<best[0])best[0]=t;
      t=now(); for(int i=0;i<N;i++) bn_mul_mont(a,a,a,n,n0,num); t=(now()-t)/N; if(t<best[1])best[1]=t;
      t=now(); for(int i=0;i<N/4;i++) bn_power5(a,a,tab,n,n0,num,i&31); t=(now()-t)/(N/4); if(t<best[2])best[2]=t;
      t=now(); for(int i=0;i<N;i++) bn_mul_mont_gather5(a,a,tab,n,n0,num,i&31); t=(now()-t)/N; if(t<best[3])best[3]=t;
    }
    printf("limbs %d: mul %.1f ns  sqr %.1f ns  power5 %.1f ns (per sqr-equiv %.1f)  mul_gather5 %.1f ns\n",num,best[0],best[1],best[2],best[2]/6,best[3]);
  }
}
