"""Model selection read from a leaves front: the optimum at each value of a grid
of lam (the cross-validations' folds) and the certified regularization path,
from a front grown one count at a time, with a fit only for the values of lam
it does not cover.

The argument.  R(lam) = min over trees T of loss(T) + lam * leaves(T).  A front
certified to K leaves gives the least loss L_k of a tree of at most k leaves for
every k <= K, so B(lam) = min over k <= K of L_k + lam * k is the least value at
lam of a tree of at most K leaves.  A tree T of more than K leaves is bounded
two ways:

* by the floor m (the least loss of any tree, `LeavesFront.loss_floor_`):
  T(lam) >= m + (K + 1) lam;
* by a fit at some lam_a <= lam whose search proved R(lam_a) >= b_a (its lower
  bound, the optimum itself when certified): T(lam) = T(lam_a) + leaves(T)
  (lam - lam_a) >= b_a + (K + 1) (lam - lam_a), since T(lam_a) >= R(lam_a).

The floor is the second at lam_a = 0, b_a = m.  Wherever B(lam) is at most
the greater of these, R(lam) = B(lam): the front's best tree at lam is optimal.
Each bound minus B falls with lam (B is concave with slopes at most K, the
bound's slope is K + 1), so each covers a half-line: B(lam) <= b_a + (K + 1)
(lam - lam_a) holds from the least lam >= lam_a at which some count's line
L_k + lam k meets it, c_a = max(lam_a, min over k of (L_k - b_a + (K + 1)
lam_a) / (K + 1 - k)), and the front covers every lam from the least c_a.

So a certified fit at the grid's least lam, whose tree has at most K leaves,
lets the front cover every larger lam: B(lam_a) = R(lam_a) = b_a and B rises
at slope at most K from there.  A fold of a cross-validation needs that one fit
and the front's counts up to its tree's leaves, however many values its grid
holds, and the path above lam_a needs no other fit.  The values the front does
not cover are fitted as `grid_fits` and `_explore` fit them, the front's tree
at the least value it covers serving as a certified fit there."""
import copy
import time
from functools import cached_property

import numpy as np

from ._classifier import FastSmallTreeClassifier
from ._front import _Counts, envelope
from ._path import _PATH_TOL, _explore, _intervals, _same, grid_fits

__all__ = ["FrontCover", "front_grid", "front_path"]

# The front's counts are searched for at most this share of the seconds the fit
# at the grid's least lam took (and at least FRONT_LEAST_SECONDS, at most the
# time limit of one fit): the counts stand in for the fits at the larger lam,
# each cheaper than that fit (a larger lam prunes more), so a front that takes
# longer than this would not pay, and a count stopped by it leaves the values it
# would have covered to fits.  Where that fit is quick (binary columns: a fit of
# 30 leaves in hundredths of a second, where a front to 30 leaves takes
# seconds), the fits are the faster way and the front gets next to no time.
FRONT_SHARE = 0.5
FRONT_LEAST_SECONDS = 0.05
# ... nor where that fit took less than this: the fits are then about as quick as
# the counts that would replace them, whose preparation costs as much (on the
# binary gosdt14 sets, paths of 0.01 to 0.3 s took 0.02 to 0.06 s longer with a
# front).
FRONT_AFTER_SECONDS = 0.5
# Where that fit stopped uncertified no front is grown: its bound is below its
# tree by its gap, which the leaves beyond the front must make up at K + 1 times
# the distance from its lam, so a front would settle only the largest values,
# whose fits are quick (on two real tables of 753 and 872 rows whose fits stop
# at 60 s, a front of half that fit's seconds made a path 7 % slower, and of a
# tenth of them a path and a CV 2 and 3 % slower, settling nothing the fits
# would not have).


def _at(fit, lam, optimal):
    """`fit` (a `_Fit` of the front's) read at lam: its tree and line, certified
    at lam or not."""
    out = copy.copy(fit)
    out.lam, out.optimal, out.from_front = float(lam), bool(optimal), True
    return out


