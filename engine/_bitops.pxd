# The compiled build's engine.bitops: C functions (engine/bitops.h) that a module's .pxd cimports under the name
# its .py imports engine.bitops as, so that both builds call bits.popcount, bits.lsb and bits.msb.
cdef extern from "bitops.h":
    int popcount "schess_popcount" (unsigned long long x) noexcept nogil
    int lsb "schess_lsb" (unsigned long long x) noexcept nogil
    int msb "schess_msb" (unsigned long long x) noexcept nogil
