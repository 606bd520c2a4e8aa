/* The pair stage's values: from one row of pair counts (split i against every
 * split j) and one child of split i, the best two-leaf loss over the splits j
 * that separate the child (and the first j achieving it) and the cheapest cell
 * any j peels off that can be the leaf of a three-leaf tree; under a unit cost,
 * in whole rows, with the three-leaf bound of that peel (`_bounds.three_leaf_peel`).
 *
 * The scalar loops are the reference; each vector loop does the same operations
 * in the same order (products, then sums, the smaller by the same comparison;
 * the build passes -ffp-contract=off so that no product is fused into a sum), so
 * every loop gives the same doubles, the same first split and the same peel.
 * Dispatch: simd.h. */
#ifndef FST_SIMD_VALUES_H
#define FST_SIMD_VALUES_H

#include "common.h"

#include <math.h>

/* The least total cost of one label for rows of class counts c (K classes),
 * over the labels cols (the first of each set of identical columns of the cost
 * matrix), as `_bounds.leaf_loss` computes it: sums from 0 in class order, the
 * first label on ties. */
static inline double fst_leaf_loss_k(const double* c, int K, const double* cost,
                                     const int32_t* cols, int ncols)
{
    double best = 0.0;
    for (int t = 0; t < ncols; t++) {
        int k = cols[t];
        double s = 0.0;
        for (int y = 0; y < K; y++)
            s += c[y] * cost[y * K + k];
        if (t == 0 || s < best)
            best = s;
    }
    return best;
}

/* sum over classes of c[y] * per_row[y] (`_bounds.class_sum`) */
static inline double fst_class_sum(const double* c, int K, const double* per_row)
{
    double s = 0.0;
    for (int y = 0; y < K; y++)
        s += c[y] * per_row[y];
    return s;
}

/* Split j cuts the child into cells of leaf losses l1, l2: keep the best two-leaf
 * loss (first j on ties) and the cheapest cell that may peel off as the leaf of a
 * three-leaf tree (peel1, peel2: its potential reaches one leaf's worth and the
 * other cell's two). */
static inline void fst_take_pair(double l1, double l2, int peel1, int peel2, int j,
                                 double* best2, double* peel, int* arg)
{
    if (l1 + l2 < *best2) {
        *best2 = l1 + l2;
        *arg = j;
    }
    if (peel1 && l1 < *peel)
        *peel = l1;
    if (peel2 && l2 < *peel)
        *peel = l2;
}

/* Two classes, in doubles, the reference loop.  A: per split j the child's cell
 * X & s_i & s_j as (class-0 rows, rows); cl: the counts of X & s_j as doubles
 * (class 0, class 1); right: the child is X & ~s_i (its cell is cl - A); cc0,
 * cc1: the child's class counts; t1, t2: the potentials a cell needs to hold one
 * leaf, and two (`_bounds.capacity_unit`).  best2 = INFINITY and arg = -1 when no split
 * separates the child; peel = INFINITY when no cell peels off. */
static void fst_pair_values2_scalar(const int32_t* A, int m, const double* cl, int right,
                                    double cc0, double cc1, const double* cost,
                                    const double* potc, double t1, double t2,
                                    double* best2, double* peel, int* arg)
{
    double k00 = cost[0], k01 = cost[1], k10 = cost[2], k11 = cost[3];
    *arg = -1;
    *best2 = INFINITY;
    *peel = INFINITY;
    for (int j = 0; j < m; j++) {
        double x0 = A[2 * j];
        double x1 = A[2 * j + 1] - x0;
        if (right) {
            x0 = cl[2 * j] - x0;
            x1 = cl[2 * j + 1] - x1;
        }
        double y0 = cc0 - x0, y1 = cc1 - x1;
        if (x0 + x1 == 0.0 || y0 + y1 == 0.0)
            continue;                   /* s_j does not separate this child */
        double s0 = x0 * k00 + x1 * k10;
        double s1 = x0 * k01 + x1 * k11;
        double l1 = s1 < s0 ? s1 : s0;
        s0 = y0 * k00 + y1 * k10;
        s1 = y0 * k01 + y1 * k11;
        double l2 = s1 < s0 ? s1 : s0;
        double q1 = x0 * potc[0] + x1 * potc[1];
        double q2 = y0 * potc[0] + y1 * potc[1];
        fst_take_pair(l1, l2, q1 >= t1 && q2 >= t2, q2 >= t1 && q1 >= t2, j, best2, peel,
                      arg);
    }
}

/* The class counts c1, c2 of the two cells split j cuts a child of class counts
 * cc into, from its row of pair counts A (classes 0..K-2, then the rows; cl the
 * counts of X & s_j).  0 when s_j does not separate the child. */
static inline int fst_cells_k(const int32_t* A, const double* cl, int right,
                              const double* cc, int K, int j, double* c1, double* c2)
{
    const int32_t* a = A + (int64_t)j * K;
    double n1 = 0.0, n2 = 0.0;
    for (int k = 0; k < K - 1; k++) {
        c1[k] = a[k];
        n1 += a[k];
    }
    c1[K - 1] = a[K - 1] - n1;          /* the total minus the other classes */
    if (right)                          /* R_i & s_j = (X & s_j) - (X & s_i & s_j) */
        for (int k = 0; k < K; k++)
            c1[k] = cl[(int64_t)j * K + k] - c1[k];
    n1 = 0.0;
    for (int k = 0; k < K; k++) {
        c2[k] = cc[k] - c1[k];
        n1 += c1[k];
        n2 += c2[k];
    }
    return n1 != 0.0 && n2 != 0.0;
}

/* 3 to 64 classes, in doubles, the reference loop (fst_pair_values2_scalar's
 * results for K classes; cols, ncols: the labels a leaf tries). */
