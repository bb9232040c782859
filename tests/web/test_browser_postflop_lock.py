"""Node locking in the Postflop tab, in headless Chromium against a real ``pokerlab serve``: solve a tiny river
spot, lock OOP's root to always check from the browsed node's form, re-solve with the lock and read the locked
EVs, the equilibrium's and the gain off the page, against the API's answer for the same locked spot; the lock
rides in a share link; a bad lock is answered with the server's sentence; a lock on some hands only, the remove
button, a lock below a chance node (on one river card, not the others) and the locks a loaded file brings back.
Screenshot into docs/img/ with POKERLAB_SCREENSHOTS=docs."""

from __future__ import annotations

import base64
import json

import httpx

from web.test_browser_postflop import _image

SPOT = {"board": "Kh9d5c2s2h", "oop": "KK, 99, 76s", "ip": "QQ, JTs", "bets": "75%"}


def decode_state(share: str) -> dict:
    text = share.split(":", 1)[1]
    return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


def test_lock_the_root_to_check_re_solve_and_read_the_gain(page, live_server, screenshot_dir):
    page.locator("#tabs a[data-tab='postflop']").click()
    for name, value in SPOT.items():
        page.locator(f"#pfl-{name}").fill(value)
    page.locator("#pfl-solve").click()
    page.wait_for_selector("#pfl-actions .action[data-action='check']")
    assert page.locator("#pfl-resolve").is_hidden() and page.locator(".pfl-lock-table").count() == 0
    page.locator("#pfl-lock-node summary").click()
    mix = page.locator("#pfl-lock-mix input")
    assert mix.count() == 3  # check, bet 75, all-in 150: prefilled with the root's frequencies, summing to 100
    assert abs(sum(float(mix.nth(i).input_value()) for i in range(3)) - 100) < 1e-9
    assert float(page.locator("#pfl-lock-mix input[data-action='check']").input_value()) < 50  # it mostly jams
    page.locator("#pfl-lock-mix input[data-action='check']").fill("90")
    page.locator("#pfl-lock-mix input[data-action='bet 75']").fill("0")
    page.locator("#pfl-lock-mix input[data-action='all-in 150']").fill("0")
    assert page.locator("#pfl-lock-add").is_disabled()
    assert "sums to 90.0%" in page.locator("#pfl-lock-sum").inner_text()
    page.locator("#pfl-lock-mix input[data-action='check']").fill("100")
    page.locator("#pfl-lock-add").click()
    lock = "line=; strategy=check: 100%"
    assert page.locator("#pfl-locks").input_value() == lock
    assert [li.get_attribute("data-lock") for li in page.locator("#pfl-lock-list li").all()] == [lock]
    page.locator("#pfl-resolve").click()
    page.wait_for_selector(".pfl-lock-table")
    # the locked solve's root, browsed again: every class of OOP's range locked, and always checking
    page.wait_for_function("document.querySelectorAll('#pfl-strategy-grid .cell.locked').length === 3")
    assert sorted(c.get_attribute("data-hand") for c in page.locator("#pfl-strategy-grid .cell.locked").all()) \
        == ["76s", "99", "KK"]
    assert page.locator("#pfl-actions .action[data-action='check'] b").inner_text() == "100.0%"
    assert page.locator("#pfl-strategy-grid .cell[data-hand='KK']").get_attribute("data-mix") \
        == "1.0000,0.0000,0.0000"
    page.locator("#pfl-strategy-grid .cell[data-hand='76s']").click()
    page.wait_for_selector(".pfl-hand-table")
    assert page.locator(".pfl-hand-table th").all_inner_texts()[-1] == "locked"
    assert page.locator(".pfl-hand-table tbody td:last-child").all_inner_texts() == ["yes"] * 4
    # the page's numbers are the server's for the same locked spot
    answer = httpx.post(f"{live_server.url}/api/postflop", json={**SPOT, "pot": 100, "stack": 150, "raises": "a",
                                                                  "target": 0.5, "iterations": 1000,
                                                                  "lock": [lock]}, timeout=60).json()
    gain = answer["lock"]["gain_over_equilibrium"]
    rows = [r.locator("td").all_inner_texts() for r in page.locator(".pfl-lock-table tbody tr").all()]
    assert [r[0] for r in rows] == ["locked solve", "equilibrium (no locks)", "gain over equilibrium"]
    assert rows[0][1:] == [f"{answer['ev']['OOP']:.2f}", f"{answer['ev']['IP']:.2f}"]
    assert rows[1][1:] == [f"{ev:.2f}" for ev in answer["lock"]["equilibrium"]["ev"]]
    assert rows[2][1:] == [f"{gain[p]:.2f} ± {gain['within']:.2f}" for p in ("OOP", "IP")]
    assert gain["OOP"] < -gain["within"]  # always checking gives up OOP's jams: a loss beyond the error bound
    page.screenshot(path=str(_image(screenshot_dir, "postflop-lock.png")), full_page=True)
    # a share link carries the locks
    page.locator("#pfl-share").click()
    assert decode_state(page.evaluate("location.hash"))["locks"] == [lock]
    page.reload()  # the link opened: the locked solve, as the server kept it
    page.wait_for_selector(".pfl-lock-table")
    assert page.locator("#pfl-locks").input_value() == lock and page.locator("#pfl-resolve").is_visible()
    # a bad lock: the server's sentence where the page shows its errors
    page.locator("#pfl-locks").fill("line=; strategy=check: 50%, bet 75: 20%")
    page.locator("#pfl-resolve").click()
    page.wait_for_function("document.querySelector('#pfl-error').textContent.includes('add up to 0.7, not 1')")
    assert page.locator("#pfl-solve").is_enabled()


