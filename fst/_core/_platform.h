/* Platform helpers of the fst core: a monotonic clock and the resident memory
   of the whole process (what memory_limit is measured on). */
#ifndef FST_PLATFORM_H
#define FST_PLATFORM_H

#include <stdio.h>
#include <time.h>
#if defined(__linux__)
#include <unistd.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#endif
static inline double fst_now(void) {
#if defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}
/* Resident set size of the whole process in bytes, -1 if unknown. */
static inline long long fst_process_rss(void) {
#if defined(__linux__)
    long long total = 0, resident = 0;
    FILE* f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    if (fscanf(f, "%lld %lld", &total, &resident) != 2) { fclose(f); return -1; }
    fclose(f);
    return resident * (long long)sysconf(_SC_PAGESIZE);
#elif defined(__APPLE__)
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return (long long)ru.ru_maxrss;
#else
    return -1;
#endif
}

#endif
