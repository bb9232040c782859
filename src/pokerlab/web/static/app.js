// pokerlab's page: plain JavaScript, no build step, no third-party code. Every number comes from the JSON API
// (the same objects as the CLI's --json); this file only draws them and keeps the page state in the URL.
"use strict";

const RANKS = "AKQJT98765432";
const SUITS = "cdhs";
const SUIT_SYMBOL = { c: "♣", d: "♦", h: "♥", s: "♠" };
const $ = (id) => document.getElementById(id);

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function postJSON(url, body, signal) {
  const response = await fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal,
  });
  const data = await response.json().catch(() => ({ detail: response.statusText }));
  if (!response.ok) throw new ApiError(response.status, data.detail || response.statusText);
  return data;
}

// POST to a streamed endpoint: progress objects go to onProgress, the result is returned. Aborting `signal`
// closes the connection, which stops the job on the server.
async function streamJob(url, body, onProgress, signal) {
  const response = await fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal,
  });
  if (!response.ok) {
    const data = await response.json().catch(() => ({ detail: response.statusText }));
    throw new ApiError(response.status, data.detail || response.statusText);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (!line) continue;
      const message = JSON.parse(line);
      if (message.progress && message.progress.queue !== undefined) showQueue(message.progress);
      else if (message.progress) { showQueue(null); onProgress(message.progress); }
      else if (message.result) { showQueue(null); return message.result; }
      else if (message.error) { showQueue(null); throw new ApiError(message.status, message.error); }
    }
  }
  showQueue(null);
  throw new ApiError(0, "the connection closed before the result arrived");
}

function ordinal(n) {
  if (n % 100 >= 11 && n % 100 <= 13) return `${n}th`;
  return `${n}${{ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th"}`;
}

// a job waiting for a worker: the server sends its place in the line, shown until the job starts
function showQueue(progress) {
  const note = $("queue-note");
  note.hidden = !progress;
  if (progress) {
    note.textContent = `waiting for a worker: ${ordinal(progress.queue)} in line (${progress.workers} `
      + `worker${progress.workers === 1 ? " is" : "s are"} busy)`;
  }
}

function showError(id, error) {
  const box = $(id);
  if (!error) { box.hidden = true; box.textContent = ""; return; }
  box.hidden = false;
  box.textContent = error.status === 503 ? `${error.message}` : error.message;
}

const pct = (x, digits = 2) => `${(100 * x).toFixed(digits)}%`;
const num = (x, digits = 2) => Number(x).toLocaleString("en-US", { minimumFractionDigits: digits,
  maximumFractionDigits: digits });

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function table(headers, rows, className = "") {
  const head = el("tr", {}, ...headers.map((h) => el("th", { class: h.startsWith("~") ? "text" : "",
    text: h.replace(/^~/, "") })));
  const body = rows.map((row) => el("tr", {}, ...row.map((cell) => {
    if (cell instanceof Node) return el("td", {}, cell);
    const text = String(cell);
    return el("td", { class: text.startsWith("~") ? "text" : "", text: text.replace(/^~/, "") });
  })));
  return el("table", { class: className }, el("thead", {}, head), el("tbody", {}, ...body));
}

// ---- URL state: #tab or #tab:<base64url JSON>; a share link restores a page's whole state ------------------

