"""Small SVG charts for the HTML report: stacked bars per day and a line with a target line.

Pure functions from numbers to markup; nothing is fetched, nothing runs in the browser.
"""

from __future__ import annotations

from html import escape

from router.money import figure

PALETTE = ("#2f6fdf", "#f08c2e", "#2fa36b", "#c2415d", "#7b5cd6", "#8f7c3d", "#4aa3b5", "#999")
W, H = 900, 300
LEFT, RIGHT, TOP, BOTTOM = 70, 170, 15, 40


def _fmt(value: float) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= size:
            return f"{value / size:.1f}{unit}"
    if value == 0 or abs(value) >= 10:
        return f"{value:.0f}"
    # ticks under a dollar at two decimals read 0.00 on a demo's savings chart, as the
    # table's cells did: the tables' own rule (1 and up keeps its two decimals)
    return figure(value)


def _frame(
    body: str, axis: tuple[float, float], days: list[str], label: str, pct: bool = False
) -> str:
    """The chart's box: five ticks from `axis`'s bottom to its top, the days under it."""
    y_min, y_max = axis
    plot_h = H - TOP - BOTTOM
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' viewBox='0 0 {W} {H}' "
        f"width='100%' role='img' aria-label='{escape(label)}'>"
    ]
    for i in range(5):
        y = TOP + plot_h * (1 - i / 4)
        tick = f"{i * 25}%" if pct else _fmt(y_min + (y_max - y_min) * i / 4)
        parts.append(
            f"<line x1='{LEFT}' x2='{W - RIGHT}' y1='{y:.1f}' y2='{y:.1f}' stroke='#e4e7eb'/>"
        )
        parts.append(f"<text x='{LEFT - 6}' y='{y + 4:.1f}' text-anchor='end'>{tick}</text>")
    step = max(1, -(-len(days) // 7))
    plot_w = W - LEFT - RIGHT
    for i in range(0, len(days), step):
        x = LEFT + plot_w * (i + 0.5) / max(1, len(days))
        parts.append(
            f"<text x='{x:.1f}' y='{H - BOTTOM + 16}' text-anchor='middle'>"
            f"{escape(days[i][5:])}</text>"
        )
    parts.append(body)
    parts.append("</svg>")
    return "".join(parts)


def _legend(names: list[str]) -> str:
    items = []
    for i, name in enumerate(names):
        y = TOP + 18 * i
        color = PALETTE[i % len(PALETTE)]
        items.append(f"<rect x='{W - RIGHT + 12}' y='{y}' width='10' height='10' fill='{color}'/>")
        items.append(f"<text x='{W - RIGHT + 28}' y='{y + 9}'>{escape(name[:22])}</text>")
    return "".join(items)


def stacked_bars(
    days: list[str], series: dict[str, list[float]], normalize: bool, label: str
) -> str:
    """One bar per day, stacked by series; `normalize` makes each bar 100%."""
    names = sorted(series)
    totals = [sum(series[n][i] for n in names) for i in range(len(days))]
    y_max = 1.0 if normalize else max(totals, default=0.0) or 1.0
    plot_w, plot_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    width = plot_w / max(1, len(days))
    bars = []
    for i, day in enumerate(days):
        base = 0.0
        for j, name in enumerate(names):
            value = series[name][i]
            frac = value / totals[i] if normalize and totals[i] else value / y_max
            if frac <= 0:
                continue
            y = TOP + plot_h * (1 - base - frac)
            x = LEFT + width * i + width * 0.1
            bars.append(
                f"<rect class='bar' x='{x:.1f}' y='{y:.1f}' width='{width * 0.8:.1f}' "
                f"height='{plot_h * frac:.1f}' fill='{PALETTE[j % len(PALETTE)]}'>"
                f"<title>{escape(day)} {escape(name)}: {_fmt(value)}</title></rect>"
            )
            base += frac
    return _frame("".join(bars) + _legend(names), (0.0, y_max), days, label, pct=normalize)


def line_chart(
    days: list[str], lines: dict[str, list[float]], hline: tuple[str, float] | None = None
) -> str:
    """Lines over days, with an optional horizontal reference line (e.g. hardware cost),
    and a line at zero."""
    values = [v for vs in lines.values() for v in vs] + ([hline[1]] if hline else [])
    y_min, y_max = axis(values)
    plot_w, plot_h = W - LEFT - RIGHT, H - TOP - BOTTOM

    def y_of(value: float) -> float:
        return TOP + plot_h * (y_max - value) / (y_max - y_min)

    zero = y_of(0.0)
    body = [
        f"<line class='zero' x1='{LEFT}' x2='{W - RIGHT}' y1='{zero:.1f}' y2='{zero:.1f}' "
        "stroke='#7b8794' stroke-width='1'/>"
    ]
    names = list(lines)
    for j, name in enumerate(names):
        points = " ".join(
            f"{LEFT + plot_w * (i + 0.5) / max(1, len(days)):.1f},{y_of(v):.1f}"
            for i, v in enumerate(lines[name])
        )
        color = PALETTE[j % len(PALETTE)]
        body.append(
            f"<polyline class='line' points='{points}' fill='none' stroke='{color}' "
            f"stroke-width='2.5'><title>{escape(name)}</title></polyline>"
        )
    if hline:
        y = y_of(hline[1])
        body.append(
            f"<line class='target' x1='{LEFT}' x2='{W - RIGHT}' y1='{y:.1f}' y2='{y:.1f}' "
            "stroke='#c2415d' stroke-dasharray='6 4' stroke-width='2'/>"
        )
        body.append(
            f"<text x='{W - RIGHT + 12}' y='{y + 4:.1f}' fill='#c2415d'>"
            f"{escape(hline[0])} ${_fmt(hline[1])}</text>"
        )
    return _frame("".join(body) + _legend(names), (y_min, y_max), days, "line chart")


def axis(values: list[float]) -> tuple[float, float]:
    """The value axis's bottom and top: from min(0, lowest) to max(0, highest), each end
    away from zero given 10 % of room, so zero is always on it. A loss (negative savings:
    the local box cost more than the cloud would have) drew above the top of an axis
    counted from max(values) alone, or below the frame (found in review); all zero: 0 to 1.
    """
    low, high = min([0.0, *values]), max([0.0, *values])
    if low == high:
        return 0.0, 1.0
    return low * 1.1, high * 1.1
