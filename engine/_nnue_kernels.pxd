# The compiled build's engine.nnue_kernels: C functions (engine/nnue_kernels.h) that nnue.pxd cimports under the
# module name nnue.py imports, so that both builds call kern.apply_changes and kern.output_sum.
cdef extern from "nnue_kernels.h":
    void apply_changes "schess_apply_changes" (short *values, Py_ssize_t a, Py_ssize_t b, const short *w1,
                                               const int *added, int n_add, const int *removed, int n_sub,
                                               int perspective, Py_ssize_t h) noexcept nogil
    long long output_sum "schess_output_sum" (const short *values, Py_ssize_t us, Py_ssize_t them,
                                              const short *w2, Py_ssize_t h, int qa) noexcept nogil
    int level "schess_kernels_level" () noexcept nogil
    int select "schess_kernels_select" (int wanted) noexcept nogil
