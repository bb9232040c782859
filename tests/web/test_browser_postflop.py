"""The Postflop tab in headless Chromium against a real ``pokerlab serve``: set up a small river spot (ranges
typed and painted on the grid, a bet-tree preset), see its memory estimate, solve it, browse two actions deep
through the action buttons and the breadcrumbs, and read one hand's strategy off the page, checked against the
node the API answers for the same solve; Stop keeps what was solved and says at what exploitability; a share link
reopens the kept solve, or solves again saying why. Screenshots into docs/img/ with POKERLAB_SCREENSHOTS=docs."""

from __future__ import annotations

import base64
import json

import httpx


def cell_center(page, grid: str, hand: str) -> tuple[float, float]:
    box = page.locator(f"#{grid} .cell[data-hand='{hand}']").bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_set_up_solve_and_browse_a_river_spot(page, live_server, screenshot_dir):
    page.locator("#tabs a[data-tab='postflop']").click()
    page.locator("#pfl-board").fill("Kh9d")  # a bad board: the library's sentence, before any solve
    page.wait_for_function("document.querySelector('#pfl-estimate').textContent.includes('3, 4 or 5 cards, got 2')")
    page.locator("#pfl-board").fill("Kh9d5c2s2h")
    page.locator("#pfl-oop").fill("QQ, 99")
    page.locator("#pfl-ip").fill("KK, JTs")
    page.wait_for_function("document.querySelector('#pfl-oop-count').textContent.startsWith('9 combos')")
    page.locator("#pfl-oop").click()  # the grid edits OOP: paint AKo on it
    page.mouse.click(*cell_center(page, "pfl-range-grid", "AKo"))
    page.wait_for_function("document.querySelector('#pfl-oop').value.includes('AKo')")
    page.locator("#pfl-preset").select_option("one size 75%")
    assert page.locator("#pfl-bets").input_value() == "75%"
    page.wait_for_function("document.querySelector('#pfl-estimate').textContent.includes('iB of solver storage')")
    page.screenshot(path=str(_image(screenshot_dir, "postflop-setup.png")))
    page.locator("#pfl-solve").click()
    page.wait_for_selector(".pfl-summary-table")
    page.wait_for_selector("#pfl-actions .action")
    summary = page.locator(".pfl-summary-table").inner_text()
    assert "river Kh9d5c2s2h" in summary
    # two actions deep: OOP checks, IP bets 75
    page.locator("#pfl-actions .action[data-action='check']").click()
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 2")
    page.locator("#pfl-actions .action[data-action='bet 75']").click()
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 3")
    assert page.locator("#pfl-crumbs").inner_text().split() == ["root", "›", "OOP", "check", "›", "IP", "bet", "75"]
    assert "OOP to act" in page.locator("#pfl-node-title").inner_text()
    assert page.locator("#pfl-opponent-owner").text_content().startswith("IP's range here")
    # QQ's combos: each one's strategy as the API gives it for this solve
    page.locator("#pfl-strategy-grid .cell[data-hand='QQ']").click()
    page.wait_for_selector(".pfl-hand-table")
    rows = page.locator(".pfl-hand-table tbody tr")
    assert rows.count() == 6
    table = [rows.nth(i).locator("td").all_inner_texts() for i in range(rows.count())]
    first = next(row for row in table if row[0] == "Q♠Q♥")
    share = page.evaluate("location.hash")  # nothing yet: the share button writes it
    assert share in ("", "#postflop")
    cell_mix = page.locator("#pfl-strategy-grid .cell[data-hand='QQ']").get_attribute("data-mix")
    page.screenshot(path=str(_image(screenshot_dir, "postflop-browse.png")), full_page=True)
    key = page.locator("#pfl-save").get_attribute("href").rsplit("/", 1)[1]
    node = httpx.post(f"{live_server.url}/api/postflop/node", json={"id": key, "line": ["check", "bet 75"]}).json()
    qsqh = next(row for row in node["hands"] if row["hand"] == "QsQh")
    assert first[2:5] == [f"{100 * p:.1f}%" for p in qsqh["strategy"]]
    assert cell_mix == ",".join(f"{p:.4f}" for p in node["classes"]["QQ"]["strategy"])
    # back to the root through the breadcrumbs
    page.locator("#pfl-crumbs .crumb[data-depth='0']").click()
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 1")
    assert "OOP to act" in page.locator("#pfl-node-title").inner_text()
    # the saved solve loaded back from a file: the same spot, browsed at once
    saved = httpx.get(f"{live_server.url}/api/postflop/file/{key}").content
    page.locator("#pfl-board").fill("AsKsQs")
    page.locator("#pfl-file").set_input_files(files=[{"name": "river.npz", "mimeType": "application/octet-stream",
                                                      "buffer": saved}])
    page.wait_for_function(f"!document.querySelector('#pfl-save').href.endsWith('{key}')"
                           " && document.querySelector('#pfl-board').value === 'Kh9d5c2s2h'")
    page.wait_for_selector("#pfl-actions .action[data-action='bet 75']")


