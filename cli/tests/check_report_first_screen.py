#!/usr/bin/env python3
"""What a person sees first in `mpimon report` of a run (report_first_screen_test.sh), checked
against the HDF5 file read with h5py, brute-force sums and docs/defects.md, never against mpimon's
own numbers:

    check_report_first_screen.py DOM.html FIRST_SCREEN.png RUN.h5 DEFECTS.md NODE_SIZE PLACE.json EXPECTED_DEFECT...

- the run's summary (processes, classes), its matrix, its placement, the defects and the details
  come in that order; the summary's class totals are the file's;
- the placement compares with packed the traffic between nodes that a brute-force sum over the
  matrix gives for packed (rank r on node r // NODE_SIZE), and gives the chosen mapping's as the
  same sum for the mapping of the method PLACE.json (mpimon place --json) chose: rank r on node
  mapping[r] // NODE_SIZE; it is lower than packed's;
- unfolded: exactly EXPECTED_DEFECT...; every defect of docs/defects.md's table inside one closed
  <details>; communicator records without collective traffic folded into one line with their count;
- the first screen (a screenshot of the top of the page) shows the matrix: many pixels of the
  Viridis colour (matplotlib's, an independent implementation of the scale) of the run's typical
  cell, in the matrix's part of the screen.
"""

import html
import re
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def text_of(fragment):
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def read_run(path):
    import h5py
    import numpy as np
    with h5py.File(path, "r") as f:
        dump = next(iter(f.keys()))
        d = f[dump]
        n = int(d.attrs["nprocs"])
        classes = {c: (int(d[c]["count"][()].sum()), int(d[c]["bytes"][()].sum()))
                   for c in ("external", "internal", "osc_sent", "osc_recv", "coll")}
        traffic = (d["external"]["bytes"][()] + d["internal"]["bytes"][()]).astype(np.uint64)
        comms = d["communicators"]
        records = comms["records"][()] if "records" in comms else np.zeros((0, 8), np.uint64)
        names = len(comms["names"][()]) if "names" in comms else 0
    idle = sum(1 for c in range(names) if not records[records[:, 0] == c][:, 2:].any())
    return n, classes, traffic, idle


def check_order(dom):
    marks = ['id="summary-0"', 'id="heatmap-0"', 'id="placement-section-0"', 'id="defects"', 'id="talkers-0"']
    at = [dom.find(m) for m in marks]
    for mark, where in zip(marks, at):
        if where < 0:
            fail(f"no element {mark} in the rendered page")
    if at != sorted(at):
        fail("the page's order is not summary, matrix, placement, defects, details: " + str(list(zip(marks, at))))


