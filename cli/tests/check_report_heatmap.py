#!/usr/bin/env python3
"""What a person sees in the heatmap of `mpimon report`, checked cell by cell in the page Chromium
rendered (report_test.sh). The matrix is made here, so the expected values are this script's, not
the report's:

    check_report_heatmap.py write DIR/NAME          # writes the dumps DIR/NAME.RANK.prof
    check_report_heatmap.py check DOM.html          # checks the first heatmap of the rendered page

The matrix: 6 ranks, every pair but the diagonal sends 10, 100 or 1000 bytes (a pattern that is
not symmetric, so a transposed or shuffled matrix differs), and one hot pair, 1 -> 4, sends 10^6.

The check reads Plotly's rendered SVG: the heatmap is one <image> (a PNG) over the plot area; the
centre of cell (sender r, receiver c) is where the axis labels "c" (receiver axis) and "r" (sender
axis) are drawn. Each cell's pixel must have the colour of Plotly's documented Viridis colorscale at
log10(value), placed on the scale the colour bar shows (its "1eK" labels read from the page, fitted
to their positions, extended to the bar's ends); cells without traffic show nothing (transparent).
Exactly one cell is hot (upper half of the scale), at (1, 4), and no hot pixel lies outside it.
"""

import base64
import html.parser
import io
import re
import sys

N = 6
HOT = (1, 4)

# Plotly's Viridis colorscale as its documentation lists it (plotly.js "Viridis": 17 stops), RGB.
VIRIDIS = [
    (0.0, "#440154"), (0.06274509803921569, "#48186a"), (0.12549019607843137, "#472d7b"),
    (0.18823529411764706, "#424086"), (0.25098039215686274, "#3b528b"), (0.3137254901960784, "#33638d"),
    (0.3764705882352941, "#2c728e"), (0.4392156862745098, "#26828e"), (0.5019607843137255, "#21918c"),
    (0.5647058823529412, "#1fa088"), (0.6274509803921569, "#28ae80"), (0.6901960784313725, "#3fbc73"),
    (0.7529411764705882, "#5ec962"), (0.8156862745098039, "#84d44b"), (0.8784313725490196, "#addc30"),
    (0.9411764705882353, "#d8e219"), (1.0, "#fde725"),
]
TOLERANCE = 4  # per channel, 0-255: PNG rounding and the browser's colour handling


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def value(sender, receiver):
    if sender == receiver:
        return 0
    if (sender, receiver) == HOT:
        return 10**6
    return 10 ** (1 + (sender + 2 * receiver) % 3)


def write(prefix):
    histogram = ",".join(["0"] * 66)
    for me in range(N):
        lines = ["# POINT TO POINT"]
        lines += [f"E\t{me}\t{peer}\t{value(me, peer)} bytes\t1 msgs sent\t{histogram}" for peer in range(N) if peer != me]
        lines += ["# OSC", "# COLLECTIVES", f"D\tMPI_COMM_WORLD\tprocs: {','.join(map(str, range(N)))}"]
        lines += [f"{kind}\t{me}\t0 bytes\t0 msgs sent" for kind in ("O2A", "A2O", "A2A")]
        with open(f"{prefix}.{me}.prof", "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


def hex_rgb(text):
    return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))


def viridis(t):
    """Plotly's linear interpolation between the colorscale's stops, in RGB."""
    t = min(max(t, 0.0), 1.0)
    for (t0, c0), (t1, c1) in zip(VIRIDIS, VIRIDIS[1:]):
        if t <= t1:
            f = (t - t0) / (t1 - t0)
            return tuple(a + f * (b - a) for a, b in zip(hex_rgb(c0), hex_rgb(c1)))
    return hex_rgb(VIRIDIS[-1][1])


