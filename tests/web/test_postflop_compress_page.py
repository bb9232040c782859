"""The Postflop tab's 16-bit box in headless Chromium against a real ``pokerlab serve``: ticked, the estimate asks
for the 16-bit storage and shows less memory, the solve sends ``compress``, and a share link keeps the box."""

from __future__ import annotations

import base64
import json


def test_the_16_bit_box_goes_with_the_spot(page, live_server):
    page.locator("#tabs a[data-tab='postflop']").click()
    page.locator("#pfl-board").fill("Kh9d5c2s2h")
    page.locator("#pfl-oop").fill("QQ, 99, AKo")
    page.locator("#pfl-ip").fill("KK, JTs")
    page.wait_for_function("document.querySelector('#pfl-estimate').textContent.includes('iB of solver storage')")
    plain = page.locator("#pfl-estimate").inner_text()
    with page.expect_response(lambda r: r.url.endswith("/api/postflop/estimate")
                              and json.loads(r.request.post_data or "{}").get("compress") is True) as estimate:
        page.locator("#pfl-compress").check()
    packed = estimate.value.json()
    assert packed["compress"] is True
    page.wait_for_function("(plain) => document.querySelector('#pfl-estimate').textContent !== plain", arg=plain)
    with page.expect_request(lambda r: r.url.endswith("/api/postflop/stream")) as request:
        page.locator("#pfl-solve").click()
    assert json.loads(request.value.post_data or "{}")["compress"] is True
    page.wait_for_selector(".pfl-summary-table")

    state = {"board": "Kh9d5c2s2h", "oop": "QQ, 99, AKo", "ip": "KK, JTs", "pot": "100", "stack": "150",
             "bets": "75%", "raises": "a", "target": "0.5", "iterations": "1000", "time": "", "compress": True}
    link = base64.urlsafe_b64encode(json.dumps(state).encode()).decode().rstrip("=")
    page.goto(f"{live_server.url}/#postflop:{link}")
    page.wait_for_selector(".pfl-summary-table")
    assert page.locator("#pfl-compress").is_checked()
