#!/usr/bin/env python3
"""What a person sees in the heatmap of `mpimon report`, checked cell by cell in the page Chromium
rendered (report_test.sh, report_first_screen_test.sh). Expected values never come from the
report: either from the matrix this script makes, or from the run's HDF5 file read with h5py.

    check_report_heatmap.py write DIR/NAME          # writes the dumps DIR/NAME.RANK.prof
    check_report_heatmap.py check DOM.html          # the first heatmap shows the matrix made here
    check_report_heatmap.py check DOM.html RUN.h5   # the first heatmap shows RUN.h5's matrix of
                                                    # the class its title names (bytes)

The matrix made here: 6 ranks, every pair but the diagonal sends 10, 100 or 1000 bytes (a pattern
that is not symmetric, so a transposed or shuffled matrix differs), and one hot pair, 1 -> 4, 10^6.

The check reads Plotly's rendered SVG: the heatmap is one <image> (a PNG) over the plot area; the
centre of cell (sender r, receiver c) is where the receiver axis would label c and the sender axis
r (a straight line through the axes' integer labels). Each cell's pixel must have the colour of
Plotly's documented Viridis colorscale at log10(value), placed on the scale the colour bar shows
(its "1eK" labels read from the page, fitted to their positions, extended to the bar's ends);
cells without traffic show nothing (transparent). For the matrix made here, exactly one cell is hot
(upper half of the scale), at (1, 4), and no hot pixel lies outside it.
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
TOLERANCE = 2  # per channel, 0-255: rounding (0.43 seen on Debian 12's Chromium)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def value(sender, receiver):
    """The matrix made here: bytes sent by sender to receiver."""
    if sender == receiver:
        return 0
    if (sender, receiver) == HOT:
        return 10**6
    return 10 ** (1 + (sender + 2 * receiver) % 3)


def write(prefix):
    histogram = ",".join(["0"] * 66)
    for me in range(N):
        lines = ["# POINT TO POINT"]
        lines += [f"E\t{me}\t{peer}\t{value(me, peer)} bytes\t1 msgs sent\t{histogram}"
                  for peer in range(N) if peer != me]
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
        self.images, self.bar_fill, self.stops, self.titles, self.chart_title = [], None, [], [], ""
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
                    else "chart" if "gtitle" in classes
                    else "title" if any(c.endswith("title") for c in classes) else None)
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
            elif kind == "chart":
                self.chart_title = label
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


def run_matrix(h5_path, class_name):
    """The bytes matrix of one class of the file's first dump, read with h5py."""
    import h5py
    import numpy as np
    from check_report import read_class
    with h5py.File(h5_path, "r") as f:
        dump = f[next(iter(f.keys()))]
        if class_name not in dump:
            fail(f"the first heatmap's title '{class_name}' is not a class of {h5_path}")
        return read_class(dump[class_name]["bytes"], int(dump.attrs["nprocs"]), np).astype(np.float64)


def axis_position(ticks, what):
    """Where an axis puts each rank: a straight line through its integer labels' positions."""
    import numpy as np
    points = {int(k): v for k, v in ticks.items() if re.fullmatch(r"\d+", k)}
    if len(points) < 2:
        fail(f"the {what} axis has fewer than two rank labels: {sorted(ticks)}")
    slope, intercept = np.polyfit(list(points), list(points.values()), 1)
    if max(abs(slope * k + intercept - v) for k, v in points.items()) > 0.5:
        fail(f"the {what} axis' labels are not evenly spaced: {points}")
    return lambda rank: slope * rank + intercept


def colour_bar_range(svg):
    """The Viridis the colour bar shows must be the documented one; returns the log10 values at the
    bar's bottom and top, from its labels 1eK fitted to their positions."""
    import numpy as np
    documented = [(t, hex_rgb(c)) for t, c in VIRIDIS]
    shown = [(t, tuple(int(v) for v in re.findall(r"\d+", c)[:3])) for t, c in svg.stops]
    if len(shown) != len(documented) or any(abs(a[0] - b[0]) > 1e-4 or a[1] != b[1] for a, b in zip(shown, documented)):
        fail(f"the colour bar's gradient is not Plotly's documented Viridis: {shown}")
    labels = {int(k[2:]): y for k, y in svg.bar_ticks.items() if re.fullmatch(r"1e-?\d+", k)}
    if len(labels) < 2 or svg.bar_fill is None:
        fail(f"the colour bar has no fill or fewer than two labels 1eK: {svg.bar_ticks}")
    slope, intercept = np.polyfit(list(labels.values()), list(labels.keys()), 1)
    bar_top, bar_height = svg.bar_fill
    return slope * (bar_top + bar_height) + intercept + 0.0, slope * bar_top + intercept + 0.0


def heatmap_pixels(svg):
    import matplotlib.image as image
    import numpy as np
    if len(svg.images) != 1:
        fail(f"{len(svg.images)} heatmap images in the first heatmap, expected 1")
    left, top, width, height, href = svg.images[0]
    if not href.startswith("data:image/png;base64,"):
        fail("the heatmap image is not an inline PNG")
    pixels = image.imread(io.BytesIO(base64.b64decode(href.split(",", 1)[1])), format="png")
    pixels = np.round(pixels * 255).astype(int)
    return pixels, (left, top, pixels.shape[1] / width, pixels.shape[0] / height)


