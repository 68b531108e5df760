#!/usr/bin/env python3
"""Assembles the self-contained HTML report of `mpimon report` (docs/report.md): the template
analysis/report/report.html, the script report.js, the charting library plotly.js (npm package
plotly.js-dist-min, installed into analysis/report/node_modules by ci/install-deps.sh) and the data,
all inlined, so the page opens from disk with no network. They are read from mpimon's data
directory (PREFIX/share/mpimon, staged in the build tree by the build): report/ (the template, the
script, node_modules/plotly.js-dist-min) and docs/defects.md.

    make_report.py --data-dir DIR --output OUT.html [--matrices VIEW.json --facts FACTS.json]...
                   [--overhead R.h5]... [--apps A.h5]... [--validate V.json]... [--place P.json]...

VIEW.json is what `mpimon report` writes for a matrices file (the view of docs/plots.md), FACTS.json
what the file says of its run and the known defects its content can show (harness/report_data.hpp),
one --facts after each --matrices. Results
files are read with h5py. Needs python3-h5py and python3-numpy for results files only.
"""

import argparse
import datetime
import json
import os
import re
import sys

# The one reader of results files (mpimon_results.py, beside this script).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpimon_results import read_table, text  # noqa: E402


def finite(value):
    import math
    value = float(value)
    return value if math.isfinite(value) else None


def provenance(path, config):
    return (f"{os.path.basename(path)}: {config.get('mpi_library', '?')}; {config.get('pairs', '?')} launch pairs, "
            f"{config.get('iterations', '?')} iterations; host {config.get('host', '?')} ({config.get('cpus', '?')} CPUs)")


def overhead_section(path):
    """Fig. 1 (relative overhead per op over size x np) and Fig. 2 (difference with its CI) as data."""
    import numpy as np
    table, config, _ = read_table(path, "analysis")
    fig1, fig2 = [], []
    for transport in sorted(set(table["transport"])):
        for arm in sorted(set(table["arm"][table["transport"] == transport])):
            rows = (table["transport"] == transport) & (table["arm"] == arm)
            sizes = sorted(set(table["size"][rows].tolist()))
            nps = sorted(set(table["np"][rows].tolist()))
            relative = 100 * table["relative"][rows]
            shown = relative[np.isfinite(relative)]
            limit = max(1.0, float(np.percentile(np.abs(shown), 95))) if shown.size else 1.0
            ops = []
            for op in sorted(set(table["op"][rows])):
                z = [[None] * len(sizes) for _ in nps]
                for i in np.flatnonzero(rows & (table["op"] == op)):
                    z[nps.index(table["np"][i])][sizes.index(table["size"][i])] = finite(100 * table["relative"][i])
                ops.append({"op": op, "z": z})
                series = []
                for n in nps:
                    picked = sorted(np.flatnonzero(rows & (table["op"] == op) & (table["np"] == n)),
                                    key=lambda i: table["size"][i])
                    diff = [finite(table["difference_ns"][i]) for i in picked] if "difference_ns" in table else []
                    low = [finite(table["difference_ns"][i] - table["difference_ci_low_ns"][i]) for i in picked]
                    high = [finite(table["difference_ci_high_ns"][i] - table["difference_ns"][i]) for i in picked]
                    series.append({"np": int(n), "size": [max(1, int(table["size"][i])) for i in picked],
                                   "difference": diff, "low": low, "high": high})
                fig2.append({"title": f"{op}, {transport}, {arm}", "series": series})
            fig1.append({"title": f"{transport}, {arm}", "sizes": [int(s) for s in sizes],
                         "nps": [int(n) for n in nps], "limit": limit, "ops": ops})
    return {"kind": "overhead", "file": path, "provenance": provenance(path, config), "fig1": fig1, "fig2": fig2}


TABLE1_COLUMNS = ["app", "np", "pairs", "off_median_s", "on_median_s", "relative", "relative_ci_low",
                  "relative_ci_high", "messages_per_process", "bytes_per_process", "significant"]


def apps_section(path):
    table, config, _ = read_table(path, "analysis")
    columns = [c for c in TABLE1_COLUMNS if c in table]
    rows = []
    for i in range(len(table[columns[0]]) if columns else 0):
        row = []
        for c in columns:
            value = table[c][i]
            kind = getattr(value, "dtype", None)
            if isinstance(value, (str, bytes)) or (kind is not None and kind.kind in "USO"):
                row.append(text(value))
            elif kind is not None and kind.kind in "iub":
                row.append(int(value))
            else:
                row.append(finite(value))
        rows.append(row)
    return {"kind": "table", "title": "Application results (Table 1): " + os.path.basename(path),
            "note": provenance(path, config) + "; relative = on / off − 1 of the medians' pairs",
            "header": columns, "rows": rows}