static void fst_pair_values_k_scalar(const int32_t* A, int m, int K, const double* cl,
                                     int right, const double* cc, const double* cost,
                                     const int32_t* cols, int ncols, const double* potc,
                                     double t1, double t2, double* best2, double* peel,
                                     int* arg)
{
    double c1[64], c2[64];
    *arg = -1;
    *best2 = INFINITY;
    *peel = INFINITY;
    for (int j = 0; j < m; j++) {
        if (!fst_cells_k(A, cl, right, cc, K, j, c1, c2))
            continue;                   /* s_j does not separate this child */
        double l1 = fst_leaf_loss_k(c1, K, cost, cols, ncols);
        double l2 = fst_leaf_loss_k(c2, K, cost, cols, ncols);
        double q1 = fst_class_sum(c1, K, potc);
        double q2 = fst_class_sum(c2, K, potc);
        fst_take_pair(l1, l2, q1 >= t1 && q2 >= t2, q2 >= t1 && q1 >= t2, j, best2, peel,
                      arg);
    }
}

/* Under a unit cost, the two cells split j cuts a child of class counts ci (ct
 * rows) into, from its row of pair counts A (cli: the counts of X & s_j, classes
 * 0..K-2 then the rows): their rows xt, yt and their losses in rows l1, l2 (rows
 * less the largest class).  0 when s_j does not separate the child. */
static inline int fst_unit_cells(const int32_t* A, const int32_t* cli, int right,
                                 const int32_t* ci, int32_t ct, int K, int j,
                                 int32_t* xt, int32_t* yt, int32_t* l1, int32_t* l2)
{
    int32_t sx = 0, mx = 0, my = 0, xk;
    *xt = A[(int64_t)j * K + K - 1];
    if (right)
        *xt = cli[(int64_t)j * K + K - 1] - *xt;
    *yt = ct - *xt;
    if (*xt == 0 || *yt == 0)
        return 0;
    for (int k = 0; k < K - 1; k++) {
        xk = A[(int64_t)j * K + k];
        if (right)
            xk = cli[(int64_t)j * K + k] - xk;
        sx += xk;
        if (xk > mx)
            mx = xk;
        if (ci[k] - xk > my)
            my = ci[k] - xk;
    }
    xk = *xt - sx;                      /* the last class: the rows less the others */
    if (xk > mx)
        mx = xk;
    if (ci[K - 1] - xk > my)
        my = ci[K - 1] - xk;
    *l1 = *xt - mx;
    *l2 = *yt - my;
    return 1;
}

/* Under a unit cost, in whole rows, the reference loop for any K: the best
 * two-leaf loss ib (INT32_MAX when no split separates the child) and its first
 * split ia (-1), and the cheapest peel ip (INT32_MAX: none), a cell of at least
 * T1 rows beside one of at least T2. */
static void fst_pair_values_u_scalar(const int32_t* A, int m, int K, const int32_t* cli,
                                     int right, const int32_t* ci, int32_t ct, int32_t T1,
                                     int32_t T2, int32_t* ib, int32_t* ip, int* ia)
{
    int32_t xt, yt, l1, l2;
    *ib = INT32_MAX;
    *ip = INT32_MAX;
    *ia = -1;
    for (int j = 0; j < m; j++) {
        if (!fst_unit_cells(A, cli, right, ci, ct, K, j, &xt, &yt, &l1, &l2))
            continue;                   /* s_j does not separate this child */
        if (l1 + l2 < *ib) {
            *ib = l1 + l2;
            *ia = j;
        }
        if (xt >= T1 && yt >= T2 && l1 < *ip)
            *ip = l1;
        if (yt >= T1 && xt >= T2 && l2 < *ip)
            *ip = l2;
    }
}

/* The three-leaf bound in whole rows, the reference loop: the least over the
 * cells that may peel off (the same tests, T1 and T2 rows) of loss(A) + max(0,
 * ib - rows(A)) (`_bounds.three_leaf_peel`, a cell's worst cost being its rows).
 * Never below ip (each cell's value is at least its loss), so the loop ends once
 * it reaches it. */
static int32_t fst_peel3_u_scalar(const int32_t* A, int m, int K, const int32_t* cli,
                                  int right, const int32_t* ci, int32_t ct, int32_t T1,
                                  int32_t T2, int32_t ib, int32_t ip)
{
    int32_t xt, yt, l1, l2, w1 = INT32_MAX, w2;
    for (int j = 0; j < m; j++) {
        if (!fst_unit_cells(A, cli, right, ci, ct, K, j, &xt, &yt, &l1, &l2))
            continue;                   /* s_j does not separate this child */
        if (xt >= T1 && yt >= T2) {
            w2 = l1 + (ib > xt ? ib - xt : 0);
            if (w2 < w1)
                w1 = w2;
        }
        if (yt >= T1 && xt >= T2) {
            w2 = l2 + (ib > yt ? ib - yt : 0);
            if (w2 < w1)
                w1 = w2;
        }
        if (w1 <= ip)
            break;                      /* no cell goes below the cheapest peel */
    }
    return w1;
}

#if FST_X86_VECTOR
/* One block of the value loops below: keep, per lane, the smallest l1 + l2 over
 * the separating splits (its first j on ties: strictly smaller replaces) and the
 * cheapest cell that may peel off -- one that can hold one leaf while the other
 * holds two (the potentials q against t1, t2; see _pair_values.pair_values). */
