/* atari5-spec site: filters, sorting, URL state and downloads of the leaderboard, and the scorer.
   Plain script, no modules, nothing fetched: the page's data is inlined as JSON (#page-data).
   Every number the scorer uses (constants, weights, interval half-widths, signatures) is written into
   score.html by `atari5-spec site` from the Python objects; this file only applies the pinned formula. */
(function () {
  "use strict";

  function pageData() {
    var node = document.getElementById("page-data");
    return node ? JSON.parse(node.textContent) : null;
  }

  function readHash() {
    var out = {};
    var text = window.location.hash.replace(/^#/, "");
    if (!text) return out;
    text.split("&").forEach(function (part) {
      if (!part) return;
      var at = part.indexOf("=");
      var key = decodeURIComponent((at < 0 ? part : part.slice(0, at)).replace(/\+/g, " "));
      var value = at < 0 ? "" : decodeURIComponent(part.slice(at + 1).replace(/\+/g, " "));
      out[key] = value;
    });
    return out;
  }

  function hashOf(state, keys) {
    return keys.filter(function (k) { return state[k] !== undefined && state[k] !== ""; })
      .map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(state[k]); }).join("&");
  }

  function writeHash(text) {
    var target = text ? "#" + text : window.location.pathname + window.location.search;
    try {
      window.history.replaceState(null, "", text ? "#" + text : target);
    } catch (error) {  // some browsers refuse replaceState on file: URLs
      window.location.hash = text;
    }
  }

  /* Python's f"{x:,.Nf}": thousands separators, N decimals, 'inf', '-' for none. */
  function formatNumber(x, places) {
    if (x === null || x === undefined || Number.isNaN(x)) return "n/a";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    places = places === undefined ? 1 : places;
    var text = x.toFixed(places);  // exact, but an exact tie goes away from zero: SPEC.md says ties to even
    var digits = Math.abs(x).toFixed(100).split(".")[1] || "";
    if (places > 0 && digits.charAt(places) === "5" && /^0*$/.test(digits.slice(places + 1))) {
      var truncated = Math.trunc(Math.abs(x)) + "." + digits.slice(0, places);
      if (Number(digits.charAt(places - 1)) % 2 === 0) text = (x < 0 ? "-" : "") + truncated;
    }
    var negative = text.charAt(0) === "-";
    if (negative) text = text.slice(1);
    var parts = text.split(".");
    parts[0] = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return (negative ? "-" : "") + parts.join(".");
  }

  function download(name, type, text) {
    var blob = new Blob([text], { type: type });
    var url = URL.createObjectURL(blob);
    var link = document.createElement("a");
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    document.body.removeChild(link);
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }

  function csvCell(value) {
    if (value === null || value === undefined) return "";
    var text = String(value);
    // A text cell a spreadsheet would run as a formula (names come from contributions) gets a leading quote;
    // numbers are written as they are (a negative score is data, not a formula). The JSON download is verbatim.
    if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = "'" + text;
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }

  /* ---------------------------------------------------------------- leaderboard */

  var FILTERS = ["regime", "sticky", "frames", "kind", "year", "all57", "q"];
  var PROTOCOL_FILTERS = ["regime", "sticky", "frames"];
  var COLUMNS = ["rank", "id", "name", "kind", "estimate", "low", "high", "range", "median", "n_games", "regime",
                 "frames", "sticky", "sticky_probability", "statistic", "seeds", "year", "source_id", "signature",
                 "paper"];
  var CSV_HEADER = ["rank", "algorithm_id", "name", "kind", "estimate", "interval_low", "interval_high", "range",
                    "median_57", "n_games", "regime", "training_frames", "sticky", "sticky_action_probability",
                    "statistic", "seeds", "year", "source_id", "signature", "paper"];

  function matchesUnknown(value, wanted) {
    if (wanted === "unknown") return value === null || value === undefined;
    return value !== null && value !== undefined && String(value).toLowerCase() === wanted.toLowerCase();
  }

  function leaderboard(data) {
    var form = document.getElementById("filters");
    Array.prototype.forEach.call(document.querySelectorAll("[data-needs-js]"), function (control) {
      control.disabled = false;  // the controls work only once this script runs (disabled in the HTML)
    });
    var table = document.getElementById("leaderboard");
    var body = table.tBodies[0];
    var trs = {};
    Array.prototype.forEach.call(body.rows, function (tr) { trs[tr.getAttribute("data-algorithm-id")] = tr; });
    var rows = data.rows;
    var mostGames = rows.reduce(function (m, r) { return Math.max(m, r.n_games); }, 0);
    var state = { sort: "estimate", dir: "desc" };

    function visible(row) {
      var protocol = PROTOCOL_FILTERS.some(function (k) { return state[k]; });
      // Short budgets only among their peers, as the CLI does; a search looks through every entry of the table.
      if (!protocol && !row.default && !state.q) return false;
      if (state.regime && !matchesUnknown(row.regime, state.regime)) return false;
      if (state.sticky && row.sticky_groups.indexOf(state.sticky) < 0) return false;
      if (state.frames && !matchesUnknown(row.frames, state.frames)) return false;
      if (state.kind && row.kind !== state.kind) return false;
      if (state.year && !matchesUnknown(row.year, state.year)) return false;
      if (state.all57 && row.n_games < mostGames) return false;
      if (state.q) {
        var q = state.q.toLowerCase();
        if (row.name.toLowerCase().indexOf(q) < 0 && row.id.toLowerCase().indexOf(q) < 0) return false;
      }
      return true;
    }

    function sortKey(row, key) {
      if (key === "rank") return -row.estimate;
      return key === "name" ? row.name.toLowerCase() : row[key];
    }

    function compare(a, b) {
      var x = sortKey(a, state.sort), y = sortKey(b, state.sort);
      var sign = state.dir === "asc" ? 1 : -1;
      if (x === null || x === undefined) return (y === null || y === undefined) ? tieBreak(a, b) : 1;
      if (y === null || y === undefined) return -1;
      if (x < y) return -sign;
      if (x > y) return sign;
      return tieBreak(a, b);
    }

    function tieBreak(a, b) {
      if (a.estimate !== b.estimate) return b.estimate - a.estimate;
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    }

    function searchBeyond() {  // entries a search matches that the leaderboard does not rank: their pages
      var more = document.getElementById("search-more");
      if (!more) return;
      var q = (state.q || "").toLowerCase();
      var hits = q ? (data.entries || []).filter(function (e) {
        return e[0].toLowerCase().indexOf(q) >= 0 || e[1].toLowerCase().indexOf(q) >= 0;
      }) : [];
      var list = document.getElementById("search-more-list");
      while (list.firstChild) list.removeChild(list.firstChild);
      hits.forEach(function (e) {
        var li = document.createElement("li"), a = document.createElement("a");
        a.setAttribute("href", "algorithms/" + e[0] + ".html");
        a.textContent = e[1] + " (" + e[0] + ")";
        li.appendChild(a);
        list.appendChild(li);
      });
      document.getElementById("search-more-count").textContent = String(hits.length);
      if (hits.length) more.removeAttribute("hidden"); else more.setAttribute("hidden", "");
    }

    function shownRows() {
      return rows.filter(visible).sort(compare);
    }

    function apply() {
      var shown = rows.filter(visible);
      var ranked = shown.slice().sort(tieBreak);
      var rank = {};
      ranked.forEach(function (r, i) { rank[r.id] = i + 1; });
      rows.forEach(function (r) {
        var tr = trs[r.id];
        if (rank[r.id]) {
          tr.removeAttribute("hidden");
          tr.cells[0].textContent = String(rank[r.id]);
        } else {
          tr.setAttribute("hidden", "");
        }
      });
      shown.sort(compare).forEach(function (r) { body.appendChild(trs[r.id]); });
      rows.filter(function (r) { return !rank[r.id]; }).forEach(function (r) { body.appendChild(trs[r.id]); });
      document.getElementById("row-count").textContent = String(shown.length);
      searchBeyond();
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
        var key = th.getAttribute("data-sort");
        if (key === state.sort) th.setAttribute("aria-sort", state.dir === "asc" ? "ascending" : "descending");
        else th.removeAttribute("aria-sort");
      });
      var s = {};
      FILTERS.forEach(function (k) { s[k] = state[k]; });
      if (!(state.sort === "estimate" && state.dir === "desc")) { s.sort = state.sort; s.dir = state.dir; }
      var text = hashOf(s, FILTERS.concat(["sort", "dir"]));
      writeHash(text);
      document.getElementById("share").setAttribute("href", "#" + text);
    }

    function fromHash() {
      var h = readHash();
      FILTERS.forEach(function (k) { state[k] = h[k] || ""; });
      state.sort = COLUMNS.indexOf(h.sort) >= 0 || h.sort === "name" ? h.sort : "estimate";
      state.dir = h.dir === "asc" ? "asc" : "desc";
      FILTERS.forEach(function (k) {
        var control = form.elements[k];
        if (!control) return;
        if (control.type === "checkbox") {
          control.checked = state[k] === "yes";
          return;
        }
        if (control.tagName === "SELECT") {
          Array.prototype.forEach.call(control.options, function (o) {  // frames=200M: an option's label
            if (state[k] && o.textContent.toLowerCase() === state[k].toLowerCase()) state[k] = o.value;
          });
          var known = Array.prototype.some.call(control.options, function (o) {
            return o.value.toLowerCase() === state[k].toLowerCase();
          });
          if (!known && state[k]) {  // a value from a shared link that this data has no row of: keep it, say so
            var option = document.createElement("option");
            option.value = state[k];
            option.textContent = state[k];
            control.appendChild(option);
          }
          Array.prototype.forEach.call(control.options, function (o) {
            if (o.value.toLowerCase() === state[k].toLowerCase()) { control.value = o.value; }
          });
          return;
        }
        control.value = state[k];
      });
      apply();
    }

    form.addEventListener("input", function () {
      FILTERS.forEach(function (k) {
        var control = form.elements[k];
        if (!control) return;
        state[k] = control.type === "checkbox" ? (control.checked ? "yes" : "") : control.value;
      });
      apply();
    });
    document.getElementById("reset").addEventListener("click", function () {
      writeHash("");
      fromHash();
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.tabIndex = 0;
      function sortBy() {
        var key = th.getAttribute("data-sort");
        if (state.sort === key) state.dir = state.dir === "asc" ? "desc" : "asc";
        else { state.sort = key; state.dir = th.getAttribute("data-type") === "text" ? "asc" : "desc"; }
        apply();
      }
      th.addEventListener("click", sortBy);
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sortBy(); }  // Space must not scroll
      });
    });
    window.addEventListener("hashchange", fromHash);

    function exported() {
      var shown = shownRows();
      var ranked = shown.slice().sort(tieBreak);
      var rank = {};
      ranked.forEach(function (r, i) { rank[r.id] = i + 1; });
      return shown.map(function (r) {
        var out = {};
        COLUMNS.forEach(function (c, i) { out[CSV_HEADER[i]] = c === "rank" ? rank[r.id] : r[c]; });
        return out;
      });
    }
    document.getElementById("download-csv").addEventListener("click", function () {
      var lines = [CSV_HEADER.join(",")].concat(exported().map(function (r) {
        return CSV_HEADER.map(function (c) { return csvCell(r[c]); }).join(",");
      }));
      download("atari5-leaderboard-" + data.data_version + ".csv", "text/csv", lines.join("\r\n") + "\r\n");
    });
    document.getElementById("download-json").addEventListener("click", function () {
      var filters = {};
      FILTERS.forEach(function (k) { if (state[k]) filters[k] = state[k]; });
      download("atari5-leaderboard-" + data.data_version + ".json", "application/json", JSON.stringify({
        subset: data.subset, data_version: data.data_version, signature: data.signature, filters: filters,
        rows: exported() }, null, 2) + "\n");
    });
    fromHash();
  }

  /* ---------------------------------------------------------------- scorer */

  /* The Atari-5 scoring specification (SPEC.md), ported: the scorer below uses it, and the browser tests run it
     on conformance/vectors.json. */
  var PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;  // section 1: anything else is refused
  var spec = {
    phi: function (z) { return Math.log10(1.0 + Math.max(0.0, z)); },                     // section 3
    phiInv: function (s) { return Math.pow(10.0, s) - 1.0; },
    estimate: function (games, weights, constants, scores) {                             // sections 2, 4, 5
      var total = 0;
      for (var i = 0; i < games.length; i++) {
        var values = scores[games[i]], mean = 0;
        for (var k = 0; k < values.length; k++) mean += values[k];
        mean /= values.length;
        var c = constants[games[i]];
        total += weights[i] * spec.phi(100.0 * (mean - c.random) / (c.human - c.random));
      }
      return spec.phiInv(total);
    },
    rangeOf: function (estimate, pooled) { return pooled ? "pooled" : estimate >= 40.0 ? "in range" : "extrapolation"; },
    predictionInterval: function (estimate, range, halfWidth, seed) {                    // sections 6-8
      if (halfWidth === null || halfWidth === undefined) return null;
      if (range === "pooled") {
        var lo = seed ? seed[0] : estimate, hi = seed ? seed[1] : estimate;
        return [spec.phiInv(spec.phi(lo) - halfWidth), spec.phiInv(spec.phi(hi) + halfWidth)];
      }
      var centre = spec.phi(estimate), b = seed ? centre - spec.phi(seed[0]) : 0, a = seed ? spec.phi(seed[1]) - centre : 0;
      return [spec.phiInv(centre - Math.hypot(halfWidth, b)), spec.phiInv(centre + Math.hypot(halfWidth, a))];
    },
    ratioInterval: function (ea, eb, pa, pb) {                                           // section 9, two papers
      function halves(e, p) {
        return [p[0] > -1 ? spec.phi(e) - Math.log10(1 + p[0]) : Infinity,
                Number.isFinite(p[1]) ? Math.log10(1 + p[1]) - spec.phi(e) : Infinity];
      }
      var a = halves(ea, pa), b = halves(eb, pb), r = ea / eb;
      var below = Math.hypot(a[0], b[1]), above = Math.hypot(a[1], b[0]);
      return [Number.isFinite(below) ? r * Math.pow(10, -below) : 0, Number.isFinite(above) ? r * Math.pow(10, above) : Infinity];
    },
    sameSetupRatioInterval: function (ea, eb, halfWidth, seed) {                         // section 9, same setup
      if (halfWidth === null || halfWidth === undefined) return null;
      var r = ea / eb, b = 0, a = 0;
      if (seed && seed[0] > 0) { b = Math.log10(r / seed[0]); a = Math.log10(seed[1] / r); }
      return [r * Math.pow(10, -Math.hypot(halfWidth, b)), r * Math.pow(10, Math.hypot(halfWidth, a))];
    },
    decision: function (p, r, margin) {                                                  // section 9, decision
      if (margin === null || margin === undefined) return "cannot tell";
      var c = Math.log10(r);
      var lo = p[0] > 0 ? Math.pow(10, c - margin * (c - Math.log10(p[0]))) : 0;
      var hi = Number.isFinite(p[1]) ? Math.pow(10, c + margin * (Math.log10(p[1]) - c)) : Infinity;
      return lo > 1 ? "higher" : hi < 1 ? "lower" : "cannot tell";
    },
    printed: function (x, places) { return formatNumber(x, places); },                   // section 10
    plainNumber: function (text) { return PLAIN_NUMBER.test(text) && Number.isFinite(Number(text)); }
  };
  window.atari5Spec = spec;

  function subsetScore(subset, games, raw) {
    var scores = {};
    subset.games.forEach(function (g) { scores[g] = [raw[g]]; });
    var estimate = spec.estimate(subset.games, subset.coefficients, games, scores);
    var band = null;
    for (var b = 0; b < subset.bands.length; b++) {
      if (subset.bands[b].from === null || estimate >= subset.bands[b].from) { band = subset.bands[b]; break; }
    }
    var pair = band && band.range !== null ? spec.predictionInterval(estimate, band.range, band.half_width, null) : null;
    return { estimate: estimate, low: pair ? pair[0] : null, high: pair ? pair[1] : null, band: band };
  }

  function setText(id, text) {
    var node = document.getElementById(id);
    if (node) node.textContent = text;
  }

  function scorer(data) {
    var form = document.getElementById("scorer");
    var games = {};
    data.games.forEach(function (g) { games[g.id] = g; });
    var keys = data.games.map(function (g) { return g.id; }).concat(["sticky", "frames", "episode_cap"]);

    function compute() {
      var raw = {}, state = {};
      var refused = [];
      data.games.forEach(function (g) {
        var text = form.elements[g.id].value.trim();
        state[g.id] = text;
        var input = form.elements[g.id];
        if (text !== "" && spec.plainNumber(text)) raw[g.id] = Number(text);
        else if (text !== "") refused.push(g.name + ": \u201c" + text + "\u201d is not a plain number (write 12000, not " +
                                           "12,000 or 12k)");
        input.setAttribute("aria-invalid", text !== "" && !spec.plainNumber(text) ? "true" : "false");
      });
      state.sticky = form.elements.sticky.value;
      state.frames = form.elements.frames.value;
      state.episode_cap = form.elements.episode_cap ? form.elements.episode_cap.value : "";
      var text = hashOf(state, keys);
      writeHash(text);
      document.getElementById("share").setAttribute("href", "#" + text);
      var main = data.subsets[0];
      var complete = main.games.every(function (g) { return raw[g] !== undefined; });
      var messages = document.getElementById("protocol-messages");
      messages.textContent = "";
      var others = document.getElementById("other-subsets").tBodies[0];
      others.textContent = "";
      if (!complete || refused.length) {
        ["estimate", "interval-low", "interval-high", "signature", "paste-line"].forEach(function (id) { setText(id, "-"); });
        setText("interval-range", "");
        setText("coverage", refused.length ? "refused: " + refused.join("; ") :
          "needs " + main.games.filter(function (g) { return raw[g] === undefined; })
          .map(function (g) { return games[g].name; }).join(", "));
        return;
      }
      var result = subsetScore(main, games, raw);
      if (!Number.isFinite(result.estimate)) {
        setText("estimate", "not a finite number: check the scores' scale (raw game scores, not normalised)");
        return;
      }
      var band = result.band;
      setText("estimate", formatNumber(result.estimate));
      setText("interval-low", result.low === null ? "n/a" : formatNumber(result.low));
      setText("interval-high", result.high === null ? "n/a" : formatNumber(result.high));
      setText("interval-range", band && band.range === "extrapolation" ?
        "(EXTRAPOLATION: estimate below 40, where the model was not fitted)" :
        band && band.range === "in range" ? "(in range: estimate at or above 40)" : "");
      setText("coverage", band && band.coverage ? "calibrated on " + band.n_errors + " out-of-sample errors (" +
        band.calibration + "); measured coverage: " + band.coverage : band ? band.notes.join(" ") : "");
      setText("signature", band ? band.signature : "-");
      setText("paste-line", main.name + " score " + formatNumber(result.estimate) + (result.low === null ? "" :
        " (" + band.level_label + "% prediction interval " + formatNumber(result.low) + " to " +
        formatNumber(result.high) + ")") + "  [" + band.signature + "]");
      // The lines `score` prints for the chosen options at this band; with both, the frames lines go where the
      // build measured them (insert_at).
      var chosen = {};
      ["sticky", "frames"].forEach(function (key) {
        data.protocol[key].forEach(function (o, i) {
          if (state[key] !== "" && o.value === Number(state[key])) chosen[key] = i;
        });
      });
      var lines = band && band.protocol ? band.protocol : { sticky: [], frames: [], insert_at: [] };
      var sticky = chosen.sticky === undefined ? [] : lines.sticky[chosen.sticky];
      var frames = chosen.frames === undefined ? [] : lines.frames[chosen.frames];
      var at = chosen.sticky === undefined ? 0 : lines.insert_at[chosen.sticky];
      var protocol = sticky.slice(0, at).concat(frames, sticky.slice(at));
      (data.protocol.episode_cap || []).forEach(function (o) {  // --max-episode-frames: its line comes next
        if (state.episode_cap !== "" && o.value === Number(state.episode_cap)) protocol = protocol.concat(o.messages);
      });
      // Games below random play: `score` adds one line naming them with z (a template the build took from it).
      var below = data.below_random, listed = [];
      main.games.forEach(function (g) {
        var z = 100.0 * (raw[g] - games[g].random) / (games[g].human - games[g].random);
        if (below && z < 0) listed.push(games[g].name + below.between + z.toFixed(below.places) + below.after_z);
      });
      if (listed.length) protocol.push(below.prefix + listed.join(below.separator) + below.suffix);
      protocol.forEach(function (m) {
        var li = document.createElement("li");
        li.textContent = "protocol: " + m;
        messages.appendChild(li);
      });
      data.subsets.slice(1).forEach(function (subset) {
        var r = subsetScore(subset, games, raw);
        var tr = document.createElement("tr");
        tr.setAttribute("data-subset", subset.name);
        [subset.name, formatNumber(r.estimate),
         r.low === null ? "n/a" : formatNumber(r.low) + " to " + formatNumber(r.high) +
           (r.band.range === "extrapolation" ? " (extrapolation)" : ""),
         r.band ? r.band.signature : "-"].forEach(function (text) {
          var td = document.createElement("td");
          td.textContent = text;
          tr.appendChild(td);
        });
        others.appendChild(tr);
      });
    }

    function fromHash() {
      var h = readHash();
      keys.forEach(function (k) {
        var control = form.elements[k];
        if (!control || h[k] === undefined) return;
        if (control.tagName === "SELECT") {
          Array.prototype.forEach.call(control.options, function (o) {
            if (o.value !== "" && Number(o.value) === Number(h[k])) control.value = o.value;
          });
        } else {
          control.value = h[k];
        }
      });
      compute();
    }

    form.addEventListener("input", compute);
    window.addEventListener("hashchange", fromHash);
    fromHash();
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.forms, function (form) {  // the forms only drive the page
      form.addEventListener("submit", function (event) { event.preventDefault(); });
    });
    var page = document.body.getAttribute("data-page");
    var data = pageData();
    if (page === "leaderboard" && data) leaderboard(data);
    if (page === "score" && data) scorer(data);
  });
}());