def validate_section(path, report):
    cases = report.get("cases", [])
    rows = [[c.get("case", ""), c.get("np", 0), c.get("pml_monitoring_enable", 0), c.get("outcome", ""),
             "yes" if c.get("expected") else "NO", c.get("defect", ""), c.get("defect_present_on", ""),
             c.get("summary", "")] for c in cases]
    return {"kind": "table", "title": "Validation (mpimon validate --json): " + os.path.basename(path),
            "note": f"{report.get('mpi_library', '?')}; defects expected as on {report.get('defects_expected_as_on', '?')}; "
                    f"{len(cases)} cases",
            "header": ["case", "np", "enable", "outcome", "expected", "defect", "defect present on", "summary"],
            "rows": rows}


def place_section(path, report):
    """A placement result (mpimon place --json, or `mpimon report --topology`): the chosen mapping's
    traffic between nodes and sockets against packed, each method's cost, and, where the result has
    the links (predicted_seconds), the predicted communication times."""
    if report.get("format") != "mpimon-placement" or "methods" not in report:
        sys.exit(f"{path}: not a placement result (mpimon place --json: format mpimon-placement)")
    methods = [m for m in report["methods"] if "cost" in m]
    return {"kind": "placement", "file": report.get("file", ""), "dump": report.get("dump", ""),
            "ranks": report.get("ranks"), "topology": report.get("topology", {}), "model": report.get("model", ""),
            "classes": report.get("classes", ""), "metric": report.get("metric", "bytes"),
            "chosen": report.get("chosen", ""), "methods": methods, "objective": report.get("objective", "hop-bytes"),
            "links": report.get("links", []), "links_source": report.get("links_source"),
            "time_model": report.get("time_model"),
            "unavailable": [[m["method"], m["unavailable"]] for m in report["methods"] if "unavailable" in m]}


def read_defects(data_dir):
    """The pinned defects table of docs/defects.md: id, defect, status on 4.1.4 and 5.0.7."""
    defects = []
    with open(os.path.join(data_dir, "docs", "defects.md"), encoding="utf-8") as doc:
        for line in doc:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 5 and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", cells[0]):
                strip = lambda s: re.sub(r"[`*]", "", s)
                defects.append({"id": cells[0], "defect": strip(cells[1]), "v414": strip(cells[2]),
                                "v507": strip(cells[3])})
    return defects


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--title", default="mpimon report")
    for kind in ("matrices", "facts", "overhead", "apps", "validate", "place"):
        parser.add_argument("--" + kind, action="append", default=[])
    parser.add_argument("--inputs", default="", help="the names the user gave, for the page")
    args = parser.parse_args()
    report_dir = os.path.join(args.data_dir, "report")
    library = os.path.join(report_dir, "node_modules", "plotly.js-dist-min")
    try:
        with open(os.path.join(library, "plotly.min.js"), encoding="utf-8") as source:
            plotly = source.read()
        with open(os.path.join(library, "package.json"), encoding="utf-8") as source:
            plotly_version = json.load(source)["version"]
    except OSError as missing:
        sys.exit(f"make_report.py: {missing}: the charting library is missing; run ci/install-deps.sh "
                 f"(it runs npm ci in analysis/report)")
    if len(args.facts) != len(args.matrices):
        sys.exit("make_report.py: one --facts after each --matrices")
    sections = []
    for path, facts in zip(args.matrices, args.facts):
        with open(path, encoding="utf-8") as source:
            sections.append(json.load(source))
        with open(facts, encoding="utf-8") as source:
            sections[-1]["facts"] = json.load(source)
    sections += [overhead_section(p) for p in args.overhead]
    sections += [apps_section(p) for p in args.apps]
    for path in args.validate:
        with open(path, encoding="utf-8") as source:
            sections.append(validate_section(path, json.load(source)))
    for path in args.place:
        with open(path, encoding="utf-8") as source:
            sections.append(place_section(path, json.load(source)))
    data = json.dumps({"sections": sections, "defects": read_defects(args.data_dir)}, separators=(",", ":"))
    data = data.replace("</", "<\\/")  # the JSON sits inside a <script> element
    with open(os.path.join(report_dir, "report.html"), encoding="utf-8") as source:
        page = source.read()
    with open(os.path.join(report_dir, "report.js"), encoding="utf-8") as source:
        script = source.read()
    import html
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = page.replace("@TITLE@", html.escape(args.title))
    for key, value in (("@WHEN@", when),
                       ("@INPUTS@", html.escape(args.inputs)), ("@PLOTLY_VERSION@", plotly_version),
                       ("@DATA@", data), ("@REPORT_JS@", script), ("@PLOTLY@", plotly)):
        page = page.replace(key, value, 1)  # the library last: its text is never searched for markers
    with open(args.output, "w", encoding="utf-8") as out:
        out.write(page)


if __name__ == "__main__":
    main()
