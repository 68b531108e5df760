#!/usr/bin/env python3
"""Checks what a browser showed of an mpimon report against the HDF5 file, read with h5py (an
independent reader), and that images are not blank. Used by report_test.sh.

    check_report.py dom DOM.html MATRICES.h5     # talkers table and heatmap hover text vs the file
    check_report.py image FILE.png...            # each image's pixels are not all equal
    check_report.py table1 DOM.html TABLE1.csv   # the page's Table 1 vs mpimon show --csv
    check_report.py csv NEW.csv COMMITTED.csv RTOL  # the committed CSV's columns, numbers within RTOL
"""

import html
import json
import re
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def read_class(group, n, np):
    if isinstance(group, __import__("h5py").Dataset):
        return group[()].astype(np.uint64)
    dense = np.zeros((n, n), np.uint64)
    indptr, indices, data = group["indptr"][()], group["indices"][()], group["data"][()]
    for row in range(n):
        dense[row, indices[indptr[row]:indptr[row + 1]]] = data[indptr[row]:indptr[row + 1]]
    return dense


def check_dom(dom_path, h5_path):
    import h5py
    import numpy as np
    dom = open(dom_path, encoding="utf-8").read()
    if 'data-render="ok"' not in dom:
        fail("the page did not finish drawing (body data-render is not ok)")
    # Elements by class token: plotly adds its own classes ("heatmap js-plotly-plot") once it drew.
    for token in ("heatmap", "histogram", "main-svg", "talkers"):
        if not re.search(r'class="(?:[^"]* )?' + token + r'(?: [^"]*)?"', dom):
            fail(f'no element of class "{token}" in the rendered page')
    with h5py.File(h5_path, "r") as f:
        dump = next(iter(f.keys()))
        n = int(f[dump].attrs["nprocs"])
        matrix = {m: read_class(f[dump]["external"][m], n, np) + read_class(f[dump]["internal"][m], n, np)
                  for m in ("bytes", "count")}
    # The talkers table as the browser shows it: sender, receiver, bytes, messages.
    table = re.search(r'<table class="talkers" id="talkers-0">(.*?)</table>', dom, re.S)
    if not table:
        fail("no talkers table")
    rows = re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S)[1:]
    if not rows:
        fail("empty talkers table")
    for row in rows:
        cells = [int(c.replace(",", "")) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        sender, receiver, shown_bytes, shown_messages = cells
        expected = (int(matrix["bytes"][sender, receiver]), int(matrix["count"][sender, receiver]))
        if (shown_bytes, shown_messages) != expected:
            fail(f"talker {sender}->{receiver}: page shows {shown_bytes} B, {shown_messages} msgs; file has {expected}")
    # The hover text of the first heatmap (the first class view) for its busiest cells.
    hover = re.search(r'id="heatmap-0"[^>]*data-hover="([^"]*)"', dom) or re.search(
        r'data-hover="([^"]*)"[^>]*id="heatmap-0"', dom)
    if not hover:
        fail("no data-hover on the first heatmap")
    cells = json.loads(html.unescape(hover.group(1)))
    with h5py.File(h5_path, "r") as f:
        dump = next(iter(f.keys()))
        first_class = next(c for c in ("external", "internal", "osc_sent", "osc_recv", "coll")
                           if read_class(f[dump][c]["count"], n, np).any())
        views = {m: read_class(f[dump][first_class][m], n, np) for m in ("bytes", "count")}
    for row, column, text in cells:
        numbers = dict(re.findall(r"(sender|receiver|bytes|messages) ([\d,]+)", text))
        got = {k: int(v.replace(",", "")) for k, v in numbers.items()}
        want = {"sender": row, "receiver": column, "bytes": int(views["bytes"][row, column]),
                "messages": int(views["count"][row, column])}
        if got != want:
            fail(f"hover text '{text}' of class {first_class}: file says {want}")
    print(f"dom ok: {len(rows)} talkers and {len(cells)} hovered cells equal the file's ({first_class})")


def check_images(paths):
    import matplotlib.image as image
    import numpy as np
    for path in paths:
        pixels = image.imread(path)
        if float(np.ptp(pixels[..., :3])) == 0.0:
            fail(f"{path}: every pixel is the same colour")
        distinct = len(np.unique(pixels[..., :3].reshape(-1, 3), axis=0))
        if distinct < 16:
            fail(f"{path}: only {distinct} colours")
    print(f"images ok: {len(paths)}")


def check_csv(new_path, committed_path, rtol):
    """Every column of the committed CSV (a newer mpimon adds columns), row for row: text equal,
    numbers equal within the relative tolerance rtol."""
    import csv
    new = list(csv.DictReader(open(new_path, encoding="utf-8")))
    old = list(csv.DictReader(open(committed_path, encoding="utf-8")))
    if len(new) != len(old):
        fail(f"{len(new)} rows, {committed_path} has {len(old)}")
    for i, (a, b) in enumerate(zip(new, old)):
        for column, want in b.items():
            got = a.get(column)
            try:
                close = abs(float(got) - float(want)) <= rtol * abs(float(want))
            except (TypeError, ValueError):
                close = got == want
            if not close:
                fail(f"row {i + 2} {column}: {got}, {committed_path} has {want}")
    print(f"csv ok: {len(old)} rows x {len(old[0]) if old else 0} columns")


def check_table1(dom_path, csv_path):
    """Every row of the committed Table 1 CSV is shown in the page, each number as the page rounds it
    (toLocaleString: at most 3 decimals, thousands separators)."""
    import csv
    dom = open(dom_path, encoding="utf-8").read()
    if 'data-render="ok"' not in dom:
        fail("the page did not finish drawing (body data-render is not ok)")
    shown = None
    for table in re.findall(r"<table[^>]*>(.*?)</table>", dom, re.S):
        header = [html.unescape(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
        if header[:3] == ["app", "np", "pairs"]:
            rows = [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
                    for r in re.findall(r"<tr>(.*?)</tr>", table, re.S)]
            shown = (header, [r for r in rows if r])
    if not shown:
        fail("no Table 1 (a table whose header starts with app, np, pairs) in the page")
    header, rows = shown
    expected = list(csv.DictReader(open(csv_path, encoding="utf-8")))
    if len(rows) != len(expected):
        fail(f"the page shows {len(rows)} rows of Table 1, {csv_path} has {len(expected)}")
    for row, want in zip(rows, expected):
        for column, cell in zip(header, row):
            if column == "app":
                if cell != want["app"]:
                    fail(f"app: page {cell}, csv {want['app']}")
                continue
            value = float(cell.replace(",", "")) if cell not in ("", "null") else None
            wanted = float(want[column]) if want[column] != "" else None
            if (value is None) != (wanted is None) or (value is not None and abs(value - wanted) > 5e-4 + 1e-9 * abs(wanted)):
                fail(f"{want['app']} np {want['np']} {column}: page shows {cell}, {csv_path} has {want[column]}")
    print(f"table1 ok: {len(rows)} rows x {len(header)} columns equal the CSV")


if __name__ == "__main__":
    if sys.argv[1] == "dom":
        check_dom(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "csv":
        check_csv(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    elif sys.argv[1] == "table1":
        check_table1(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "image":
        check_images(sys.argv[2:])
    else:
        fail("usage: check_report.py dom|image|table1|csv ...")
