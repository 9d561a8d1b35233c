/* The ceilings of this CPU that the IFMA kernels are designed against:
 * core clock, VPMADD52LUQ throughput and latency (zmm, ymm), the latency of
 * the vector operations on a quotient chain, the cost of zmm adds beside
 * IFMA, and MULX throughput. Run it with `bash scripts/cpu_ceilings.sh`;
 * docs/lab/ holds the figures per CPU and the floors derived from
 * them.
 *
 * Method: every figure is the best of 5 timed runs of an unrolled loop of
 * one instruction kind (a benchmark tool, not library code). The core clock
 * comes from a chain of dependent 64-bit adds, one cycle each on every
 * x86-64 core, so "cycles" below are core cycles, not TSC ticks.
 * Throughput with k accumulators: k independent dependency chains, each
 * one instruction per iteration; latency: one chain.
 *
 * Two loops time the kernels' critical paths as a whole: one step of the
 * dual kernel's quotient chain (three IFMAs and two adds, `ifma.rs`
 * "The quotient chain"), and a zmm row stored and loaded back (a product's
 * output becomes the next product's input through memory).
 *
 * The last group times the pieces of the kernels' carry normalisation, the
 * step that sits between one product and the next: 64-bit mask-register
 * arithmetic (KADDQ, KSHIFTLQ: the carries of all lanes could be resolved
 * there) against a mask's round trip through a general register (what the
 * kernels do), and a compare into a mask feeding a masked add.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define ITERS 10000000L
#define REPS 5

static double ghz;

/* Best seconds over REPS runs of the statement given (ITERS iterations). */
#define BEST(...)                                                             \
    ({                                                                        \
        double best_ = 1e9;                                                   \
        for (int r_ = 0; r_ < REPS; r_++) {                                   \
            double t_ = now();                                                \
            __VA_ARGS__;                                                      \
            t_ = now() - t_;                                                  \
            if (t_ < best_) best_ = t_;                                       \
        }                                                                     \
        best_;                                                                \
    })

#define VREGS                                                                 \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",  \
        "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",        \
        "xmm16", "xmm17", "xmm18", "xmm21", "xmm22", "xmm23", "xmm24",        \
        "xmm25", "xmm26", "xmm27", "xmm28"

/* `per` instructions per iteration of `ins`, after `pre` (run once, before
 * the loop; zmm17 and zmm18 are zeroed first); the clobbers follow. `ins`
 * may address a 64-byte aligned scratch buffer as (%1). Prints
 * instructions per cycle and cycles per instruction. */
static uint64_t scratch[16] __attribute__((aligned(64)));

#define LOOP(name, per, pre, ins, ...)                                        \
    do {                                                                      \
        double s_ = BEST({                                                    \
            long n_ = ITERS;                                                  \
            __asm__ volatile("vpxorq %%zmm17, %%zmm17, %%zmm17\n"             \
                             "vpxorq %%zmm18, %%zmm18, %%zmm18\n" pre         \
                             "1:\n" ins "dec %0\n jnz 1b\n"                   \
                             : "+r"(n_)                                     \
                             : "r"(scratch)                                 \
                             : "memory", __VA_ARGS__);                      \
        });                                                                   \
        double cyc_ = s_ * ghz * 1e9 / ((double)(per) * ITERS);               \
        printf("%-44s %6.2f per cycle  %6.2f cycles each\n", name, 1 / cyc_, \
               cyc_);                                                         \
    } while (0)

/* Vector instructions. */
#define VLOOP(name, per, ins) LOOP(name, per, "", ins, VREGS)

/* Mask-register sequences: k1 and k2 start at all ones; k1..k6 and rax
 * are clobbered. */
#define KLOOP(name, per, ins)                                                 \
    LOOP(name, per, "kxnorq %%k1, %%k1, %%k1\n kxnorq %%k2, %%k2, %%k2\n",   \
         ins, VREGS, "rax", "k1", "k2", "k3", "k4", "k5", "k6")

#define Z(i) "vpmadd52luq %%zmm17, %%zmm18, %%zmm" #i "\n"
#define Y(i) "vpmadd52luq %%ymm17, %%ymm18, %%ymm" #i "\n"
#define ADD(i) "vpaddq %%zmm17, %%zmm" #i ", %%zmm" #i "\n"
#define Z4(a, b, c, d) Z(a) Z(b) Z(c) Z(d)
#define MU(w, i) "vpmuludq %%" #w "mm17, %%" #w "mm18, %%" #w "mm" #i "\n"
#define M4(w, a, b, c, d) MU(w, a) MU(w, b) MU(w, c) MU(w, d)
/* The same with the multiplier from a register. */
#define MR(w, i)                                                              \
    "vpmuludq %%" #w "mm18, %%" #w "mm17, %%" #w "mm2" #i "\n"                \
    "vpaddq %%" #w "mm2" #i ", %%" #w "mm" #i ", %%" #w "mm" #i "\n"
