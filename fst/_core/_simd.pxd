# The vector loops (simd/simd.h): every entry point takes `vec`, the loops a fit
# may use (`fst_simd_resolve`, kept in Ctx.vec), and gives the same result as its
# scalar reference loop.
from ._typedefs cimport word_t, int32_t, int64_t, uint64_t

cdef extern from "simd/simd.h":
    int FST_VEC_AVX512
    int FST_VEC_AVX2
    int FST_VEC_BMI2
    int fst_simd_resolve(int requested) noexcept nogil
    int fst_simd_mode(int vec) noexcept nogil
    # counts
    void fst_pair_row2(int vec, const word_t* a, const word_t* XS, int m, const word_t* XC,
                       int nw, int r, int32_t* out, const int32_t* colrow,
                       int nb0) noexcept nogil
    void fst_pair_row_k(int vec, const word_t* a, const word_t* XS, int m, const word_t* XC,
                        int nw, int K, int r, int32_t* out) noexcept nogil
    int fst_pair_transposed_ok(int vec, int K) noexcept nogil
    void fst_pair_row_t(const word_t* a, const word_t* XT, int m, int mp, const word_t* XC,
                        int nw, int K, int r, int32_t* out) noexcept nogil
    void fst_pair_rows2_t(const word_t* a, const word_t* c, const word_t* XT, int m,
                          int mp, const word_t* XC, int nw, int r, int32_t* out) noexcept nogil
    # values
    void fst_pair_values2(int vec, const int32_t* A, int m, const double* cl, int right,
                          double cc0, double cc1, const double* cost, const double* potc,
                          double t1, double t2, double* best2, double* peel,
                          int* arg) noexcept nogil
    void fst_pair_values_k(int vec, const int32_t* A, int m, int K, const double* cl,
                           int right, const double* cc, const double* cost,
                           const int32_t* cols, int ncols, const double* potc, double t1,
                           double t2, double* best2, double* peel, int* arg) noexcept nogil
    void fst_pair_values_u(int vec, const int32_t* A, int m, int K, const int32_t* cli,
                           int right, const int32_t* ci, int32_t ct, int32_t T1,
                           int32_t T2, int32_t* ib, int32_t* ip, int* ia,
                           int32_t* cache) noexcept nogil
    int32_t fst_peel3_u(int vec, const int32_t* A, int m, int K, const int32_t* cli,
                        int right, const int32_t* ci, int32_t ct, int32_t T1, int32_t T2,
                        int32_t ib, int32_t ip, const int32_t* cache) noexcept nogil
    # scans
    void fst_scan2(int vec, const word_t* X, const word_t* S, const word_t* cb0,
                   const word_t* eqm, const uint64_t* hkey, int nw, int64_t* out,
                   uint64_t* hash, int nb0) noexcept nogil
    void fst_and_counts2(int vec, const word_t* X, const word_t* S, const word_t* cb0,
                         int nw, word_t* out, int64_t* sums) noexcept nogil
    int64_t fst_and_count(int vec, const word_t* X, const word_t* S, int nw) noexcept nogil
    # compaction
    int fst_compact_ok(int vec) noexcept nogil
    int fst_compact_plan(const word_t* X, int nw, int32_t* nzw, int32_t* nzk) noexcept nogil
    void fst_compact_at(const word_t* src, const word_t* X, const int32_t* nzw,
                        const int32_t* nzk, int nnz, word_t* out, int nwc) noexcept nogil
    # rows
    int fst_side_rows(int vec, const int32_t* rk, const int32_t* yk, const int32_t* pos,
                      int m, int32_t t, int side, int32_t* ork, int32_t* oyk) noexcept nogil
    int fst_sides_rows(int vec, const int32_t* rk, const int32_t* yk, const int32_t* pos,
                       int m, int32_t t, int32_t* r0, int32_t* y0, int32_t* r1,
                       int32_t* y1) noexcept nogil
