// lowstate plan viewer: draws the plan embedded in this page with
// Cytoscape.js (vendored, see the licence at the end of the page). Nodes
// come positioned by lowstate (one lane per group, one row per place in
// the execution order), so nothing is laid out in the browser.
// Pan with the mouse, zoom with the wheel; search by ID, name or group;
// click a node for its dependencies in and out and why it sits where it
// does; shift-click a second state for the path between them; click a
// group's title bar to collapse or expand it.
// The page also takes its actions from the URL hash (for scripted tests):
// #search=TEXT&select=KEY&path=KEY,KEY&collapse=all (and folded=1: report how
// many groups start collapsed)
(function () {
  "use strict";
  var started = performance.now();
  var data = JSON.parse(document.getElementById("plan-data").textContent);
  var words = data.words || { node: "node", nodes: "nodes", needs: "Needs", neededBy: "Needed by" };
  var $ = function (id) { return document.getElementById(id); };
  // Big plans start with every group collapsed and create a group's nodes
  // (and the edges between created nodes) only when it is opened, so the
  // first paint draws a few hundred boxes, not thousands.
  var many = data.nodes.length > 1500;
  var byGroup = data.groups.map(function () { return []; });
  var edgesOf = data.nodes.map(function () { return []; });
  var rowOf = data.nodes.map(function () { return 0; });
  data.nodes.forEach(function (n, i) { rowOf[i] = byGroup[n.lane].length; byGroup[n.lane].push(i); });
  data.edges.forEach(function (e, i) { edgesOf[e.from].push(i); edgesOf[e.to].push(i); });
  var created = data.nodes.map(function () { return false; });
  // Nested units (a stack's nested stacks) start collapsed too.
  var folded = data.groups.map(function (g) { return many || !!g.folded; });
  var edgeMade = data.edges.map(function () { return false; });
  function groupBox(gi) { return { x: data.groups[gi].x, y: data.groups[gi].y }; }
  function nodeElement(i) {
    var n = data.nodes[i];
    return {
      group: "nodes",
      data: {
        id: "n" + i, idx: i, key: n.key, label: n.label.join("\n"), title: n.title, kind: n.kind,
        groupName: n.group, parent: "g" + n.lane, rank: n.rank, pos: n.pos,
        secondary: n.secondary ? 1 : 0, w: n.w, h: n.h, reasons: n.reasons
      },
      position: { x: n.x, y: n.y }
    };
  }
  function edgeElement(k) {
    var e = data.edges[k];
    var el = { group: "edges", data: { id: "e" + k, source: "n" + e.from, target: "n" + e.to, label: e.label, color: e.color, line: e.line, kind: e.kind } };
    // An edge that skips states in its own lane would run straight through
    // them: bend it out beside the lane, further for longer skips.
    var a = data.nodes[e.from], b = data.nodes[e.to], skip = Math.abs(rowOf[e.from] - rowOf[e.to]);
    if (a.lane === b.lane && skip > 1) {
      var side = rowOf[e.from] < rowOf[e.to] ? 1 : -1;
      el.classes = "arc";
      // (a Bézier curve reaches half its control point distance)
      el.data.cpd = side * (Math.max(a.w, b.w) + 40 + 16 * Math.min(skip, 8));
    }
    return el;
  }
  var elements = [];
  data.groups.forEach(function (g, i) {
    // A collapsed group's title runs along its box (lanes are tall), as
    // large as the box allows so it stays readable when the plan is fitted.
    var title = g.name + " (" + g.count + ")", tall = g.h > 1.5 * g.w;
    var along = tall ? g.h : g.w, across = tall ? g.w : g.h;
    var fs = Math.max(12, Math.min(110, across * 0.4, along / (title.length * 0.62)));
    var el = { group: "nodes", data: { id: "g" + i, gi: i, label: g.name, name: g.name, isGroup: 1, count: g.count, w: g.w, h: g.h, fs: fs, rot: tall ? -Math.PI / 2 : 0 } };
    if (folded[i]) { el.position = groupBox(i); el.classes = "collapsed"; el.data.label = g.name + " (" + g.count + ")"; }
    elements.push(el);
  });
  data.nodes.forEach(function (n, i) { if (!folded[n.lane]) { created[i] = true; elements.push(nodeElement(i)); } });
  data.edges.forEach(function (e, k) {
    if (created[e.from] && created[e.to]) { edgeMade[k] = true; elements.push(edgeElement(k)); }
  });
  var cy = cytoscape({
    container: $("cy"),
    elements: elements,
    layout: { name: "preset" },
    wheelSensitivity: 0.25,
    minZoom: 0.02,
    maxZoom: 3,
    textureOnViewport: many,
    hideEdgesOnViewport: many,
    pixelRatio: 1,
    style: [
      { selector: "node", style: {
        "shape": "round-rectangle", "background-color": "#ffffff", "border-width": 1, "border-color": "#777",
        "width": "data(w)", "height": "data(h)", "label": "data(label)", "text-wrap": "wrap",
        "text-valign": "center", "text-halign": "center", "font-size": 10, "min-zoomed-font-size": 7,
        "font-family": "Helvetica, Arial, sans-serif", "color": "#222" } },
      { selector: "node[?secondary]", style: { "border-style": "dashed", "background-color": "#f3ecfa", "border-color": "#9467bd" } },
      { selector: "node[?isGroup]", style: {
        "shape": "round-rectangle", "background-color": "#f2f2f2", "border-color": "#bbb", "label": "data(label)",
        "text-valign": "top", "text-halign": "center", "font-size": 13, "font-weight": "bold", "color": "#333",
        "padding": 14, "min-zoomed-font-size": 4 } },
      { selector: "node[?isGroup].collapsed", style: {
        "width": "data(w)", "height": "data(h)", "text-valign": "center", "background-color": "#e3e8ef",
        "border-color": "#8a9bb3", "font-size": "data(fs)", "text-rotation": "data(rot)", "text-wrap": "none",
        "min-zoomed-font-size": 0 } },
      { selector: "edge", style: {
        "width": 1.4, "line-color": "data(color)", "target-arrow-color": "data(color)", "target-arrow-shape": "triangle",
        "curve-style": "bezier", "arrow-scale": 0.8, "label": "data(label)", "font-size": 8, "min-zoomed-font-size": 9,
        "color": "data(color)", "text-background-color": "#fff", "text-background-opacity": 0.8, "z-index": 1 } },
      { selector: "edge.arc", style: { "curve-style": "unbundled-bezier", "control-point-distances": "data(cpd)", "control-point-weights": 0.5 } },
      { selector: "edge[line = 'dashed']", style: { "line-style": "dashed" } },
      { selector: "edge[line = 'dotted']", style: { "line-style": "dotted" } },
      { selector: "edge[line = 'bold']", style: { "width": 2.6 } },
      { selector: "edge.proxy", style: { "opacity": 0.55, "curve-style": "straight", "font-size": 16, "min-zoomed-font-size": 12 } },
      { selector: ".faded", style: { "opacity": 0.15 } },
      { selector: ".match", style: { "border-width": 3, "border-color": "#f0a500", "background-color": "#fff6d9" } },
      { selector: "node.chosen", style: { "border-width": 3, "border-color": "#d62728" } },
      { selector: ".path", style: { "line-color": "#d62728", "target-arrow-color": "#d62728", "width": 4, "border-color": "#d62728", "border-width": 3, "z-index": 9 } }
    ]
  });

  // An edge with an end inside a collapsed group is drawn to the group's
  // box instead (one per pair of ends and edge type, labelled with how many
  // it stands for), so a collapsed plan still shows what depends on what.
  var proxyPending = false;
  function refreshProxies() {
    proxyPending = false;
    var agg = {}, list = [];
    data.edges.forEach(function (e) {
      var a = data.nodes[e.from].lane, b = data.nodes[e.to].lane;
      if (!folded[a] && !folded[b]) return;
      var s = folded[a] ? "g" + a : "n" + e.from, t = folded[b] ? "g" + b : "n" + e.to;
      if (s === t) return;
      var id = "p" + s + "-" + t + "-" + e.kind;
      if (agg[id]) { agg[id].data.n += 1; agg[id].data.label = e.label + " \u00d7" + agg[id].data.n; return; }
      agg[id] = { group: "edges", classes: "proxy", data: { id: id, source: s, target: t, label: e.label, color: e.color, line: e.line, kind: e.kind, n: 1 } };
      list.push(agg[id]);
    });
    cy.batch(function () {
      cy.remove(cy.edges(".proxy"));
      var added = cy.add(list);
      // Keep a selection or a path in focus: new stand-ins start faded
      // unless they touch the chosen state.
      if (cy.$(".faded").length) {
        added.filter(function (e) { return !chosen || !(e.source().same(chosen) || e.target().same(chosen)); }).addClass("faded");
      }
    });
  }
  function proxiesLater() {
    if (proxyPending) return;
    proxyPending = true;
    Promise.resolve().then(refreshProxies);
  }
  var chosen = null;
  refreshProxies();

  function keyIndex(key) {
    for (var i = 0; i < data.nodes.length; i++) {
      if (data.nodes[i].key === key || data.nodes[i].title === key) return i;
    }
    return -1;
  }
  function keyNode(key) { var i = keyIndex(key); return i < 0 ? null : openNode(i); }
  function text(s) { return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; }); }

  // Search.
  function search(q) {
    cy.elements().removeClass("match");
    var out = $("results");
    out.innerHTML = "";
    q = (q || "").trim().toLowerCase();
    if (!q) return 0;
    var found = [];
    data.nodes.forEach(function (n, i) {
      if ((n.label.join(" ") + " " + n.group + " " + n.key).toLowerCase().indexOf(q) >= 0) found.push(i);
    });
    // Open the groups of the first matches only: a broad search on a big
    // plan must not create every node.
    var shown = found.slice(0, 50).map(openNode);
    var hits = cy.collection(shown);
    hits.addClass("match");
    hits.forEach(function (n) {
      var li = document.createElement("li");
      li.textContent = n.data("kind") + " " + n.data("title") + " (" + n.data("groupName") + ")";
      li.onclick = function () { select(n); };
      out.appendChild(li);
    });
    $("count").textContent = found.length + " found";
    if (hits.length) {
      cy.fit(hits.slice(0, 20), 80);
    }
    return found.length;
  }
  $("q").addEventListener("input", function () { search(this.value); });

  // Details of one node: its dependencies both ways (in the plan's words) and why it sits there.
  function select(n) {
    if (!n) return;
    expandGroupOf(n);
    cy.elements().removeClass("faded chosen path");
    chosen = n;
    n.addClass("chosen");
    var near = n.closedNeighborhood();
    cy.elements().not(near).not(near.parents()).addClass("faded");
    var me = n.data("idx");
    var ins = edgesOf[me].filter(function (k) { return data.edges[k].to === me; });
    var outs = edgesOf[me].filter(function (k) { return data.edges[k].from === me; });
    var item = function (k, other) {
      var e = data.edges[k], o = data.nodes[other];
      return "<li><a data-idx='" + other + "'>" + text(o.title) + "</a> <span class='meta'>(" + text(o.group) + ")</span> <span style='color:" +
        e.color + "'>" + text(e.label) + "</span></li>";
    };
    var html = "<h2>" + text(n.data("kind")) + ": " + text(n.data("title")) + "</h2>";
    // A group already named with its kind (`wave 2`) is not named twice.
    var groupOf = n.data("groupName");
    // A nested group (a stack's nested stack) is named by its path alone.
    var nested = data.groups[data.nodes[n.data("idx")].lane].folded;
    var kind = nested || String(groupOf).indexOf(data.groupName + " ") === 0 ? "" : text(data.groupName) + " ";
    html += "<p class='meta'>" + kind + "<b>" + text(groupOf) + "</b> · position " +
      text(n.data("pos")) + " · order " + text(n.data("rank")) + "</p>";
    html += "<h3>Why here</h3><ul>";
    var rs = n.data("reasons") || [];
    if (!rs.length) html += "<li>by order</li>";
    rs.forEach(function (r) { html += "<li style='color:" + (r.color || "#222") + "'>" + text(r.text) + "</li>"; });
    html += "</ul><h3>" + text(words.needs) + " (" + ins.length + ")</h3><ul>";
    ins.forEach(function (k) { html += item(k, data.edges[k].from); });
    html += "</ul><h3>" + text(words.neededBy) + " (" + outs.length + ")</h3><ul>";
    outs.forEach(function (k) { html += item(k, data.edges[k].to); });
    html += "</ul><p class='hint'>Shift-click another " + text(words.node) + " to see the path between them.</p>";
    $("details").innerHTML = html;
    Array.prototype.forEach.call($("details").querySelectorAll("a[data-idx]"), function (a) {
      a.onclick = function () { select(openNode(+a.getAttribute("data-idx"))); };
    });
    cy.fit(n.closedNeighborhood(), 120);
  }

  // The path between two nodes, following dependencies in either direction.
  function bfs(from, to) {
    var prev = {}, queue = [from], seen = {};
    seen[from] = true;
    while (queue.length) {
      var i = queue.shift();
      if (i === to) break;
      edgesOf[i].forEach(function (k) {
        var e = data.edges[k];
        if (e.from === i && !seen[e.to]) { seen[e.to] = true; prev[e.to] = k; queue.push(e.to); }
      });
    }
    if (!seen[to]) return null;
    var edges = [], cur = to;
    while (cur !== from) { var k = prev[cur]; edges.unshift(k); cur = data.edges[k].from; }
    return edges;
  }
  function path(a, b) {
    if (!a || !b) return 0;
    var ia = a.data("idx"), ib = b.data("idx");
    var ks = bfs(ia, ib) || bfs(ib, ia);
    cy.elements().removeClass("path faded");
    var found = null;
    if (ks) {
      var ids = [ia, ib];
      ks.forEach(function (k) { ids.push(data.edges[k].from, data.edges[k].to); });
      ids.forEach(openNode);
      found = cy.collection();
      ks.forEach(function (k) {
        found = found.union(cy.getElementById("e" + k)).union(cy.getElementById("n" + data.edges[k].from)).union(cy.getElementById("n" + data.edges[k].to));
      });
      if (!ks.length) found = found.union(a);
    }
    if (!found) { $("details").insertAdjacentHTML("beforeend", "<p class='warn'>No path between these two " + text(words.nodes) + ".</p>"); return 0; }
    cy.elements().not(found).addClass("faded");
    found.addClass("path");
    $("details").insertAdjacentHTML("beforeend", "<h3>Path (" + found.nodes().length + " nodes)</h3><ol>" +
      found.nodes().map(function (n) { return "<li>" + text(n.data("title")) + "</li>"; }).join("") + "</ol>");
    cy.fit(found, 60);
    return found.nodes().length;
  }

  // Groups collapse and expand (creating their nodes on first opening).
  function ensureGroup(gi) {
    var add = [];
    byGroup[gi].forEach(function (i) { if (!created[i]) { created[i] = true; add.push(nodeElement(i)); } });
    if (!add.length) return;
    cy.add(add);
    var edges = [];
    byGroup[gi].forEach(function (i) {
      edgesOf[i].forEach(function (k) {
        var e = data.edges[k];
        if (!edgeMade[k] && created[e.from] && created[e.to]) { edgeMade[k] = true; edges.push(edgeElement(k)); }
      });
    });
    cy.add(edges);
  }
  function setCollapsed(g, on) {
    if (on) {
      g.children().style("display", "none");
      g.addClass("collapsed");
      folded[g.data("gi")] = true;
      g.data("label", g.data("name") + " (" + g.data("count") + ")");
    } else {
      ensureGroup(g.data("gi"));
      g.children().style("display", "element");
      g.removeClass("collapsed");
      g.data("label", g.data("name"));
      folded[g.data("gi")] = false;
    }
    proxiesLater();
  }
  function openNode(i) {
    var g = cy.getElementById("g" + data.nodes[i].lane);
    if (g.hasClass("collapsed") || !created[i]) setCollapsed(g, false);
    return cy.getElementById("n" + i);
  }
  function expandGroupOf(n) { var p = n.parent(); if (p.length && p.hasClass("collapsed")) setCollapsed(p, false); }
  cy.on("tap", "node", function (ev) {
    var n = ev.target;
    if (n.data("isGroup")) { setCollapsed(n, !n.hasClass("collapsed")); return; }
    if (ev.originalEvent && ev.originalEvent.shiftKey && chosen) { path(chosen, n); return; }
    select(n);
  });
  cy.on("tap", function (ev) { if (ev.target === cy) { cy.elements().removeClass("faded chosen path"); } });
  $("collapse").onclick = function () { cy.nodes("[?isGroup]").forEach(function (g) { setCollapsed(g, true); }); };
  $("expand").onclick = function () { cy.batch(function () { cy.nodes("[?isGroup]").forEach(function (g) { setCollapsed(g, false); }); }); };
  $("fit").onclick = function () { cy.fit(cy.elements(":visible"), 30); };

  // Scripted actions (tests, shared links).
  function fromHash() {
    var h = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) h[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1));
    });
    var did = [];
    if (h.folded !== undefined) did.push("folded:" + cy.nodes("[?isGroup].collapsed").length);
    if (h.collapse === "all") { $("collapse").onclick(); did.push("collapse"); }
    if (h.search) { $("q").value = h.search; did.push("search:" + search(h.search)); }
    if (h.select) { var n = keyNode(h.select); select(n); did.push("select:" + (n ? n.data("title") : "none")); }
    if (h.path) { var ab = h.path.split(","); select(keyNode(ab[0])); did.push("path:" + path(keyNode(ab[0]), keyNode(ab[1]))); }
    document.body.setAttribute("data-actions", did.join(" "));
  }

  cy.fit(cy.elements(":visible"), 30);
  cy.one("render", function () {
    requestAnimationFrame(function () {
      document.body.setAttribute("data-first-paint-ms", Math.round(performance.now() - started));
      // The container may have been sized before the window settled.
      cy.resize();
      fromHash();
      document.body.setAttribute("data-ready", "1");
    });
  });
  window.lowstatePlan = { cy: cy, search: search, select: function (k) { select(keyNode(k)); }, path: function (a, b) { return path(keyNode(a), keyNode(b)); } };
})();