def test_a_share_link_restores_the_spot_and_the_line_and_a_card_is_picked(page, live_server, screenshot_dir):
    state = {"board": "Kh9d5c2s", "oop": "QQ, 99, AKo", "ip": "KK, JTs", "pot": "100", "stack": "100",
             "bets": "33%", "raises": "a", "target": "1", "iterations": "300", "time": "", "line": ["check", "check"]}
    page.goto(f"{live_server.url}/#postflop:{encode_state(state)}")
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 3")
    assert page.locator("#pfl-oop").input_value() == "QQ, 99, AKo"
    assert page.locator("#pfl-node-title").inner_text().endswith("a card is dealt")
    assert page.locator("#pfl-deal-cards .card[data-card='Kh']").is_disabled()
    page.screenshot(path=str(_image(screenshot_dir, "postflop-turn-card.png")), full_page=True)
    page.locator("#pfl-deal-cards .card[data-card='Qc']").click()
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 4")
    assert page.locator("#pfl-node-title").inner_text().startswith("K♥ 9♦ 5♣ 2♠ Q♣")
    assert page.locator("#pfl-crumbs .crumb").last.inner_text() == "river Qc"


def test_stop_keeps_what_was_solved_and_says_so(page, live_server, screenshot_dir):
    page.locator("#tabs a[data-tab='postflop']").click()
    page.locator("#pfl-board").fill("Kh9d5c2s")
    page.locator("#pfl-oop").fill("QQ+, AK, KQ, 99, 55")
    page.locator("#pfl-ip").fill("KK, JTs, AK, T9s, 88+")
    page.locator("#pfl-bets").fill("33%, 75%")
    page.locator("#pfl-target").fill("0.001")
    page.locator("#pfl-iterations").fill("4000")
    page.locator("#pfl-time").fill("10")
    page.locator("#pfl-solve").click()
    page.wait_for_function("document.querySelector('#pfl-status').textContent.startsWith('iteration')")
    page.locator("#pfl-stop").click()
    page.wait_for_selector(".pfl-summary-table")
    page.wait_for_selector("#pfl-actions .action")  # kept and browsed
    early = page.locator("#pfl-early").inner_text()
    assert early.startswith("stopped early: Stop ended it after") and "(computed; the target was 0.001%)" in early
    summary = page.locator(".pfl-summary-table").inner_text()
    assert "interrupted (early: stop)" in summary
    key = page.locator("#pfl-save").get_attribute("href").rsplit("/", 1)[1]
    kept = httpx.post(f"{live_server.url}/api/postflop/node", json={"id": key, "line": []})
    assert kept.status_code == 200
    page.screenshot(path=str(_image(screenshot_dir, "postflop-stopped.png")), full_page=True)
    assert page.locator("#pfl-solve").is_enabled() and page.locator("#pfl-stop").is_disabled()