class Svg(html.parser.HTMLParser):
    """The elements of one SVG with their position: each element's translate() composed with its
    ancestors'. Keeps the tick labels of both axes and of the colour bar, the heatmap's image, the
    colour bar's fill and gradient stops."""

    def __init__(self):
        super().__init__()
        self.stack = []  # (tag, classes, x, y) of the open elements
        self.x_ticks, self.y_ticks, self.bar_ticks = {}, {}, {}
        self.images, self.bar_fill, self.stops, self.titles = [], None, [], []
        self.text_of = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        x, y = self.stack[-1][2:] if self.stack else (0.0, 0.0)
        move = re.match(r"translate\(\s*([-\d.e]+)(?:[ ,]+([-\d.e]+))?\s*\)", a.get("transform", ""))
        if move:
            x, y = x + float(move.group(1)), y + float(move.group(2) or 0)
        classes = a.get("class", "").split()
        parent = self.stack[-1][1] if self.stack else []
        self.stack.append((tag, classes, x, y))
        if tag == "image" and any("hm" in s[1] for s in self.stack):
            href = a.get("xlink:href") or a.get("href") or ""
            self.images.append((x + float(a.get("x", 0)), y + float(a.get("y", 0)), float(a["width"]),
                                float(a["height"]), href))
        elif tag == "rect" and "cbfill" in classes:
            self.bar_fill = (y + float(a.get("y", 0)), float(a["height"]))
        elif tag == "stop":
            self.stops.append((float(a["offset"].rstrip("%")) / 100, a["stop-color"]))
        elif tag == "text":
            kind = ("x" if "xtick" in parent else "y" if "ytick" in parent
                    else "bar" if any(c.endswith("tick") and c.startswith("ycb") for c in parent)
                    else "title" if any(c in ("gtitle",) or c.endswith("title") for c in classes) else None)
            self.text_of = (kind, x, y, []) if kind else None

    def handle_data(self, data):
        if self.text_of:
            self.text_of[3].append(data)

    def handle_endtag(self, tag):
        if self.text_of and tag == "text":
            kind, x, y, parts = self.text_of
            label = "".join(parts).strip()
            if kind == "x":
                self.x_ticks[label] = x
            elif kind == "y":
                self.y_ticks[label] = y
            elif kind == "bar":
                self.bar_ticks[label] = y
            else:
                self.titles.append(label)
            self.text_of = None
        while self.stack:
            if self.stack.pop()[0] == tag:
                break


def first_heatmap_svg(dom):
    """Plotly draws a chart in two SVGs laid over each other (the plot, then the colour bar and the
    titles), in one coordinate system: both are read, up to the histogram that follows."""
    at, end = dom.find('id="heatmap-0"'), dom.find('id="histogram-0"')
    if at < 0 or end < at:
        fail("no element heatmap-0 followed by histogram-0 in the rendered page")
    svg = Svg()
    for drawing in re.findall(r"<svg\b.*?</svg>", dom[at:end], re.S):
        svg.stack = []
        svg.feed(drawing)
    if not svg.images:
        fail("heatmap-0 holds no heatmap image: plotly did not draw it")
    return svg