__attribute__((target("avx512f")))
static inline void fst_take_pairs(__m512d l1, __m512d l2, __m512d q1, __m512d q2,
                                  __mmask8 sep, __m512d vt1, __m512d vt2, __m512i lane,
                                  __m512d* vbest, __m512i* vidx, __m512d* vpeel)
{
    __m512d v = _mm512_mask_blend_pd(sep, _mm512_set1_pd(__builtin_inf()),
                                     _mm512_add_pd(l1, l2));
    __mmask8 better = _mm512_cmp_pd_mask(v, *vbest, _CMP_LT_OQ);
    *vbest = _mm512_mask_blend_pd(better, *vbest, v);
    *vidx = _mm512_mask_blend_epi64(better, *vidx, lane);
    __mmask8 one1 = _mm512_cmp_pd_mask(q1, vt1, _CMP_GE_OQ);
    __mmask8 two1 = _mm512_cmp_pd_mask(q1, vt2, _CMP_GE_OQ);
    __mmask8 one2 = _mm512_cmp_pd_mask(q2, vt1, _CMP_GE_OQ);
    __mmask8 two2 = _mm512_cmp_pd_mask(q2, vt2, _CMP_GE_OQ);
    *vpeel = _mm512_mask_min_pd(*vpeel, sep & one1 & two2, l1, *vpeel);
    *vpeel = _mm512_mask_min_pd(*vpeel, sep & one2 & two1, l2, *vpeel);
}

/* The lanes' results of a value loop, combined: best2 the smallest value and arg
 * its first j (-1 if none), peel the smallest peel. */
__attribute__((target("avx512f")))
static inline void fst_finish_pairs(__m512d vbest, __m512i vidx, __m512d vpeel,
                                    double* best2, double* peel, int* arg)
{
    double b[8], p[8];
    int64_t ix[8];
    _mm512_storeu_pd(b, vbest);
    _mm512_storeu_pd(p, vpeel);
    _mm512_storeu_si512((void*)ix, vidx);
    double bb = __builtin_inf(), pp = __builtin_inf();
    int64_t ii = -1;
    for (int k = 0; k < 8; k++) {
        if (p[k] < pp)
            pp = p[k];
        /* each lane kept its first j; across lanes the first j of the smallest */
        if (ix[k] >= 0 && (b[k] < bb || (b[k] == bb && ix[k] < ii))) {
            bb = b[k];
            ii = ix[k];
        }
    }
    *best2 = bb;
    *peel = pp;
    *arg = (int)ii;
}

/* The two-class values of one row of pair counts (see _pair_values.pair_values): for
 * each split j that separates the child, the leaf losses l1, l2 of its two cells,
 * with the same operations in the same order as the scalar loop (products, then
 * the sum; the smaller by the same comparison), so the same doubles.  best2 is the
 * smallest l1 + l2 and arg its first j (-1 if no j separates); peel the smallest
 * cell that can be a leaf of a three-leaf tree.  AVX-512 has FMA, so the build passes -ffp-contract=off (setup.py): no
 * product is fused into a sum, here or in the scalar loop. */
__attribute__((target("avx512f")))
static void fst_pair_values2_avx512(const int32_t* A, int m, const double* cl, int right,
                                    double cc0, double cc1, const double* cost,
                                    const double* potc, double t1, double t2,
                                    double* best2, double* peel, int* arg)
{
    const __m512d inf = _mm512_set1_pd(__builtin_inf());
    const __m512d k00 = _mm512_set1_pd(cost[0]), k01 = _mm512_set1_pd(cost[1]);
    const __m512d k10 = _mm512_set1_pd(cost[2]), k11 = _mm512_set1_pd(cost[3]);
    const __m512d zero = _mm512_setzero_pd();
    const __m512d vc0 = _mm512_set1_pd(cc0), vc1 = _mm512_set1_pd(cc1);
    const __m512d p0 = _mm512_set1_pd(potc[0]), p1 = _mm512_set1_pd(potc[1]);
    const __m512d vt1 = _mm512_set1_pd(t1), vt2 = _mm512_set1_pd(t2);
    const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    __m512d vbest = inf, vpeel = inf;
    __m512i vidx = _mm512_set1_epi64(-1);
    __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i eight = _mm512_set1_epi64(8);
    for (int j = 0; j < m; j += 8) {
        int rest = m - j;
        __mmask8 live = (__mmask8)(rest >= 8 ? 0xFF : ((1u << rest) - 1u));
        __m512i pr = _mm512_maskz_loadu_epi64(live, (const void*)(A + 2 * (int64_t)j));
        __m512d x0 = _mm512_cvtepi32_pd(_mm512_cvtepi64_epi32(pr));
        __m512d x1 = _mm512_sub_pd(
            _mm512_cvtepi32_pd(_mm512_cvtepi64_epi32(_mm512_srli_epi64(pr, 32))), x0);
        if (right) {
            __mmask8 lo = (__mmask8)(rest >= 4 ? 0xFF : ((1u << (2 * rest)) - 1u));
            __mmask8 hi = (__mmask8)(rest >= 8 ? 0xFF : (rest <= 4 ? 0 : ((1u << (2 * (rest - 4))) - 1u)));
            __m512d a = _mm512_maskz_loadu_pd(lo, cl + 2 * (int64_t)j);
            __m512d b = _mm512_maskz_loadu_pd(hi, cl + 2 * (int64_t)j + 8);
            x0 = _mm512_sub_pd(_mm512_permutex2var_pd(a, even, b), x0);
            x1 = _mm512_sub_pd(_mm512_permutex2var_pd(a, odd, b), x1);
        }
        __m512d y0 = _mm512_sub_pd(vc0, x0);
        __m512d y1 = _mm512_sub_pd(vc1, x1);
        __mmask8 sep = live
            & _mm512_cmp_pd_mask(_mm512_add_pd(x0, x1), zero, _CMP_NEQ_UQ)
            & _mm512_cmp_pd_mask(_mm512_add_pd(y0, y1), zero, _CMP_NEQ_UQ);
        __m512d s0 = _mm512_add_pd(_mm512_mul_pd(x0, k00), _mm512_mul_pd(x1, k10));
        __m512d s1 = _mm512_add_pd(_mm512_mul_pd(x0, k01), _mm512_mul_pd(x1, k11));
        __m512d l1 = _mm512_min_pd(s1, s0);      /* s1 < s0 ? s1 : s0 */
        s0 = _mm512_add_pd(_mm512_mul_pd(y0, k00), _mm512_mul_pd(y1, k10));
        s1 = _mm512_add_pd(_mm512_mul_pd(y0, k01), _mm512_mul_pd(y1, k11));
        __m512d l2 = _mm512_min_pd(s1, s0);
        __m512d q1 = _mm512_add_pd(_mm512_mul_pd(x0, p0), _mm512_mul_pd(x1, p1));
        __m512d q2 = _mm512_add_pd(_mm512_mul_pd(y0, p0), _mm512_mul_pd(y1, p1));
        fst_take_pairs(l1, l2, q1, q2, sep, vt1, vt2, lane, &vbest, &vidx, &vpeel);
        lane = _mm512_add_epi64(lane, eight);
    }
    fst_finish_pairs(vbest, vidx, vpeel, best2, peel, arg);
}

