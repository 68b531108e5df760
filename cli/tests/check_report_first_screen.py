#!/usr/bin/env python3
"""What a person sees first in `mpimon report` of a run (report_first_screen_test.sh), checked
against the HDF5 file read with h5py, brute-force sums and docs/defects.md, never against mpimon's
own numbers:

    check_report_first_screen.py DOM.html FIRST_SCREEN.png RUN.h5 DEFECTS.md NODE_SIZE PLACE.json EXPECTED_DEFECT...
    check_report_first_screen.py prediction DOM.html RUN.h5 AxBxC RATE_BPS LATENCY_S [PLACE.json]
    check_report_first_screen.py no-prediction DOM.html

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
  cell, in the matrix's part of the screen;
- prediction: the placement's predicted communication time of the chosen mapping and of packed, the
  ratio and the seconds saved, as the page states them, equal the time model of docs/placement.md
  as check_time_model.py writes it from its definition (the nodes' links of RATE_BPS and LATENCY_S
  on the machine AxBxC, the levels inside a node free) on the matrices and size histograms read
  with h5py, for the mapping place wrote (the
  report's input data, or PLACE.json); with PLACE.json, also its predicted_seconds of both;
- no-prediction: a result without links says how to get them, and predicts nothing.
"""

import html
import json
import os
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


SECONDS = r"([\d.,]+) (s|ms|µs)"


def seconds_of(number, unit):
    return float(number.replace(",", "")) * {"s": 1, "ms": 1e-3, "µs": 1e-6}[unit]


def close(shown, value, what, relative=0.006):
    """The page writes three significant digits: within rounding of the value."""
    if abs(shown - value) > relative * abs(value) + 1e-12:
        fail(f"{what}: the page says {shown:.6g}, the independent value is {value:.6g}")


def modelled_seconds(h5, mapping, arity, rate, latency):
    """docs/placement.md's time model as check_time_model.py recomputes it from the matrices and
    histograms h5py reads: the nodes' links of RATE bit/s and LATENCY s, the levels inside a node free."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from check_time_model import flows, predict
    traffic, ranks = flows(h5)
    inside = [0.0] * (len(arity) - 1)
    bandwidth, latency_part = predict(traffic, ranks, arity, [rate] + inside, [latency] + inside, mapping)
    return bandwidth + latency_part


def page_data(dom):
    data = re.search(r'<script id="report-data" type="application/json">(.*?)</script>', dom, re.S)
    if not data:
        fail("no report-data in the page")
    return json.loads(data.group(1))  # as make_report.py wrote it (its "<\/" is JSON for "</")


def check_prediction(dom_path, h5, topology, rate, latency, place_path=None):
    """The placement section's predicted time against the model computed here (see the docstring)."""
    dom = open(dom_path, encoding="utf-8").read()
    if 'data-render="ok"' not in dom:
        fail("the page did not finish drawing (body data-render is not ok)")
    section = re.search(r'id="placement-section-0">(.*?)</section>', dom, re.S)
    if not section:
        fail("no placement section")
    line = re.search(r'class="prediction">(.*?)</p>', section.group(1), re.S)
    if not line:
        fail("the placement section states no prediction")
    words = text_of(line.group(1))
    said = re.fullmatch(r"(\w+): predicted communication time " + SECONDS + r", ([\d.]+) x packed \(" + SECONDS +
                        r"\): " + SECONDS + r" saved per run of the recorded traffic \(modelled: a prediction, not a "
                        r"measurement; links (.*)\)\.", words)
    if not said:
        fail(f"the prediction does not read 'M: predicted communication time T, R x packed (P): S saved per run "
             f"of the recorded traffic (modelled: ...; links ...)': {words}")
    method, chosen_s, ratio, packed_s, saved = (said.group(1), seconds_of(*said.group(2, 3)), float(said.group(4)),
                                                 seconds_of(*said.group(5, 6)), seconds_of(*said.group(7, 8)))
    placement = next(s for s in page_data(dom)["sections"] if s["kind"] == "placement")
    if method != placement["chosen"]:
        fail(f"the prediction is of {method}, the result chose {placement['chosen']}")
    mapping = next(m["mapping"] for m in placement["methods"] if m["method"] == method)
    if place_path:
        place = json.load(open(place_path, encoding="utf-8"))
        if place["chosen"] != method:
            fail(f"the page predicts {method}, {place_path} chose {place['chosen']}")
        rows = {m["method"]: m for m in place["methods"]}
        mapping = rows[method]["mapping"]
        close(chosen_s, rows[method]["predicted_seconds"], f"{method}'s predicted time against {place_path}")
        close(packed_s, rows["packed"]["predicted_seconds"], f"packed's predicted time against {place_path}")
    arity = [int(a) for a in topology.split("x")]
    expected_chosen = modelled_seconds(h5, mapping, arity, rate, latency)
    expected_packed = modelled_seconds(h5, list(range(len(mapping))), arity, rate, latency)
    if place_path:
        close(rows[method]["predicted_seconds"], expected_chosen, f"{place_path}: {method}'s predicted_seconds", 1e-9)
        close(rows["packed"]["predicted_seconds"], expected_packed, f"{place_path}: packed's predicted_seconds", 1e-9)
    close(chosen_s, expected_chosen, f"{method}'s predicted time")
    close(packed_s, expected_packed, "packed's predicted time")
    close(ratio, expected_chosen / expected_packed, "the ratio to packed", 0.01)
    close(saved, expected_packed - expected_chosen, "the seconds saved")
    if not saved > 0:
        fail(f"the chosen mapping saves no time on the scrambled halo: {words}")
    link = re.search(r"below level 0 (\S+),", said.group(9))
    if not link:
        fail(f"the prediction does not give the nodes' links: {words}")
    return (f"prediction ok: {method} {expected_chosen:.4g} s, packed {expected_packed:.4g} s, "
            f"{expected_packed - expected_chosen:.3g} s saved (links {link.group(1)})")


def check_no_prediction(dom_path):
    dom = open(dom_path, encoding="utf-8").read()
    section = re.search(r'id="placement-section-0">(.*?)</section>', dom, re.S)
    if not section:
        fail("no placement section")
    line = re.search(r'class="prediction">(.*?)</p>', section.group(1), re.S)
    words = text_of(line.group(1)) if line else ""
    for needed in ("No predicted time", "--link RATE,LATENCY", "--links FILE", "mpimon probe", "--hostfile"):
        if needed not in words:
            fail(f"without links the placement section does not say '{needed}': {words or 'no prediction line'}")
    if "predicted communication time" in text_of(section.group(1)):
        fail("a result without links states a predicted time")
    return "no-prediction ok: the section says how to give the links"


def main():
    if sys.argv[1] == "prediction":
        print(check_prediction(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6]),
                               sys.argv[7] if len(sys.argv) > 7 else None))
        return
    if sys.argv[1] == "no-prediction":
        print(check_no_prediction(sys.argv[2]))
        return
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
