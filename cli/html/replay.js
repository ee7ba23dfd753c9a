(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("data").textContent);
  var F = D.frames, at = 0, side = 0;
  F.forEach(function (f, i) {  // put back what a step shares with the one before (delta)
    if (i === 0) return;
    var p = F[i - 1];
    ["t", "st", "z", "res"].forEach(function (k) { if (!(k in f)) f[k] = p[k]; });
    if (f.b && !("c" in f.b)) {
      f.b = { c: p.b.c, r: p.b.r, lg: p.b.lg,
              cells: f.b.cells.map(function (c, j) { return c === 0 ? p.b.cells[j] : c; }) };
    }
  });
  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  function who(seat) {
    if (seat === null || seat === undefined) return "nobody";
    var name = D.players[seat];
    return "player " + (seat + 1) + (name ? " (" + name + ")" : "");
  }
  function showCard(c) {
    var box = clear($("card"));
    box.className = "";
    if (c[2] < 0) { box.textContent = c[0] + ": hidden (" + c[1] + ")"; return; }
    var f = D.faces[c[2]];
    var head = f[0] + (f[1] ? " (" + f[1] + ")" : "");
    var nums = f[2].map(function (p) { return p[0] + " " + p[1]; }).join(" · ");
    box.appendChild(el("strong", head));
    if (nums) box.appendChild(el("div", nums));
    if (c[4].length) box.appendChild(el("div", c[4].join(", "), "dim"));
    if (f[3]) box.appendChild(el("p", f[3]));
  }
  function cardEl(tag, c) {
    var e = el(tag, c[1], "card" + (c[3] === null ? "" : " o" + c[3]));
    e.title = c[0];
    e.addEventListener("click", function () { showCard(c); });
    return e;
  }
  function drawBoard(b) {
    var box = clear($("board"));
    if (!b) return;
    var rows = b.r.map(function (_, i) { return i; });
    var cols = b.c.map(function (_, i) { return i; });
    if (side === 1) { rows.reverse(); cols.reverse(); }
    var t = el("table", null, "board"), head = el("tr");
    head.appendChild(el("th", ""));
    cols.forEach(function (c) { head.appendChild(el("th", b.c[c])); });
    t.appendChild(head);
    rows.forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("th", b.r[r]));
      cols.forEach(function (c) {
        var cell = b.cells[r * b.c.length + c];
        var shade = cell[1] ? " shade-" + cell[1].replace(/[^a-z0-9-]/gi, "") : "";
        var td = el("td", null, "cell" + shade);
        td.title = cell[2] || cell[0];
        var words = (cell[2] || "").replace(cell[0], "").replace(/^[\s,;:·-]+/, "");
        td.appendChild(el("span", cell[0] + (words ? " " + words : ""), "ref"));
        cell[3].forEach(function (c) { td.appendChild(cardEl("span", c)); });
        tr.appendChild(td);
      });
      t.appendChild(tr);
    });
    box.appendChild(t);
    if (b.lg) box.appendChild(el("div", b.lg, "dim"));
  }
  function drawZones(zs) {
    var box = clear($("zones"));
    zs.forEach(function (z) {
      var p = el("div", null, "panel zone");
      var hidden = z[3] - z[2].length;
      p.appendChild(el("strong", z[0] + ": " + z[3] + " card" + (z[3] === 1 ? "" : "s")
        + (hidden > 0 && z[2].length ? " (" + hidden + " hidden)" : "")));
      var cards = el("div", null, "cards");
      z[2].forEach(function (c) { cards.appendChild(cardEl("span", c)); });
      p.appendChild(cards);
      box.appendChild(p);
    });
  }
  function turnStart(i) {  // the first frame of the turn frame i belongs to
    while (i > 1 && F[i - 1].who === F[i].who) i--;
    return i;
  }
  function go(i) {
    at = Math.max(0, Math.min(F.length - 1, i));
    var f = F[at];
    $("slider").value = at;
    $("where").textContent = "step " + at + " of " + (F.length - 1);
    $("title").textContent = f.t;
    var st = clear($("status"));
    f.st.forEach(function (line) { st.appendChild(el("div", line)); });
    drawBoard(f.b);
    drawZones(f.z);
    $("step").textContent = at === 0 ? "The start." :
      ("Input " + (f["in"] === null ? "(automatic)" : f["in"]) +
       (f.who === null || f.who === undefined ? "" : ", in a record of " + who(f.who)));
    var n = clear($("narration"));
    f.n.forEach(function (line) { n.appendChild(el("li", line)); });
    $("record").textContent = f.rec === null ? "" :
      f.rec.charAt(0).toUpperCase() + f.rec.slice(1) + ". " + f.pf;
    var res = $("result");
    res.style.display = f.res ? "" : "none";
    res.textContent = f.res || "";
    var fail = $("failure");
    var v = D.verdict;
    var failHere = v.at !== null && at === F.length - 1;
    fail.style.display = failHere ? "block" : "none";
    fail.textContent = failHere ? "Verification stops after this step: " + v.why : "";
  }
  var v = D.verdict, vbox = $("verdict");
  vbox.className = "panel " + (v.ok ? "ok" : "bad");
  vbox.appendChild(el("strong", v.ok ? "Verified" : "Verification failed"));
  v.lines.forEach(function (line) { vbox.appendChild(el("div", line)); });
  $("slider").max = F.length - 1;
  $("slider").addEventListener("input", function (e) { go(+e.target.value); });
  $("first").onclick = function () { go(0); };
  $("last").onclick = function () { go(F.length - 1); };
  $("prev").onclick = function () { go(at - 1); };
  $("next").onclick = function () { go(at + 1); };
  $("prevturn").onclick = function () {
    if (at <= 1) { go(0); return; }
    var s = turnStart(at); go(s < at ? s : turnStart(at - 1));
  };
  $("nextturn").onclick = function () {
    var i = at + 1;
    while (i < F.length - 1 && F[i + 1].who === F[i].who) i++;
    go(i + 1 < F.length ? i + 1 : i);
  };
  $("side").addEventListener("change", function (e) { side = +e.target.value; go(at); });
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.tagName === "SELECT") return;
    var keys = { ArrowLeft: "prev", ArrowRight: "next", PageUp: "prevturn", PageDown: "nextturn",
                 Home: "first", End: "last" };
    if (keys[e.key]) { $(keys[e.key]).onclick(); e.preventDefault(); }
  });
  go(0);
})();