/* The values of one row of pair counts for 3 to 16 classes (see the scalar loop
 * of _pair_values.pair_values): 8 splits at a time, each count gathered from the
 * row's [split][class] layout, with the same operations in the same order as the
 * scalar loop -- sums started at 0 and taken over the classes in order, the
 * leaf's cost the smallest label sum by the same comparison, over the same
 * labels `cols` -- so the same doubles, the same first split and the same peel. */
__attribute__((target("avx512f")))
static void fst_pair_values_k_avx512(const int32_t* A, int m, int K, const double* cl,
                                     int right, const double* cc, const double* cost,
                                     const int32_t* cols, int ncols,
                                     const double* potc, double t1, double t2,
                                     double* best2, double* peel, int* arg)
{
    const __m512d inf = _mm512_set1_pd(__builtin_inf());
    const __m512d zero = _mm512_setzero_pd();
    const __m512d vt1 = _mm512_set1_pd(t1), vt2 = _mm512_set1_pd(t2);
    const __m512i lane16 = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8,
                                            7, 6, 5, 4, 3, 2, 1, 0);
    __m512d vbest = inf, vpeel = inf;
    __m512i vidx = _mm512_set1_epi64(-1);
    __m512d c1[16], c2[16];
    for (int j = 0; j < m; j += 8) {
        int rest = m - j;
        __mmask8 live = (__mmask8)(rest >= 8 ? 0xFF : ((1u << rest) - 1u));
        /* positions of the 8 splits' first class in the row (lanes 8-15 unused:
         * AVX-512F gathers 32-bit values 16 at a time) */
        __m512i base = _mm512_mullo_epi32(_mm512_add_epi32(_mm512_set1_epi32(j), lane16),
                                          _mm512_set1_epi32(K));
        __m512d n1 = zero, n2 = zero;
        for (int k = 0; k < K - 1; k++) {
            __m512i ix = _mm512_add_epi32(base, _mm512_set1_epi32(k));
            __m512i a = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), (__mmask16)live,
                                                    ix, (const void*)A, 4);
            c1[k] = _mm512_cvtepi32_pd(_mm512_castsi512_si256(a));
            n1 = _mm512_add_pd(n1, c1[k]);
        }
        {
            __m512i ix = _mm512_add_epi32(base, _mm512_set1_epi32(K - 1));
            __m512i a = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), (__mmask16)live,
                                                    ix, (const void*)A, 4);
            /* the total less the other classes */
            c1[K - 1] = _mm512_sub_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(a)), n1);
        }
        if (right) {
            for (int k = 0; k < K; k++) {
                __m256i ix = _mm512_castsi512_si256(
                    _mm512_add_epi32(base, _mm512_set1_epi32(k)));
                __m512d b = _mm512_mask_i32gather_pd(zero, live, ix, (const void*)cl, 8);
                c1[k] = _mm512_sub_pd(b, c1[k]);
            }
        }
        n1 = zero;
        for (int k = 0; k < K; k++) {
            c2[k] = _mm512_sub_pd(_mm512_set1_pd(cc[k]), c1[k]);
            n1 = _mm512_add_pd(n1, c1[k]);
            n2 = _mm512_add_pd(n2, c2[k]);
        }
        __mmask8 sep = live & _mm512_cmp_pd_mask(n1, zero, _CMP_NEQ_UQ)
                       & _mm512_cmp_pd_mask(n2, zero, _CMP_NEQ_UQ);
        __m512d l1 = zero, l2 = zero, q1 = zero, q2 = zero;
        for (int t = 0; t < ncols; t++) {
            int kk = cols[t];
            __m512d s1 = zero, s2 = zero;
            for (int y = 0; y < K; y++) {
                __m512d w = _mm512_set1_pd(cost[y * K + kk]);
                s1 = _mm512_add_pd(s1, _mm512_mul_pd(c1[y], w));
                s2 = _mm512_add_pd(s2, _mm512_mul_pd(c2[y], w));
            }
            l1 = t == 0 ? s1 : _mm512_min_pd(s1, l1);   /* s < best ? s : best */
            l2 = t == 0 ? s2 : _mm512_min_pd(s2, l2);
        }
        for (int y = 0; y < K; y++) {
            __m512d w = _mm512_set1_pd(potc[y]);
            q1 = _mm512_add_pd(q1, _mm512_mul_pd(c1[y], w));
            q2 = _mm512_add_pd(q2, _mm512_mul_pd(c2[y], w));
        }
        __m512i lane = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(
            _mm512_add_epi32(_mm512_set1_epi32(j), lane16)));
        fst_take_pairs(l1, l2, q1, q2, sep, vt1, vt2, lane, &vbest, &vidx, &vpeel);
    }
    fst_finish_pairs(vbest, vidx, vpeel, best2, peel, arg);
}
#endif
#if FST_X86_VECTOR
/* One step of the whole-row loops: cells of losses l1, l2 and rows xt, yt (in the
   live lanes; a lane with an empty cell does not separate the child) update the
   best sum (first split per lane on ties) and the cheapest peel (a cell of t1 rows
   beside one of t2). */
