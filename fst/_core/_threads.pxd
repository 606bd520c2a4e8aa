# Threads for the parallel searches (`_solver.Search`, `_depth.DepthSearch`).
cdef extern from *:
    """
    /* The threads of a parallel search: n - 1 threads started here and the
       caller, each running fn(arg, t) for its t, then joined.  POSIX threads
       (whose start and join order every write before and after, and which a
       ThreadSanitizer build follows); on Windows an OpenMP team. */
    #ifdef _WIN32
    static int fst_run_threads(int n, void (*fn)(void*, int), void* arg) {
        int t;
        #pragma omp parallel for num_threads(n) schedule(static, 1)
        for (t = 0; t < n; t++) fn(arg, t);
        return 0;
    }
    #else
    #include <pthread.h>
    #include <stdlib.h>
    typedef struct { void (*fn)(void*, int); void* arg; int t; } fst_thread_job;
    static void* fst_thread_start(void* p) {
        fst_thread_job* j = (fst_thread_job*)p;
        j->fn(j->arg, j->t);
        return NULL;
    }
    static int fst_run_threads(int n, void (*fn)(void*, int), void* arg) {
        pthread_t* th = (pthread_t*)malloc(n * sizeof(pthread_t));
        fst_thread_job* jobs = (fst_thread_job*)malloc(n * sizeof(fst_thread_job));
        int t, started = 1, err = 0;
        if (th == NULL || jobs == NULL) { free(th); free(jobs); return -1; }
        for (t = 0; t < n; t++) { jobs[t].fn = fn; jobs[t].arg = arg; jobs[t].t = t; }
        for (t = 1; t < n; t++) {
            if (pthread_create(&th[t], NULL, fst_thread_start, &jobs[t]) != 0) { err = -1; break; }
            started++;
        }
        /* a thread that could not start leaves its share to the caller */
        fn(arg, 0);
        for (t = started; t < n; t++) fn(arg, t);
        for (t = 1; t < started; t++) pthread_join(th[t], NULL);
        free(th);
        free(jobs);
        return err;
    }
    #endif
    """
    int fst_run_threads(int n, void (*fn)(void*, int) noexcept nogil, void* arg) nogil