def check_hot_region(pixels, cell_box):
    """Every hot pixel (nearest Viridis position in the upper half) lies in the hot cell's box."""
    import numpy as np
    scale = np.array([viridis(t) for t in np.linspace(0, 1, 256)])
    position = np.full(pixels.shape[:2], -1.0)
    for row in range(pixels.shape[0]):
        d = np.abs(pixels[row, :, None, :3] - scale[None, :, :]).sum(axis=2)
        position[row] = np.where(pixels[row, :, 3] > 0, d.argmin(axis=1) / 255, -1.0)
    hot = position >= 0.5
    x0, x1, y0, y1 = cell_box
    inside = int(hot[y0:y1 + 1, x0:x1 + 1].sum())
    if hot.sum() - inside:
        fail(f"{int(hot.sum()) - inside} hot pixels outside cell {HOT}")
    if inside < 0.8 * (x1 - x0) * (y1 - y0):
        fail(f"cell {HOT} is hot in {inside} pixels of {(x1 - x0) * (y1 - y0)}")
    return inside


def check(dom_path, h5_path=None):
    import numpy as np
    dom = open(dom_path, encoding="utf-8").read()
    if 'data-render="ok"' not in dom:
        fail("the page did not finish drawing (body data-render is not ok)")
    svg = first_heatmap_svg(dom)
    if not svg.chart_title or not any(t.startswith("bytes") for t in svg.titles):
        fail(f"the first heatmap has no title or no colour bar of bytes: '{svg.chart_title}', {svg.titles}")
    if h5_path:
        matrix = run_matrix(h5_path, svg.chart_title)
    elif svg.chart_title != "external":
        fail(f"the first heatmap is not the external view: '{svg.chart_title}'")
    else:
        matrix = np.array([[value(r, c) for c in range(N)] for r in range(N)], dtype=np.float64)
    n = matrix.shape[0]
    pixels, (left, top, sx, sy) = heatmap_pixels(svg)
    x_of, y_of = axis_position(svg.x_ticks, "receiver (x)"), axis_position(svg.y_ticks, "sender (y)")
    low, high = colour_bar_range(svg)
    values = matrix[matrix > 0]
    if not (low <= np.log10(values.min()) + 1e-9 and high >= np.log10(values.max()) - 1e-9):
        fail(f"the colour bar runs from 1e{low:.2f} to 1e{high:.2f}: the matrix's {values.min():g} to "
             f"{values.max():g} are not all on it")

    problems, hot = [], []
    for r in range(n):
        for c in range(n):
            px, py = int((x_of(c) - left) * sx), int((y_of(r) - top) * sy)
            if not (0 <= px < pixels.shape[1] and 0 <= py < pixels.shape[0]):
                fail(f"cell ({r}, {c}) is outside the heatmap image")
            got, v = pixels[py, px], matrix[r, c]
            if v == 0:
                if got[3] != 0:
                    problems.append(f"cell ({r}, {c}) has no traffic but shows rgba{tuple(got)}")
                continue
            t = (np.log10(v) - low) / (high - low)
            want = np.array(viridis(t))
            if got[3] != 255 or np.abs(got[:3] - want).max() > TOLERANCE:
                problems.append(f"cell ({r}, {c}) = {v:g} B shows rgba{tuple(got)}, Viridis at {t:.3f} is "
                                f"rgb{tuple(int(round(x)) for x in want)}")
            if t >= 0.5:
                hot.append((r, c))
    if problems:
        fail("; ".join(problems[:8]) + (f" (and {len(problems) - 8} more)" if len(problems) > 8 else ""))
    scale = f"1e{abs(low) if abs(low) < 5e-3 else low:.2f} to 1e{high:.2f}"
    cells = (f"{int((matrix > 0).sum())} cells of {svg.chart_title} in Viridis at log10(bytes) on the colour "
             f"bar's scale ({scale})")
    if h5_path:
        print(f"heatmap ok: {cells}, {int((matrix == 0).sum())} empty cells empty")
        return
    if hot != [HOT]:
        fail(f"hot cells by the matrix {hot}, expected exactly {[HOT]}")
    half_x, half_y = abs(x_of(1) - x_of(0)) / 2, abs(y_of(1) - y_of(0)) / 2
    x0, x1 = (int((x_of(HOT[1]) - left + s * half_x) * sx) for s in (-1, 1))
    y0, y1 = (int((y_of(HOT[0]) - top + s * half_y) * sy) for s in (-1, 1))
    inside = check_hot_region(pixels, (x0, x1, y0, y1))
    print(f"heatmap ok: {cells}, empty diagonal, one hot cell {HOT} ({inside} pixels, none elsewhere)")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        write(sys.argv[2])
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "check":
        check(*sys.argv[2:])
    else:
        fail("usage: check_report_heatmap.py write DIR/NAME | check DOM.html [RUN.h5]")
