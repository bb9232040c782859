"""How soon pokerlab's page is usable, read inside the browser with the Performance API (so Playwright's own
round trips are not counted): first contentful paint, the page ready (menus filled, grid drawn: the
``pokerlab-ready`` mark), and one click on the range grid until the cell is repainted and until the player's text
box shows the new range (a round trip to ``/api/range``). Used by the browser tests and benchmarks/web_server.py."""

from __future__ import annotations

from typing import Any

LOAD = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  const ready = performance.getEntriesByName("pokerlab-ready")[0];
  return {first_paint_ms: paint ? paint.startTime : null, dom_content_loaded_ms: nav.domContentLoadedEventEnd,
          ready_ms: ready ? ready.startTime : null};
}"""

# Listeners added after the page's own run after them: the grid is redrawn by then, so the frame after the next
# animation frame is the one that shows it.
WATCH_STROKE = """() => {
  const input = document.querySelectorAll("#players .player input")[1];
  const before = input.value;
  const stroke = window.pokerlabStroke = {};
  document.getElementById("grid").addEventListener("pointerdown", (event) => {
    stroke.down = event.timeStamp;
    requestAnimationFrame(() => setTimeout(() => { stroke.painted = performance.now(); }));
  }, {once: true});
  window.addEventListener("pointerup", (event) => {
    stroke.up = event.timeStamp;
    const poll = () => {
      if (input.value !== before) stroke.text = performance.now(); else requestAnimationFrame(poll);
    };
    requestAnimationFrame(poll);
  }, {once: true});
}"""


def page_timings(page: Any, url: str, hand: str = "AKs") -> dict[str, float]:
    """Open ``url`` in the Playwright ``page``, then click ``hand`` on the grid for player 2; returns ms:
    ``first_paint_ms``, ``dom_content_loaded_ms`` and ``ready_ms`` from the navigation start,
    ``grid_repaint_ms`` (pointer down to the repainted frame) and ``grid_to_text_ms`` (pointer up to the text box
    updated)."""
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    timings = dict(page.evaluate(LOAD))
    page.locator("#players .player input").nth(1).click()
    page.evaluate(WATCH_STROKE)
    box = page.locator(f".cell[data-hand='{hand}']").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function("window.pokerlabStroke.text !== undefined && window.pokerlabStroke.painted !== undefined")
    stroke = page.evaluate("window.pokerlabStroke")
    timings["grid_repaint_ms"] = stroke["painted"] - stroke["down"]
    timings["grid_to_text_ms"] = stroke["text"] - stroke["up"]
    return timings