def check_summary(dom, n, classes):
    summary = re.search(r'id="summary-0">(.*?)</div>', dom, re.S)
    if not summary:
        fail("no summary")
    words = text_of(summary.group(1))
    if f"{n} processes" not in words:
        fail(f"the summary does not say {n} processes: {words[:200]}")
    shown = {}
    for row in re.findall(r"<tr>(.*?)</tr>", summary.group(1), re.S)[1:]:
        cells = [text_of(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        shown[cells[0]] = (int(cells[1].replace(",", "")), int(cells[2].replace(",", "")))
    wanted = {c: v for c, v in classes.items() if v != (0, 0)}
    if shown != wanted:
        fail(f"summary classes {shown}, the file has {wanted}")


def between_nodes(traffic, node):
    """Bytes sent between ranks on different nodes: node[r] is rank r's node."""
    return int(traffic[node[:, None] != node[None, :]].sum())


def chosen_nodes(place_json, node_size):
    """Each rank's node under the mapping of the method place.json chose (its leaf // NODE_SIZE)."""
    import json
    import numpy as np
    place = json.load(open(place_json, encoding="utf-8"))
    topology = place["topology"]
    if topology["leaves"] // topology["nodes"] != node_size:
        fail(f"{place_json}: {topology['leaves']} leaves on {topology['nodes']} nodes, not {node_size} per node")
    chosen = [m for m in place["methods"] if m["method"] == place["chosen"]]
    if len(chosen) != 1 or "mapping" not in chosen[0]:
        fail(f"{place_json}: no mapping of the chosen method {place['chosen']!r}")
    return np.array(chosen[0]["mapping"]) // node_size


def check_placement(dom, traffic, node_size, place_json):
    import numpy as np
    section = re.search(r'id="placement-section-0">(.*?)</section>', dom, re.S)
    if not section:
        fail("no placement section")
    if 'class="placement' not in section.group(1) or "main-svg" not in section.group(1):
        fail("the placement section has no chart")
    packed = between_nodes(traffic, np.arange(traffic.shape[0]) // node_size)
    chosen = between_nodes(traffic, chosen_nodes(place_json, node_size))
    verdict = text_of(re.search(r'class="verdict">(.*?)</p>', section.group(1), re.S).group(1))
    change = re.search(r"traffic between nodes -\d+ % \(([\d,]+) → ([\d,]+) bytes\)", verdict)
    if not change:
        fail(f"the verdict does not give the traffic between nodes going down: {verdict}")
    before, after = (int(x.replace(",", "")) for x in change.groups())
    if before != packed:
        fail(f"packed's traffic between nodes: page {before}, brute force over the matrix {packed}")
    if after != chosen:
        fail(f"the chosen mapping's traffic between nodes: page {after}, brute force over the matrix and "
             f"the mapping of place --json {chosen}")
    if not after < before:
        fail(f"the chosen mapping does not lower the traffic between nodes: {verdict}")


def check_defects(dom, defects_md, expected):
    ids = set()
    for line in open(defects_md, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", cells[0]):
            ids.add(cells[0])
    box = re.search(r'id="defects">(.*?)</section>', dom, re.S).group(1)
    folded = re.search(r'<details id="defects-all"( open)?>(.*?)</details>', box, re.S)
    if not folded or folded.group(1):
        fail("the known defects are not folded in one closed <details id=\"defects-all\">")
    unfolded = box.replace(folded.group(0), "")
    shown = set(re.findall(r"<strong>([a-z0-9-]+): </strong>", unfolded))
    if shown != set(expected):
        fail(f"unfolded defects {sorted(shown)}, expected exactly {sorted(expected)}")
    inside = set(re.findall(r'<li id="defect-([a-z0-9-]+)">', folded.group(2)))
    if inside != ids:
        fail(f"folded defects {sorted(inside)}, docs/defects.md lists {sorted(ids)}")


def check_communicators(dom, idle):
    if idle == 0:
        return
    line = re.search(r'<details class="idle-communicators"[^>]*><summary>(.*?)</summary>', dom, re.S)
    if not line or not text_of(line.group(1)).startswith(f"{idle} communicator record"):
        fail(f"{idle} communicator records without collective traffic are not folded into one line: "
             f"{line.group(1) if line else 'no such line'}")


def check_first_screen(png, traffic):
    import matplotlib
    import matplotlib.image as image
    import numpy as np
    pixels = image.imread(png)[..., :3]
    cells = traffic[traffic > 0].astype(float)
    top = np.ceil(np.log10(cells.max()) + 1e-9)  # the colour bar's top decade, as the page scales it
    typical = matplotlib.colormaps["viridis"](np.log10(np.median(cells)) / top)[:3]
    close = np.linalg.norm(pixels - np.array(typical), axis=2) < 0.12
    matrix_part = close[:, : pixels.shape[1] // 2]
    needed = int((traffic > 0).sum() // 2) * 100  # half the run's cells, of at least 10 x 10 pixels
    if matrix_part.sum() < needed:
        fail(f"the first screen shows {int(matrix_part.sum())} pixels of the matrix's typical colour "
             f"{np.round(typical, 2)}, fewer than {needed}: the matrix is not above the fold")
    return int(matrix_part.sum())


def main():
    dom_path, png, h5, defects_md, node_size, place_json = sys.argv[1:7]
    expected = sys.argv[7:]
    dom = open(dom_path, encoding="utf-8").read()
    if 'data-render="ok"' not in dom:
        fail("the page did not finish drawing (body data-render is not ok)")
    n, classes, traffic, idle = read_run(h5)
    check_order(dom)
    check_summary(dom, n, classes)
    check_placement(dom, traffic, int(node_size), place_json)
    check_defects(dom, defects_md, expected)
    check_communicators(dom, idle)
    seen = check_first_screen(png, traffic)
    print(f"first screen ok: summary and matrix above the fold ({seen} matrix pixels), placement present, "
          f"unfolded defects {expected}, {idle} idle communicator records folded")


if __name__ == "__main__":
    main()