class FrontCover:
    """What a front certified to K leaves proves at each lam (the module's
    argument): `counts` are the _Fit of the counts 1..K, each certified
    (L_k = loss); `floor` is m; `closed` says no tree of more than K leaves is
    better at any lam >= 0 (K reached 2^max_depth, the leaf cap, or L_K = m);
    `anchors` are (lam_a, b_a), each a proven bound b_a on R(lam_a)."""

    def __init__(self, counts, floor, closed, anchors):
        self.counts = list(counts)
        self.floor = float(floor)
        self.closed = bool(closed)
        self.anchors = [(0.0, self.floor)] + [(float(a), float(b)) for a, b in anchors
                                              if np.isfinite(b)]

    @property
    def K(self):
        return len(self.counts)

    def best(self, lam):
        """The count whose line is least at lam, the fewest leaves on ties (as a
        fit at lam > 0 prefers)."""
        value = min(f.at(lam) for f in self.counts)
        return min((f for f in self.counts if f.at(lam) <= value + _PATH_TOL),
                   key=lambda f: f.leaves)

    def at(self, lam):
        """The best count read at lam as a fit there, certified where the front
        covers lam."""
        return _at(self.best(lam), lam, self.covers(lam))

    def beyond(self, lam):
        """A lower bound at lam on every tree of more than K leaves."""
        if self.closed:
            return np.inf
        K = self.K
        return max(b + (K + 1) * (lam - a) for a, b in self.anchors if a <= lam + _PATH_TOL)

    def covers(self, lam):
        """Whether the front's best tree at lam is optimal over every tree."""
        return self.best(lam).at(lam) <= self.beyond(lam) + _PATH_TOL

    def cover(self):
        """The least lam >= 0 the front covers (every larger lam is covered)."""
        if self.closed:
            return 0.0
        K = self.K
        loss = np.array([f.loss for f in self.counts])
        k = np.array([f.leaves for f in self.counts])      # each at most K
        return float(min(max(a, ((loss - b + (K + 1) * a) / (K + 1 - k)).min())
                         for a, b in self.anchors))


class _Growth:
    """The front grown count by count on one data set (`_Counts`), kept while
    each count is certified, with the anchors its cover reads."""

    def __init__(self, estimator, params, X, y, sample_weight, regression, deadline):
        front_params = dict(params, max_leaf_nodes=None)
        self._cap = params.get("max_leaf_nodes")
        depth = params.get("max_depth")
        self._most = None if depth is None else 2 ** int(depth)
        self._data = (estimator, front_params, X, y, sample_weight, regression)
        self._deadline = deadline
        self._time_limit = params.get("time_limit")
        self.fits = []
        self.anchors = []
        self.log = []
        self.stopped = False

    @cached_property
    def _counts(self):
        """The counts' searches, their data (the floor) prepared when first
        needed."""
        return _Counts(*self._data)

    @property
    def floor(self):
        return self._counts.data.floor

    def cover(self):
        K = len(self.fits)
        closed = K > 0 and (
            (self._cap is not None and K >= self._cap)
            or (self._most is not None and K >= self._most)
            or self.fits[-1].loss <= self.floor + _PATH_TOL)
        return FrontCover(self.fits, self.floor, closed, self.anchors)

    def after(self, low, lams, seconds):
        """The cover after the fit at the least lam, `low` (a `_Fit` that took
        `seconds`): its bound taken as an anchor, the front grown to cover
        `lams` for `_growth_seconds`."""
        self.anchors.append((low.lam, float(low.clf.lower_bound_)))
        self.grow(lams, _growth_seconds(low, seconds, self._time_limit))
        return self.cover()

    def grow(self, lams, seconds):
        """Search counts until the front covers every value of `lams`, a count
        stops uncertified, none is left (the cover is closed), or `seconds`
        (None: no limit) have passed."""
        if seconds is not None and seconds <= 0:
            return
        end = None if seconds is None else time.perf_counter() + seconds
        if self._deadline is not None:
            end = self._deadline if end is None else min(end, self._deadline)
        while not self.stopped:
            cover = self.cover()
            if self.fits and (cover.closed or all(cover.covers(lam) for lam in lams)):
                return
            left = None if end is None else end - time.perf_counter()
            if left is not None and left <= 0:
                return
            k = len(self.fits) + 1
            t0 = time.perf_counter()
            fit, lower = self._counts(k, left)
            self.log.append((k, fit.loss, bool(fit.clf.optimal_), time.perf_counter() - t0))
            if lower < fit.loss - _PATH_TOL or fit.clf.status_ == "interrupted":
                # the certified prefix ends before this count
                self.stopped = True
                return
            self.fits.append(fit)


