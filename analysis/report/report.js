// Draws the sections of an mpimon report from the JSON in #report-data (docs/report.md).
// Every chart is plotly.js, inlined into the page by make_report.py.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const sections = document.getElementById("sections");
  const format = (n) => Number(n).toLocaleString("en-US");

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attributes || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function table(header, rows, className) {
    const t = element("table", className ? { class: className } : {});
    const head = element("tr");
    header.forEach((h, i) => head.appendChild(element("th", i === 0 ? { class: "text" } : {}, h)));
    t.appendChild(head);
    rows.forEach((row) => {
      const tr = element("tr");
      row.forEach((cell, i) => {
        const td = element("td", typeof cell === "number" ? {} : { class: "text" },
                           typeof cell === "number" ? format(cell) : String(cell));
        tr.appendChild(td);
      });
      t.appendChild(tr);
    });
    return t;
  }

  function section(title) {
    const s = element("section");
    s.appendChild(element("h2", {}, title));
    sections.appendChild(s);
    return s;
  }

  function bucketLabel(k) {
    if (k === 0) return "0 B";
    const low = Math.pow(2, k - 1);
    for (const [unit, size] of [["GiB", 1 << 30], ["MiB", 1 << 20], ["KiB", 1 << 10]]) {
      if (low >= size) return (low / size) + " " + unit;
    }
    return low + " B";
  }

  // --- matrices --------------------------------------------------------------------------------
  function heatmapTrace(m, view, metric) {
    const side = m.side, block = m.block;
    const z = [], hover = [];
    for (let i = 0; i < side; i++) { z.push(new Array(side).fill(null)); hover.push(new Array(side).fill("")); }
    const other = metric === "bytes" ? "count" : "bytes";
    const otherValue = new Map(view[other].map(([r, c, v]) => [r * side + c, v]));
    for (const [r, c, v] of view[metric]) {
      z[r][c] = Math.log10(v);
      const bytes = metric === "bytes" ? v : otherValue.get(r * side + c) || 0;
      const messages = metric === "count" ? v : otherValue.get(r * side + c) || 0;
      const who = "sender " + r + "<br>receiver " + c + "<br>";
      hover[r][c] = (block > 1 ? "senders " + (r * block) + "–" + (Math.min(m.nprocs, (r + 1) * block) - 1) +
                     "<br>receivers " + (c * block) + "–" + (Math.min(m.nprocs, (c + 1) * block) - 1) + "<br>"
                               : who) +
                    "bytes " + format(bytes) + "<br>messages " + format(messages);
    }
    const positions = [...Array(side).keys()];
    const values = view[metric].map((x) => x[2]);
    const top = values.length ? Math.ceil(Math.log10(Math.max(...values)) + 1e-9) : 1;
    const ticks = [...Array(Math.max(top, 1) + 1).keys()];
    return {
      type: "heatmap", z: z, x: positions, y: positions, text: hover, hoverinfo: "text",
      colorscale: "Viridis", zmin: 0, zmax: Math.max(top, 1), xgap: side <= 64 ? 1 : 0, ygap: side <= 64 ? 1 : 0,
      colorbar: { title: { text: (metric === "bytes" ? "bytes" : "messages") + (block > 1 ? " per block" : "") +
                  "<br>(log)" }, tickvals: ticks, ticktext: ticks.map((t) => "1e" + t) },
    };
  }

  // --- a matrices file: the run first (summary, matrix), its details later ---------------------
  function runSummary(m, index) {
    const f = m.facts || { classes: [], monitoring_components: [], open_mpi_version: "" };
    const box = element("div", { class: "summary", id: "summary-" + index });
    const components = f.monitoring_components.length ? f.monitoring_components.join(", ") : "not recorded";
    box.appendChild(element("p", {}, m.nprocs + " processes (" + m.ranks_present + " wrote a dump); " +
      (f.open_mpi_version ? "Open MPI " + f.open_mpi_version : "Open MPI version not recorded") +
      ", monitoring components: " + components + "; internal traffic " +
      (m.internal_distinguished ? "told apart (pml_monitoring_enable 2)" : "not told apart")));
    const used = f.classes.filter((c) => c.messages > 0 || c.bytes > 0);
    const empty = f.classes.filter((c) => !(c.messages > 0 || c.bytes > 0)).map((c) => c.name);
    if (used.length) {
      box.appendChild(table(["class", "messages", "bytes", "pairs"], used.map((c) => [c.name, c.messages, c.bytes, c.pairs]),
                            "classes"));
    }
    if (empty.length) box.appendChild(element("p", { class: "provenance" }, "No traffic recorded in: " + empty.join(", ")));
    const top = m.talkers.slice(0, 3).map(([from, to, bytes, messages]) =>
      from + " → " + to + ": " + format(bytes) + " B in " + format(messages) + " messages");
    box.appendChild(element("p", {}, top.length ? "Top talkers (point-to-point): " + top.join("; ") +
                                      (m.talkers.length > 3 ? " (more below)" : "")
                                    : "No point-to-point traffic."));
    return box;
  }

  function drawRun(m, index) {
    const s = section("Run: " + m.file.split("/").pop() + ", dump " + m.dump);
    s.classList.add("run");
    s.id = "run-" + index;
    s.appendChild(runSummary(m, index));
    const controls = element("div", { class: "controls" });
    const viewSelect = element("select", { id: "view-" + index });
    m.views.forEach((v, i) => viewSelect.appendChild(element("option", { value: i }, v.title)));
    const metricSelect = element("select", { id: "metric-" + index });
    metricSelect.appendChild(element("option", { value: "bytes" }, "bytes"));
    metricSelect.appendChild(element("option", { value: "count" }, "messages"));
    controls.append("Matrix: ", viewSelect, "  Metric: ", metricSelect,
                    "  (hover a cell for its numbers; drag to zoom, double-click to reset)");
    s.appendChild(controls);
    const row = element("div", { class: "row" });
    const heat = element("div", { class: "heatmap", id: "heatmap-" + index });
    const hist = element("div", { class: "histogram", id: "histogram-" + index });
    row.append(heat, hist);
    s.appendChild(row);
    s.appendChild(element("p", { class: "provenance" },
      m.source_files + " source files, format version " + m.format_version + ", written by " + m.generator +
      (m.block > 1 ? ". Drawn as blocks of " + m.block + " x " + m.block + " ranks (" + m.side + " x " + m.side +
                     " blocks), summed from the sparse matrix." : ".")));
    const axis = (title) => ({ title: { text: title + (m.block > 1 ? " (block)" : "") }, constrain: "domain" });
    function redraw() {
      const view = m.views[Number(viewSelect.value)], metric = metricSelect.value;
      heat.dataset.view = view.name;
      heat.dataset.metric = metric;
      const trace = heatmapTrace(m, view, metric);
      // The hover text of the busiest cells, as an attribute: what a reader (or a test) checks first.
      const busiest = view[metric].slice().sort((a, b) => b[2] - a[2]).slice(0, 20);
      heat.dataset.hover = JSON.stringify(busiest.map(([r, c]) => [r, c, trace.text[r][c].replace(/<br>/g, "; ")]));
      Plotly.react(heat, [trace], {
        title: { text: view.title, font: { size: 14 } }, margin: { t: 40, l: 60, r: 10, b: 50 },
        xaxis: Object.assign(axis("receiver rank"), { side: "bottom" }),
        yaxis: Object.assign(axis("sender rank"), { autorange: "reversed", scaleanchor: "x" }),
      }, { displaylogo: false, responsive: true });
    }
    viewSelect.addEventListener("change", redraw);
    metricSelect.addEventListener("change", redraw);
    redraw();
    const used = m.histogram.map((c, k) => [k, c]).filter(([, c]) => c > 0);
    Plotly.newPlot(hist, [{
      type: "bar", orientation: "h", y: used.map(([k]) => bucketLabel(k)), x: used.map(([, c]) => c),
      hovertemplate: "%{y}: %{x:,} messages<extra></extra>", marker: { color: "#4c72b0" },
    }], {
      title: { text: "Message sizes (all pairs, external + internal)", font: { size: 13 } },
      xaxis: { type: "log", title: { text: "messages (log)" } },
      yaxis: { title: { text: "size bucket (from)" }, autorange: "reversed", type: "category" },
      margin: { t: 40, l: 80, r: 10, b: 50 },
    }, { displaylogo: false });
  }

  function drawDetails(m, index) {
    const s = section("Details: " + m.file.split("/").pop() + ", dump " + m.dump);
    s.appendChild(element("h3", {}, "Top talkers (point-to-point, external + internal)"));
    const talkers = table(["sender", "receiver", "bytes", "messages"], m.talkers, "talkers");
    talkers.id = "talkers-" + index;
    s.appendChild(talkers);
    s.appendChild(element("h3", {}, "Communicators (collective records, summed over ranks)"));
    const active = m.communicators.filter((c) => c.calls > 0 || c.bytes > 0);
    const idle = m.communicators.filter((c) => !(c.calls > 0 || c.bytes > 0));
    if (active.length) {
      s.appendChild(table(["communicator", "members", "calls", "bytes"], active.map((c) => [c.name, c.members, c.calls, c.bytes]),
                          "communicators"));
    } else {
      s.appendChild(element("p", {}, "No collective traffic in this dump."));
    }
    if (idle.length) {
      const names = new Map();
      idle.forEach((c) => names.set(c.name, (names.get(c.name) || 0) + 1));
      const folded = element("details", { class: "idle-communicators", id: "idle-communicators-" + index });
      folded.appendChild(element("summary", {}, idle.length + " communicator record" + (idle.length === 1 ? "" : "s") +
        " with no collective traffic: " + [...names].map(([n, k]) => n + (k > 1 ? " x " + k : "")).join(", ")));
      folded.appendChild(table(["communicator", "members", "calls", "bytes"], idle.map((c) => [c.name, c.members, c.calls, c.bytes])));
      s.appendChild(folded);
    }
  }

  // --- placement: the chosen mapping against packed (ranks in order), as a picture -----------------
  function changeText(what, before, after, unit) {
    const change = before === after ? "unchanged" : before === 0 ? "up from none"
      : (after > before ? "+" : "") + Math.round(100 * (after / before - 1)) + " %";
    return "traffic between " + what + " " + change + " (" + format(before) + " → " + format(after) + " " + unit + ")";
  }

  // "989 ms": three significant digits, in s, ms or µs.
  function formatSeconds(seconds) {
    const a = Math.abs(seconds);
    if (a === 0) return "0 s";
    if (a >= 1000) return format(Math.round(seconds)) + " s";
    if (a >= 1) return seconds.toPrecision(3) + " s";
    if (a >= 1e-3) return (seconds * 1e3).toPrecision(3) + " ms";
    return (seconds * 1e6).toPrecision(3) + " µs";
  }

  // The time model's prediction for the chosen mapping against packed, or how to get one.
  function predictionText(p, packed, chosen) {
    const timed = (m) => m && typeof m.predicted_seconds === "number";
    if (!timed(chosen) || !timed(packed)) {
      return "No predicted time: this result has no links' rates. For the communication time each mapping would take " +
        "and the seconds it saves, give them to mpimon place --json or mpimon report --topology: --link RATE,LATENCY " +
        "once per level, top first (e.g. --link 10gbit,2us for the links between nodes), --links FILE as mpimon probe " +
        "measures them on the machine, or --hostfile of an mpimon cluster (its links' rate).";
    }
    const c = chosen.predicted_seconds, k = packed.predicted_seconds;
    const against = (k > 0 ? (c / k).toFixed(2) + " x packed (" + formatSeconds(k) + ")" : "packed " + formatSeconds(k));
    const verdict = chosen.method === "packed" ? "packed is the chosen mapping"
      : c === k ? "the same as packed (ranks in order): no time saved"
        : c < k ? against + ": " + formatSeconds(k - c) + " saved per run of the recorded traffic"
          : against + ": " + formatSeconds(c - k) + " more than packed per run of the recorded traffic";
    const links = p.links.map((l) => "below level " + l.level + " " + l.link).join(", ");
    return chosen.method + ": predicted communication time " + formatSeconds(c) + ", " + verdict +
      " (modelled: a prediction, not a measurement; links " + links + (p.links_source ? ", from " + p.links_source : "") +
      "; chosen for the least " + (p.objective === "time" ? "predicted time" : "modelled cost") + ").";
  }

  function drawPlacement(p, index) {
    const topo = p.topology || {};
    const s = section("Placement on " + (topo.nodes || "?") + " node" + (topo.nodes === 1 ? "" : "s") + " ('" +
                      (topo.tleaf || "?") + "'): " + (p.file || "").split("/").pop() + ", dump " + p.dump);
    s.classList.add("placement-section");
    s.id = "placement-section-" + index;
    const packed = p.methods.find((m) => m.method === "packed"), chosen = p.methods.find((m) => m.method === p.chosen);
    const unit = p.metric === "count" ? "messages" : "bytes";
    const levels = [];
    if (topo.nodes > 1 && topo.node_levels > 0) levels.push(["nodes", topo.node_levels - 1]);
    const socket = (topo.node_levels || 0) + (topo.socket_levels || 0) - 1;
    if (topo.socket_levels > 0 && packed && socket < packed.crossing.length) levels.push(["sockets", socket]);
    if (!packed || !chosen) {
      s.appendChild(element("p", {}, "No packed mapping in this result: nothing to compare the chosen mapping with."));
    } else if (chosen.method === "packed" || chosen.cost === packed.cost) {
      s.appendChild(element("p", { class: "verdict" }, "Packed (ranks in order) is already the cheapest mapping (modelled)."));
    } else {
      s.appendChild(element("p", { class: "verdict" }, chosen.method + " costs " + (chosen.cost / packed.cost).toFixed(2) +
        " x packed (ranks in order), modelled: " +
        levels.map(([what, l]) => changeText(what, packed.crossing[l], chosen.crossing[l], unit)).join("; ") + "."));
    }
    if (packed && chosen) s.appendChild(element("p", { class: "prediction" }, predictionText(p, packed, chosen)));
    if (packed && chosen && levels.length) {
      const chart = element("div", { class: "placement", id: "placement-" + index });
      s.appendChild(chart);
      const labels = levels.map(([what]) => "between " + what);
      const bar = (m, name, color) => ({ type: "bar", orientation: "h", name: name, y: labels, marker: { color: color },
        x: levels.map(([, l]) => m.crossing[l]), hovertemplate: "%{y}: %{x:,} " + unit + "<extra>" + name + "</extra>" });
      Plotly.newPlot(chart, [bar(packed, "packed (ranks in order)", "#c44e52"), bar(chosen, "chosen: " + chosen.method, "#4c72b0")], {
        barmode: "group", margin: { t: 30, l: 120, r: 10, b: 90 }, title: { text: "Traffic (" + unit + ") by mapping", font: { size: 13 } },
        xaxis: { title: { text: unit } }, yaxis: { autorange: "reversed" }, legend: { orientation: "h", y: -0.45 },
      }, { displaylogo: false });
    }
    if (packed) {
      const cost = (m) => (m.draws > 1 ? m.cost_mean : m.cost);  // random: the mean over its draws
      const timed = typeof packed.predicted_seconds === "number";
      const predicted = (m) => typeof m.predicted_seconds !== "number" ? ["-", "-"]
        : [formatSeconds(m.predicted_seconds),
           packed.predicted_seconds > 0 ? (m.predicted_seconds / packed.predicted_seconds).toFixed(2) + " x" : "-"];
      s.appendChild(table(["method", "cost", "x packed"].concat(timed ? ["predicted time", "t x packed"] : []),
        p.methods.map((m) =>
          [m.method + (m.method === p.chosen ? " (chosen)" : "") + (m.draws > 1 ? " (mean of " + m.draws + " draws)" : ""),
           Math.round(cost(m)), (cost(m) / packed.cost).toFixed(2) + " x"].concat(timed ? predicted(m) : [])), "methods"));
    }
    p.unavailable.forEach(([m, why]) => s.appendChild(element("p", { class: "provenance" }, m + ": " + why)));
    s.appendChild(element("p", { class: "provenance" }, "Modelled, not measured (measure it with mpimon bench placement): " +
      p.model + ". Traffic: " + p.classes + " " + p.metric + "." + (p.time_model ? " Time model: " + p.time_model + "." : "")));
  }

  // --- the known defects of Open MPI's monitoring: those that can affect this run, the rest folded --
  function drawDefects(matrices) {
    const s = section("Known defects that can affect this run");
    s.classList.add("warning");
    s.id = "defects";
    const applicable = new Map();
    matrices.forEach((m) => ((m.facts || {}).defects || []).forEach((d) => applicable.set(d.id, d)));
    const versions = [...new Set(matrices.map((m) => (m.facts || {}).open_mpi_version || "not recorded"))];
    if (!matrices.length) {
      s.appendChild(element("p", {}, "No matrices file in this report: no run to check against the known defects."));
    } else {
      s.appendChild(element("p", {}, "Of the known defects of Open MPI " + versions.join(", ") +
        (versions.includes("not recorded") ? " (where the file does not say: those of every series checked)" : "") +
        ", these can show in what this run recorded:"));
    }
    const list = element("ul", { id: "defects-applicable" });
    applicable.forEach((d) => {
      const li = element("li");
      li.appendChild(element("strong", {}, d.id + ": "));
      li.append(d.meaning + " (" + d.why + "; ");
      li.appendChild(element("a", { href: "#defect-" + d.id }, d.link));
      li.append(")");
      list.appendChild(li);
    });
    if (applicable.size) s.appendChild(list);
    else if (matrices.length) s.appendChild(element("p", {}, "None."));
    const all = element("details", { id: "defects-all" });
    all.appendChild(element("summary", {}, "All " + data.defects.length + " known defects of Open MPI's monitoring (" +
      (data.defects.length - applicable.size) + " cannot show here), with their status on Open MPI 4.1.4 and 5.0.7"));
    const full = element("ul", { id: "defect-list" });
    data.defects.forEach((d) => {
      const li = element("li", { id: "defect-" + d.id });
      li.appendChild(element("strong", {}, d.id + ": "));
      li.append(d.defect + " (Open MPI 4.1.4: " + d.v414 + "; 5.0.7: " + d.v507 + "; see docs/defects.md#" + d.id + ")");
      full.appendChild(li);
    });
    all.appendChild(full);
    s.appendChild(all);
  }

  // --- overhead (Fig. 1, Fig. 2) -----------------------------------------------------------------
  function drawOverhead(o, index) {
    const s = section("Overhead results: " + o.file.split("/").pop());
    s.appendChild(element("p", { class: "provenance" }, o.provenance));
    o.fig1.forEach((f, k) => {
      s.appendChild(element("h3", {}, "Fig. 1: relative overhead (%), " + f.title));
      const row = element("div", { class: "row" });
      s.appendChild(row);
      f.ops.forEach((op, j) => {
        const div = element("div", { class: "chart", id: "fig1-" + index + "-" + k + "-" + j });
        row.appendChild(div);
        Plotly.newPlot(div, [{
          type: "heatmap", z: op.z, x: f.sizes.map(String), y: f.nps.map(String), colorscale: "RdBu", reversescale: true,
          zmin: -f.limit, zmax: f.limit, colorbar: { title: { text: "%" } },
          hovertemplate: "size %{x} B, np %{y}: %{z:.2f} %<extra></extra>",
        }], { title: { text: op.op }, xaxis: { title: { text: "message size (B)" }, type: "category" },
              yaxis: { title: { text: "processes" }, type: "category" }, margin: { t: 40, b: 60 } },
        { displaylogo: false });
      });
    });
    o.fig2.forEach((f, k) => {
      s.appendChild(element("h3", {}, "Fig. 2: difference per call and per process (ns, 95 % CI), " + f.title));
      const div = element("div", { class: "chart", id: "fig2-" + index + "-" + k });
      s.appendChild(div);
      Plotly.newPlot(div, f.series.map((series) => ({
        type: "scatter", mode: "lines+markers", name: "np " + series.np, x: series.size, y: series.difference,
        error_y: { type: "data", symmetric: false, array: series.high, arrayminus: series.low },
      })), { xaxis: { type: "log", title: { text: "message size (B)" } },
             yaxis: { title: { text: "difference (ns)" } }, margin: { t: 20 } }, { displaylogo: false });
    });
  }

  // --- application results, validation, placement: tables -----------------------------------------
  function drawTable(t) {
    const s = section(t.title);
    if (t.note) s.appendChild(element("p", { class: "provenance" }, t.note));
    s.appendChild(table(t.header, t.rows));
  }

  try {
    // What a reader needs first: each run (summary, matrix), its placement, the defects that can
    // affect it; then the details and the other files.
    const matrices = data.sections.filter((x) => x.kind === "matrices");
    matrices.forEach((m, i) => drawRun(m, i));
    data.sections.filter((x) => x.kind === "placement").forEach((p, i) => drawPlacement(p, i));
    drawDefects(matrices);
    matrices.forEach((m, i) => drawDetails(m, i));
    data.sections.forEach((section, index) => {
      if (section.kind === "overhead") drawOverhead(section, index);
      else if (section.kind !== "matrices" && section.kind !== "placement") drawTable(section);
    });
    document.body.dataset.render = "ok";
  } catch (error) {
    document.body.dataset.render = "error";
    console.error("mpimon report: " + error);
    throw error;
  }
})();
