// funcgrad explorer: replays the orders and folds funcgrad computed (the data below the
// page). Nothing here computes a gradient; every number comes from funcgrad's own fold.
// Text from the graph (names, values) only ever reaches the page through textContent.
"use strict";
(function () {
  const errors = document.getElementById("fg-errors");
  window.addEventListener("error", (e) => { errors.textContent += "error: " + e.message + "\n"; });

  const D = JSON.parse(document.getElementById("fg-data").textContent);
  const N = D.nodes.length;
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  const label = (i) => { const n = D.nodes[i]; return "%" + i + (n.name ? " " + n.name : "") + " " + n.op; };

  function el(tag, attrs, parent, text) {
    const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  // The page's state, which the address's #hash can set: order=kahn&fold=best&step=end.
  const hash = new URLSearchParams(location.hash.slice(1));
  const state = { order: "dfs", fold: D.start, step: 0 };
  if (D.orders[hash.get("order")]) state.order = hash.get("order");
  if (D.folds[hash.get("fold")]) state.fold = hash.get("fold");

  if (D.large) { summary(); return; }

  // -- layout: Graphviz's, or layers by depth with each layer ordered by its parents --------
  const box = D.layout ? D.layout.boxes : {}, spline = D.layout ? D.layout.splines : {};
  if (!D.layout) layered();

  function layered() {
    const depth = new Array(N).fill(0);
    for (const i of D.orders.dfs) for (const a of D.nodes[i].args) depth[i] = Math.max(depth[i], depth[a] + 1);
    const layers = [];
    for (const i of D.orders.dfs) (layers[depth[i]] = layers[depth[i]] || []).push(i);
    const slot = new Array(N).fill(0);
    layers.forEach((layer, d) => {
      if (d > 0) {
        const centre = (i) => { const a = D.nodes[i].args; return a.length ? a.reduce((s, p) => s + slot[p], 0) / a.length : 0; };
        layer.sort((p, q) => centre(p) - centre(q));
      }
      layer.forEach((i, k) => { slot[i] = k - (layer.length - 1) / 2; });
    });
    const width = (i) => 24 + 6.6 * Math.max(label(i).length, D.nodes[i].value[0].length, widest(i));
    layers.forEach((layer, d) => {
      let x = 0;
      const ws = layer.map(width);
      const total = ws.reduce((s, w) => s + w + 24, -24);
      layer.forEach((i, k) => { box[i] = [x - total / 2 + ws[k] / 2, 40 + d * 86, ws[k], 54]; x += ws[k] + 24; });
    });
    let low = Infinity;
    for (const i in box) low = Math.min(low, box[i][0] - box[i][2] / 2);
    for (const i in box) box[i][0] += 16 - low;
  }

  function widest(i) {
    let w = 0;
    for (const f in D.folds) { const v = D.folds[f].values[i]; if (v) w = Math.max(w, v[0].length); }
    return w;
  }

  // -- the drawing ------------------------------------------------------------------------
  let right = 0, bottom = 0;
  for (const i in box) { right = Math.max(right, box[i][0] + box[i][2] / 2); bottom = Math.max(bottom, box[i][1] + box[i][3] / 2); }
  // A margin for the order badges; small graphs are drawn larger, up to 1.6 times.
  const zoom = Math.max(1, Math.min(1.6, ($("fg-graph").clientWidth - 20) / (right + 40)));
  const svg = el("svg:svg", { id: "fg-svg", viewBox: `-20 -20 ${right + 40} ${bottom + 40}`,
    width: (right + 40) * zoom, height: (bottom + 40) * zoom }, $("fg-graph"));
  const defs = el("svg:defs", {}, svg);
  const marker = el("svg:marker", { id: "fg-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 8, markerHeight: 8, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" }, defs);
  el("svg:path", { d: "M0,0 L10,5 L0,10 z", fill: "#9aa3b2" }, marker);
  const edgeLayer = el("svg:g", {}, svg), nodeLayer = el("svg:g", {}, svg);
  const edges = [];       // {from, to, arg, path}
  const used = {};
  D.nodes.forEach((n) => n.args.forEach((a, k) => {
    const key = a + "-" + n.id;
    const seen = used[key] = (used[key] || 0) + 1;
    let d;
    const curve = spline[key] && spline[key][seen - 1];
    if (curve) {
      d = "M" + curve[0] + "," + curve[1];
      for (let j = 2; j + 6 <= curve.length; j += 6) d += " C" + curve.slice(j, j + 6).join(",");
      // dot ends a spline where its own arrowhead would begin: carry it on to the box's edge
      const [, y1, , h1] = box[n.id];
      d += " L" + curve[curve.length - 2] + "," + (y1 - h1 / 2);
    } else {
      const [x0, y0, , h0] = box[a], [x1, y1, , h1] = box[n.id];
      const bend = (seen - 1) * 18;
      d = `M${x0},${y0 + h0 / 2} C${x0 + bend},${(y0 + y1) / 2} ${x1 + bend},${(y0 + y1) / 2} ${x1},${y1 - h1 / 2}`;
    }
    const path = el("svg:path", { class: "edge", d: d, "marker-end": "url(#fg-arrow)", "data-from": a, "data-to": n.id }, edgeLayer);
    edges.push({ from: a, to: n.id, arg: k, path: path });
  }));
  const shapes = D.nodes.map((n) => {
    const [x, y, w, h] = box[n.id];
    const g = el("svg:g", { class: "node" + (n.leaf ? " leaf" : ""), "data-node": n.id }, nodeLayer);
    el("svg:rect", { x: x - w / 2, y: y - h / 2, width: w, height: h }, g);
    const line = (k) => y - h / 2 + h * (0.5 + k) / 3 + 4;     // three lines of text
    el("svg:text", { x: x, y: line(0), "text-anchor": "middle" }, g, label(n.id));
    el("svg:text", { class: "val", x: x, y: line(1), "text-anchor": "middle" }, g, n.value[0]);
    const fold = el("svg:text", { class: "fold", x: x, y: line(2), "text-anchor": "middle" }, g, "");
    const badge = el("svg:g", { class: "badge" }, g);
    el("svg:circle", { cx: x - w / 2, cy: y - h / 2, r: 9 }, badge);
    const number = el("svg:text", { x: x - w / 2, y: y - h / 2 + 3, "text-anchor": "middle" }, badge, "");
    g.addEventListener("mousemove", (e) => tip(n.id, e));
    g.addEventListener("mouseleave", () => { $("fg-tip").hidden = true; });
    return { g: g, fold: fold, badge: badge, number: number };
  });

  // -- controls ---------------------------------------------------------------------------
  const foldSelect = $("fg-fold");
  for (const f in D.folds) el("option", { value: f }, foldSelect, f);
  foldSelect.value = state.fold;
  $("fg-order").value = state.order;
  const last = 2 * N;
  const wanted = hash.get("step");
  state.step = wanted === "end" ? last : Math.max(0, Math.min(last, parseInt(wanted || "0", 10) || 0));
  const go = (s) => { state.step = Math.max(0, Math.min(last, s)); render(); };
  $("fg-first").onclick = () => go(0);
  $("fg-back").onclick = () => go(state.step - 1);
  $("fg-next").onclick = () => go(state.step + 1);
  $("fg-last").onclick = () => go(last);
  $("fg-order").onchange = (e) => { state.order = e.target.value; render(); };
  foldSelect.onchange = (e) => { state.fold = e.target.value; render(); };
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    const to = { ArrowRight: state.step + 1, ArrowLeft: state.step - 1, Home: 0, End: last }[e.key];
    if (to !== undefined) { e.preventDefault(); go(to); }
  });

  // -- one step ---------------------------------------------------------------------------
  function render() {
    const order = D.orders[state.order], fold = D.folds[state.fold], s = state.step;
    const placed = Math.min(s, N), folded = Math.max(0, s - N);
    const sequence = order.slice().reverse().slice(0, folded);
    const current = s === 0 ? null : (s <= N ? order[s - 1] : sequence[folded - 1]);
    const position = {};
    order.forEach((i, k) => { position[i] = k; });
    const received = new Array(N).fill(0), done = new Set(sequence);
    for (const i of sequence) for (const [p] of fold.sends[i] || []) received[p] += 1;
    const best = state.fold === "best" && folded === N ? new Set(fold.path) : new Set();
    shapes.forEach((sh, i) => {
      const cls = ["node"];
      if (D.nodes[i].leaf) cls.push("leaf");
      if (position[i] < placed) cls.push("placed");
      if (done.has(i)) cls.push("folded");
      else if (received[i] > 0) cls.push("pending");
      if (i === current) cls.push("current");
      if (best.has(i)) cls.push("best");
      sh.g.setAttribute("class", cls.join(" "));
      sh.badge.style.display = position[i] < placed ? "" : "none";
      sh.number.textContent = position[i];
      const v = fold.values[i];
      sh.fold.textContent = done.has(i) && v ? v[0] : "";
    });
    const pointer = fold.pointer || {};
    const onPath = new Set();
    if (best.size) fold.path.forEach((p, k) => { if (k + 1 < fold.path.length) onPath.add(p + "-" + fold.path[k + 1]); });
    const receivers = new Set(s > N ? (fold.sends[current] || []).map((send) => send[0]) : []);
    for (const e of edges) {
      const cls = ["edge"];
      if (e.to === current && receivers.has(e.from)) cls.push("carry");
      if (done.has(e.from) && pointer[e.from] === e.to) cls.push("pointer");
      if (onPath.has(e.from + "-" + e.to)) cls.push("best");
      e.path.setAttribute("class", cls.join(" "));
    }
    status(current, s, fold, folded);
    table(sequence, fold, current);
    $("fg-counter").textContent = `step ${s} of ${last}`;
    document.body.dataset.step = s;
    document.body.dataset.phase = s === 0 ? "start" : s <= N ? "order" : "fold";
    document.body.dataset.ready = "1";
  }

  function status(current, s, fold, folded) {
    const out = $("fg-status");
    if (current === null) {
      out.textContent = `${N} nodes. Step forward to build the ${state.order === "dfs" ? "DFS post-order" : "Kahn order"}, then to fold back over it (${fold.title}).`;
    } else if (s <= N) {
      const n = D.nodes[current];
      out.textContent = `order: ${label(current)} is number ${s - 1}` +
        (n.args.length ? `, after its arguments ${n.args.map((a) => "%" + a).join(", ")}.` : ", a leaf.") +
        (s === N ? "\nEvery node comes after its arguments. Next: the reverse fold." : "");
    } else {
      const v = fold.values[current], sends = fold.sends[current] || [];
      let text = `fold ${folded} of ${N}: ${label(current)}` + (v ? ` is complete: ${v[0]}` : ": nothing reaches it");
      if (sends.length) {
        text += "\nsends " + sends.map(([p, short]) => `${short} to %${p}`).join(", ");
      }
      if (folded === N) text += state.fold === "best" && fold.path.length ? `\nbest path: ${fold.path.map((p) => "%" + p).join(" -> ")}` : "\nthe map is complete.";
      out.textContent = text;
    }
  }

  function table(sequence, fold, current) {
    $("fg-map-title").textContent = "map: " + fold.title;
    const body = $("fg-map").tBodies[0];
    body.textContent = "";
    for (const i of sequence) {
      const v = fold.values[i];
      if (!v) continue;
      const row = el("tr", { "data-node": i, class: i === current ? "fresh" : "" }, body);
      el("td", {}, row, label(i));
      el("td", { class: "v", title: v[1] }, row, v[0]);
    }
  }

  function tip(i, e) {
    const n = D.nodes[i], t = $("fg-tip");
    let text = `${label(i)}   shape ${n.shape}  ${n.dtype}\n` +
      (n.args.length ? `arguments: ${n.args.map((a) => "%" + a).join(", ")}\n` : "") + `value:\n${n.value[1]}`;
    for (const f in D.folds) {
      const v = D.folds[f].values[i];
      if (f === state.fold || f === "gradient") text += `\n${f}:\n${v ? v[1] : "(nothing reaches it)"}`;
    }
    t.textContent = text;
    t.hidden = false;
    t.style.left = Math.min(e.clientX + 14, window.innerWidth - 470) + "px";
    t.style.top = (e.clientY + 14) + "px";
  }

  // -- a large graph: counts, and a search over every node --------------------------------
  function summary() {
    document.querySelector("header #fg-controls").hidden = true;
    document.querySelector("aside").hidden = true;
    const root = el("div", { class: "summary" }, $("fg-graph"));
    const grad = D.folds.gradient.values;
    const ops = {};
    let edgeCount = 0, leaves = 0;
    for (const n of D.nodes) { ops[n.op] = (ops[n.op] || 0) + 1; edgeCount += n.args.length; if (n.leaf) leaves += 1; }
    el("p", {}, root, `${N} nodes are more than this page draws (limit ${D.limit}): here are their counts and a search. ` +
      "fg.explore(..., limit=N) draws larger graphs; fg.show lists them.");
    const dl = el("dl", {}, root);
    const facts = [["nodes", N], ["edges", edgeCount], ["leaves", leaves], ["outputs", D.outputs.map((o) => "%" + o).join(", ")]];
    Object.entries(ops).sort((a, b) => b[1] - a[1]).slice(0, 20).forEach(([op, k]) => facts.push(["op " + op, k]));
    for (const [k, v] of facts) { el("dt", {}, dl, k); el("dd", {}, dl, String(v)); }
    const search = el("input", { id: "fg-search", placeholder: "search names, ops or %numbers", type: "search" }, root);
    const found = el("p", { id: "fg-found" }, root);
    const results = el("table", { id: "fg-results" }, root);
    function run() {
      const q = search.value.trim().toLowerCase();
      results.textContent = "";
      if (!q) { found.textContent = ""; return; }
      const hits = D.nodes.filter((n) => ("%" + n.id).toLowerCase() === q || n.name.toLowerCase().includes(q) || n.op.toLowerCase().includes(q));
      found.textContent = `${hits.length} nodes match` + (hits.length > 200 ? "; the first 200:" : ":");
      const head = el("tr", {}, results);
      for (const h of ["node", "value", "gradient", "arguments"]) el("th", {}, head, h);
      for (const n of hits.slice(0, 200)) {
        const row = el("tr", { "data-node": n.id }, results);
        el("td", {}, row, label(n.id));
        el("td", { class: "v", title: n.value[1] }, row, n.value[0]);
        const g = grad[n.id];
        el("td", { class: "v", title: g ? g[1] : "" }, row, g ? g[0] : "");
        el("td", {}, row, n.args.map((a) => "%" + a).join(", "));
      }
    }
    search.addEventListener("input", run);
    search.value = hash.get("search") || "";
    run();
    document.body.dataset.phase = "summary";
    document.body.dataset.ready = "1";
  }

  render();
})();
