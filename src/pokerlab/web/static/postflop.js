// The Postflop tab: set up a spot (two ranges painted on 13x13 grids, a board, pot, stack, bet trees), see its
// memory before solving, solve it with the exploitability curve and a Stop button, then browse the solve node
// by node (the server keeps it: browsing never solves again). Loaded before app.js, whose helpers ($, el,
// postJSON, streamJob, handName, pct, num, shareLink, showError) it calls only once the page has started.
"use strict";

const postflopPage = (() => {
  const PRESETS = {
    "one size 33%": { bets: "33%", raises: "a" },
    "one size 75%": { bets: "75%", raises: "a" },
    "33%, 75%, all-in / 2.5x, all-in": { bets: "33%,75%,a", raises: "2.5x,a" },
    "pot, all-in / all-in": { bets: "100%,a", raises: "a" },
  };
  const FIELDS = ["board", "oop", "ip", "pot", "stack", "bets", "raises", "target", "iterations", "time"];
  const ranges = { oop: { grid: null, ticket: 0 }, ip: { grid: null, ticket: 0 } };
  let editing = "oop";
  let paint = null; // {weight, cells: Map(hand -> weight)} while the mouse is down on the range grid
  let running = null; // the AbortController of the solve in flight
  let runningId = null; // its id on the server, once the solve has started (what Stop names)
  let points = [];
  let solved = null; // {id, result}
  let line = []; // the steps from the root to the node shown
  let shown = null; // the node's answer
  let pendingLine = null; // a share link's line, followed once its solve is done
  let maxUpload = 256 * 2 ** 20;
  const gridCells = { range: [], strategy: [], opponent: [] };

  const field = (name) => $(`pfl-${name}`);
  const size = (bytes) => (bytes < 2 ** 20 ? `${num(bytes / 1024, 1)} KiB` : `${num(bytes / 2 ** 20, 1)} MiB`);
  const cardsOf = (text) => (text.replace(/10/g, "T").match(/[2-9TJQKA][cdhs]/gi) || [])
    .map((c) => c[0].toUpperCase() + c[1].toLowerCase());

  // ---- the spot ----------------------------------------------------------------------------------------

  function spot() {
    const body = { board: field("board").value.replace(/[\s,]/g, ""), oop: field("oop").value,
      ip: field("ip").value, pot: Number(field("pot").value), stack: Number(field("stack").value),
      bets: field("bets").value, raises: field("raises").value };
    if (field("target").value !== "") body.target = Number(field("target").value);
    if (field("iterations").value !== "") body.iterations = Number(field("iterations").value);
    if (field("time").value !== "") body.time = Number(field("time").value);
    if (field("compress").checked) body.compress = true;
    const locks = lockLines();
    if (locks.length) body.lock = locks;
    return body;
  }

  // ---- node locks: one lock per line of the text box (pokerlab.postflop.lock's text form), also shown as a
  // list with a remove button each; the server parses them and answers a bad one with its sentence ----------

  function lockLines() {
    return field("locks").value.split("\n").map((t) => t.trim()).filter((t) => t);
  }

  function setLocks(lines) {
    field("locks").value = lines.join("\n");
    locksChanged();
  }

  function locksChanged() {
    const lines = lockLines();
    field("lock-list").replaceChildren(...lines.map((text, i) => {
      const remove = el("button", { type: "button", class: "remove", title: "remove this lock", text: "×" });
      remove.addEventListener("click", () => setLocks(lines.filter((_, j) => j !== i)));
      return el("li", { "data-lock": text }, el("code", { text }), remove);
    }));
    field("resolve").hidden = !lines.length;
    estimateSoon();
  }

  // "Lock this node": the node's mix prefilled as tenths of a percent that sum to exactly 100, and a hands box
  function lockForm() {
    const node = shown;
    const box = field("lock-node");
    box.hidden = node.kind !== "decision" || !node.actions.length;
    if (box.hidden) return;
    const tenths = node.actions.map((a) => Math.round(1000 * (node.frequencies[a] ?? 0)));
    const largest = tenths.indexOf(Math.max(...tenths));
    tenths[largest] += 1000 - tenths.reduce((x, y) => x + y, 0);
    field("lock-what").textContent = `${node.player}'s mix at ${line.length ? line.join(", ") : "the root"} (%):`;
    field("lock-mix").replaceChildren(...node.actions.map((action, a) => el("label", {}, `${action} `,
      el("input", { type: "number", min: "0", max: "100", step: "0.1", "data-action": action,
        value: String(tenths[a] / 10) }))));
    for (const input of field("lock-mix").querySelectorAll("input")) input.addEventListener("input", lockSum);
    field("lock-hands").value = "";
    lockSum();
  }

  function lockMix() {
    return [...field("lock-mix").querySelectorAll("input")].map((input) => [input.dataset.action,
      Number(input.value)]);
  }

  function lockSum() {
    const total = lockMix().reduce((sum, [, p]) => sum + p, 0);
    const good = Math.abs(total - 100) < 0.05 && lockMix().every(([, p]) => p >= 0);
    field("lock-sum").textContent = good ? "" : `the mix sums to ${num(total, 1)}%: it must sum to 100%`;
    field("lock-add").disabled = !good;
  }

  function addLock() {
    const mix = lockMix().filter(([, p]) => p > 0).map(([a, p]) => `${a}: ${Number(p.toFixed(1))}%`);
    const hands = field("lock-hands").value.trim().replace(/;/g, ",");
    const text = `line=${line.join(", ")}; strategy=${mix.join(", ")}` + (hands ? `; hands=${hands}` : "");
    setLocks([...lockLines().filter((t) => t !== text), text]);
  }

  // a locked solve: its EVs, the same spot's EVs without locks, and the gain with its error bound
  function lockReport(r) {
    const box = field("lock-result");
    if (!r.lock) { box.replaceChildren(); return; }
    const eq = r.lock.equilibrium;
    const gain = r.lock.gain_over_equilibrium;
    const rows = [["~locked solve", num(r.ev.OOP, 2), num(r.ev.IP, 2)]];
    if (eq) rows.push(["~equilibrium (no locks)", num(eq.ev[0], 2), num(eq.ev[1], 2)]);
    if (gain) rows.push(["~gain over equilibrium", `${num(gain.OOP, 2)} ± ${num(gain.within, 2)}`,
      `${num(gain.IP, 2)} ± ${num(gain.within, 2)}`]);
    const placed = r.lock.placed.map((p) => `${p.player}: ${p.nodes} node${p.nodes === 1 ? "" : "s"}, `
      + `${p.hands} hands (${p.lock})`);
    box.replaceChildren(table(["~EV (chips)", "OOP", "IP"], rows, "pfl-lock-table"),
      el("p", { class: "summary", text: `Locks placed: ${placed.join("; ")}. Each gain is the player's EV here `
        + "less its EV at the equilibrium, within the bound from both solves' exploitabilities." }));
  }

  let estimateTimer = null;
  let estimateTicket = 0;

  function estimateSoon() {
    clearTimeout(estimateTimer);
    estimateTimer = setTimeout(estimate, 250);
  }

  async function estimate() {
    const ticket = ++estimateTicket;
    const box = field("estimate");
    try {
      const e = await postJSON("/api/postflop/estimate", spot());
      if (ticket !== estimateTicket) return;
      box.classList.toggle("bad", !e.within_budget);
      box.textContent = `${e.street} spot on ${e.board}: about ${size(e.memory_bytes)} of solver `
        + `storage (this server's limit: ${num(e.max_memory_bytes / 2 ** 20, 0)} MiB); `
        + `${e.updates.toLocaleString("en-US")} updates for the iterations asked`
        + (e.within_budget ? "" : `, over the budget of ${e.max_updates.toLocaleString("en-US")}: ask for fewer`);
    } catch (error) {
      if (ticket !== estimateTicket) return;
      box.classList.add("bad");
      box.textContent = error.message;
    }
  }

  function boardChanged() {
    const board = cardsOf(field("board").value);
    for (const node of document.querySelectorAll("#pfl-board-picker .card")) {
      node.classList.toggle("board", board.includes(node.dataset.card));
    }
    updateRange("oop");
    updateRange("ip");
    estimateSoon();
  }

  function buildBoardPicker() {
    const picker = field("board-picker");
    for (const suit of "shdc") {
      for (const rank of RANKS) {
        const card = el("div", { class: `card s-${suit}`, "data-card": rank + suit, text: rank + SUIT_SYMBOL[suit] });
        card.addEventListener("click", () => {
          const board = cardsOf(field("board").value);
          const at = board.indexOf(rank + suit);
          if (at >= 0) board.splice(at, 1);
          else if (board.length < 5) board.push(rank + suit);
          field("board").value = board.join("");
          boardChanged();
        });
        picker.append(card);
      }
    }
  }

  // ---- the two ranges: one 13x13 grid edits the chosen player's range, at the slider's weight --------------

  function weight() { return Number(field("weight").value) / 100; }

  async function updateRange(who, stroke = {}) {
    const r = ranges[who];
    const ticket = ++r.ticket;
    try {
      const data = await postJSON("/api/range", { text: field(who).value, paint: stroke,
        board: field("board").value.replace(/[\s,]/g, "") });
      if (r.ticket !== ticket) return;
      r.grid = data.grid;
      r.blocked = data.blocked;
      if (Object.keys(stroke).length) { field(who).value = data.text; estimateSoon(); }
      field(`${who}-count`).textContent = `${data.combos.toLocaleString("en-US")} combos `
        + `(${num(data.weighted_combos, 1)} weighted)`;
      field(`${who}-count`).classList.remove("bad");
    } catch (error) {
      if (r.ticket !== ticket) return;
      field(`${who}-count`).textContent = error.message;
      field(`${who}-count`).classList.add("bad");
    }
    if (who === editing) drawRangeGrid();
  }

  function makeGrid(box, cells, onCell) {
    for (let r = 0; r < 13; r++) {
      for (let c = 0; c < 13; c++) {
        const kind = r === c ? "pair" : r < c ? "suited" : "offsuit";
        const name = handName(r, c);
        const cell = el("div", { class: `cell ${kind}`, role: "gridcell", "data-hand": name },
          el("div", { class: "fill" }), el("div", { class: "block" }), el("span", { class: "label", text: name }),
          el("span", { class: "w" }));
        if (onCell) cell.addEventListener("click", () => onCell(name, cell));
        cells.push(cell);
        box.append(cell);
      }
    }
  }

  function drawRangeGrid() {
    const r = ranges[editing];
    for (const [who, id] of [["oop", "edit-oop"], ["ip", "edit-ip"]]) field(id).checked = who === editing;
    gridCells.range.forEach((cell, i) => {
      const row = Math.floor(i / 13), col = i % 13;
      const name = cell.dataset.hand;
      const w = paint && paint.cells.has(name) ? paint.cells.get(name) : r.grid ? r.grid[row][col] : 0;
      const blocked = r.blocked ? r.blocked[row][col] : 0;
      cell.querySelector(".fill").style.height = `${Math.round(100 * w * (1 - blocked))}%`;
      cell.querySelector(".block").style.height = `${Math.round(100 * blocked)}%`;
      cell.classList.toggle("on", w >= 0.995 && blocked < 0.5);
      cell.dataset.weight = w.toFixed(4);
      cell.querySelector(".w").textContent = w > 0 && w < 1 ? String(Math.round(100 * w)) : "";
      cell.title = `${editing.toUpperCase()} ${name}: weight ${Math.round(100 * w)}%`;
    });
  }

  function buildRangeGrid() {
    const grid = field("range-grid");
    makeGrid(grid, gridCells.range, null);
    const cellAt = (event) => {
      const target = document.elementFromPoint(event.clientX, event.clientY);
      return target && target.closest ? target.closest("#pfl-range-grid .cell") : null;
    };
    grid.addEventListener("pointerdown", (event) => {
      const cell = cellAt(event);
      if (!cell || event.button !== 0) return;
      event.preventDefault();
      const current = Number(cell.dataset.weight);
      paint = { weight: Math.abs(current - weight()) < 1e-9 ? 0 : weight(), cells: new Map() };
      paint.cells.set(cell.dataset.hand, paint.weight);
      drawRangeGrid();
    });
    grid.addEventListener("pointermove", (event) => {
      const cell = paint && cellAt(event);
      if (cell) { paint.cells.set(cell.dataset.hand, paint.weight); drawRangeGrid(); }
    });
    window.addEventListener("pointerup", () => {
      if (!paint) return;
      const stroke = Object.fromEntries(paint.cells);
      paint = null;
      updateRange(editing, stroke);
    });
  }

  // ---- the solve -----------------------------------------------------------------------------------------

  function drawCurve() {
    const canvas = field("curve");
    const ctx = canvas.getContext("2d");
    const W = canvas.width, H = canvas.height, left = 56, bottom = 30, top = 10, right = 10;
    ctx.clearRect(0, 0, W, H);
    ctx.font = "11px system-ui, sans-serif";
    ctx.strokeStyle = "#d9dde5";
    ctx.fillStyle = "#6b7385";
    ctx.strokeRect(left, top, W - left - right, H - top - bottom);
    const valid = points.filter((p) => p.exploitability_percent > 0);
    if (!valid.length) {
      const exact = points.find((p) => p.exploitability_percent === 0);
      if (exact) {
        ctx.fillText(`exploitability 0 at iteration ${exact.iteration.toLocaleString("en-US")}: nothing to draw `
          + "on a log scale", left + 12, top + 20);
      }
      return;
    }
    const xs = valid.map((p) => Math.log10(p.iteration));
    const ys = valid.map((p) => Math.log10(p.exploitability_percent));
    const x0 = Math.min(...xs), x1 = Math.max(x0 + 1, ...xs);
    const y0 = Math.floor(Math.min(...ys)), y1 = Math.ceil(Math.max(y0 + 1, ...ys));
    const X = (x) => left + (W - left - right) * (x - x0) / (x1 - x0);
    const Y = (y) => top + (H - top - bottom) * (1 - (y - y0) / (y1 - y0));
    for (let e = y0; e <= y1; e++) {
      ctx.fillText(`${10 ** e}%`.replace(/(\.\d*?)0+%$/, "$1%"), 6, Y(e) + 4);
      ctx.beginPath(); ctx.moveTo(left, Y(e)); ctx.lineTo(W - right, Y(e)); ctx.stroke();
    }
    for (let e = Math.ceil(x0); e <= Math.floor(x1); e++) ctx.fillText(`${10 ** e}`, X(e) - 8, H - bottom + 14);
    ctx.fillText("iterations (log scale); exploitability, % of the pot", W / 2 - 130, H - 3);
    ctx.strokeStyle = "#1f6feb";
    ctx.fillStyle = "#1f6feb";
    ctx.lineWidth = 2;
    ctx.beginPath();
    xs.forEach((x, i) => (i ? ctx.lineTo(X(x), Y(ys[i])) : ctx.moveTo(X(x), Y(ys[i]))));
    ctx.stroke();
    if (valid.length < 30) xs.forEach((x, i) => ctx.fillRect(X(x) - 3, Y(ys[i]) - 3, 6, 6));
    ctx.lineWidth = 1;
  }

  function busy(on) {
    field("solve").disabled = on;
    field("resolve").disabled = on;
    field("stop").disabled = !on;
    field("stop").textContent = "Stop";
    field("file").disabled = on;
    field("progress").hidden = !on;
  }

  // a solve with its curve; Stop asks the server to end it where it is (it is kept and browsed, its summary
  // saying it stopped early); before the solve has started, Stop drops the request and nothing is kept
  async function solve(note = "") {
    if (running) return;
    showError("pfl-error", null);
    showNote(note);
    const body = spot();
    points = [];
    drawCurve();
    clearSolve();
    const controller = new AbortController();
    running = controller;
    runningId = null;
    busy(true);
    const target = body.target || 0;
    field("status").textContent = "solving…";
    try {
      const result = await streamJob("/api/postflop/stream", body, (p) => {
        if (p.id !== undefined) { runningId = p.id; return; }
        if (p.unlocked) {
          field("status").textContent = `solving the spot without locks, for the gain over equilibrium: iteration `
            + `${p.iteration.toLocaleString("en-US")}, exploitability ${num(p.exploitability_percent, 3)}% of the pot`;
          return;
        }
        points.push(p);
        drawCurve();
        field("status").textContent = `iteration ${p.iteration.toLocaleString("en-US")}: exploitability `
          + `${num(p.exploitability_percent, 3)}% of the pot` + (target ? ` (target ${target}%)` : "");
        if (target && p.exploitability_percent > 0) {
          field("progress").value = Math.min(1, Math.max(0, Math.log(100 / p.exploitability_percent)
            / Math.log(100 / target)));
        }
      }, controller.signal);
      points = result.curve.length ? result.curve : points;
      drawCurve();
      await opened(result);
    } catch (error) {
      field("status").textContent = "";
      pendingLine = null;
      showError("pfl-error", error.name === "AbortError"
        ? { message: "stopped before the solve started: nothing was kept" } : error);
    } finally {
      running = null;
      runningId = null;
      busy(false);
    }
  }

  async function stop() {
    if (!running) return;
    if (!runningId) { running.abort(); return; }
    field("stop").disabled = true;
    field("stop").textContent = "Stopping…";
    try {
      await postJSON("/api/postflop/stop", { id: runningId });
    } catch (error) {
      // finished meanwhile: its answer is on its way
    }
  }

  function showNote(text) {
    field("note").textContent = text;
    field("note").hidden = !text;
  }

  // a share link with a solve's id: the server's kept solve when it still holds it and it is of the link's
  // spot (the server checks), else the spot solved again, saying why
  async function reopen(id) {
    showError("pfl-error", null);
    clearSolve();
    field("status").textContent = "opening the solve the link names…";
    let answer;
    try {
      answer = await postJSON("/api/postflop/open", { id, spot: spot() });
    } catch (error) {
      field("status").textContent = "";
      solve(`the link's solve was not reopened (${error.message}); solving the spot again`);
      return;
    }
    showNote("the link's solve, as the server kept it (not solved again)");
    points = answer.curve || [];
    drawCurve();
    await opened(answer);
  }

  function clearSolve() {
    solved = null;
    shown = null;
    line = [];
    field("browser").hidden = true;
    field("summary").replaceChildren();
    field("early").hidden = true;
    field("lock-result").replaceChildren();
    field("save").hidden = true;
  }

  // a finished solve (or a loaded one): its summary, then its root
  async function opened(result) {
    solved = { id: result.id, result };
    const r = result;
    field("status").textContent = "";
    field("summary").replaceChildren(table(["~", ""], [
      ["~spot", `~${r.spot.street} ${r.spot.board}, pot ${r.spot.pot}, stack ${r.spot.stack}`],
      ["~bets / raises", `~${r.spot.bets} / ${r.spot.raises}`],
      ["~iterations", r.iterations.toLocaleString("en-US")],
      ["~exploitability", `${num(r.exploitability_percent, 3)}% of the pot (${num(r.exploitability, 3)} chips)`],
      ["~EV OOP / IP", `${num(r.ev.OOP, 2)} / ${num(r.ev.IP, 2)} chips`],
      ["~stopped on", r.early ? `~${r.stop_reason} (early: ${r.early.reason})` : `~${r.stop_reason}`],
      ["~time", `${num(r.elapsed_s, 2)} s`],
      ["~memory", `${size(r.memory_bytes)}, ${r.decision_nodes.toLocaleString("en-US")} decision nodes`],
    ], "pfl-summary-table"));
    field("early").textContent = r.early ? r.early.message : "";
    field("early").hidden = !r.early;
    lockReport(r);
    field("save").href = `/api/postflop/file/${r.id}`;
    field("save").hidden = false;
    const wanted = pendingLine || [];
    pendingLine = null;
    await go(wanted);
  }

  async function loadFile(file) {
    if (!file || running) return;
    showError("pfl-error", null);
    if (file.size > maxUpload) {
      showError("pfl-error", { message: `${file.name} is ${file.size.toLocaleString("en-US")} bytes, over this `
        + `server's limit of ${maxUpload.toLocaleString("en-US")} bytes per upload; browse it with `
        + "`pokerlab postflop show FILE` instead" });
      return;
    }
    clearSolve();
    showNote("");
    busy(true);
    field("status").textContent = `reading ${file.name}…`;
    try {
      const response = await fetch("/api/postflop/load", { method: "POST",
        headers: { "Content-Type": "application/octet-stream" }, body: file });
      const data = await response.json().catch(() => ({ detail: response.statusText }));
      if (!response.ok) throw new ApiError(response.status, data.detail || response.statusText);
      fill(data.spot);
      points = [];
      drawCurve();
      await opened(data);
    } catch (error) {
      field("status").textContent = "";
      showError("pfl-error", error);
    } finally {
      busy(false);
      field("file").value = "";
    }
  }

  // ---- a report over a few flops: the spot's ranges, pot, stack and tree on each, within the server's budget --

  async function runReport() {
    showError("pfl-report-error", null);
    const body = { oop: field("oop").value, ip: field("ip").value, pot: Number(field("pot").value),
      stack: Number(field("stack").value), bets: field("bets").value, raises: field("raises").value,
      flops: field("report-flops").value };
    if (field("report-target").value !== "") body.target = Number(field("report-target").value);
    else body.target = null;
    if (field("report-iterations").value !== "") body.iterations = Number(field("report-iterations").value);
    field("report-run").disabled = true;
    field("report-progress").hidden = false;
    field("report-progress").value = 0;
    field("report-status").textContent = "solving the first flop…";
    field("report-tables").replaceChildren();
    try {
      const result = await streamJob("/api/postflop/report/stream", body, (p) => {
        field("report-progress").value = p.flops_done / p.flops;
        field("report-status").textContent = `${p.flops_done} of ${p.flops} flops solved`;
      });
      field("report-status").textContent = result.early || `${result.finished} flops solved`;
      reportTables(result);
    } catch (error) {
      field("report-status").textContent = "";
      showError("pfl-report-error", error);
    } finally {
      field("report-run").disabled = false;
      field("report-progress").hidden = true;
    }
  }

  function reportTables(r) {
    const actions = r.actions;
    const cells = (g) => [...actions.map((a) => pct(g.frequencies[a], 1)), num(g.oop_ev, 2), num(g.ip_ev, 2),
      pct(g.oop_equity, 1)];
    const perFlop = table(["~flop", "~texture", ...actions, "EV OOP", "EV IP", "OOP equity", "exploitability"],
      r.rows.map((row) => [`~${row.flop}`, `~${row.suits}, ${row.pairing}, ${row.high} high, ${row.connectedness}`,
        ...cells(row), `${num(row.exploitability_percent, 3)}%`]), "pfl-report-flops");
    const groups = [];
    if (r.all) groups.push(["~all flops", r.all]);
    for (const [name, values] of Object.entries(r.by_texture)) {
      for (const [value, g] of Object.entries(values)) groups.push([`~${name}: ${value}`, g]);
    }
    const byTexture = table(["~group", "flops", ...actions, "EV OOP", "EV IP", "OOP equity"],
      groups.map(([name, g]) => [name, g.flops, ...cells(g)]), "pfl-report-textures");
    field("report-tables").replaceChildren(el("h3", { text: "per flop (OOP's first action)" }), perFlop,
      el("h3", { text: "by texture (weighted means)" }), byTexture);
  }

  // ---- browsing -----------------------------------------------------------------------------------------

  const COLOURS = { fold: "#5b7fc7", check: "#2f9e66", call: "#2f9e66" };
  const AGGRESSIVE = ["#f0a30a", "#e06c1f", "#c0392b", "#8e1b3a", "#5e1224"];

  function colours(actions) {
    let k = 0;
    return actions.map((a) => COLOURS[a.split(" ")[0]] || AGGRESSIVE[Math.min(k++, AGGRESSIVE.length - 1)]);
  }

  let goTicket = 0;

  async function go(steps) {
    if (!solved) return;
    showError("pfl-error", null);
    const ticket = ++goTicket; // clicks faster than the answers: the last one wins
    try {
      const answer = await postJSON("/api/postflop/node", { id: solved.id, line: steps });
      if (ticket !== goTicket) return;
      shown = answer;
      line = steps;
    } catch (error) {
      if (ticket === goTicket) showError("pfl-error", error);
      return;
    }
    field("browser").hidden = false;
    renderNode();
  }

  function renderNode() {
    const node = shown;
    const crumbs = field("crumbs");
    crumbs.replaceChildren();
    const root = el("button", { type: "button", class: "crumb", "data-depth": "0", text: "root" });
    root.addEventListener("click", () => go([]));
    crumbs.append(root);
    node.line.forEach((word, i) => {
      crumbs.append(el("span", { class: "sep", text: "›" }));
      const button = el("button", { type: "button", class: "crumb", "data-depth": String(i + 1), text: word });
      button.addEventListener("click", () => go(line.slice(0, i + 1)));
      crumbs.append(button);
    });
    const board = node.board.map((c) => c[0] + SUIT_SYMBOL[c[1]]).join(" ");
    const who = node.kind === "decision" ? `${node.player} to act` : node.kind === "chance" ? "a card is dealt"
      : node.kind === "fold" ? "the hand ends on a fold" : "showdown";
    field("node-title").textContent = `${board} · pot ${num(node.pot, 0)} · ${who}`;
    const actions = field("actions");
    actions.replaceChildren();
    const palette = colours(node.actions);
    node.actions.forEach((action, a) => {
      const f = node.frequencies[action] ?? 0;
      const button = el("button", { type: "button", class: "action", "data-action": action },
        el("span", { class: "swatch", style: `background:${palette[a]}` }), ` ${action} `,
        el("b", { text: pct(f, 1) }));
      button.addEventListener("click", () => go([...line, action]));
      actions.append(button);
    });
    const ev = node.ev === null ? "–" : `${num(node.ev, 2)} chips`;
    const equity = node.equity === null ? "–" : pct(node.equity, 1);
    field("node-numbers").textContent = node.kind === "chance" ? "" : `${node.player}'s range here: EV ${ev}, `
      + `equity ${equity} (weighted by how likely each hand is here)`;
    // a chance node: the card to deal, from the cards left
    const deal = field("deal-cards");
    field("deal").hidden = node.kind !== "chance";
    deal.replaceChildren();
    if (node.kind === "chance") {
      field("deal-street").textContent = `pick the ${node.board.length === 3 ? "turn" : "river"} card `
        + "(cards on the board are greyed out):";
      const left = new Set(node.deal);
      for (const suit of "shdc") {
        for (const rank of RANKS) {
          const card = rank + suit;
          const button = el("button", { type: "button", class: `card s-${suit}`, "data-card": card,
            text: rank + SUIT_SYMBOL[suit] });
          if (!left.has(card)) button.disabled = true;
          else button.addEventListener("click", () => go([...line, card]));
          deal.append(button);
        }
      }
    }
    field("strategy-owner").textContent = node.kind === "decision" ? `${node.player}'s strategy`
      : `${node.player}'s range`;
    drawStrategy(palette);
    drawOpponent();
    lockForm();
    field("hand-detail").replaceChildren();
  }

  function drawStrategy(palette) {
    const node = shown;
    gridCells.strategy.forEach((cell) => {
      const name = cell.dataset.hand;
      const c = node.classes[name];
      const fill = cell.querySelector(".fill");
      cell.classList.toggle("empty", !c || c.reach <= 0);
      cell.classList.toggle("locked", Boolean(c && c.locked));
      if (!c || c.reach <= 0) {
        fill.style.height = "0";
        cell.title = `${name}: not in ${node.player}'s range here`;
        cell.dataset.mix = "";
        return;
      }
      fill.style.height = `${Math.max(4, Math.round(100 * Math.min(1, c.reach)))}%`;
      if (c.strategy && c.strategy.length) {
        let at = 0;
        const stops = c.strategy.map((p, a) => {
          const from = at;
          at += 100 * p;
          return `${palette[a]} ${from.toFixed(2)}% ${at.toFixed(2)}%`;
        });
        fill.style.background = `linear-gradient(to right, ${stops.join(", ")})`;
      } else {
        fill.style.background = "#9aa3b5";
      }
      const mix = c.strategy ? node.actions.map((a, i) => `${a} ${pct(c.strategy[i], 1)}`).join(", ") : "";
      cell.dataset.mix = c.strategy ? c.strategy.map((p) => p.toFixed(4)).join(",") : "";
      cell.title = `${name} (${Math.round(100 * c.reach)}% of its ${c.combos} combos here)${mix ? `: ${mix}` : ""}`
        + (c.locked ? ` (locked: ${c.locked} combo${c.locked === 1 ? "" : "s"})` : "")
        + `; EV ${c.ev === null ? "–" : num(c.ev, 2)}, equity ${c.equity === null ? "–" : pct(c.equity, 1)}`;
    });
  }

  function drawOpponent() {
    const node = shown;
    field("opponent-owner").textContent = `${node.opponent.player}'s range here `
      + `(${num(node.opponent.combos, 1)} weighted combos)`;
    gridCells.opponent.forEach((cell) => {
      const name = cell.dataset.hand;
      const c = node.opponent.classes[name];
      const w = c ? Math.min(1, c.reach) : 0;
      cell.querySelector(".fill").style.height = `${Math.round(100 * w)}%`;
      cell.classList.toggle("on", w >= 0.995);
      cell.dataset.weight = w.toFixed(4);
      cell.querySelector(".w").textContent = w > 0.005 && w < 0.995 ? String(Math.round(100 * w)) : "";
      cell.title = `${name}: ${c ? `${num(c.combos, 2)} combos (${pct(w, 0)})` : "not in the range here"}`;
    });
  }

  // a hand class clicked: its combos, each with its strategy, EV and equity
  function showHand(name) {
    if (!shown) return;
    const node = shown;
    const rows = node.hands.filter((h) => h.class === name);
    const box = field("hand-detail");
    if (!rows.length) {
      box.replaceChildren(el("p", { class: "summary", text: `${name}: not in ${node.player}'s range here` }));
      return;
    }
    const locks = rows.some((h) => h.locked); // a locked column only where some combo here plays a locked mix
    const headers = ["~hand", "weight", ...node.actions, "EV", "equity", ...(locks ? ["~locked"] : [])];
    const body = rows.map((h) => [`~${h.hand.replace(/[cdhs]/g, (s) => SUIT_SYMBOL[s])}`, num(h.reach, 3),
      ...h.strategy.map((p) => pct(p, 1)), h.ev === null ? "–" : num(h.ev, 2),
      h.equity === null ? "–" : pct(h.equity, 1), ...(locks ? [h.locked ? "~yes" : "~no"] : [])]);
    box.replaceChildren(el("p", { class: "summary", text: `${name}: each combo's weight in ${node.player}'s range `
      + "here, its action frequencies, EV (chips) and equity" + (locks ? ", and whether a lock fixes its mix" : "")
      }), table(headers, body, "pfl-hand-table"));
  }

  // ---- state and start ----------------------------------------------------------------------------------

  function fill(s) {
    for (const name of FIELDS) {
      if (s[name] !== undefined && s[name] !== null && field(name)) field(name).value = s[name];
    }
    if (s.target === null) field("target").value = "";
    field("compress").checked = s.compress === true;
    // a share link's locks (text lines) or a loaded solve's (its spot's lock list)
    const locks = s.locks !== undefined ? s.locks : s.lock;
    if (Array.isArray(locks)) setLocks(locks.map(String).slice(0, 50));
    else if (typeof locks === "string") setLocks(locks.split("\n"));
    else setLocks([]);
    field("preset").value = Object.keys(PRESETS).find((k) => PRESETS[k].bets === field("bets").value
      && PRESETS[k].raises === field("raises").value) || "custom";
    boardChanged();
  }

  function state() {
    const s = {};
    for (const name of FIELDS) s[name] = field(name).value;
    if (field("compress").checked) s.compress = true;
    s.locks = lockLines();
    s.line = line;
    if (solved) s.id = solved.id; // the server's kept solve, reopened while it holds it
    return s;
  }

  function restore(s) {
    build();
    fill(s);
    pendingLine = Array.isArray(s.line) ? s.line.slice(0, 60).map(String) : null;
    if (typeof s.id === "string" && s.id) reopen(s.id.slice(0, 64));
    else solve();
  }

  function init(info) {
    maxUpload = info.limits.upload_bytes || info.limits.request_bytes;
    for (const name of Object.keys(PRESETS)) field("preset").append(el("option", { value: name, text: name }));
    field("preset").append(el("option", { value: "custom", text: "custom" }));
    field("preset").value = "one size 75%";
    // the tab's grids and pickers (800 elements) are made when it is first shown: the page starts as fast as
    // before, and the equity tab's grid stays the only one the page holds until then
    const showing = () => { if (location.hash.startsWith("#postflop")) build(); };
    window.addEventListener("hashchange", showing);
    showing();
    field("preset").addEventListener("change", () => {
      const preset = PRESETS[field("preset").value];
      if (preset) { field("bets").value = preset.bets; field("raises").value = preset.raises; estimateSoon(); }
    });
    for (const name of ["bets", "raises"]) {
      field(name).addEventListener("input", () => { field("preset").value = "custom"; estimateSoon(); });
    }
    for (const name of ["pot", "stack", "iterations"]) field(name).addEventListener("input", estimateSoon);
    field("compress").addEventListener("change", estimateSoon);
    let boardTimer = null;
    field("board").addEventListener("input", () => {
      clearTimeout(boardTimer);
      boardTimer = setTimeout(boardChanged, 250);
    });
    for (const who of ["oop", "ip"]) {
      let timer = null;
      field(who).addEventListener("input", () => {
        clearTimeout(timer);
        timer = setTimeout(() => { updateRange(who); estimateSoon(); }, 200);
      });
      field(who).addEventListener("focus", () => { editing = who; drawRangeGrid(); });
      field(`edit-${who}`).addEventListener("change", () => { editing = who; drawRangeGrid(); });
    }
    field("weight").addEventListener("input", () => {
      field("weight-value").textContent = `${field("weight").value}%`;
    });
    field("solve").addEventListener("click", () => solve());
    field("resolve").addEventListener("click", () => { pendingLine = solved ? line : null; solve(); });
    field("locks").addEventListener("input", locksChanged);
    field("lock-add").addEventListener("click", addLock);
    field("stop").addEventListener("click", stop);
    field("share").addEventListener("click", () => shareLink("postflop", state(), "pfl-share-link"));
    field("file").addEventListener("change", () => loadFile(field("file").files[0]));
    field("report-run").addEventListener("click", runReport);
    drawCurve();
  }

  let built = false;

  function build() {
    if (built) return;
    built = true;
    buildBoardPicker();
    buildRangeGrid();
    makeGrid(field("strategy-grid"), gridCells.strategy, showHand);
    makeGrid(field("opponent-grid"), gridCells.opponent, null);
    boardChanged();
  }

  return { init, restore };
})();
