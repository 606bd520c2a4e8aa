"""The front plots of the regularization path, the leaves front and DPDT, drawn
one way."""


def _interval(symbol, lo, hi):
    hi_text = "∞" if hi == float("inf") else f"{hi:.3g}"
    return f"{symbol} ∈ [{lo:.3g}, {hi_text}]"


def draw_front(ax, x, accuracy, lo, hi, *, symbol, xlabel, title, integer_x,
               certified=None, ylabel="training accuracy"):
    """Training accuracy (or another score, `ylabel`) against complexity, one
    point a tree labelled with the interval of the trade-off (`symbol`: λ or α)
    where it is optimal (lo and hi None: no labels); steps join the points.
    `certified` (a boolean a point, or None) draws the points not certified
    hollow. Returns ax (a new figure's when None)."""
    try:
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError as exc:  # optional dependency
        raise ImportError("plot_front needs matplotlib: pip install matplotlib") from exc
    if ax is None:
        _, ax = plt.subplots()
    ax.step(x, accuracy, where="post", color="C0", alpha=0.5)
    ok = [True] * len(x) if certified is None else list(certified)
    good = [i for i in range(len(x)) if ok[i]]
    bad = [i for i in range(len(x)) if not ok[i]]
    ax.plot([x[i] for i in good], [accuracy[i] for i in good], "o", color="C0",
            label="certified" if certified is not None else None)
    if bad:
        ax.plot([x[i] for i in bad], [accuracy[i] for i in bad], "o", mfc="none",
                color="C0", label="not certified")
    mid = (min(x) + max(x)) / 2 if len(x) else 0.0
    for i in range(len(x) if lo is not None else 0):
        # labels of the right half lean left, so none runs off the axes
        right = x[i] > mid
        ax.annotate(_interval(symbol, lo[i], hi[i]), (x[i], accuracy[i]),
                    textcoords="offset points", xytext=(-4 if right else 4, -12),
                    ha="right" if right else "left", fontsize=7)
    ax.margins(x=0.08, y=0.08)
    if integer_x:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if certified is not None:
        ax.legend()
    return ax
