(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("data").textContent);
  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function row(table, cells, head) {
    var tr = el("tr");
    cells.forEach(function (c) {
      var cell = el(head ? "th" : "td", c[0], c[1] || "");
      tr.appendChild(cell);
    });
    table.appendChild(tr);
    return tr;
  }
  function elo(value, margin) {
    if (value === null) return "";
    if (!isFinite(value)) return value > 0 ? "all won" : "all lost";
    return value.toFixed(1) + (margin === null || !isFinite(margin) ? "" : " ± " + margin.toFixed(1));
  }
  $("title").textContent = "Tournament: " + D.game + " (" + D.format + ")";
  var scoredGames = D.games.filter(function (g) { return g.ending !== "abandoned"; }).length;
  $("summary").textContent = D.games.length + " games recorded, " + scoredGames +
    " not abandoned; deals " + (D.paired ? "paired (each deal played twice, seats swapped)" : "unpaired") + ".";
  var st = $("standings");
  row(st, [["#", "num"], ["participant"], ["games", "num"], ["wins", "num"], ["draws", "num"],
           ["losses", "num"], ["forfeits", "num"], ["score", "num"], ["Elo (95 %)", "num"]], true);
  D.standings.forEach(function (s) {
    row(st, [[s.rank, "num"], [s.name], [s.games, "num"], [s.wins, "num"], [s.draws, "num"],
             [s.losses, "num"], [s.forfeits, "num"], [s.score, "num"], [elo(s.elo, s.elo_margin), "num"]]);
  });
  var pt = $("pairings");
  row(pt, [["pairing"], ["model"], ["counts"], ["estimate"], ["LLR", "num"]], true);
  D.pairings.forEach(function (p) {
    var counts = Object.keys(p.counts).map(function (k) { return k + " " + p.counts[k]; }).join(", ");
    row(pt, [[p.pairing.join(" vs ")], [p.model], [counts], [p.estimate], [D.sprt ? p.llr.toFixed(2) : "", "num"]]);
  });
  var sp = $("sprt");
  if (!D.sprt) {
    sp.textContent = "No SPRT was run (tournament --sprt).";
  } else {
    var s = D.sprt, path = s.path, W = 720, H = 240, pad = 30;
    sp.appendChild(el("div", "SPRT " + s.test + ": bounds [" + s.lower.toFixed(2) + ", " +
      s.upper.toFixed(2) + "], LLR now " + (path.length ? path[path.length - 1].toFixed(2) : "0.00") +
      " after " + path.length + (D.paired ? " pairs" : " games") + "."));
    var lo = Math.min(s.lower, Math.min.apply(null, path.concat([0]))) * 1.1;
    var hi = Math.max(s.upper, Math.max.apply(null, path.concat([0]))) * 1.1;
    var NS = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    function y(v) { return H - pad - (v - lo) / (hi - lo) * (H - 2 * pad); }
    function x(i) { return pad + i / Math.max(1, path.length) * (W - 2 * pad); }
    function line(x1, y1, x2, y2, cls) {
      var l = document.createElementNS(NS, "line");
      l.setAttribute("x1", x1); l.setAttribute("y1", y1); l.setAttribute("x2", x2); l.setAttribute("y2", y2);
      l.setAttribute("class", cls); svg.appendChild(l);
    }
    function label(text, yy) {
      var t = document.createElementNS(NS, "text");
      t.setAttribute("x", 2); t.setAttribute("y", yy - 3); t.textContent = text; svg.appendChild(t);
    }
    line(pad, y(0), W - pad, y(0), "axis");
    line(pad, y(s.lower), W - pad, y(s.lower), "bound lower"); label("H0 " + s.lower.toFixed(2), y(s.lower));
    line(pad, y(s.upper), W - pad, y(s.upper), "bound upper"); label("H1 " + s.upper.toFixed(2), y(s.upper));
    var pts = [[x(0), y(0)]].concat(path.map(function (v, i) { return [x(i + 1), y(v)]; }));
    var poly = document.createElementNS(NS, "polyline");
    poly.setAttribute("points", pts.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" "));
    poly.setAttribute("class", "llr"); svg.appendChild(poly);
    sp.appendChild(svg);
  }
  var gt = $("games");
  row(gt, [["game"], ["result"], ["verified"], ["replay"]], true);
  D.games.forEach(function (g) {
    var tr = row(gt, [[g.id], [g.text], [g.verified ? "yes" : "no"], [""]]);
    if (!g.verified) tr.className = "unverified";
    if (g.replay) {
      var a = el("a", "replay");
      a.href = g.replay;
      tr.lastChild.appendChild(a);
    }
  });
})();
