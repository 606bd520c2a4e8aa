# OpenMP helpers with fallbacks when the core is compiled without OpenMP
# (the same idea as sklearn/utils/_openmp_helpers.pxd).
cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    #define FST_OPENMP 1
    #else
    #define FST_OPENMP 0
    static inline int omp_get_thread_num(void) { return 0; }
    static inline int omp_get_max_threads(void) { return 1; }
    #endif
    """
    bint FST_OPENMP
    int omp_get_thread_num() noexcept nogil
    int omp_get_max_threads() noexcept nogil
