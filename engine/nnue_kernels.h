/* The learned evaluation's two hot loops (engine.nnue_kernels, compiled build), with the instruction set chosen
 * when the engine starts.
 *
 * Each loop is written once, as an always-inline body, and compiled twice: for the compiler's default target
 * (SSE2 on x86-64, whatever the target is elsewhere) and, on x86-64 with GCC or Clang, for AVX2 (Haswell, 2013,
 * and later: 16 shorts a lane where SSE2 has 8). The first call picks the AVX2 version where the processor
 * reports AVX2 (__builtin_cpu_supports), so one build, a wheel or a Docker image, runs on any x86-64 machine.
 * Both versions compute the same C expressions, so they give the same sums bit for bit. Indexes are ptrdiff_t:
 * under -fwrapv (Python's own CFLAGS) an int index is not affine after its sign extension and gcc leaves the
 * loops scalar. */
#ifndef SCHESS_NNUE_KERNELS_H
#define SCHESS_NNUE_KERNELS_H

#include <stddef.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SCHESS_KERNELS_AVX2 1
#endif

#define SCHESS_LEVEL_PORTABLE 1
#define SCHESS_LEVEL_AVX2 2

/* Every module that cimports engine.nnue includes this header; static inline functions and unused-marked state
 * that a module leaves unused cost it nothing and raise no warning. */
#if defined(__GNUC__) || defined(__clang__)
#define SCHESS_INLINE static inline __attribute__((always_inline))
#define SCHESS_STATE static __attribute__((unused))
#else
#define SCHESS_INLINE static inline
#define SCHESS_STATE static
#endif

/* values[b:b + h] := values[a:a + h] plus the w1 rows (h shorts each) that added[2k + perspective] names, minus
 * those removed[2k + perspective] names; the first of each fused with the copy. a may equal b. */
SCHESS_INLINE void schess_apply_body(short *values, ptrdiff_t a, ptrdiff_t b, const short *w1, const int *added,
                                     int n_add, const int *removed, int n_sub, int perspective, ptrdiff_t h)
{
    short *dst = values + b;
    const short *src = values + a;
    int j = 0, k = 0;
    ptrdiff_t i;
    if (n_add && n_sub) {
        const short *plus = w1 + (ptrdiff_t)added[perspective] * h;
        const short *minus = w1 + (ptrdiff_t)removed[perspective] * h;
        for (i = 0; i < h; i++)
            dst[i] = (short)(src[i] + plus[i] - minus[i]);
        j = k = 1;
    } else if (n_add) {
        const short *plus = w1 + (ptrdiff_t)added[perspective] * h;
        for (i = 0; i < h; i++)
            dst[i] = (short)(src[i] + plus[i]);
        j = 1;
    } else if (n_sub) {
        const short *minus = w1 + (ptrdiff_t)removed[perspective] * h;
        for (i = 0; i < h; i++)
            dst[i] = (short)(src[i] - minus[i]);
        k = 1;
    } else if (a != b) {
        for (i = 0; i < h; i++)
            dst[i] = src[i];
    }
    for (; j < n_add; j++) {
        const short *row = w1 + (ptrdiff_t)added[2 * j + perspective] * h;
        for (i = 0; i < h; i++)
            dst[i] = (short)(dst[i] + row[i]);
    }
    for (; k < n_sub; k++) {
        const short *row = w1 + (ptrdiff_t)removed[2 * k + perspective] * h;
        for (i = 0; i < h; i++)
            dst[i] = (short)(dst[i] - row[i]);
    }
}

/* The output layer's sum in 16-bit lanes: each of the h sums at us (then them) clipped to 0..qa (qa <= 255),
 * c * c - 32768 (a short) times its weight (w2[i] for us, w2[h + i] for them), added up in an int per half (the
 * caller checked that each half fits one). */