def test_a_share_link_reopens_the_kept_solve_or_solves_again_saying_why(page, live_server):
    page.locator("#tabs a[data-tab='postflop']").click()
    page.locator("#pfl-solve").click()
    page.wait_for_selector("#pfl-actions .action[data-action='check']")
    page.locator("#pfl-actions .action[data-action='check']").click()
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 2")
    key = page.locator("#pfl-save").get_attribute("href").rsplit("/", 1)[1]
    page.locator("#pfl-share").click()
    state = decode_state(page.evaluate("location.hash"))
    assert state["id"] == key and state["line"] == ["check"]
    page.reload()  # the link opened: the server still holds the solve, shown as kept at the link's node
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 2")
    assert page.locator("#pfl-note").inner_text() == "the link's solve, as the server kept it (not solved again)"
    assert page.locator("#pfl-save").get_attribute("href").endswith(key)
    # a link whose solve the server no longer holds: solved again, and the page says why
    page.goto(f"{live_server.url}/#postflop:{encode_state({**state, 'id': '0' * 24})}")
    page.reload()
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 2")
    note = page.locator("#pfl-note").inner_text()
    assert note.startswith("the link's solve was not reopened (this server no longer holds the solve")
    assert note.endswith("solving the spot again")
    assert not page.locator("#pfl-save").get_attribute("href").endswith(key)
    # a link whose spot is not the kept solve's: never shown as that spot
    page.goto(f"{live_server.url}/#postflop:{encode_state({**state, 'pot': '90'})}")
    page.reload()
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 2")
    assert "is of another spot than the one sent" in page.locator("#pfl-note").inner_text()
    assert "pot 90" in page.locator(".pfl-summary-table").inner_text()


def decode_state(share: str) -> dict:
    text = share.split(":", 1)[1]
    return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


def encode_state(state: dict) -> str:
    """The page's URL state form: base64url of the JSON text, without padding."""
    return base64.urlsafe_b64encode(json.dumps(state).encode()).decode().rstrip("=")


def _image(folder, name: str):
    path = folder / "img" / name
    path.parent.mkdir(exist_ok=True)
    return path



def test_a_report_over_a_few_flops_from_the_page(page, live_server, screenshot_dir):
    page.locator("#tabs a[data-tab='postflop']").click()
    page.locator("#pfl-oop").fill("QQ, AKo")
    page.locator("#pfl-ip").fill("KK, JTs")
    page.locator("#pfl-stack").fill("100")
    page.locator("#pfl-report summary").click()
    page.locator("#pfl-report-flops").fill("7h7d2c QhJh9h")
    page.locator("#pfl-report-iterations").fill("30")
    page.locator("#pfl-report-run").click()
    page.wait_for_selector(".pfl-report-textures")
    assert page.locator("#pfl-report-status").inner_text() == "2 flops solved"
    rows = [r.locator("td").all_inner_texts() for r in page.locator(".pfl-report-flops tbody tr").all()]
    assert [r[0] for r in rows] == ["7h7d2c", "QhJh9h"]
    assert rows[1][1] == "monotone, unpaired, Q high, connected"
    answer = httpx.post(f"{live_server.url}/api/postflop/report", timeout=120, json={
        "oop": "QQ, AKo", "ip": "KK, JTs", "pot": 100, "stack": 100, "bets": "75%", "raises": "a",
        "flops": "7h7d2c QhJh9h", "target": 1, "iterations": 30}).json()  # the server's cached answer
    check = answer["rows"][0]["frequencies"]["check"]
    assert rows[0][2] == f"{100 * check:.1f}%"
    groups = [r.locator("td").first.inner_text() for r in page.locator(".pfl-report-textures tbody tr").all()]
    assert groups[:3] == ["all flops", "suits: monotone", "suits: rainbow"]
    page.locator("#pfl-report").screenshot(path=str(_image(screenshot_dir, "postflop-report.png")))