__attribute__((target("avx512f")))
static inline void fst_take_pairs_u(__m512i l1, __m512i l2, __m512i xt, __m512i yt,
                                    __mmask16 live, __m512i vt1, __m512i vt2, __m512i lane,
                                    __m512i* vbest, __m512i* vidx, __m512i* vpeel)
{
    const __m512i zero = _mm512_setzero_si512();
    __mmask16 sep = live & _mm512_cmpneq_epi32_mask(xt, zero)
                         & _mm512_cmpneq_epi32_mask(yt, zero);
    __m512i v = _mm512_add_epi32(l1, l2);
    __mmask16 better = sep & _mm512_cmplt_epi32_mask(v, *vbest);
    *vbest = _mm512_mask_mov_epi32(*vbest, better, v);
    *vidx = _mm512_mask_mov_epi32(*vidx, better, lane);
    __mmask16 one1 = _mm512_cmpge_epi32_mask(xt, vt1);
    __mmask16 two1 = _mm512_cmpge_epi32_mask(xt, vt2);
    __mmask16 one2 = _mm512_cmpge_epi32_mask(yt, vt1);
    __mmask16 two2 = _mm512_cmpge_epi32_mask(yt, vt2);
    *vpeel = _mm512_mask_min_epi32(*vpeel, sep & one1 & two2, l1, *vpeel);
    *vpeel = _mm512_mask_min_epi32(*vpeel, sep & one2 & two1, l2, *vpeel);
}

/* The lanes of the whole-row loops reduced: the smallest peel, and the smallest
   best with, on ties, the first split (each lane kept its first). */
__attribute__((target("avx512f")))
static inline void fst_finish_pairs_u(__m512i vbest, __m512i vidx, __m512i vpeel,
                                      int32_t* best2, int32_t* peel, int* arg)
{
    int32_t bv[16], pv[16], ix[16];
    _mm512_storeu_si512((void*)bv, vbest);
    _mm512_storeu_si512((void*)pv, vpeel);
    _mm512_storeu_si512((void*)ix, vidx);
    int32_t bb = INT32_MAX, pp = INT32_MAX, ii = -1;
    for (int k = 0; k < 16; k++) {
        if (pv[k] < pp)
            pp = pv[k];
        if (ix[k] >= 0 && (bv[k] < bb || (bv[k] == bb && ix[k] < ii))) {
            bb = bv[k];
            ii = ix[k];
        }
    }
    *best2 = bb;
    *peel = pp;
    *arg = ii;
}

/* Block j (16 splits) of a two-class row of pair counts in whole rows: the rows
   and losses of the two cells each split cuts the child into (class-0 count c0,
   ct rows), as 32-bit lanes; *live masks the splits that exist.  A holds (class-0
   count, row count) per split, cli the same for X & s_j. */
__attribute__((target("avx512f")))
static inline void fst_cells2u_block(const int32_t* A, const int32_t* cli, int right,
                                     int m, int j, __m512i vc0, __m512i vct,
                                     __m512i* xt, __m512i* yt, __m512i* l1,
                                     __m512i* l2, __mmask16* live)
{
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16,
                                          14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17,
                                         15, 13, 11, 9, 7, 5, 3, 1);
    int rest = m - j;
    int ints = rest >= 16 ? 32 : 2 * rest;
    *live = (__mmask16)(rest >= 16 ? 0xFFFF : ((1u << rest) - 1u));
    __mmask16 lo = (__mmask16)(ints >= 16 ? 0xFFFF : ((1u << ints) - 1u));
    __mmask16 hi = (__mmask16)(ints >= 32 ? 0xFFFF : (ints <= 16 ? 0 : ((1u << (ints - 16)) - 1u)));
    const int32_t* p = A + 2 * (int64_t)j;
    __m512i a = _mm512_maskz_loadu_epi32(lo, (const void*)p);
    __m512i b = _mm512_maskz_loadu_epi32(hi, (const void*)(p + 16));
    __m512i x0 = _mm512_permutex2var_epi32(a, even, b);
    __m512i xr = _mm512_permutex2var_epi32(a, odd, b);
    if (right) {
        const int32_t* q = cli + 2 * (int64_t)j;
        __m512i ca = _mm512_maskz_loadu_epi32(lo, (const void*)q);
        __m512i cb = _mm512_maskz_loadu_epi32(hi, (const void*)(q + 16));
        x0 = _mm512_sub_epi32(_mm512_permutex2var_epi32(ca, even, cb), x0);
        xr = _mm512_sub_epi32(_mm512_permutex2var_epi32(ca, odd, cb), xr);
    }
    __m512i x1 = _mm512_sub_epi32(xr, x0);
    __m512i y0 = _mm512_sub_epi32(vc0, x0);
    __m512i yr = _mm512_sub_epi32(vct, xr);
    __m512i y1 = _mm512_sub_epi32(yr, y0);
    *xt = xr;
    *yt = yr;
    *l1 = _mm512_min_epi32(x0, x1);
    *l2 = _mm512_min_epi32(y0, y1);
}

