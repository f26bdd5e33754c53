/* Bit scans of 64-bit square masks for the compiled build (engine.bitops, cimported as engine._bitops): the
 * number of set bits, the lowest and the highest set bit. GCC and Clang compile the scans to one instruction
 * (bsf/bsr on any x86-64); the count is the SWAR sum, which needs no POPCNT, so a build runs on any processor.
 * Other compilers get the same functions in plain C. The scans of an empty mask are undefined: callers test the
 * mask first. */
#ifndef SCHESS_BITOPS_H
#define SCHESS_BITOPS_H

static inline int schess_popcount(unsigned long long x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

#if defined(__GNUC__) || defined(__clang__)
static inline int schess_lsb(unsigned long long x) { return __builtin_ctzll(x); }
static inline int schess_msb(unsigned long long x) { return 63 - __builtin_clzll(x); }
#else
static inline int schess_lsb(unsigned long long x)
{
    return schess_popcount((x & (0ULL - x)) - 1ULL);
}
static inline int schess_msb(unsigned long long x)
{
    x |= x >> 1;
    x |= x >> 2;
    x |= x >> 4;
    x |= x >> 8;
    x |= x >> 16;
    x |= x >> 32;
    return schess_popcount(x) - 1;
}
#endif

#endif