def check(dom_path):
    import matplotlib.image as image
    import numpy as np
    dom = open(dom_path, encoding="utf-8").read()
    if 'data-render="ok"' not in dom:
        fail("the page did not finish drawing (body data-render is not ok)")
    svg = first_heatmap_svg(dom)
    if "external" not in svg.titles or not any(t.startswith("bytes") for t in svg.titles):
        fail(f"the first heatmap is not the external bytes view: titles {svg.titles}")
    ranks = [str(r) for r in range(N)]
    for axis, ticks in (("receiver (x)", svg.x_ticks), ("sender (y)", svg.y_ticks)):
        if not all(r in ticks for r in ranks):
            fail(f"the {axis} axis does not label every rank 0..{N - 1}: {sorted(ticks)}")
    if len(svg.images) != 1:
        fail(f"{len(svg.images)} heatmap images in the first heatmap, expected 1")
    left, top, width, height, href = svg.images[0]
    if not href.startswith("data:image/png;base64,"):
        fail("the heatmap image is not an inline PNG")
    pixels = image.imread(io.BytesIO(base64.b64decode(href.split(",", 1)[1])), format="png")
    pixels = np.round(pixels * 255).astype(int)
    sx, sy = pixels.shape[1] / width, pixels.shape[0] / height

    # The colour bar: the Viridis it shows, and the values at its ends (from its labels 1eK).
    documented = [(t, hex_rgb(c)) for t, c in VIRIDIS]
    shown = [(t, tuple(int(v) for v in re.findall(r"\d+", c)[:3])) for t, c in svg.stops]
    if len(shown) != len(documented) or any(abs(a[0] - b[0]) > 1e-4 or a[1] != b[1] for a, b in zip(shown, documented)):
        fail(f"the colour bar's gradient is not Plotly's documented Viridis: {shown}")
    labels = {int(k[2:]): y for k, y in svg.bar_ticks.items() if re.fullmatch(r"1e-?\d+", k)}
    if len(labels) < 2 or svg.bar_fill is None:
        fail(f"the colour bar has no fill or fewer than two labels 1eK: {svg.bar_ticks}")
    slope, intercept = np.polyfit(list(labels.values()), list(labels.keys()), 1)
    bar_top, bar_height = svg.bar_fill
    low, high = slope * (bar_top + bar_height) + intercept + 0.0, slope * bar_top + intercept + 0.0
    if not (low <= 1 and high >= 6):
        fail(f"the colour bar runs from 1e{low:.2f} to 1e{high:.2f}: the matrix's 10 to 10^6 are not on it")

    def pixel(sender, receiver):
        px = int((svg.x_ticks[str(receiver)] - left) * sx)
        py = int((svg.y_ticks[str(sender)] - top) * sy)
        if not (0 <= px < pixels.shape[1] and 0 <= py < pixels.shape[0]):
            fail(f"cell ({sender}, {receiver}) is outside the heatmap image")
        return pixels[py, px]

    problems, hot = [], []
    for r in range(N):
        for c in range(N):
            got = pixel(r, c)
            v = value(r, c)
            if v == 0:
                if got[3] != 0:
                    problems.append(f"cell ({r}, {c}) has no traffic but shows rgba{tuple(got)}")
                continue
            t = (np.log10(v) - low) / (high - low)
            want = np.array(viridis(t))
            if got[3] != 255 or np.abs(got[:3] - want).max() > TOLERANCE:
                problems.append(f"cell ({r}, {c}) = {v} B shows rgba{tuple(got)}, Viridis at {t:.3f} is "
                                f"rgb{tuple(int(round(x)) for x in want)}")
            if t >= 0.5:
                hot.append((r, c))
    if problems:
        fail("; ".join(problems[:8]) + (f" (and {len(problems) - 8} more)" if len(problems) > 8 else ""))
    if hot != [HOT]:
        fail(f"hot cells by the matrix {hot}, expected exactly {[HOT]}")

    # Every hot pixel (nearest Viridis position in the upper half) lies in cell (1, 4)'s box.
    scale = np.array([viridis(t) for t in np.linspace(0, 1, 256)])
    opaque = pixels[..., 3] > 0
    position = np.full(pixels.shape[:2], -1.0)
    for row in range(pixels.shape[0]):
        d = np.abs(pixels[row, :, None, :3] - scale[None, :, :]).sum(axis=2)
        position[row] = np.where(opaque[row], d.argmin(axis=1) / 255, -1.0)
    hot_pixels = position >= 0.5
    half = lambda ticks: abs(ticks["1"] - ticks["0"]) / 2  # noqa: E731 (half a cell, from the labels)
    x0, x1 = [int((svg.x_ticks[str(HOT[1])] - left + s * half(svg.x_ticks)) * sx) for s in (-1, 1)]
    y0, y1 = sorted(int((svg.y_ticks[str(HOT[0])] - top + s * half(svg.y_ticks)) * sy) for s in (-1, 1))
    inside = hot_pixels[y0:y1 + 1, x0:x1 + 1].sum()
    outside = hot_pixels.sum() - inside
    if outside:
        fail(f"{outside} hot pixels outside cell {HOT}")
    if inside < 0.8 * (x1 - x0) * (y1 - y0):
        fail(f"cell {HOT} is hot in {inside} pixels of {(x1 - x0) * (y1 - y0)}")
    print(f"heatmap ok: {N * N - N} cells in Viridis at log10(value) on the colour bar's scale "
          f"(1e{abs(low) if abs(low) < 5e-3 else low:.2f} to 1e{high:.2f}), empty diagonal, one hot cell {HOT} ({inside} pixels, none elsewhere)")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        write(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        fail("usage: check_report_heatmap.py write DIR/NAME | check DOM.html")