/* Two classes under a symmetric 0/1-type cost (u for an error, 0 on the diagonal):
   fst_pair_values2's values counted in whole rows (the caller multiplies by u;
   the doubles may differ from its sums in the last bit).  A cell's loss is the
   smaller of its two class counts and its potential is its row count, so the
   loop runs on 32-bit integers, 16 pairs at a time, and ties are exact.  A holds
   (class-0 count, row count) per split; cli the same for X & s_j; t1, t2 are the
   capacity thresholds in rows.  Returns the best two-leaf loss and the cheapest
   peel in rows (INT32_MAX: none) and the first split achieving the best. */
__attribute__((target("avx512f")))
static void fst_pair_values2u_avx512(const int32_t* A, int m, const int32_t* cli,
                                     int right, int32_t c0, int32_t ct, int32_t t1,
                                     int32_t t2, int32_t* best2, int32_t* peel,
                                     int* arg)
{
    const __m512i big = _mm512_set1_epi32(INT32_MAX);
    const __m512i vc0 = _mm512_set1_epi32(c0), vct = _mm512_set1_epi32(ct);
    const __m512i vt1 = _mm512_set1_epi32(t1), vt2 = _mm512_set1_epi32(t2);
    const __m512i sixteen = _mm512_set1_epi32(16);
    __m512i vbest = big, vpeel = big, vidx = _mm512_set1_epi32(-1);
    __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (int j = 0; j < m; j += 16) {
        __m512i xt, yt, l1, l2;
        __mmask16 live;
        fst_cells2u_block(A, cli, right, m, j, vc0, vct, &xt, &yt, &l1, &l2, &live);
        fst_take_pairs_u(l1, l2, xt, yt, live, vt1, vt2, lane, &vbest, &vidx, &vpeel);
        lane = _mm512_add_epi32(lane, sixteen);
    }
    fst_finish_pairs_u(vbest, vidx, vpeel, best2, peel, arg);
}
#endif
#if FST_X86_VECTOR
/* The three-leaf bound of fst_pair_values2u's child (two classes, whole rows):
   the least, over the cells A that may peel off as the leaf of a three-leaf tree
   (the same capacity masks), of loss(A) + max(0, ib - rows(A)), ib being the
   child's best two-leaf loss.  Every cell's value is at least its loss, so the
   loop ends once the least reaches `low`, the cheapest peel (the caller's).
   INT32_MAX: no cell peels off.  The argument is at `_peel_bound`. */
__attribute__((target("avx512f")))
static int32_t fst_peel3_2u_avx512(const int32_t* A, int m, const int32_t* cli,
                                   int right, int32_t c0, int32_t ct, int32_t t1,
                                   int32_t t2, int32_t ib, int32_t low)
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i vc0 = _mm512_set1_epi32(c0), vct = _mm512_set1_epi32(ct);
    const __m512i vt1 = _mm512_set1_epi32(t1), vt2 = _mm512_set1_epi32(t2);
    const __m512i vib = _mm512_set1_epi32(ib);
    __m512i vpeel = _mm512_set1_epi32(INT32_MAX);
    for (int j = 0; j < m; j += 16) {
        __m512i xt, yt, l1, l2;
        __mmask16 live;
        fst_cells2u_block(A, cli, right, m, j, vc0, vct, &xt, &yt, &l1, &l2, &live);
        __mmask16 sep = live & _mm512_cmpneq_epi32_mask(xt, zero)
                             & _mm512_cmpneq_epi32_mask(yt, zero);
        __mmask16 one1 = _mm512_cmpge_epi32_mask(xt, vt1);
        __mmask16 two1 = _mm512_cmpge_epi32_mask(xt, vt2);
        __mmask16 one2 = _mm512_cmpge_epi32_mask(yt, vt1);
        __mmask16 two2 = _mm512_cmpge_epi32_mask(yt, vt2);
        __m512i v1 = _mm512_add_epi32(l1, _mm512_max_epi32(zero, _mm512_sub_epi32(vib, xt)));
        __m512i v2 = _mm512_add_epi32(l2, _mm512_max_epi32(zero, _mm512_sub_epi32(vib, yt)));
        vpeel = _mm512_mask_min_epi32(vpeel, sep & one1 & two2, v1, vpeel);
        vpeel = _mm512_mask_min_epi32(vpeel, sep & one2 & two1, v2, vpeel);
        if (_mm512_reduce_min_epi32(vpeel) <= low)
            break;
    }
    return _mm512_reduce_min_epi32(vpeel);
}
#endif
#if FST_X86_VECTOR
/* AVX2 versions of the two-class whole-row loops, for CPUs without AVX-512: 8
   splits at a time in 32-bit lanes, with the same integer values, the same first
   split on ties and the same peel as the scalar loops (the comparisons are exact);
   the last block's missing splits load as empty cells, which separate nothing. */

/* Block j (up to 8 splits, m in all) of a two-class row of pair counts: as
   fst_cells2u_block, and sep, all ones in the lanes whose split separates the
   child.  Past m the counts load as 0: an empty cell, so those lanes separate
   nothing. */