#define LD(w, i) "vmovdqa64 (%1), %%" #w "mm2" #i "\n"
/* t = x * [mem] into register 20 + i, then acc_i += t. */
#define MA(w, i)                                                              \
    "vpmuludq (%1), %%" #w "mm17, %%" #w "mm2" #i "\n"                        \
    "vpaddq %%" #w "mm2" #i ", %%" #w "mm" #i ", %%" #w "mm" #i "\n"
#define Y4(a, b, c, d) Y(a) Y(b) Y(c) Y(d)

int main(void) {
    /* The addend is a register, not an immediate: Intel's newer cores fold
     * a chain of immediate adds at rename (family 6 model 207 ran 16 of them
     * per iteration at an apparent 15.8 GHz, its core clock being about
     * 3 GHz), while a register-register add takes its cycle everywhere. */
    double s = BEST({
        long n = ITERS * 10, x = 0, one = 1;
        __asm__ volatile("1:\n .rept 16\n add %2, %0\n .endr\n dec %1\n jnz 1b\n"
                         : "+r"(x), "+r"(n)
                         : "r"(one));
    });
    ghz = 16.0 * ITERS * 10 / s / 1e9;
    printf("core clock (16 dependent register adds per iteration): %.2f GHz\n", ghz);
    /* A second clock, from dependent 64-bit multiplies (3 cycles on every
     * x86-64 core this project meets): the two should agree. */
    double m = BEST({
        long n = ITERS * 2, x = 3;
        __asm__ volatile("1:\n .rept 16\n imul %0, %0\n .endr\n dec %1\n jnz 1b\n"
                         : "+r"(x), "+r"(n));
    });
    printf("core clock (16 dependent IMULs per iteration, 3 cycles each): %.2f GHz\n\n",
           3.0 * 16.0 * ITERS * 2 / m / 1e9);

    VLOOP("zmm IFMA latency (1 chain)", 1, Z(1));
    VLOOP("zmm IFMA, 4 accumulators", 4, Z4(1, 2, 3, 4));
    VLOOP("zmm IFMA, 8 accumulators", 8, Z4(1, 2, 3, 4) Z4(5, 6, 7, 8));
    VLOOP("zmm IFMA, 12 accumulators", 12,
          Z4(1, 2, 3, 4) Z4(5, 6, 7, 8) Z4(9, 10, 11, 12));
    VLOOP("zmm IFMA, 16 accumulators", 16,
          Z4(1, 2, 3, 4) Z4(5, 6, 7, 8) Z4(9, 10, 11, 12) Z4(13, 14, 15, 16));
    VLOOP("ymm IFMA, 8 accumulators", 8, Y4(1, 2, 3, 4) Y4(5, 6, 7, 8));
    VLOOP("ymm IFMA, 16 accumulators", 16,
          Y4(1, 2, 3, 4) Y4(5, 6, 7, 8) Y4(9, 10, 11, 12) Y4(13, 14, 15, 16));
    /* IFMA beside adds: the figure is all instructions per cycle; with the
     * adds free it would be 3.0 (8 + 4) and 4.0 (8 + 8) at 2 IFMAs a cycle. */
    VLOOP("8 zmm IFMA + 4 zmm VPADDQ (all instructions)", 12,
          Z4(1, 2, 3, 4) Z4(5, 6, 7, 8) ADD(9) ADD(10) ADD(11) ADD(12));
    VLOOP("8 zmm IFMA + 8 zmm VPADDQ (all instructions)", 16,
          Z4(1, 2, 3, 4) Z4(5, 6, 7, 8) ADD(9) ADD(10) ADD(11) ADD(12)
              ADD(13) ADD(14) ADD(15) ADD(16));
    /* VPMULUDQ (eight or four 32 x 32 -> 64 lane products), the multiplier
     * of the families without IFMA: alone, and as the kernels use it (a
     * memory operand, then an add into an accumulator). Lane products per
     * cycle are 8 (zmm) or 4 (ymm) times the figure. */
    VLOOP("zmm VPMULUDQ, 8 accumulators", 8, M4(z, 1, 2, 3, 4) M4(z, 5, 6, 7, 8));
    VLOOP("ymm VPMULUDQ, 8 accumulators", 8, M4(y, 1, 2, 3, 4) M4(y, 5, 6, 7, 8));
    VLOOP("zmm VPMULUDQ [mem] + VPADDQ (per pair)", 8,
          MA(z, 1) MA(z, 2) MA(z, 3) MA(z, 4) MA(z, 5) MA(z, 6) MA(z, 7) MA(z, 8));
    VLOOP("ymm VPMULUDQ [mem] + VPADDQ (per pair)", 8,
          MA(y, 1) MA(y, 2) MA(y, 3) MA(y, 4) MA(y, 5) MA(y, 6) MA(y, 7) MA(y, 8));
    VLOOP("zmm VPMULUDQ reg + VPADDQ (per pair)", 8,
          MR(z, 1) MR(z, 2) MR(z, 3) MR(z, 4) MR(z, 5) MR(z, 6) MR(z, 7) MR(z, 8));
    VLOOP("ymm VPMULUDQ reg + VPADDQ (per pair)", 8,
          MR(y, 1) MR(y, 2) MR(y, 3) MR(y, 4) MR(y, 5) MR(y, 6) MR(y, 7) MR(y, 8));
    VLOOP("zmm load (per load), 8 independent", 8,
          LD(z, 1) LD(z, 2) LD(z, 3) LD(z, 4) LD(z, 5) LD(z, 6) LD(z, 7) LD(z, 8));
    /* Latencies of the quotient chain's vector operations (one chain). */
    VLOOP("zmm VPADDQ latency", 1, ADD(1));
    VLOOP("zmm VPSRLQ latency", 1, "vpsrlq $1, %%zmm1, %%zmm1\n");
    VLOOP("zmm VSHUFI64X2 latency", 1, "vshufi64x2 $0x55, %%zmm1, %%zmm1, %%zmm1\n");
    VLOOP("zmm VALIGNQ latency", 1, "valignq $2, %%zmm1, %%zmm1, %%zmm1\n");
    VLOOP("zmm IFMA + VPADDQ chain (per pair)", 1, Z(1) ADD(1));
    VLOOP("zmm IFMA + VSHUFI64X2 chain (per pair)", 1,
          Z(1) "vshufi64x2 $0x55, %%zmm1, %%zmm1, %%zmm1\n");

    /* One step of the dual kernel's quotient chain, product form: y = k0 +
     * lo(X k0), then X' = (rb + lo(n1 y)) + (c + hi(n0 y)) with c = X >> 52
     * (k0 in zmm4, rb in zmm6, n1 in zmm8, n0 in zmm10; the copies are what
     * the compiler emits, since IFMA overwrites its addend). */
    VLOOP("quotient chain step (3 IFMA + shift + add)", 1,
          "vmovdqa64 %%zmm4, %%zmm5\n vpmadd52luq %%zmm4, %%zmm1, %%zmm5\n"
          "vmovdqa64 %%zmm6, %%zmm7\n vpmadd52luq %%zmm8, %%zmm5, %%zmm7\n"
          "vpsrlq $52, %%zmm1, %%zmm9\n vpmadd52huq %%zmm10, %%zmm5, %%zmm9\n"
          "vpaddq %%zmm7, %%zmm9, %%zmm1\n");
    /* A row through memory: store, load back, add (one chain). */
    VLOOP("zmm store -> load -> VPADDQ chain (per trip)", 1,
          "vmovdqa64 %%zmm1, (%1)\n vmovdqa64 (%1), %%zmm1\n"
          "vpaddq %%zmm17, %%zmm1, %%zmm1\n");
    VLOOP("ymm store -> load -> VPADDQ chain (per trip)", 1,
          "vmovdqa64 %%ymm1, (%1)\n vmovdqa64 (%1), %%ymm1\n"
          "vpaddq %%ymm17, %%ymm1, %%ymm1\n");

    /* Mask registers: latency (one chain) and throughput (4 chains). */
    KLOOP("KADDQ latency", 1, "kaddq %%k2, %%k1, %%k1\n");
    KLOOP("KSHIFTLQ latency", 1, "kshiftlq $1, %%k1, %%k1\n");
    KLOOP("KORQ latency", 1, "korq %%k2, %%k1, %%k1\n");
    KLOOP("KADDQ, 4 chains", 4,
          "kaddq %%k2, %%k3, %%k3\n kaddq %%k2, %%k4, %%k4\n"
          "kaddq %%k2, %%k5, %%k5\n kaddq %%k2, %%k6, %%k6\n");
    KLOOP("KMOVQ k->r->k round trip (per pair)", 1,
          "kmovq %%k1, %%rax\n kmovq %%rax, %%k1\n");
    KLOOP("VPCMPUQ->k + masked VPADDQ chain (per pair)", 1,
          "vpcmpuq $6, %%zmm17, %%zmm1, %%k1\n"
          "vpaddq %%zmm17, %%zmm1, %%zmm1%{%%k1%}\n");
    KLOOP("the same with a k->r->k round trip between", 1,
          "vpcmpuq $6, %%zmm17, %%zmm1, %%k1\n kmovq %%k1, %%rax\n"
          "kmovq %%rax, %%k1\n vpaddq %%zmm17, %%zmm1, %%zmm1%{%%k1%}\n");
    KLOOP("the same with a KADDQ between", 1,
          "vpcmpuq $6, %%zmm17, %%zmm1, %%k1\n kaddq %%k1, %%k1, %%k1\n"
          "vpaddq %%zmm17, %%zmm1, %%zmm1%{%%k1%}\n");

    s = BEST({
        long n = ITERS;
        __asm__ volatile("1:\n .rept 8\n mulx %%rbx, %%r8, %%r9\n mulx %%rbx, %%r10, %%r11\n .endr\n"
                         " dec %0\n jnz 1b\n"
                         : "+r"(n)
                         : "d"(3L), "b"(5L)
                         : "r8", "r9", "r10", "r11");
    });
    printf("%-44s %6.2f per cycle\n", "MULX 64x64->128 (independent)",
           16.0 * ITERS / (s * ghz * 1e9));
    return 0;
}
