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

  /* A part of a link as text, or null when it cannot be decoded (a stray "%" throws URIError, which blanked the page). */
  function decoded(text) {
    try { return decodeURIComponent(text.replace(/\+/g, " ")); } catch (error) { return null; }
  }

  /* key=value pairs of the given texts (a query, a hash), later texts winning; a part that does not decode is
     ignored, never an error: a link is input from anyone. */
  function readParams(texts) {
    var out = {};
    texts.forEach(function (text) {
      text.split("&").forEach(function (part) {
        if (!part) return;
        var at = part.indexOf("=");
        var key = decoded(at < 0 ? part : part.slice(0, at));
        var value = at < 0 ? "" : decoded(part.slice(at + 1));
        if (key !== null && key !== "" && value !== null) out[key] = value;
      });
    });
    return out;
  }

  function readHash() {
    return readParams([window.location.hash.replace(/^#/, "")]);
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

  /* Python's f"{x:,.Nf}": thousands separators, N decimals, 'inf', '-' for none (f"{x:.Nf}" with plain). */
  function formatNumber(x, places, plain) {
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
    if (!plain) parts[0] = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",");
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

  /* ---------------------------------------------------------------- search */

  /* The search that forgives (issue 48 item 3). The build writes per entry one text of normalised words (id,
     name, paper title, arXiv id or DOI, authors' surnames) and a mask of the games it has scores for, whose
     words are written once (site/search.py); this only matches. A query matches an entry when its letters and
     digits run together ("Agent 57" -> agent57) are within one of the entry's words; else when every word of the
     query is: within a word (a word of 1 or 2 characters: at a word's start); and a query word found in no entry at
     all may be misspelt: then it matches a word that begins within an edit distance of 1 (4 to 7 characters) or 2
     (8 or more) of it, a swap of two neighbours counting 1 (dreamr -> dreamerv2, agnet57 -> agent57). */
  function tokensOf(text) {
    return String(text).normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/\u00df/g, "ss")
      .split(/[^a-z0-9]+/).filter(function (t) { return t; });
  }

  /* The least optimal-string-alignment distance between `token` and a beginning of `word`. */
  function prefixDistance(token, word, limit) {
    var n = token.length, m = Math.min(word.length, n + limit), rows = [], best = Infinity;
    for (var i = 0; i <= n; i++) {
      rows.push([i]);
      for (var j = 1; j <= m; j++) {
        if (i === 0) { rows[0].push(j); continue; }
        var cost = token.charAt(i - 1) === word.charAt(j - 1) ? 0 : 1;
        var d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && token.charAt(i - 1) === word.charAt(j - 2) && token.charAt(i - 2) === word.charAt(j - 1))
          d = Math.min(d, rows[i - 2][j - 2] + 1);
        rows[i].push(d);
      }
    }
    for (var k = 0; k <= m; k++) best = Math.min(best, rows[n][k]);
    return best;
  }

  function makeSearch(index, extra) {
    var vocabulary = [], at = {}, entries = {};
    function ids(text) {
      var out = [];
      text.split(" ").forEach(function (w) {
        if (!w) return;
        if (!(w in at)) { at[w] = vocabulary.length; vocabulary.push(w); }
        out.push(at[w]);
      });
      return out;
    }
    index = index || { games: [], texts: {} };
    var games = index.games.map(ids);
    Object.keys(index.texts).forEach(function (id) {
      var mask = index.texts[id][1], played = [];  // hex digit k: games 4k to 4k+3, game 4k+b at bit b
      for (var k = 0; k < mask.length; k++) {
        var v = parseInt(mask.charAt(k), 16);
        for (var b = 0; b < 4; b++) if (v & (1 << b)) played.push(4 * k + b);
      }
      entries[id] = { words: ids(index.texts[id][0]), games: played };
    });
    extra.forEach(function (e) {  // an entry the build wrote no text for (none today): its id and name
      if (!entries[e[0]]) entries[e[0]] = { words: ids(tokensOf(e[0] + " " + e[1]).join(" ") + " " +
        tokensOf(e[0]).join("") + " " + tokensOf(e[1]).join("")), games: [] };
    });
    var all = Object.keys(entries);

    function within(token, word) { return token.length <= 2 ? word.indexOf(token) === 0 : word.indexOf(token) >= 0; }

    function wordsFor(token, fuzzy) {  // which words of the vocabulary the token matches
      var hit = {}, any = false, limit = token.length >= 8 ? 2 : 1;
      vocabulary.forEach(function (w, i) {
        if (fuzzy ? prefixDistance(token, w, limit) <= limit : within(token, w)) { hit[i] = true; any = true; }
      });
      return any ? hit : null;
    }

    function having(hit) {  // the entries with a word among `hit`, their own or one of their games'
      var gameHit = games.map(function (g) { return g.some(function (w) { return hit[w]; }); });
      var out = {};
      all.forEach(function (id) {
        var e = entries[id];
        if (e.words.some(function (w) { return hit[w]; }) || e.games.some(function (g) { return gameHit[g]; }))
          out[id] = true;
      });
      return out;
    }

    var last = null;
    return function (query) {  // {ids: {id: true}, fuzzy: [misspelt words], count}
      if (last && last.query === query) return last.result;
      var tokens = tokensOf(query), result = { ids: {}, fuzzy: [], count: 0 };
      if (tokens.length > 1) {
        var joined = wordsFor(tokens.join(""), false);
        if (joined) result.ids = having(joined);
      }
      if (!Object.keys(result.ids).length && tokens.length) {
        var sets = [];
        for (var t = 0; t < tokens.length; t++) {
          var hit = wordsFor(tokens[t], false);
          if (!hit && tokens[t].length >= 4) { hit = wordsFor(tokens[t], true); if (hit) result.fuzzy.push(tokens[t]); }
          if (!hit) { sets = null; break; }
          sets.push(having(hit));
        }
        if (sets) all.forEach(function (id) {
          if (sets.every(function (s) { return s[id]; })) result.ids[id] = true;
        });
      }
      result.count = Object.keys(result.ids).length;
      last = { query: query, result: result };
      return result;
    };
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
    var search = makeSearch(data.search, rows.map(function (r) { return [r.id, r.name]; }).concat(data.entries || []));

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
      if (state.q && !search(state.q).ids[row.id]) return false;
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

    function searchNote(shown, beyond) {  // what the search found, when it needs saying
      var note = document.getElementById("search-note");
      if (!note) return;
      var text = "", q = state.q || "", found = q ? search(q) : null;
      if (found && !found.count)
        text = "No entry matches \u2018" + q + "\u2019; search by name, paper, author, arXiv id or game.";
      else if (found && !shown && !beyond)
        text = "No row shown matches \u2018" + q + "\u2019 with these filters; " + found.count + " " +
          (found.count === 1 ? "entry matches" : "entries match") + " it without them (Reset clears the filters).";
      else if (found && found.fuzzy.length)
        text = "Nothing is spelt \u2018" + found.fuzzy.join("\u2019, \u2018") +
          "\u2019: showing entries with a near spelling.";
      note.textContent = text;
      if (text) note.removeAttribute("hidden"); else note.setAttribute("hidden", "");
    }

    function searchBeyond() {  // entries a search matches that the leaderboard does not rank: their pages
      var more = document.getElementById("search-more");
      if (!more) return 0;
      var found = state.q ? search(state.q) : null;
      var hits = found ? (data.entries || []).filter(function (e) { return found.ids[e[0]]; }) : [];
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
      return hits.length;
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
      searchNote(shown.length, searchBeyond());
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
      var centre = spec.phi(estimate), b = seed ? Math.max(0, centre - spec.phi(seed[0])) : 0,
        a = seed ? Math.max(0, spec.phi(seed[1]) - centre) : 0;  // a seed interval short of E adds nothing there
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
      if (seed) { b = seed[0] > 0 ? Math.max(0, Math.log10(r / seed[0])) : Infinity; a = Math.max(0, Math.log10(seed[1] / r)); }
      var below = Math.hypot(halfWidth, b);  // r_lo <= 0: the lower end is 0
      return [Number.isFinite(below) ? r * Math.pow(10, -below) : 0, r * Math.pow(10, Math.hypot(halfWidth, a))];
    },
    decision: function (p, r, margin) {                                                  // section 9, decision
      if (margin === null || margin === undefined) return "cannot tell";
      var c = Math.log10(r);
      var lo = p[0] > 0 ? Math.pow(10, c - margin * (c - Math.log10(p[0]))) : 0;
      var hi = Number.isFinite(p[1]) ? Math.pow(10, c + margin * (Math.log10(p[1]) - c)) : Infinity;
      return lo > 1 ? "higher" : hi < 1 ? "lower" : "cannot tell";
    },
    printed: function (x, places, plain) { return formatNumber(x, places, plain); },     // section 10 (ratios plain)
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

  /* The input gate of `score` (SPEC.md section 1.1, input rules), with the bounds the build exported from
     atari5_spec.data.limits: a value beyond max_abs or above its game's bound, and values that look like
     human-normalised fractions, are refused, as the command refuses them. */
  function gateRefusals(data, raw) {
    var gate = data.gate, out = [], given = [], below = [];
    data.games.forEach(function (g) {
      var v = raw[g.id];
      if (v === undefined) return;
      if (Math.abs(v) > gate.max_abs) out.push(g.name + ": " + gNumber(v) + " is beyond " + gate.max_abs.toLocaleString("en-US") +
                                                " in magnitude: no Atari game displays such a score");
      else if (g.bound !== null && v > g.bound) out.push(g.name + ": " + gNumber(v) + " is above " + gNumber(g.bound) +
        ", the largest raw score the gate accepts for it (" + gNumber(gate.bound_factor) + " times the best published " +
        "score's distance above random play; the best published is " + gNumber(g.best) + ")");
      given.push(v);
      if (v <= g.random) below.push(g.name);
    });
    if (given.length >= gate.min_games_for_fractions &&
        given.every(function (v) { return Math.abs(v) <= gate.fraction_limit; }) && 2 * below.length > given.length)
      out.push("every score is within " + gNumber(gate.fraction_limit) + " of zero and " + below.length + " of " +
               given.length + " games are at or below random play: these look like human-normalised fractions, not raw game scores");
    return out;
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
      refused = refused.concat(gateRefusals(data, raw));
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

  /* ---------------------------------------------------------------- comparison */

  /* Python's f"{x:g}": six significant digits, trailing zeros dropped, an exponent outside 1e-4 .. 1e6. */
  function gNumber(x) {
    if (x === 0) return "0";
    if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
    var exponent = Number(x.toExponential(5).split("e")[1]);
    if (exponent < -4 || exponent >= 6) {
      var parts = x.toExponential(5).split("e");
      var mantissa = parts[0].replace(/\.?0+$/, ""), e = Number(parts[1]);
      return mantissa + "e" + (e < 0 ? "-" : "+") + (Math.abs(e) < 10 ? "0" : "") + Math.abs(e);
    }
    return x.toPrecision(6).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
  }

  function readQuery() {
    return readParams([window.location.search.replace(/^\?/, ""), window.location.hash.replace(/^#/, "")]);
  }

  /* One entry's Atari-5 score as `score` computes it for one number per game (SPEC.md sections 2-8). */
  function entryScore(data, entry) {
    var scores = {}, missing = [], constants = {}, ids = [], normalised = {};
    data.games.forEach(function (g, i) {
      ids.push(g.id);
      constants[g.id] = g;
      if (entry.five[i] === null) missing.push(g.id);
      else {
        scores[g.id] = [entry.five[i]];
        normalised[g.id] = 100.0 * (entry.five[i] - g.random) / (g.human - g.random);
      }
    });
    if (missing.length) return { estimate: null, missing: missing, normalised: normalised };
    var estimate = spec.estimate(ids, data.coefficients, constants, scores), band = null;
    for (var b = 0; b < data.bands.length; b++) {
      if (data.bands[b].from === null || estimate >= data.bands[b].from) { band = data.bands[b]; break; }
    }
    var pair = band && band.range !== null ? spec.predictionInterval(estimate, band.range, band.half_width, null) : null;
    return { estimate: estimate, missing: [], normalised: normalised, band: band, pi: pair };
  }

  /* Why no direction is stated for the pair (scoring/relative.py _reasons), in its words. */
  function pairReasons(data, pair) {
    var reasons = [];
    var sides = [["the agent", pair.a, pair.sa], ["the baseline", pair.b, pair.sb]];
    for (var i = 0; i < sides.length; i++) {
      var who = sides[i][0], estimate = sides[i][2].estimate, span = data.span;
      if (span === null) { reasons.push("no pairs of agents measured in this calibration"); break; }
      if (estimate < span.low) reasons.push(who + "'s estimate " + formatNumber(estimate, 1) + " is below the range " +
        "where the pair coverage was measured (" + span.text + "): an EXTRAPOLATION");
      else if (estimate > span.high) reasons.push(who + "'s estimate " + formatNumber(estimate, 1) + " is above the " +
        "range where the pair coverage was measured (" + span.text + ")");
    }
    sides.forEach(function (side) {
      var cap = side[1].cap, text = cap === null ? null : (data.cap_reasons[String(cap)] || {})[side === sides[0] ? "agent" : "baseline"];
      if (text) reasons.push(text);
    });
    sides.forEach(function (side) {
      var below = data.games.map(function (g) { return g.id; }).filter(function (g) { return side[2].normalised[g] < 0; });
      if (below.length) reasons.push(side[0] + " is below random play on " + below.join(", ") + ": the formula clips " +
        "those games to random play, and the pair coverage was not measured for such agents");
    });
    return reasons;
  }

  /* What `atari5-spec score --score ... --relative-to B` prints for the pair: its ratio lines (cli/score_output.py
     ratio_answer_lines) and the interval's statement (relative.py ratio_interval). */
  function comparison(data, a, b) {
    var sa = entryScore(data, a), sb = entryScore(data, b);
    var pair = { a: a, b: b, sa: sa, sb: sb, lines: [], statement: "", ratio: null, pi: null, error: null };
    var same = a.setup !== null && a.setup === b.setup;
    pair.design = same ? "same setup" : "two papers";
    var subset = data.subset;
    if (sa.estimate === null || sb.estimate === null) {
      var lacking = [["your agent", sa], ["the baseline", sb]].filter(function (side) { return side[1].estimate === null; })
        .map(function (side) { return side[0] + " lacks " + side[1].missing.join(", "); });
      pair.lines.push("ratio to " + b.id + ": not computable: " + lacking.join("; "));
      return pair;
    }
    if (sb.estimate <= 0) {
      pair.error = "the baseline's " + subset + " score is " + gNumber(sb.estimate) + ": a ratio to a baseline at or " +
        "below random is meaningless";
      pair.lines.push("error: " + pair.error);
      return pair;
    }
    var ratio = sa.estimate / sb.estimate, design = data.designs[pair.design], interval = null;
    pair.ratio = ratio;
    if (sa.pi && sb.pi && sa.estimate > 0) {
      interval = same ? spec.sameSetupRatioInterval(sa.estimate, sb.estimate, design.half_width, null)
        : spec.ratioInterval(sa.estimate, sb.estimate, sa.pi, sb.pi);
    }
    var percent = data.level_label;
    pair.lines.push("ratio to " + b.id + ": " + formatNumber(ratio, 3, true) + "  (your " + subset + " " +
                    formatNumber(sa.estimate, 1) + " / baseline " + formatNumber(sb.estimate, 1) + ")");
    var calibration = "";
    if (interval) {
      var reasons = pairReasons(data, pair), decision, statement;
      if (interval[0] <= 1.0 && 1.0 <= interval[1]) {
        decision = "cannot tell";
        statement = "the " + percent + " interval holds 1: the data cannot tell which agent's 57-game median is higher";
      } else if (reasons.length) {
        decision = "cannot be decided here";
        statement = "cannot be decided here: the " + percent + " interval excludes 1, but no direction is stated " +
          "because " + reasons.join("; ");
      } else if (spec.decision(interval, ratio, design.margin) === "cannot tell") {
        decision = "cannot tell";                          // inside the decision margin (SPEC.md section 9)
        statement = design.within_margin;
      } else if (interval[0] > 1.0) {
        decision = "higher";
        statement = "the agent's 57-game median is higher than the baseline's (" + percent + ")" + design.short;
      } else {
        decision = "lower";
        statement = "the agent's 57-game median is lower than the baseline's (" + percent + ")" + design.short;
      }
      pair.pi = { low: interval[0], high: interval[1], decision: decision, reasons: reasons };
      pair.statement = statement;
      calibration = sa.band.calibration || "";
      pair.lines.push(percent + " prediction interval for the ratio of the 57-game medians" +
                      (same ? ", same setup" : "") + ": " + formatNumber(interval[0], 3, true) + " to " +
                      formatNumber(interval[1], 3, true));
      var withinMargin = decision === "cannot tell" && (interval[0] > 1.0 || interval[1] < 1.0);
      pair.lines.push("decision: " + (withinMargin ? data.decision_within_margin : (data.decisions[decision] || decision)));
      if (design.evidence) pair.lines.push(design.evidence);
    } else {
      pair.lines.push("no prediction interval for the ratio: cannot be decided here (see --explain)");
    }
    pair.signature = design.signatures[calibration];
    pair.lines.push("Paste this line in your paper (the ratio):");
    pair.lines.push("  " + subset + " ratio " + formatNumber(ratio, 3, true) + (interval ? " (" + percent +
      " prediction interval " + formatNumber(interval[0], 3, true) + " to " + formatNumber(interval[1], 3, true) + ")" : "") +
      "  [" + pair.signature + "]");
    return pair;
  }

  function commandFor(data, a, b) {
    var words = ["atari5-spec", "score"];
    data.games.forEach(function (g, i) { if (a.five[i] !== null) words.push("--score", g.id + "=" + String(a.five[i])); });
    words.push("--relative-to", b.id);
    if (a.setup !== null && a.setup === b.setup) words.push("--same-setup");
    if (a.cap !== null) words.push("--max-episode-frames", String(a.cap));
    return words.join(" ");
  }

  function fillRow(tr, cells) {
    cells.forEach(function (text, i) { tr.cells[i + 1].textContent = text; });
  }

  function compare(data) {
    var form = document.getElementById("compare");
    Array.prototype.forEach.call(document.querySelectorAll("[data-needs-js]"), function (control) {
      control.disabled = false;
    });
    var byId = {};
    data.entries.forEach(function (e) { byId[e.id] = e; });
    var all = window.atari5CompareScores || null;

    function render() {
      var a = byId[form.elements.a.value], b = byId[form.elements.b.value];
      var state = {};
      if (a) state.a = a.id;
      if (b) state.b = b.id;
      var text = hashOf(state, ["a", "b"]);
      var link = "compare.html" + (text ? "?" + text : "");
      document.getElementById("share").setAttribute("href", link);
      try {
        window.history.replaceState(null, "", (text ? "?" + text : window.location.pathname));
      } catch (error) {  // some browsers refuse replaceState on file: URLs: the share link keeps the pair
      }
      document.getElementById("page-a").setAttribute("href", a ? "algorithms/" + a.id + ".html" : "algorithms.html");
      document.getElementById("page-b").setAttribute("href", b ? "algorithms/" + b.id + ".html" : "algorithms.html");
      ["a", "b"].forEach(function (key) {
        var entry = key === "a" ? a : b, label = entry ? entry.name : (key === "a" ? "first" : "second");
        setText("five-" + key + "-raw", label + ": raw");
        setText("five-" + key + "-norm", label + ": normalised %");
      });
      var head = document.getElementById("compare-all").tHead.rows[0];
      head.cells[1].textContent = (a ? a.name : "first") + ": raw";
      head.cells[2].textContent = (a ? a.name : "first") + ": normalised %";
      head.cells[3].textContent = (b ? b.name : "second") + ": raw";
      head.cells[4].textContent = (b ? b.name : "second") + ": normalised %";
      var rows = document.getElementById("compare-five").tBodies[0].rows;
      data.games.forEach(function (g, i) {
        var cells = [];
        [a, b].forEach(function (entry) {
          var v = entry ? entry.five[i] : null;
          cells.push(v === null ? "-" : formatNumber(v, 2),
                     v === null ? "-" : formatNumber(100.0 * (v - g.random) / (g.human - g.random), 1));
        });
        fillRow(rows[i], cells);
      });
      var body = document.getElementById("compare-all").tBodies[0];
      body.textContent = "";
      var onlyOne = [];
      if (all && a && b) {
        var sa = all.scores[a.id] || [], sb = all.scores[b.id] || [];
        all.games.forEach(function (g, i) {
          var x = sa[i] === undefined ? null : sa[i], y = sb[i] === undefined ? null : sb[i];
          if (x === null && y === null) return;
          if (x === null || y === null) { onlyOne.push(g.name); return; }
          var tr = document.createElement("tr");
          var th = document.createElement("th");
          th.scope = "row";
          th.textContent = g.name;
          tr.appendChild(th);
          [formatNumber(x, 2), formatNumber(100.0 * (x - g.random) / (g.human - g.random), 1),
           formatNumber(y, 2), formatNumber(100.0 * (y - g.random) / (g.human - g.random), 1)].forEach(function (t) {
            var td = document.createElement("td");
            td.className = "num";
            td.textContent = t;
            tr.appendChild(td);
          });
          body.appendChild(tr);
        });
      }
      setText("n-57", String(body.rows.length));
      setText("only-one", onlyOne.length ? "Games only one of the two has a number for: " + onlyOne.join(", ") + "." : "");
      if (!a || !b) {
        setText("compare-status", !a && !b ? "choose two algorithms" : "choose the " + (a ? "second" : "first") + " algorithm");
        ["ratio-lines", "compare-command", "estimate-a", "estimate-b"].forEach(function (id) { setText(id, "-"); });
        setText("ratio-statement", "");
        return;
      }
      var pair = comparison(data, a, b);
      setText("compare-status", a.name + " (" + a.id + ") relative to " + b.name + " (" + b.id + "): " +
              (pair.design === "same setup" ? "one paper's agents with one recorded protocol, so the same-setup interval"
               : "the two-paper interval") + (a.id === b.id ? "; an entry compared with itself" : ""));
      setText("estimate-a", pair.sa.estimate === null ? "not computable: needs " + pair.sa.missing.join(", ")
              : formatNumber(pair.sa.estimate, 1));
      setText("estimate-b", pair.sb.estimate === null ? "not computable: needs " + pair.sb.missing.join(", ")
              : formatNumber(pair.sb.estimate, 1));
      setText("ratio-lines", pair.lines.join("\n"));
      setText("ratio-statement", pair.pi ? "Why: " + pair.statement : "");
      setText("compare-command", commandFor(data, a, b));
    }

    function fromQuery() {
      var q = readQuery();
      ["a", "b"].forEach(function (key) {
        if (q[key] !== undefined && byId[q[key]]) form.elements[key].value = q[key];
      });
      render();
    }

    form.addEventListener("input", render);
    form.addEventListener("change", render);
    document.getElementById("swap").addEventListener("click", function () {
      var a = form.elements.a.value;
      form.elements.a.value = form.elements.b.value;
      form.elements.b.value = a;
      render();
    });
    window.addEventListener("hashchange", fromQuery);
    fromQuery();
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.forms, function (form) {  // the forms only drive the page
      form.addEventListener("submit", function (event) { event.preventDefault(); });
    });
    var page = document.body.getAttribute("data-page");
    var data = pageData();
    if (page === "leaderboard" && data) leaderboard(data);
    if (page === "score" && data) scorer(data);
    if (page === "compare" && data) compare(data);
  });
}());