__attribute__((target("avx2")))
static inline void fst_cells2u_block_avx2(const int32_t* A, const int32_t* cli, int right,
                                          int m, int j, __m256i vc0, __m256i vct,
                                          __m256i* xt, __m256i* yt, __m256i* l1,
                                          __m256i* l2, __m256i* sep)
{
    const __m256i split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i pos = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int ints = m - j >= 8 ? 16 : 2 * (m - j);    /* the block's counts that exist */
    __m256i lo = _mm256_cmpgt_epi32(_mm256_set1_epi32(ints), pos);
    __m256i hi = _mm256_cmpgt_epi32(_mm256_set1_epi32(ints - 8), pos);
    const int32_t* p = A + 2 * (int64_t)j;
    /* (class 0, rows) pairs of splits j..j+3 and j+4..j+7, each regrouped as four
       class-0 counts then four row counts */
    __m256i a = _mm256_permutevar8x32_epi32(_mm256_maskload_epi32(p, lo), split);
    __m256i b = _mm256_permutevar8x32_epi32(_mm256_maskload_epi32(p + 8, hi), split);
    __m256i x0 = _mm256_permute2x128_si256(a, b, 0x20);
    __m256i xr = _mm256_permute2x128_si256(a, b, 0x31);
    if (right) {
        const int32_t* q = cli + 2 * (int64_t)j;
        __m256i ca = _mm256_permutevar8x32_epi32(_mm256_maskload_epi32(q, lo), split);
        __m256i cb = _mm256_permutevar8x32_epi32(_mm256_maskload_epi32(q + 8, hi), split);
        x0 = _mm256_sub_epi32(_mm256_permute2x128_si256(ca, cb, 0x20), x0);
        xr = _mm256_sub_epi32(_mm256_permute2x128_si256(ca, cb, 0x31), xr);
    }
    __m256i x1 = _mm256_sub_epi32(xr, x0);
    __m256i y0 = _mm256_sub_epi32(vc0, x0);
    __m256i yr = _mm256_sub_epi32(vct, xr);
    __m256i y1 = _mm256_sub_epi32(yr, y0);
    *xt = xr;
    *yt = yr;
    *l1 = _mm256_min_epi32(x0, x1);
    *l2 = _mm256_min_epi32(y0, y1);
    *sep = _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpeq_epi32(xr, zero),
                                               _mm256_cmpeq_epi32(yr, zero)),
                               _mm256_set1_epi32(-1));
}

/* The least of eight 32-bit lanes. */
__attribute__((target("avx2")))
static inline int32_t fst_hmin_avx2(__m256i v)
{
    v = _mm256_min_epi32(v, _mm256_permute2x128_si256(v, v, 1));
    v = _mm256_min_epi32(v, _mm256_shuffle_epi32(v, 0x4E));
    v = _mm256_min_epi32(v, _mm256_shuffle_epi32(v, 0xB1));
    return _mm256_cvtsi256_si32(v);
}

/* fst_pair_values2u_avx512 in AVX2 (8 lanes; x >= t tested as x > t - 1, the
   thresholds being row counts >= 0). */
__attribute__((target("avx2")))
static void fst_pair_values2u_avx2(const int32_t* A, int m, const int32_t* cli,
                                   int right, int32_t c0, int32_t ct, int32_t t1,
                                   int32_t t2, int32_t* best2, int32_t* peel, int* arg,
                                   int32_t* cache)
{
    const __m256i big = _mm256_set1_epi32(INT32_MAX);
    const __m256i vc0 = _mm256_set1_epi32(c0), vct = _mm256_set1_epi32(ct);
    const __m256i vt1 = _mm256_set1_epi32(t1 - 1), vt2 = _mm256_set1_epi32(t2 - 1);
    const __m256i eight = _mm256_set1_epi32(8);
    __m256i vbest = big, vpeel = big, vidx = _mm256_set1_epi32(-1);
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int j = 0; j < m; j += 8) {
        __m256i xt, yt, l1, l2, sep;
        fst_cells2u_block_avx2(A, cli, right, m, j, vc0, vct, &xt, &yt, &l1, &l2, &sep);
        __m256i v = _mm256_add_epi32(l1, l2);
        /* strictly smaller replaces: each lane keeps its first split on ties */
        __m256i better = _mm256_and_si256(sep, _mm256_cmpgt_epi32(vbest, v));
        vbest = _mm256_blendv_epi8(vbest, v, better);
        vidx = _mm256_blendv_epi8(vidx, lane, better);
        __m256i one1 = _mm256_cmpgt_epi32(xt, vt1), two1 = _mm256_cmpgt_epi32(xt, vt2);
        __m256i one2 = _mm256_cmpgt_epi32(yt, vt1), two2 = _mm256_cmpgt_epi32(yt, vt2);
        __m256i p1 = _mm256_and_si256(sep, _mm256_and_si256(one1, two2));
        __m256i p2 = _mm256_and_si256(sep, _mm256_and_si256(one2, two1));
        vpeel = _mm256_blendv_epi8(vpeel, _mm256_min_epi32(vpeel, l1), p1);
        vpeel = _mm256_blendv_epi8(vpeel, _mm256_min_epi32(vpeel, l2), p2);
        lane = _mm256_add_epi32(lane, eight);
        if (cache) {        /* the block's cells, for fst_peel3_2u_avx2 */
            __m256i* cb = (__m256i*)(cache + 6 * (int64_t)j);
            _mm256_storeu_si256(cb, xt);
            _mm256_storeu_si256(cb + 1, yt);
            _mm256_storeu_si256(cb + 2, l1);
            _mm256_storeu_si256(cb + 3, l2);
            _mm256_storeu_si256(cb + 4, p1);
            _mm256_storeu_si256(cb + 5, p2);
        }
    }
    int32_t bv[8], pv[8], ix[8];
    _mm256_storeu_si256((__m256i*)bv, vbest);
    _mm256_storeu_si256((__m256i*)pv, vpeel);
    _mm256_storeu_si256((__m256i*)ix, vidx);
    int32_t bb = INT32_MAX, pp = INT32_MAX, ii = -1;
    for (int k = 0; k < 8; k++) {
        if (pv[k] < pp)
            pp = pv[k];
        /* each lane kept its first split; across lanes the first of the smallest */
        if (ix[k] >= 0 && (bv[k] < bb || (bv[k] == bb && ix[k] < ii))) {
            bb = bv[k];
            ii = ix[k];
        }
    }
    *best2 = bb;
    *peel = pp;
    *arg = ii;
}

/* fst_peel3_2u_avx512 in AVX2.  The loop may end at any point once the least
   reaches `low`: no cell's value is below it, so the result is `low` wherever the
   loop ends (the scalar loop ends at a split, this one at a block). */