function encodeState(state) {
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  let binary = "";
  bytes.forEach((b) => { binary += String.fromCharCode(b); });
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeState(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
}

function shareLink(tab, state, inputId) {
  const url = `${location.origin}${location.pathname}#${tab}:${encodeState(state)}`;
  history.replaceState(null, "", url);
  const input = $(inputId);
  if (input) { input.hidden = false; input.value = url; input.select(); }
  if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
  return url;
}

// ---- tabs -----------------------------------------------------------------------------------------------

const pages = {};

function showTab(name) {
  if (!pages[name]) name = "equity";
  for (const section of document.querySelectorAll(".page")) section.hidden = section.id !== name;
  for (const link of document.querySelectorAll("#tabs a[data-tab]")) {
    link.classList.toggle("active", link.dataset.tab === name);
  }
}

function route() {
  const hash = decodeURIComponent(location.hash.slice(1));
  const [tab, encoded] = hash.split(":", 2);
  showTab(tab);
  if (encoded && pages[tab]) {
    try { pages[tab].restore(decodeState(encoded)); } catch (error) { console.warn("bad share link", error); }
  }
}

// ---- equity page ----------------------------------------------------------------------------------------

function handName(row, col) {
  if (row === col) return RANKS[row] + RANKS[col];
  return row < col ? `${RANKS[row]}${RANKS[col]}s` : `${RANKS[col]}${RANKS[row]}o`;
}

// One cell of a 13 x 13 chart: the hand, its probability as a fill (class "on" from one half), the percentage when
// the hand is mixed. Returns the cell with the hand's name and probability.
function chartCell(row, col, probs) {
  const name = handName(row, col);
  const p = probs[name] ?? 0;
  const kind = row === col ? "pair" : row < col ? "suited" : "offsuit";
  const cell = el("div", { class: `cell ${kind}${p >= 0.5 ? " on" : ""}`, "data-hand": name, "data-p": p.toFixed(4) },
    el("div", { class: "fill" }), el("span", { class: "label", text: name }),
    el("span", { class: "w", text: p > 0.005 && p < 0.995 ? String(Math.round(100 * p)) : "" }));
  cell.querySelector(".fill").style.height = `${Math.round(100 * p)}%`;
  return { cell, name, p };
}

const equityPage = (() => {
  const players = [];
  let selected = 0;
  let running = null;
  const cells = [];
  let paint = null; // {weight, cells: Map(name -> weight)} while the mouse is down
  let lastRun = null; // the state() of the last run that gave a result (JSON text)
  let handEquity = null; // {run, player, hands: {AKs: {equity, stderr}}} of the last run

  function weight() { return Number($("weight").value) / 100; }

  function drawGrid() {
    const player = players[selected];
    // the equity of each hand of the last run, while its inputs are still the ones on the page
    const equityShown = $("hand-equity-toggle").checked && handEquity && handEquity.player === selected
      && handEquity.run === JSON.stringify(state()) ? handEquity.hands : null;
    $("grid-owner").textContent = `player ${selected + 1}`;
    for (let r = 0; r < 13; r++) {
      for (let c = 0; c < 13; c++) {
        const cell = cells[r * 13 + c];
        const name = cell.dataset.hand;
        const w = paint && paint.cells.has(name) ? paint.cells.get(name) : player.grid[r][c];
        const blocked = player.blocked ? player.blocked[r][c] : 0;
        // painted weight of the combos the board leaves, from the bottom; the blocked combos' share greyed on top
        cell.querySelector(".fill").style.height = `${Math.round(100 * w * (1 - blocked))}%`;
        cell.querySelector(".block").style.height = `${Math.round(100 * blocked)}%`;
        cell.classList.toggle("on", w >= 0.995 && blocked < 0.5);
        cell.classList.toggle("blocked", blocked >= 0.9999);
        cell.dataset.weight = w.toFixed(4);
        cell.dataset.blocked = blocked.toFixed(4);
        cell.querySelector(".w").textContent = w > 0 && w < 1 ? String(Math.round(100 * w)) : "";
        const hand = equityShown ? equityShown[name] : null;
        cell.querySelector(".eq").textContent = hand ? (100 * hand.equity).toFixed(0) : "";
        cell.dataset.equity = hand ? hand.equity.toFixed(4) : "";
        const words = (blocked >= 0.9999 ? "blocked by the board" : `weight ${Math.round(100 * w)}%`
          + (blocked > 0 ? `, ${Math.round(100 * blocked)}% of its combos blocked by the board` : ""))
          + (hand ? `; equity ${pct(hand.equity, 1)} ± ${pct(hand.stderr, 1)} against the others` : "");
        cell.setAttribute("aria-label", `${name}: ${words}`);
        cell.title = `${name}: ${words}`;
      }
    }
  }

  function buildGrid() {
    const grid = $("grid");
    for (let r = 0; r < 13; r++) {
      for (let c = 0; c < 13; c++) {
        const kind = r === c ? "pair" : r < c ? "suited" : "offsuit";
        const name = handName(r, c);
        const cell = el("div", { class: `cell ${kind}`, role: "gridcell", "data-hand": name,
          tabindex: r === 0 && c === 0 ? "0" : "-1" },
          el("div", { class: "fill" }), el("div", { class: "block" }), el("span", { class: "label", text: name }),
          el("span", { class: "w" }), el("span", { class: "eq" }));
        cells.push(cell);
        grid.append(cell);
      }
    }
    // the keyboard: arrows move, Enter or Space paints (as a click), S opens the suit picker of the cell
    grid.addEventListener("keydown", (event) => {
      const cell = event.target.closest && event.target.closest(".cell");
      if (!cell) return;
      const index = cells.indexOf(cell);
      const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -13, ArrowDown: 13 }[event.key];
      if (step !== undefined) {
        const next = index + step;
        const leavesRow = Math.abs(step) === 1 && Math.floor(next / 13) !== Math.floor(index / 13);
        if (next < 0 || next >= cells.length || leavesRow) return;
        event.preventDefault();
        cell.tabIndex = -1;
        cells[next].tabIndex = 0;
        cells[next].focus();
      } else if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        const current = Number(cell.dataset.weight);
        const stroke = { [cell.dataset.hand]: Math.abs(current - weight()) < 1e-9 ? 0 : weight() };
        updateRange(selected, { paint: stroke });
      } else if (event.key === "s" || event.key === "S") {
        event.preventDefault();
        openSuits(cell.dataset.hand);
      }
    });
    grid.addEventListener("contextmenu", (event) => {
      const cell = event.target.closest && event.target.closest(".cell");
      if (!cell) return;
      event.preventDefault();
      openSuits(cell.dataset.hand);
    });
    const cellAt = (event) => {
      const target = document.elementFromPoint(event.clientX, event.clientY);
      return target && target.closest ? target.closest(".cell") : null;
    };
    const touch = (cell) => {
      if (!cell || !paint) return;
      paint.cells.set(cell.dataset.hand, paint.weight);
      drawGrid();
    };
    grid.addEventListener("pointerdown", (event) => {
      const cell = cellAt(event);
      if (!cell || event.button !== 0) return; // the right button opens the suit picker, it does not paint
      event.preventDefault();
      const current = Number(cell.dataset.weight);
      // painting a hand that already has the chosen weight erases instead, for the whole stroke
      paint = { weight: Math.abs(current - weight()) < 1e-9 ? 0 : weight(), cells: new Map() };
      touch(cell);
    });
    grid.addEventListener("pointermove", (event) => { if (paint) touch(cellAt(event)); });
    window.addEventListener("pointerup", () => {
      if (!paint) return;
      const stroke = Object.fromEntries(paint.cells);
      paint = null;
      updateRange(selected, { paint: stroke });
    });
  }

  function cardMask() { return `${$("board").value}${$("dead").value}`.replace(/\s|,/g, ""); }

  async function updateRange(index, { paint: stroke = {}, fromText = false } = {}) {
    const player = players[index];
    const ticket = (player.ticket || 0) + 1;
    player.ticket = ticket;
    try {
      const data = await postJSON("/api/range", { text: player.text, paint: stroke, board: cardMask() });
      if (player.ticket !== ticket) return; // a newer edit is on its way
      player.grid = data.grid;
      player.blocked = data.blocked;
      player.error = null;
      player.count = data;
      // the text as typed stays as typed (a board change re-counts it, never rewrites it); a paint rewrites it
      if (Object.keys(stroke).length) player.text = data.text;
    } catch (error) {
      if (player.ticket !== ticket) return;
      player.error = error.message;
    }
    renderPlayers(fromText ? index : -1);
    if (index === selected) { drawGrid(); if (suitsOf) openSuits(suitsOf); }
  }

  // the suit picker: the combos of one hand class, each on or off at the slider's weight
  let suitsOf = null;

  async function openSuits(hand) {
    suitsOf = hand;
    const box = $("suit-picker");
    const player = players[selected];
    let data;
    try {
      data = await postJSON("/api/range", { text: player.text, board: cardMask(), hand });
    } catch (error) {
      box.hidden = false;
      box.replaceChildren(el("span", { class: "bad", text: error.message }));
      return;
    }
    if (suitsOf !== hand) return;
    const buttons = data.hand_combos.map((combo) => {
      const text = combo.combo.replace(/[cdhs]/g, (suit) => SUIT_SYMBOL[suit]);
      const button = el("button", { type: "button", class: `combo${combo.weight > 0 ? " picked" : ""}`,
        "data-combo": combo.combo, "aria-pressed": combo.weight > 0 ? "true" : "false",
        title: combo.blocked ? "blocked by the board" : `weight ${Math.round(100 * combo.weight)}%`, text });
      if (combo.blocked) button.disabled = true;
      button.addEventListener("click", () => {
        updateRange(selected, { paint: { [combo.combo]: combo.weight > 0 ? 0 : weight() } });
      });
      return button;
    });
    const close = el("button", { type: "button", class: "close", text: "close" });
    close.addEventListener("click", () => { suitsOf = null; box.hidden = true; });
    box.hidden = false;
    box.replaceChildren(el("span", { text: `${hand}: click a combo to add it at the slider's weight or remove it` }),
      el("div", { class: "combos" }, ...buttons), close);
  }

  function renderPlayers(keepFocus = -1) {
    const box = $("players");
    players.forEach((player, i) => {
      let row = box.children[i];
      if (!row) {
        row = el("div", { class: "player" }, el("span", { class: "name" }),
          el("input", { spellcheck: "false", "aria-label": `range of player ${i + 1}` }),
          el("span", { class: "count" }));
        const input = row.querySelector("input");
        let timer = null;
        input.addEventListener("input", () => {
          players[i].text = input.value;
          clearTimeout(timer);
          timer = setTimeout(() => updateRange(i, { fromText: true }), 200);
        });
        input.addEventListener("focus", () => select(i));
        row.addEventListener("click", () => select(i));
        box.append(row);
      }
      row.classList.toggle("selected", i === selected);
      row.querySelector(".name").textContent = `player ${i + 1}`;
      const input = row.querySelector("input");
      if (i !== keepFocus || document.activeElement !== input) input.value = player.text;
      const count = row.querySelector(".count");
      count.classList.toggle("bad", Boolean(player.error));
      count.textContent = player.error ? player.error : player.count
        ? `${player.count.combos.toLocaleString("en-US")} combo${player.count.combos === 1 ? "" : "s"} `
          + `(${num(player.count.weighted_combos, 1)} weighted, `
          + `${pct(player.count.fraction)} of 1,326)` : "";
    });
    while (box.children.length > players.length) box.lastChild.remove();
    $("add-player").disabled = players.length >= 10;
    $("remove-player").disabled = players.length <= 2;
  }

  // each hand class of the selected player against the others, after a run: the numbers in the grid's cells
  async function loadHandEquity() {
    const run = lastRun;
    const player = selected;
    if (!$("hand-equity-toggle").checked || !run || run !== JSON.stringify(state())) return;
    if (handEquity && handEquity.run === run && handEquity.player === player) { drawGrid(); return; }
    const status = $("hand-equity-status");
    status.textContent = `equity per hand of player ${player + 1}…`;
    const s = JSON.parse(run);
    try {
      const data = await streamJob("/api/hand-equity/stream", { players: s.players, board: s.board, dead: s.dead,
        player }, (p) => { status.textContent = `equity per hand of player ${player + 1}: ${pct(p.fraction, 0)}`; });
      if (run !== lastRun || player !== selected) return;
      handEquity = { run, player, hands: data.hands };
      status.textContent = `cells show each hand's equity (%) against the others: Monte Carlo, `
        + `${data.trials_per_hand.toLocaleString("en-US")} showdowns per hand (hover for ± one standard error)`;
    } catch (error) {
      status.textContent = `equity per hand: ${error.message}`;
    }
    drawGrid();
  }

  function select(index) {
    if (index === selected) return;
    selected = index;
    suitsOf = null;
    $("suit-picker").hidden = true;
    $("hand-equity-status").textContent = "";
    loadHandEquity();
    renderPlayers();
    drawGrid();
  }

  const emptyGrid = () => Array.from({ length: 13 }, () => new Array(13).fill(0));

  function addPlayer(text) {
    players.push({ text, grid: emptyGrid(), count: null, error: null });
    updateRange(players.length - 1);
  }

  function buildPicker() {
    const picker = $("card-picker");
    for (const suit of "shdc") {
      for (const rank of RANKS) {
        const card = el("div", { class: `card s-${suit}`, "data-card": rank + suit, text: rank + SUIT_SYMBOL[suit] });
        card.addEventListener("click", () => toggleCard(rank + suit));
        picker.append(card);
      }
    }
  }

  function cardsOf(text) {
    return (text.replace(/10/g, "T").match(/[2-9TJQKA][cdhs]/gi) || []).map((c) => c[0].toUpperCase() + c[1].toLowerCase());
  }

  function toggleCard(card) {
    const mode = document.querySelector("input[name=pick-mode]:checked").value;
    const board = cardsOf($("board").value);
    const dead = cardsOf($("dead").value);
    const other = mode === "board" ? dead : board;
    const mine = mode === "board" ? board : dead;
    if (other.includes(card)) other.splice(other.indexOf(card), 1);
    if (mine.includes(card)) mine.splice(mine.indexOf(card), 1);
    else if (mode !== "board" || mine.length < 5) mine.push(card);
    $("board").value = board.join("");
    $("dead").value = dead.join("");
    cardsChanged();
  }

  function cardsChanged() {
    const board = cardsOf($("board").value);
    const dead = cardsOf($("dead").value);
    for (const node of document.querySelectorAll("#card-picker .card")) {
      node.classList.toggle("board", board.includes(node.dataset.card));
      node.classList.toggle("dead", dead.includes(node.dataset.card));
    }
    players.forEach((_, i) => updateRange(i));
  }

  function state() {
    return { players: players.map((p) => p.text), board: $("board").value, dead: $("dead").value,
      method: $("method").value };
  }

  function renderResult(result) {
    const sampled = result.method !== "exact";
    const headers = ["~player", "~range", "equity", "win", "tie"];
    if (sampled) headers.push("± stderr");
    const rows = result.players.map((p, i) => {
      const bar = el("span", { class: "bar", style: `width:${Math.round(80 * p.equity)}px` });
      const row = [`~${i + 1}`, `~${p.range}`, el("span", {}, bar, ` ${pct(p.equity, 3)}`), pct(p.win, 3),
        pct(p.tie, 3)];
      if (sampled) row.push(p.stderr === null ? "–" : pct(p.stderr, 3));
      return row;
    });
    const box = $("equity-result");
    box.replaceChildren(table(headers, rows, "equity-table"));
    const stop = result.stop_reason ? `, stopped on ${result.stop_reason}` : "";
    box.append(el("p", { class: "summary", id: "equity-summary",
      text: `${result.method === "exact" ? "exact" : "Monte Carlo"}: ${result.showdowns.toLocaleString("en-US")} `
        + `showdowns in ${num(1000 * result.elapsed_s, 1)} ms${stop}` }));
  }

  async function run() {
    if (running) return;
    showError("equity-error", null);
    $("equity-result").replaceChildren(); // a result stays only with the inputs that made it
    const controller = new AbortController();
    running = controller;
    $("run-equity").disabled = true;
    $("stop-equity").disabled = false;
    const bar = $("equity-progress");
    bar.hidden = false;
    bar.value = 0;
    const started = performance.now();
    try {
      const s = state();
      const result = await streamJob("/api/equity/stream", { players: s.players, board: s.board, dead: s.dead,
        method: s.method }, (p) => { bar.value = p.fraction; }, controller.signal);
      renderResult(result);
      $("equity-result").dataset.ms = String(Math.round(performance.now() - started));
      lastRun = JSON.stringify(state());
      loadHandEquity();
    } catch (error) {
      if (error.name === "AbortError") showError("equity-error", { message: "stopped" });
      else showError("equity-error", error);
    } finally {
      running = null;
      bar.hidden = true;
      $("run-equity").disabled = false;
      $("stop-equity").disabled = true;
    }
  }

  function restore(s) {
    players.length = 0;
    $("players").replaceChildren();
    selected = 0;
    $("board").value = s.board || "";
    $("dead").value = s.dead || "";
    $("method").value = s.method || "auto";
    for (const text of (s.players || ["", ""]).slice(0, 10)) addPlayer(String(text));
    while (players.length < 2) addPlayer("random");
    renderPlayers();
    cardsChanged();
    run();
  }

  function init() {
    buildGrid();
    buildPicker();
    addPlayer("AhAs");
    addPlayer("KdKc");
    renderPlayers();
    drawGrid();
    $("weight").addEventListener("input", () => { $("weight-value").textContent = `${$("weight").value}%`; });
    $("hand-equity-toggle").addEventListener("change", () => {
      if (!$("hand-equity-toggle").checked) $("hand-equity-status").textContent = "";
      loadHandEquity();
      drawGrid();
    });
    let topTimer = null;
    $("top-pct").addEventListener("input", () => {
      const share = Number($("top-pct").value);
      $("top-value").textContent = `${share}%`;
      players[selected].text = share > 0 ? `${share}%` : "";
      renderPlayers();
      clearTimeout(topTimer);
      topTimer = setTimeout(() => updateRange(selected, { fromText: true }), 120);
    });
    $("grid-clear").addEventListener("click", () => { players[selected].text = ""; updateRange(selected); });
    $("add-player").addEventListener("click", () => { addPlayer("random"); renderPlayers(); });
    $("remove-player").addEventListener("click", () => {
      players.pop();
      selected = Math.min(selected, players.length - 1);
      renderPlayers();
      drawGrid();
    });
    $("clear-cards").addEventListener("click", () => { $("board").value = ""; $("dead").value = ""; cardsChanged(); });
    for (const id of ["board", "dead"]) {
      let timer = null;
      $(id).addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(cardsChanged, 250); });
    }
    $("run-equity").addEventListener("click", run);
    $("stop-equity").addEventListener("click", () => { if (running) running.abort(); });
    $("share-equity").addEventListener("click", () => shareLink("equity", state(), "share-link"));
  }

  return { init, restore };
})();