def _growth_seconds(anchor, anchor_seconds, time_limit):
    """The seconds the front may take after the fit at the least lam, `anchor`
    (a `_Fit`), which took `anchor_seconds`: FRONT_SHARE of them where it
    certified (at least FRONT_LEAST_SECONDS), none where it did not or took
    less than FRONT_AFTER_SECONDS; at most one fit's time limit."""
    if not anchor.optimal or anchor_seconds < FRONT_AFTER_SECONDS:
        return 0.0
    seconds = max(FRONT_LEAST_SECONDS, FRONT_SHARE * anchor_seconds)
    return seconds if time_limit is None else min(seconds, float(time_limit))


def front_grid(X, y, lams, params, sample_weight=None, on_value=None,
               estimator=FastSmallTreeClassifier, deadline=None, regression=False):
    """`grid_fits` (the optimum at each value of the sorted grid `lams`) read
    from a front where it covers: after the fit at the least value, whose bound
    anchors the front's cover, the front is grown to cover the others
    (`_growth_seconds`), and the values it does not cover are fitted between
    their settled neighbours.  A value the front settles has fit seconds 0.
    Returns `grid_fits`'s four and the front's log, one (count, loss,
    certified, seconds) a count searched."""
    growth = _Growth(estimator, params, X, y, sample_weight, regression, deadline)

    def front(low, seconds):
        return growth.after(low, [float(v) for v in lams[1:]], seconds)

    return grid_fits(X, y, lams, params, sample_weight, on_value, estimator, deadline,
                     front) + (growth.log,)


def front_path(low, seconds, lambda_max, fit, estimator, params, X, y, sample_weight,
               regression):
    """The path's trees on [low.lam, lambda_max] from a front where it covers:
    `low` is the fit at lambda_min (which took `seconds`), whose bound anchors
    the cover; the front (`estimator` under `params` on the data) is grown to
    cover lambda_min (`_Growth.after`).  Above the least lam c it covers, the
    trees are the front's lines' lower envelope, each certified; below c,
    `_explore` fits (`fit(lam)`) between `low` and the front's tree at c, as
    `regularization_path` does between its two ends.  Returns (trees, the
    front's log): (fit, lo, hi, certified) for each tree from lambda_min up,
    or None where the front covers no lam of the range (the caller then fits
    lambda_max)."""
    growth = _Growth(estimator, params, X, y, sample_weight, regression, None)
    cover = growth.after(low, [low.lam], seconds)
    return _front_trees(cover, low, lambda_max, fit), growth.log


def _front_trees(cover, low, lambda_max, fit):
    """`front_path`'s trees from the grown front's `cover`."""
    if not cover.K:
        return None
    c = max(cover.cover(), low.lam)
    if c > lambda_max + _PATH_TOL:
        return None
    c = min(c, lambda_max)
    above = [(f, a, b, True) for f, a, b in envelope(cover.counts, c, lambda_max)]
    if c <= low.lam + _PATH_TOL:
        return above
    trees, cuts = [low], []
    # c is the least lam covered: the front's tree there is certified
    _explore(low, _at(cover.best(c), c, True), fit, trees, cuts)
    below = _intervals(trees, [(low.lam, low.optimal)] + cuts + [(c, True)])
    (f, lo, _, ok), (g, _, hi, ok_above) = below[-1], above[0]
    if _same(f, g):
        # the tree at c is one line on both sides of it
        return below[:-1] + [(g, lo, hi, ok and ok_above)] + above[1:]
    return below + above