__attribute__((target("avx2")))
static int32_t fst_peel3_2u_avx2(const int32_t* A, int m, const int32_t* cli,
                                 int right, int32_t c0, int32_t ct, int32_t t1,
                                 int32_t t2, int32_t ib, int32_t low,
                                 const int32_t* cache)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i vc0 = _mm256_set1_epi32(c0), vct = _mm256_set1_epi32(ct);
    const __m256i vt1 = _mm256_set1_epi32(t1 - 1), vt2 = _mm256_set1_epi32(t2 - 1);
    const __m256i vib = _mm256_set1_epi32(ib);
    __m256i vpeel = _mm256_set1_epi32(INT32_MAX);
    for (int j = 0; j < m; j += 8) {
        __m256i xt, yt, l1, l2, p1, p2;
        if (cache) {        /* the cells fst_pair_values2u_avx2 left: the same */
            const __m256i* cb = (const __m256i*)(cache + 6 * (int64_t)j);
            xt = _mm256_loadu_si256(cb);
            yt = _mm256_loadu_si256(cb + 1);
            l1 = _mm256_loadu_si256(cb + 2);
            l2 = _mm256_loadu_si256(cb + 3);
            p1 = _mm256_loadu_si256(cb + 4);
            p2 = _mm256_loadu_si256(cb + 5);
        } else {
            __m256i sep;
            fst_cells2u_block_avx2(A, cli, right, m, j, vc0, vct, &xt, &yt, &l1, &l2, &sep);
            __m256i one1 = _mm256_cmpgt_epi32(xt, vt1), two1 = _mm256_cmpgt_epi32(xt, vt2);
            __m256i one2 = _mm256_cmpgt_epi32(yt, vt1), two2 = _mm256_cmpgt_epi32(yt, vt2);
            p1 = _mm256_and_si256(sep, _mm256_and_si256(one1, two2));
            p2 = _mm256_and_si256(sep, _mm256_and_si256(one2, two1));
        }
        __m256i v1 = _mm256_add_epi32(l1, _mm256_max_epi32(zero, _mm256_sub_epi32(vib, xt)));
        __m256i v2 = _mm256_add_epi32(l2, _mm256_max_epi32(zero, _mm256_sub_epi32(vib, yt)));
        vpeel = _mm256_blendv_epi8(vpeel, _mm256_min_epi32(vpeel, v1), p1);
        vpeel = _mm256_blendv_epi8(vpeel, _mm256_min_epi32(vpeel, v2), p2);
        if (fst_hmin_avx2(vpeel) <= low)
            return fst_hmin_avx2(vpeel);
    }
    return fst_hmin_avx2(vpeel);
}
#endif
#if FST_X86_VECTOR
/* fst_pair_values2u for 3 or more classes: A and cli hold K counts per split
   (classes 0..K-2, then the rows), gathered 16 splits at a time; a cell loses its
   rows less its largest class.  cc: the child's K class counts, ct their sum. */
__attribute__((target("avx512f")))
static void fst_pair_values_ku_avx512(const int32_t* A, int m, int K, const int32_t* cli,
                                      int right, const int32_t* cc, int32_t ct,
                                      int32_t t1, int32_t t2, int32_t* best2,
                                      int32_t* peel, int* arg)
{
    const __m512i big = _mm512_set1_epi32(INT32_MAX);
    const __m512i zero = _mm512_setzero_si512();
    const __m512i vct = _mm512_set1_epi32(ct);
    const __m512i vt1 = _mm512_set1_epi32(t1), vt2 = _mm512_set1_epi32(t2);
    const __m512i sixteen = _mm512_set1_epi32(16);
    const __m512i step = _mm512_mullo_epi32(
        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
        _mm512_set1_epi32(K));
    __m512i vbest = big, vpeel = big, vidx = _mm512_set1_epi32(-1);
    __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (int j = 0; j < m; j += 16) {
        int rest = m - j;
        __mmask16 live = (__mmask16)(rest >= 16 ? 0xFFFF : ((1u << rest) - 1u));
        const int32_t* p = A + (int64_t)j * K;
        const int32_t* q = cli + (int64_t)j * K;
        __m512i xt = _mm512_mask_i32gather_epi32(zero, live, step, p + K - 1, 4);
        if (right)
            xt = _mm512_sub_epi32(_mm512_mask_i32gather_epi32(zero, live, step, q + K - 1, 4), xt);
        __m512i yt = _mm512_sub_epi32(vct, xt);
        __m512i sx = zero, mx = zero, my = zero;
        for (int k = 0; k < K - 1; k++) {
            __m512i xk = _mm512_mask_i32gather_epi32(zero, live, step, p + k, 4);
            if (right)
                xk = _mm512_sub_epi32(_mm512_mask_i32gather_epi32(zero, live, step, q + k, 4), xk);
            sx = _mm512_add_epi32(sx, xk);
            mx = _mm512_max_epi32(mx, xk);
            my = _mm512_max_epi32(my, _mm512_sub_epi32(_mm512_set1_epi32(cc[k]), xk));
        }
        __m512i xl = _mm512_sub_epi32(xt, sx);
        mx = _mm512_max_epi32(mx, xl);
        my = _mm512_max_epi32(my, _mm512_sub_epi32(_mm512_set1_epi32(cc[K - 1]), xl));
        fst_take_pairs_u(_mm512_sub_epi32(xt, mx), _mm512_sub_epi32(yt, my), xt, yt,
                         live, vt1, vt2, lane, &vbest, &vidx, &vpeel);
        lane = _mm512_add_epi32(lane, sixteen);
    }
    fst_finish_pairs_u(vbest, vidx, vpeel, best2, peel, arg);
}
#endif

#endif