// ---- ICM page -------------------------------------------------------------------------------------------

const icmPage = (() => {
  const PAGE_ROWS = 100; // rows of the prize table drawn at once: 20,000 rows took 9 s to draw
  let running = null;
  let shown = null; // {result, body, names, page}

  // the stacks as `pokerlab icm --stacks` reads them (thousands separators, names), by the server's own parser;
  // a comma followed by a space is never a thousands separator, so "5000, 3000" is two players as typed
  async function stacks(signal) {
    const text = $("stacks").value.replace(/,[ \t]+/g, "\n");
    return postJSON("/api/stacks", { text }, signal);
  }

  function payoutSpec() {
    const kind = $("payout-kind").value;
    if (kind === "split") return `${$("split").value}:pool=${$("split-pool").value}`;
    if (kind === "power") return `power:a=${$("rule-a").value},pool=${$("rule-pool").value},paid=${$("rule-paid").value}`;
    if (kind === "flat") return `flat:pool=${$("rule-pool").value},paid=${$("rule-paid").value}`;
    return $("payouts").value;
  }

  function showPayoutFields() {
    const kind = $("payout-kind").value;
    $("payout-list").hidden = kind !== "list";
    $("payout-split").hidden = kind !== "split";
    $("payout-rule").hidden = kind !== "power" && kind !== "flat";
    $("rule-a-label").hidden = kind !== "power";
  }

  function state() {
    return { stacks: $("stacks").value, kind: $("payout-kind").value, payouts: $("payouts").value,
      split: $("split").value, splitPool: $("split-pool").value, paid: $("rule-paid").value,
      pool: $("rule-pool").value, a: $("rule-a").value, places: $("icm-places").checked,
      bubble: $("icm-bubble").checked, deal: $("icm-deal").checked, bounty: $("icm-bounty").value,
      pko: $("icm-pko").checked };
  }

  // knockout bounties of a request: one number for every head or one per player; a PKO pays half to the buster
  function withBounties(body, bountyId, pkoId) {
    const values = $(bountyId).value.split(/[\s,;]+/).filter(Boolean).map(Number);
    if (values.length) body.bounty = values.length === 1 ? values[0] : values;
    if ($(pkoId).checked) body.pko_share = 0.5;
    return body;
  }

  function heatColor(value, low, high) {
    if (value === null) return "#eceef2";
    const t = Math.max(0, Math.min(1, (value - low) / Math.max(high - low, 1e-9)));
    return `hsl(${Math.round(120 - 120 * t)}, 70%, ${Math.round(88 - 28 * t)}%)`;
  }

  function prizeTable() {
    const { result, names, page } = shown;
    const deal = result.deal || null;
    const headers = ["~player", "stack", "chips", "prize equity", "prize share"];
    const sampled = result.players[0].stderr !== null;
    if (sampled) headers.push("± stderr");
    if (deal) headers.push("ICM chop", "chip chop", "chip − ICM");
    const bounties = result.players[0].bounty_equity !== undefined;
    if (bounties) headers.push("bounty", "bounty equity");
    const first = page * PAGE_ROWS;
    const rows = result.players.slice(first, first + PAGE_ROWS).map((p, k) => {
      const i = first + k;
      const row = [`~${names[i]}`, num(p.stack, 0), pct(p.chip_share), num(p.equity, 2), pct(p.prize_share)];
      if (sampled) row.push(num(p.stderr, 3));
      if (deal) row.push(num(deal[i].icm_chop, 2), num(deal[i].chip_chop, 2), num(deal[i].chip_minus_icm, 2));
      if (bounties) row.push(num(p.bounty, 2), num(p.bounty_equity, 4));
      return row;
    });
    const box = el("div", { id: "icm-prizes" }, table(headers, rows, "icm-table"));
    const pages = Math.ceil(result.players.length / PAGE_ROWS);
    if (pages > 1) {
      const go = (to) => {
        shown.page = Math.max(0, Math.min(pages - 1, to));
        $("icm-prizes").replaceWith(prizeTable());
      };
      const previous = el("button", { type: "button", id: "icm-previous", text: "‹ previous" });
      const next = el("button", { type: "button", id: "icm-next", text: "next ›" });
      previous.disabled = page === 0;
      next.disabled = page === pages - 1;
      previous.addEventListener("click", () => go(shown.page - 1));
      next.addEventListener("click", () => go(shown.page + 1));
      box.append(el("div", { class: "row" }, previous, el("span", { id: "icm-rows", text: `players `
        + `${(first + 1).toLocaleString("en-US")}-${Math.min(first + PAGE_ROWS, result.players.length)
          .toLocaleString("en-US")} of ${result.players.length.toLocaleString("en-US")}` }), next));
    }
    return box;
  }

  function render(result, body, names) {
    const box = $("icm-result");
    box.replaceChildren();
    shown = { result, body, names, page: 0 };
    box.append(el("h2", { text: "Prize equity" }), prizeTable());
    const samples = result.samples ? `, ${result.samples.toLocaleString("en-US")} samples, stopped on `
      + `${result.stop_reason}` : "";
    box.append(el("p", { class: "summary", id: "icm-summary",
      text: `${result.method}, ${num(1000 * result.elapsed_s, 2)} ms${samples}; `
      + `payouts ${body.payouts}` }));
    if (result.players[0].places) {
      const paid = result.players[0].places.length;
      const placeRows = result.players.map((p, i) => [i + 1, ...p.places.map((x) => pct(x, 1))]);
      box.append(el("h2", { text: "Finish places" }),
        table(["player", ...Array.from({ length: paid }, (_, m) => `#${m + 1}`)], placeRows, "places-table"));
    }
    if (result.bubble_factors) {
      const values = result.bubble_factors.flat().filter((x) => x !== null);
      const low = Math.min(1, ...values);
      const high = Math.max(...values);
      const n = result.bubble_factors.length;
      const head = el("tr", {}, el("th", { text: "loses to →" }),
        ...Array.from({ length: n }, (_, j) => el("th", { text: String(j + 1) })));
      const rows2 = result.bubble_factors.map((row, i) => el("tr", {}, el("th", { text: String(i + 1) }),
        ...row.map((x, j) => el("td", { style: `background:${heatColor(x, low, high)}`,
          title: x === null ? "" : `risk premium ${pct(result.risk_premium[i][j], 1)}`,
          text: x === null ? "–" : x.toFixed(2) }))));
      box.append(el("h2", { text: "Bubble factors (row risks its stack against column)" }),
        el("table", { class: "heat" }, el("thead", {}, head), el("tbody", {}, ...rows2)));
    }
  }

  async function run() {
    if (running) return;
    showError("icm-error", null);
    $("icm-result").replaceChildren(); // a result stays only with the inputs that made it
    shown = null;
    const controller = new AbortController();
    running = controller;
    $("run-icm").disabled = true;
    $("stop-icm").disabled = false;
    try {
      const parsed = await stacks(controller.signal);
      $("icm-count").textContent = `${parsed.stacks.length.toLocaleString("en-US")} players`;
      const body = withBounties({ stacks: parsed.stacks, payouts: payoutSpec(), places: $("icm-places").checked,
        bubble_factors: $("icm-bubble").checked, deal: $("icm-deal").checked }, "icm-bounty", "icm-pko");
      const result = await streamJob("/api/icm/stream", body, () => {}, controller.signal);
      render(result, body, parsed.names);
    } catch (error) {
      showError("icm-error", error.name === "AbortError" ? { message: "stopped" } : error);
    } finally {
      running = null;
      $("run-icm").disabled = false;
      $("stop-icm").disabled = true;
    }
  }

  function restore(s) {
    $("stacks").value = s.stacks ?? $("stacks").value;
    $("payout-kind").value = s.kind || "list";
    $("payouts").value = s.payouts ?? "";
    if (s.split) $("split").value = s.split;
    $("split-pool").value = s.splitPool ?? 100;
    $("rule-paid").value = s.paid ?? 3;
    $("rule-pool").value = s.pool ?? 1000;
    $("rule-a").value = s.a ?? 1;
    $("icm-places").checked = s.places !== false;
    $("icm-bubble").checked = s.bubble !== false;
    $("icm-deal").checked = s.deal !== false;
    $("icm-bounty").value = s.bounty ?? "";
    $("icm-pko").checked = s.pko === true;
    showPayoutFields();
    run();
  }

  function init(info) {
    for (const split of info.payout_splits) $("split").append(el("option", { value: split, text: split }));
    $("payout-kind").addEventListener("change", showPayoutFields);
    $("run-icm").addEventListener("click", run);
    $("stop-icm").addEventListener("click", () => { if (running) running.abort(); });
    $("share-icm").addEventListener("click", () => shareLink("icm", state()));
    // a pasted spreadsheet column may carry thousands separators or tabs: keep numbers one per line
    $("stacks").addEventListener("paste", (event) => {
      const text = (event.clipboardData || window.clipboardData).getData("text");
      if (!text) return;
      event.preventDefault();
      const values = text.split(/[\r\n\t;]+/).map((t) => t.replace(/[\s,'_]/g, "")).filter(Boolean);
      $("stacks").value = values.join("\n");
    });
    showPayoutFields();
  }

  return { init, restore, withBounties };
})();

// ---- push/fold page -------------------------------------------------------------------------------------

const pushfoldPage = (() => {
  const numbers = (id) => $(id).value.split(/[\s,;]+/).filter(Boolean).map(Number);

  let running = null;

  function state() {
    return { stacks: $("pf-stacks").value, blinds: $("pf-blinds").value, ante: $("pf-ante").value,
      payouts: $("pf-payouts").value, field: $("pf-field").value, model: $("pf-model").value,
      time: $("pf-time").value, target: $("pf-target").value, bounty: $("pf-bounty").value, pko: $("pf-pko").checked,
      fgs_depth: $("pf-fgs").value };
  }

  function request(icm, bounties = true) {
    const body = { stacks: numbers("pf-stacks"), blinds: numbers("pf-blinds"), ante: Number($("pf-ante").value || 0) };
    if (bounties) icmPage.withBounties(body, "pf-bounty", "pf-pko");
    if ($("pf-time").value) body.time = Number($("pf-time").value);
    if ($("pf-target").value) body.target = Number($("pf-target").value);
    if (icm) {
      body.payouts = numbers("pf-payouts");
      const field = numbers("pf-field");
      if (field.length) body.field = field;
      if (Number($("pf-fgs").value) > 0) body.fgs_depth = Number($("pf-fgs").value);
    }
    return body;
  }

  function chart(title, verb, probs, evs, other, unit) {
    const grid = el("div", { class: "grid", role: "grid" });
    for (let r = 0; r < 13; r++) {
      for (let c = 0; c < 13; c++) {
        const { cell, name, p } = chartCell(r, c, probs);
        let detail = `${title.split(" (")[0]}: ${name} ${verb} ${pct(p, 1)}`;
        if (evs) detail += `; EV jam ${num(evs.jam[name], 3)} ${unit}, EV fold ${num(evs.fold[name], 3)} ${unit}`;
        if (other) {
          const q = other[name] ?? 0;
          if (Math.abs(q - p) >= 0.5) cell.classList.add("differs");
          detail += `; chip EV ${pct(q, 1)}`;
        }
        cell.title = detail;
        cell.addEventListener("click", () => { $("pf-detail").textContent = detail; });
        grid.append(cell);
      }
    }
    return el("div", { class: "chart" }, el("h3", { text: title }), grid);
  }

  function render(result, chipEv) {
    const charts = $("pf-charts");
    charts.replaceChildren();
    const unit = result.gain_unit === "bb" ? "bb" : "$";
    const seatOf = (name) => (chipEv ? chipEv.seats.find((s) => s.seat === name) : null);
    for (const seat of result.seats) {
      if (Object.keys(seat.jam).length) {
        const other = seatOf(seat.seat);
        charts.append(chart(`${seat.seat} jams (${num(seat.jam_pct, 1)}%)`, "jams", seat.jam,
          { jam: seat.ev_jam, fold: seat.ev_fold }, other ? other.jam : null, unit));
      }
      for (const [jammer, probs] of Object.entries(seat.call)) {
        const other = seatOf(seat.seat);
        charts.append(chart(`${seat.seat} calls ${jammer} (${num(seat.call_pct[jammer], 1)}%)`, "calls", probs, null,
          other ? other.call[jammer] : null, unit));
      }
    }
    const rows = result.seats.map((s) => [`~${s.seat}`, num(s.stack, 0), num(s.stack_bb, 1),
      `${num(s.jam_pct, 1)}%`, s.gain.toExponential(2)]);
    $("pf-gains").replaceChildren(el("h2", { text: `Best-response gains (${result.gain_unit})` }),
      table(["~seat", "stack", "bb", "jams", "gain"], rows, "pf-table"));
    const stopped = { time: "stopped at the time limit: the target gain was not reached, the charts are where the "
      + "solve got to", target: "reached the target gain", iterations: "stopped after the iterations asked for" };
    const modelName = { icm: "ICM", chipev: "chip EV", fgs: `FGS depth ${result.fgs_depth}` }[result.model] || result.model;
    $("pf-summary").textContent = `${modelName}: ${result.iterations} iterations, `
      + `largest best-response gain ${result.max_gain.toExponential(2)} ${result.gain_unit}, `
      + `${num(result.elapsed_s, 2)} s, ${stopped[result.stop_reason] || `stopped on ${result.stop_reason}`}`
      + (chipEv ? "; outlined hands are played differently under chip EV" : "")
      + (result.bounty ? `; ${result.bounty.format === "pko" ? "progressive knockout" : "knockout"} bounties `
        + result.bounty.heads.join(", ") : "");
    $("pf-summary").dataset.stopReason = result.stop_reason;
  }

  function clear() {
    for (const id of ["pf-charts", "pf-gains", "pf-summary", "pf-detail"]) $(id).replaceChildren();
    delete $("pf-summary").dataset.stopReason;
  }

  async function run() {
    if (running) return;
    showError("pf-error", null);
    clear(); // a result stays only with the inputs that made it
    const controller = new AbortController();
    running = controller;
    $("run-pushfold").disabled = true;
    $("stop-pushfold").disabled = false;
    const bar = $("pf-progress");
    bar.hidden = false;
    bar.removeAttribute("value");
    const model = $("pf-model").value;
    const onProgress = (p) => { $("pf-summary").textContent = `iteration ${p.iteration}, largest gain ${p.max_gain.toExponential(2)}`; };
    try {
      const main = await streamJob("/api/pushfold/stream", request(model !== "chipev"), onProgress, controller.signal);
      const chipEv = model === "overlay"
        ? await streamJob("/api/pushfold/stream", request(false, false), onProgress, controller.signal) : null;
      render(main, chipEv);
    } catch (error) {
      clear();
      showError("pf-error", error.name === "AbortError" ? { message: "stopped" } : error);
    } finally {
      running = null;
      bar.hidden = true;
      $("run-pushfold").disabled = false;
      $("stop-pushfold").disabled = true;
    }
  }

  function restore(s) {
    for (const [key, id] of [["stacks", "pf-stacks"], ["blinds", "pf-blinds"], ["ante", "pf-ante"],
      ["payouts", "pf-payouts"], ["field", "pf-field"], ["model", "pf-model"], ["time", "pf-time"],
      ["target", "pf-target"], ["bounty", "pf-bounty"], ["fgs_depth", "pf-fgs"]]) {
      if (s[key] !== undefined) $(id).value = s[key];
    }
    $("pf-pko").checked = s.pko === true;
    run();
  }

  function init() {
    $("run-pushfold").addEventListener("click", run);
    $("stop-pushfold").addEventListener("click", () => { if (running) running.abort(); });
    $("share-pushfold").addEventListener("click", () => shareLink("pushfold", state()));
  }

  return { init, restore };
})();

// ---- the shipped full-ring charts (push/fold tab): read from /api/pushfold/chart, never solved here --------

const fullRingCharts = (() => {
  function grid(title, probs) {
    const cells = el("div", { class: "grid", role: "grid" });
    for (let r = 0; r < 13; r++) {
      for (let c = 0; c < 13; c++) {
        const { cell, name, p } = chartCell(r, c, probs);
        cell.title = `${title}: ${name} ${pct(p, 1)}`;
        cells.append(cell);
      }
    }
    return el("div", { class: "chart ring-chart" }, el("h3", { text: title }), cells);
  }

  // the chart played in the real game (with its over-call ranges where shipped; joint deals): its largest gain,
  // bracketed
  function realGame(r, units) {
    const real = r.real_game;
    if (!real || !real.measured) return `. In the real game: not measured (${real ? real.why : "no answer"})`;
    const low = real[`gains_low_${units}`];
    const seat = low.indexOf(Math.max(...low));
    const how = real.deals ? `${real.deals.toLocaleString("en")} joint deals, cross-fitted `
      + `± ${real[`gains_low_stderr_${units}`][seat].toExponential(1)}` : "exact";
    const read = r.overcalls_shipped ? "with its over-call ranges" : "over-calls by the lone-jam chart";
    return `. In the real game, the chart as read (${read}): largest gain `
      + `${low[seat].toExponential(1)} ${units} (${r.seats[seat]}; ${how}; the in-sample estimate, at least the true `
      + `gain in expectation: ${real[`gains_high_${units}`][seat].toExponential(1)} ${units})`;
  }

  function render(r) {
    const charts = [];
    for (const [seat, probs] of Object.entries(r.jam)) charts.push(grid(`${seat} jams first in`, probs));
    for (const [pair, probs] of Object.entries(r.call)) charts.push(grid(`${pair.replace(" vs ", " calls ")}`, probs));
    for (const [spot, probs] of Object.entries(r.overcall || {})) {
      const [caller, pair] = spot.split(" vs ");
      const [jammer, first] = pair.split(" and ");
      charts.push(grid(`${caller} calls ${jammer} jam, ${first} call`, probs));
    }
    $("ring-charts").replaceChildren(...charts);
    const icm = r.stage !== undefined;
    const units = icm ? "money" : "bb";
    const largest = Math.max(...(icm ? r.gains_money : r.gains_bb));
    const target = icm ? Number(r.target_money.toPrecision(2))
      : r.model.target_bb[r.seats.length === 2 ? "heads_up" : "multiway"];
    const ante = { none: "no ante", 10: "an ante of 10% of the big blind", 12.5: "an ante of 12.5% of the big blind",
      bb: "a big-blind ante" }[r.ante];
    const model = icm ? ` under ICM at the ${r.stage === "final" ? "final table" : "bubble"}, payouts `
      + `${r.payouts.join("/")} (the pool 100)` : "";
    $("ring-summary").textContent = `${r.seats.length} seats of ${num(r.depth_bb, 1)} bb with ${ante}${model}`
      + (r.exact ? "" : ` (the nearest shipped depth to ${num(r.asked_bb, 1)} bb)`)
      + `: largest best-response gain ${largest.toExponential(2)} ${units} in the chart model`
      + (largest > target ? ` (above the ${target} ${units} target: the solve stopped at its iteration cap)` : "")
      + `; probabilities in steps of 1/200; shipped depths ${r.depths.join(", ")}`
      + (r.seats.length < 3 ? "" : r.overcalls_shipped
        ? (r.overcall ? "" : "; over-call ranges shipped (tick over-calls to show them)")
        : r.overcalls_withheld ? `; ${r.overcalls_why} (facing a jam and a call, read the lone-jam chart)`
          : "; over-call ranges not shipped for this spot (facing a jam and a call, read the lone-jam chart)")
      + realGame(r, units)
      + (r.deeper_reading && r.deeper_reading.better ? `. Played at ${num(r.depth_bb, 1)} bb, the `
        + `${num(r.deeper_reading.depth_bb, 1)} bb chart measured better in the real game (largest gain `
        + `${Math.max(...r.deeper_reading.gains_low_bb).toExponential(1)} against `
        + `${r.deeper_reading.own_largest_gain_bb.toExponential(1)} bb): the chart model is too loose at these short `
        + "spots" : "");
    $("ring-summary").dataset.depth = String(r.depth_bb);
  }

  async function show() {
    showError("ring-error", null);
    $("ring-summary").textContent = "";  // never a stale summary beside the charts being fetched
    const body = { seats: Number($("ring-seats").value), depth: Number($("ring-depth").value),
      ante: $("ring-ante").value };
    if ($("ring-model").value) body.icm = $("ring-model").value;
    if ($("ring-overcalls").checked) body.overcalls = true;
    try {
      render(await postJSON("/api/pushfold/chart", body));
    } catch (error) {
      $("ring-charts").replaceChildren();
      $("ring-summary").textContent = "";
      showError("ring-error", error);
    }
  }

  $("ring-show").addEventListener("click", show);
})();

// ---- Solve page -----------------------------------------------------------------------------------------

const TWO_ROUND = "two-round";

const solvePage = (() => {
  let running = null;
  let points = [];
  let strategy = {};
  let twoRound = null; // the two-round game's strategy view: {rows, row_share, nodes}
  const iterationsFor = { [TWO_ROUND]: 100000, other: 2000 };

  function drawCurve() {
    const canvas = $("curve");
    const ctx = canvas.getContext("2d");
    const W = canvas.width, H = canvas.height, left = 64, bottom = 34, top = 12, right = 12;
    ctx.clearRect(0, 0, W, H);
    ctx.font = "11px system-ui, sans-serif";
    ctx.strokeStyle = "#d9dde5";
    ctx.fillStyle = "#6b7385";
    ctx.strokeRect(left, top, W - left - right, H - top - bottom);
    const valid = points.filter((p) => p.exploitability > 0);
    if (!valid.length) return;
    const xs = valid.map((p) => Math.log10(p.iteration));
    const ys = valid.map((p) => Math.log10(p.exploitability));
    const x0 = Math.min(...xs), x1 = Math.max(x0 + 1, ...xs);
    const y0 = Math.floor(Math.min(...ys)), y1 = Math.ceil(Math.max(y0 + 1, ...ys));
    const X = (x) => left + (W - left - right) * (x - x0) / (x1 - x0);
    const Y = (y) => top + (H - top - bottom) * (1 - (y - y0) / (y1 - y0));
    for (let e = y0; e <= y1; e++) {
      ctx.fillText(`1e${e}`, 8, Y(e) + 4);
      ctx.beginPath(); ctx.moveTo(left, Y(e)); ctx.lineTo(W - right, Y(e)); ctx.stroke();
    }
    for (let e = Math.ceil(x0); e <= Math.floor(x1); e++) ctx.fillText(`${10 ** e}`, X(e) - 8, H - bottom + 16);
    ctx.fillText("iterations (log scale)", W / 2 - 50, H - 4);
    ctx.strokeStyle = "#1f6feb";
    ctx.fillStyle = "#1f6feb";
    ctx.lineWidth = 2;
    ctx.beginPath();
    xs.forEach((x, i) => (i ? ctx.lineTo(X(x), Y(ys[i])) : ctx.moveTo(X(x), Y(ys[i]))));
    ctx.stroke();
    if (valid.length < 30) xs.forEach((x, i) => ctx.fillRect(X(x) - 3, Y(ys[i]) - 3, 6, 6));
    ctx.lineWidth = 1;
  }

  function renderStrategy() {
    if (twoRound) { renderTwoRound(); return; }
    const filter = $("strategy-filter").value.trim().toLowerCase();
    const keys = Object.keys(strategy).filter((k) => !filter || k.toLowerCase().includes(filter));
    const rows = keys.slice(0, 500).map((key) => [`~${key}`, `~${Object.entries(strategy[key])
      .map(([action, p]) => `${action} ${pct(p, 1)}`).join(" · ")}`]);
    const box = $("strategy");
    box.replaceChildren(table(["~information set", "~average strategy"], rows, "strategy-table"));
    if (keys.length > 500) box.append(el("p", { class: "summary", text: `first 500 of ${keys.length}` }));
  }

  // the betting-node menu, filtered by the text box (words of the line: "P1 bet 2", "flop")
  function fillNodes() {
    const select = $("tr-node");
    const previous = select.value;
    const filter = $("strategy-filter").value.trim().toLowerCase();
    const groups = { preflop: el("optgroup", { label: "round 1 (preflop): rows are hand classes" }),
      flop: el("optgroup", { label: "round 2 (flop): rows are equity buckets" }) };
    twoRound.nodes.forEach((node, i) => {
      if (filter && !node.line.toLowerCase().includes(filter)) return;
      groups[node.street].append(el("option", { value: String(i),
        text: `P${node.player} to act after: ${node.line}` }));
    });
    select.replaceChildren(...Object.values(groups).filter((g) => g.children.length));
    if ([...select.options].some((o) => o.value === previous)) select.value = previous;
  }

  function renderTwoRound() {
    const box = $("strategy");
    const node = twoRound.nodes[Number($("tr-node").value)];
    if (!node) { box.replaceChildren(el("p", { class: "summary", text: "no betting line matches the filter" })); return; }
    const labels = twoRound.rows[node.street];
    const share = twoRound.row_share[node.street];
    const head = el("tr", {}, el("th", { class: "text", text: node.street === "preflop" ? "hand" : "flop bucket" }),
      el("th", { text: "share" }), ...node.actions.map((a) => el("th", { text: a })));
    const order = labels.map((_, i) => i).filter((i) => share[i] > 0);
    order.reverse(); // strongest first: AA, AKo, AKs, ... preflop; the highest equity bucket on the flop
    const rows = order.map((i) => el("tr", {}, el("td", { class: "text", text: labels[i] }),
      el("td", { class: "share", text: pct(share[i], 1) }),
      ...node.probabilities[i].map((p) => {
        const cell = el("td", { class: "p", text: pct(p, 1) });
        cell.style.background = `rgba(31, 111, 235, ${(0.85 * p).toFixed(3)})`;
        if (p > 0.55) cell.style.color = "#fff";
        return cell;
      })));
    box.replaceChildren(
      el("p", { class: "summary", text: `player ${node.player} to act after: ${node.line} (history ${node.history || "-"}); `
        + "each row: how often each action is taken (the average strategy)" }),
      el("table", { class: "tr-table strategy-table" }, el("thead", {}, head), el("tbody", {}, ...rows)));
  }

  function summary(r) {
    const rows = r.game === TWO_ROUND ? [
      ["~game", `~two-round hold'em, stack ${r.stack}`], ["~algorithm", "~external-sampling MCCFR"],
      ["~buckets", r.buckets], ["~iterations", r.iterations.toLocaleString("en-US")],
      ["~exploitability", `${r.exploitability.toExponential(3)} chips/hand (${num(r.mbb_per_game, 1)} mbb/hand)`],
      ["~best responses win", `${r.best_response_values.map((v) => v.toFixed(4)).join(" (seat 1), ")} (seat 2)`],
      ["~time", `${num(r.elapsed_s, 2)} s (training ${num(r.training_s, 2)} s)`],
    ] : [
      ["~game", `~${r.game}`], ["~algorithm", `~${r.algorithm}`], ["~iterations", r.iterations.toLocaleString("en-US")],
      ["~exploitability", `${r.exploitability.toExponential(3)} chips/game`],
      ["~game value (player 1)", r.game_value.toFixed(6)], ["~time", `${num(r.elapsed_s, 3)} s`],
    ];
    $("solve-summary").replaceChildren(table(["~", ""], rows, "solve-table"));
  }

  function showGame() {
    const isTwoRound = $("game").value === TWO_ROUND;
    $("algo-field").hidden = isTwoRound;
    $("two-round-fields").hidden = !isTwoRound;
    $("two-round-note").hidden = !isTwoRound;
    $("strategy-filter").placeholder = isTwoRound ? "filter betting lines (e.g. P1 bet 2)" : "filter information sets";
    const want = iterationsFor[isTwoRound ? TWO_ROUND : "other"];
    const other = iterationsFor[isTwoRound ? "other" : TWO_ROUND];
    if (!$("iterations").value || Number($("iterations").value) === other) $("iterations").value = want;
  }

  function request() {
    const time = $("solve-time").value;
    const iterations = $("iterations").value;
    const game = $("game").value;
    const body = game === TWO_ROUND
      ? { stack: Number($("tr-stack").value), buckets: Number($("tr-buckets").value),
        checks: Number($("tr-checks").value) }
      : { game, algo: $("algo").value };
    if (iterations) body.iterations = Number(iterations);
    if (time) body.time = Number(time);
    return body;
  }

  function onProgress(p) {
    if (p.exploitability !== undefined) {
      points.push(p);
      drawCurve();
      $("solve-status").textContent = `iteration ${p.iteration.toLocaleString("en-US")}: exploitability `
        + `${p.exploitability.toExponential(3)}`;
      return;
    }
    const bar = $("solve-progress");
    bar.value = p.fraction;
    $("solve-status").textContent = p.phase === "exploitability"
      ? `exact best responses after ${p.iteration.toLocaleString("en-US")} iterations: ${pct(p.fraction, 0)}`
      : `training: ${p.iteration.toLocaleString("en-US")} iterations`;
  }

  async function run() {
    if (running) return;
    showError("solve-error", null);
    $("solve-summary").replaceChildren(); // a result stays only with the inputs that made it
    points = [];
    strategy = {};
    twoRound = null;
    $("tr-node").hidden = true;
    drawCurve();
    renderStrategy();
    const controller = new AbortController();
    running = controller;
    $("run-solve").disabled = true;
    $("stop-solve").disabled = false;
    const isTwoRound = $("game").value === TWO_ROUND;
    const bar = $("solve-progress");
    bar.hidden = !isTwoRound;
    bar.value = 0;
    $("solve-status").textContent = "";
    try {
      const result = await streamJob(isTwoRound ? "/api/two-round/stream" : "/api/solve/stream", request(),
        onProgress, controller.signal);
      points = result.curve.length ? result.curve : points;
      if (!points.length || points[points.length - 1].iteration !== result.iterations) {
        points.push({ iteration: result.iterations, exploitability: result.exploitability });
      }
      if (isTwoRound) {
        twoRound = result.strategy;
        $("tr-node").hidden = false;
        fillNodes();
      } else {
        strategy = result.strategy;
      }
      $("solve-status").textContent = "";
      drawCurve();
      renderStrategy();
      summary(result);
    } catch (error) {
      points = [];
      drawCurve();
      $("solve-status").textContent = "";
      showError("solve-error", error.name === "AbortError" ? { message: "stopped" } : error);
    } finally {
      running = null;
      bar.hidden = true;
      $("run-solve").disabled = false;
      $("stop-solve").disabled = true;
    }
  }

  function init(info) {
    for (const game of info.games) $("game").append(el("option", { value: game, text: game }));
    $("game").append(el("option", { value: TWO_ROUND, text: "two-round hold'em" }));
    for (const algo of info.algorithms) $("algo").append(el("option", { value: algo, text: algo }));
    $("algo").value = "cfr+";
    const defaults = info.two_round;
    $("tr-stack").value = defaults.stack;
    $("tr-stack").max = info.limits.two_round_stack;
    $("tr-buckets").value = defaults.buckets;
    $("tr-checks").value = defaults.checks;
    iterationsFor[TWO_ROUND] = defaults.iterations;
    $("game").addEventListener("change", showGame);
    $("run-solve").addEventListener("click", run);
    $("stop-solve").addEventListener("click", () => { if (running) running.abort(); });
    $("share-solve").addEventListener("click", () => shareLink("solve", state()));
    $("strategy-filter").addEventListener("input", () => { if (twoRound) fillNodes(); renderStrategy(); });
    $("tr-node").addEventListener("change", renderStrategy);
    drawCurve();
  }

  function state() {
    return { game: $("game").value, algo: $("algo").value, iterations: $("iterations").value,
      time: $("solve-time").value, stack: $("tr-stack").value, buckets: $("tr-buckets").value,
      checks: $("tr-checks").value };
  }

  function restore(s) {
    if (s.game) $("game").value = s.game;
    if (s.algo) $("algo").value = s.algo;
    showGame();
    for (const [key, id] of [["iterations", "iterations"], ["time", "solve-time"], ["stack", "tr-stack"],
      ["buckets", "tr-buckets"], ["checks", "tr-checks"]]) {
      if (s[key] !== undefined) $(id).value = s[key];
    }
    run();
  }

  return { init, restore };
})();

// ---- start ----------------------------------------------------------------------------------------------

pages.equity = equityPage;
pages.icm = icmPage;
pages.pushfold = pushfoldPage;
pages.solve = solvePage;
pages.postflop = postflopPage; // static/postflop.js

equityPage.init();
fetch("/api/info").then((r) => r.json()).then((info) => {
  $("version").textContent = `pokerlab ${info.version}`;
  icmPage.init(info);
  pushfoldPage.init();
  solvePage.init(info);
  postflopPage.init(info);
  window.addEventListener("hashchange", route);
  route();
  document.body.dataset.ready = "1";
  performance.mark("pokerlab-ready"); // menus filled and grid drawn: the browser tests and benchmark read it
});