def lock_here(page, mix: dict[str, str], hands: str = "") -> None:
    """Lock the node browsed to ``mix`` (action -> percent; the others 0) for ``hands`` (empty: all)."""
    if page.locator("#pfl-lock-node").get_attribute("open") is None:
        page.locator("#pfl-lock-node summary").click()
    for box in page.locator("#pfl-lock-mix input").all():
        box.fill(mix.get(box.get_attribute("data-action"), "0"))
    page.locator("#pfl-lock-hands").fill(hands)
    page.locator("#pfl-lock-add").click()


def test_a_lock_on_some_hands_only_and_the_remove_button(page):
    page.locator("#tabs a[data-tab='postflop']").click()
    for name, value in SPOT.items():
        page.locator(f"#pfl-{name}").fill(value)
    page.locator("#pfl-solve").click()
    page.wait_for_selector("#pfl-actions .action[data-action='check']")
    lock_here(page, {"check": "100"}, "76s")
    lock_here(page, {"all-in 150": "100"}, "KK")
    assert page.locator("#pfl-lock-list li").count() == 2
    page.locator("#pfl-lock-list li").nth(1).locator(".remove").click()  # the KK lock goes
    assert page.locator("#pfl-locks").input_value() == "line=; strategy=check: 100%; hands=76s"
    page.locator("#pfl-resolve").click()
    page.wait_for_selector(".pfl-lock-table")
    # only 76s is locked: its cell framed, always checking; KK and 99 free
    page.wait_for_function("document.querySelectorAll('#pfl-strategy-grid .cell.locked').length === 1")
    assert page.locator("#pfl-strategy-grid .cell.locked").get_attribute("data-hand") == "76s"
    assert page.locator("#pfl-strategy-grid .cell[data-hand='76s']").get_attribute("data-mix") \
        == "1.0000,0.0000,0.0000"
    page.locator("#pfl-strategy-grid .cell[data-hand='KK']").click()
    page.wait_for_selector(".pfl-hand-table")
    # KK's three live combos play their own solved mix: no locked column
    assert page.locator(".pfl-hand-table tbody tr").count() == 3
    assert page.locator(".pfl-hand-table th").all_inner_texts()[-1] == "equity"
    placed = page.locator("#pfl-lock-result p").inner_text()
    assert "OOP: 1 node, 4 hands" in placed
    # the last lock removed: no locks, and no re-solve to offer
    page.locator("#pfl-lock-list li .remove").click()
    assert page.locator("#pfl-locks").input_value() == "" and page.locator("#pfl-resolve").is_hidden()


def test_a_lock_below_a_chance_node_and_locks_restored_from_a_loaded_file(page, live_server):
    page.locator("#tabs a[data-tab='postflop']").click()
    turn = {"board": "Kh9d5c2s", "oop": "KK, 99", "ip": "QQ, JTs", "bets": "a", "raises": "a", "stack": "100",
            "target": "1"}
    for name, value in turn.items():
        page.locator(f"#pfl-{name}").fill(value)
    page.locator("#pfl-solve").click()
    page.wait_for_selector("#pfl-actions .action[data-action='check']")
    page.locator("#pfl-actions .action[data-action='check']").click()
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 2")
    page.locator("#pfl-actions .action[data-action='check']").click()
    page.wait_for_selector("#pfl-deal-cards .card[data-card='Qc']")
    page.locator("#pfl-deal-cards .card[data-card='Qc']").click()
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 4")
    assert "OOP to act" in page.locator("#pfl-node-title").inner_text()
    lock_here(page, {"all-in 100": "100"})  # OOP jams the river Qc after checks on the turn
    lock = "line=check, check, Qc; strategy=all-in 100: 100%"
    assert page.locator("#pfl-locks").input_value() == lock
    page.locator("#pfl-resolve").click()
    page.wait_for_selector(".pfl-lock-table")
    # reopened at the locked node: every class of OOP's range there locked, always jamming
    page.wait_for_function("document.querySelectorAll('#pfl-crumbs .crumb').length === 4")
    page.wait_for_function("document.querySelectorAll('#pfl-strategy-grid .cell.locked').length === 2")
    assert page.locator("#pfl-actions .action[data-action='all-in 100'] b").inner_text() == "100.0%"
    # on another river card the lock does not apply
    page.locator("#pfl-crumbs .crumb[data-depth='2']").click()
    page.wait_for_selector("#pfl-deal-cards .card[data-card='3c']")
    page.locator("#pfl-deal-cards .card[data-card='3c']").click()
    page.wait_for_function("document.querySelector('#pfl-crumbs .crumb:last-child').textContent === 'river 3c'")
    assert page.locator("#pfl-strategy-grid .cell.locked").count() == 0
    # the locked solve saved, the locks box cleared, the file loaded: its locks come back with it
    key = page.locator("#pfl-save").get_attribute("href").rsplit("/", 1)[1]
    saved = httpx.get(f"{live_server.url}/api/postflop/file/{key}").content
    page.locator("#pfl-locks").fill("")
    page.locator("#pfl-locks").dispatch_event("input")
    assert page.locator("#pfl-resolve").is_hidden()
    page.locator("#pfl-file").set_input_files(files=[{"name": "locked.npz", "mimeType": "application/octet-stream",
                                                      "buffer": saved}])
    page.wait_for_selector(".pfl-lock-table")
    assert page.locator("#pfl-locks").input_value() == lock
    assert [li.get_attribute("data-lock") for li in page.locator("#pfl-lock-list li").all()] == [lock]
    assert page.locator("#pfl-resolve").is_visible()