SCHESS_INLINE long long schess_output_body(const short *values, ptrdiff_t us, ptrdiff_t them, const short *w2,
                                           ptrdiff_t h, int qa)
{
    int half_us = 0, half_them = 0;
    ptrdiff_t i;
    short c, d;
    for (i = 0; i < h; i++) {
        c = values[us + i];
        c = c > 0 ? c : 0;
        c = c < qa ? c : (short)qa;
        d = (short)(c * c - 32768);
        half_us += d * w2[i];
    }
    for (i = 0; i < h; i++) {
        c = values[them + i];
        c = c > 0 ? c : 0;
        c = c < qa ? c : (short)qa;
        d = (short)(c * c - 32768);
        half_them += d * w2[h + i];
    }
    return (long long)half_us + half_them;
}

static inline void schess_apply_portable(short *values, ptrdiff_t a, ptrdiff_t b, const short *w1, const int *added,
                                  int n_add, const int *removed, int n_sub, int perspective, ptrdiff_t h)
{
    schess_apply_body(values, a, b, w1, added, n_add, removed, n_sub, perspective, h);
}

static inline long long schess_output_portable(const short *values, ptrdiff_t us, ptrdiff_t them, const short *w2,
                                        ptrdiff_t h, int qa)
{
    return schess_output_body(values, us, them, w2, h, qa);
}

#ifdef SCHESS_KERNELS_AVX2
__attribute__((target("avx2"))) static inline void schess_apply_avx2(short *values, ptrdiff_t a, ptrdiff_t b,
                                                              const short *w1, const int *added, int n_add,
                                                              const int *removed, int n_sub, int perspective,
                                                              ptrdiff_t h)
{
    schess_apply_body(values, a, b, w1, added, n_add, removed, n_sub, perspective, h);
}

__attribute__((target("avx2"))) static inline long long schess_output_avx2(const short *values, ptrdiff_t us,
                                                                    ptrdiff_t them, const short *w2, ptrdiff_t h,
                                                                    int qa)
{
    return schess_output_body(values, us, them, w2, h, qa);
}
#endif

typedef void (*schess_apply_fn)(short *, ptrdiff_t, ptrdiff_t, const short *, const int *, int, const int *, int,
                                int, ptrdiff_t);
typedef long long (*schess_output_fn)(const short *, ptrdiff_t, ptrdiff_t, const short *, ptrdiff_t, int);

SCHESS_STATE int schess_level = 0; /* 0: not chosen yet */
SCHESS_STATE schess_apply_fn schess_apply_impl = schess_apply_portable;
SCHESS_STATE schess_output_fn schess_output_impl = schess_output_portable;

/* The best level this processor runs. */
static inline int schess_kernels_best(void)
{
#ifdef SCHESS_KERNELS_AVX2
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        return SCHESS_LEVEL_AVX2;
#endif
    return SCHESS_LEVEL_PORTABLE;
}

/* Use the loops of level wanted where this build and processor have them, else the nearest ones they have (the
 * portable ones at least); returns the level in use. */
static inline int schess_kernels_select(int wanted)
{
    int best = schess_kernels_best();
    int level = wanted < best ? wanted : best;
    if (level < SCHESS_LEVEL_PORTABLE)
        level = SCHESS_LEVEL_PORTABLE;
    schess_apply_impl = schess_apply_portable;
    schess_output_impl = schess_output_portable;
#ifdef SCHESS_KERNELS_AVX2
    if (level == SCHESS_LEVEL_AVX2) {
        schess_apply_impl = schess_apply_avx2;
        schess_output_impl = schess_output_avx2;
    }
#endif
    schess_level = level;
    return level;
}

static inline int schess_kernels_level(void)
{
    if (!schess_level)
        schess_kernels_select(SCHESS_LEVEL_AVX2);
    return schess_level;
}

static inline void schess_apply_changes(short *values, ptrdiff_t a, ptrdiff_t b, const short *w1, const int *added,
                                 int n_add, const int *removed, int n_sub, int perspective, ptrdiff_t h)
{
    if (!schess_level)
        schess_kernels_select(SCHESS_LEVEL_AVX2);
    schess_apply_impl(values, a, b, w1, added, n_add, removed, n_sub, perspective, h);
}

static inline long long schess_output_sum(const short *values, ptrdiff_t us, ptrdiff_t them, const short *w2,
                                   ptrdiff_t h, int qa)
{
    if (!schess_level)
        schess_kernels_select(SCHESS_LEVEL_AVX2);
    return schess_output_impl(values, us, them, w2, h, qa);
}

#endif
