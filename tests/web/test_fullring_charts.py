"""The shipped full-ring charts on the web: ``/api/pushfold/chart`` (POST and GET) answers what
:func:`pokerlab.pushfold.fullring_charts.full_ring_chart` reads from the package's chart file, refuses bad input
with a 422 and a sentence, and the push/fold tab draws the charts it answers."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.classes import CLASS_NAMES
from pokerlab.pushfold.fullring import ANTES
from pokerlab.pushfold.fullring_charts import available_depths, full_ring_chart, shipped_charts, shipped_real_game
from pokerlab.pushfold.fullring_deeper import deeper_reading_dict
from pokerlab.pushfold.fullring_icm_charts import icm_chart, icm_real_game_dict, stage_real_game


def test_the_answer_is_the_shipped_chart(client):
    depths = available_depths(3, "none")
    asked = float(depths[0]) + 0.2  # not a shipped depth: the nearest one answers, and says so
    answer = client.post("/api/pushfold/chart", json={"seats": 3, "depth": asked, "ante": "none"})
    assert answer.status_code == 200
    body = answer.json()
    chart = full_ring_chart(3, asked, "none")
    assert body["depth_bb"] == chart.depth_bb and body["asked_bb"] == pytest.approx(asked) and not body["exact"]
    assert body["seats"] == ["BTN", "SB", "BB"] and body["depths"] == depths.tolist()
    assert body["model"]["code_version"] and "1/200" in body["model"]["quantisation"]
    for seat, name in enumerate(chart.seats[:-1]):  # the big blind never acts first in
        shown = np.array([body["jam"][name][c] for c in CLASS_NAMES])
        assert np.allclose(shown, chart.jam[seat], atol=5e-5)
    assert set(body["call"]) == {"SB vs BTN", "BB vs BTN", "BB vs SB"}
    assert body["call"]["BB vs SB"]["AA"] == 1.0 and body["jam"]["BTN"]["72o"] == 0.0
    real = shipped_real_game().of(chart)  # the chart played in the real game, as the package measured it
    assert real is not None and body["real_game"]["measured"]
    assert body["real_game"]["gains_high_bb"] == [float(g) for g in real.high]
    assert body["real_game"]["deals"] == real.deals > 0
    assert client.get(f"/api/pushfold/chart?seats=3&depth={asked}&ante=none").json() == body
    assert body["overcalls_shipped"] and "overcall" not in body
    with_overcalls = client.post("/api/pushfold/chart", json={"seats": 4, "depth": 10, "overcalls": True}).json()
    four = full_ring_chart(4, 10, "none")
    assert four.overcall is not None and len(with_overcalls["overcall"]) == 4
    shown = np.array([with_overcalls["overcall"]["BB vs CO and BTN"][c] for c in CLASS_NAMES])
    assert np.allclose(shown, four.overcall[3, 0, 1], atol=5e-5)
    assert client.get("/api/pushfold/chart?seats=4&depth=10&overcalls=true").json() == with_overcalls
    icm_overcalls = client.post("/api/pushfold/chart", json={"seats": 4, "depth": 10, "icm": "final",
                                                            "overcalls": True}).json()
    final_four = icm_chart(4, 10, "final")
    assert final_four.overcall is not None and icm_overcalls["overcalls_shipped"]
    shown = np.array([icm_overcalls["overcall"]["BB vs CO and BTN"][c] for c in CLASS_NAMES])
    assert np.allclose(shown, final_four.overcall[3, 0, 1], atol=5e-5)
    short = client.post("/api/pushfold/chart", json={"seats": 7, "depth": 6.5}).json()  # a short capped spot
    assert short["deeper_reading"] == deeper_reading_dict(full_ring_chart(7, 6.5, "none"))
    assert short["deeper_reading"]["measured"] and short["deeper_reading"]["depth_bb"] == 7.0
    icm = client.post("/api/pushfold/chart", json={"seats": 4, "depth": 10, "icm": "bubble"}).json()
    assert icm["real_game"] == icm_real_game_dict(icm_chart(4, 10, "bubble"), "bubble") and icm["real_game"]["measured"]


def test_every_ante_rule_is_answered_in_its_spellings(client):
    for seats, spelled, rule in [(2, "bb", "bb"), (2, "10%", "10"), (3, "12.5%", "12.5"), (3, "0", "none")]:
        body = client.post("/api/pushfold/chart", json={"seats": seats, "depth": 5, "ante": spelled}).json()
        assert body["ante"] == rule and body["depths"] == available_depths(seats, rule).tolist()
        assert body["depth_bb"] == full_ring_chart(seats, 5, rule).depth_bb


@pytest.mark.parametrize(("body", "words"), [
    ({"seats": 11}, "2 to 10 seats"),
    ({"seats": 3, "ante": "7"}, "ante rule must be one of"),
    ({"seats": 3, "ante": "bb"}, "with a big-blind ante: those charts are heads-up only"),
    ({"seats": 3, "depth": -1}, "positive number of big blinds"),
    ({"seats": "3"}, "seats must be a whole number"),
    ({"seats": 3, "stacks": [1, 2]}, "not an option"),
])
def test_bad_input_is_a_422_with_a_sentence(client, body, words):
    answer = client.post("/api/pushfold/chart", json=body)
    assert answer.status_code == 422 and words in answer.json()["detail"]
    query = "&".join(f"{k}={v}" for k, v in body.items() if not isinstance(v, list))
    if isinstance(body.get("seats"), int) and "stacks" not in body:
        assert client.get(f"/api/pushfold/chart?{query}").status_code == 422


def test_the_push_fold_tab_shows_the_shipped_charts(page, screenshot_dir):
    page.locator("#tabs a[data-tab=pushfold]").click()
    page.locator("#ring-seats").select_option("3")
    page.locator("#ring-depth").fill("10")
    page.locator("#ring-show").click()
    page.wait_for_selector(".ring-chart")
    titles = page.locator(".ring-chart h3").all_inner_texts()
    assert titles == ["BTN jams first in", "SB jams first in", "SB calls BTN", "BB calls BTN", "BB calls SB"]
    chart = full_ring_chart(3, 10, "none")
    for hand in ("AA", "K9o", "72o", "T5s"):
        shown = float(page.locator(f".ring-chart >> nth=0 >> .cell[data-hand='{hand}']").get_attribute("data-p"))
        assert shown == pytest.approx(chart.jam[0, CLASS_NAMES.index(hand)], abs=1e-4)
    summary = page.locator("#ring-summary").inner_text()
    assert summary.startswith("3 seats of 10.0 bb with no ante: largest")
    real = shipped_real_game().of(chart)
    assert real is not None
    seat = int(np.argmax(real.low))
    shown = f"{real.low[seat]:.1e}".replace("e-0", "e-")  # as JavaScript's toExponential(1) writes it
    assert (f"In the real game, the chart as read (with its over-call ranges): largest gain {shown} bb "
            f"({chart.seats[seat]}; 200,000 joint deals") in summary
    assert "over-call ranges shipped (tick over-calls to show them)" in summary
    page.locator("#ring-overcalls").check()
    page.locator("#ring-show").click()
    page.wait_for_function("document.querySelectorAll('.ring-chart').length === 6")
    assert page.locator(".ring-chart h3").all_inner_texts()[-1] == "BB calls BTN jam, SB call"
    shown_over = float(page.locator(".ring-chart >> nth=5 >> .cell[data-hand='A5s']").get_attribute("data-p"))
    assert chart.overcall is not None
    assert shown_over == pytest.approx(chart.overcall[2, 0, 1, CLASS_NAMES.index("A5s")], abs=1e-4)
    page.locator("#ring-overcalls").uncheck()
    page.screenshot(path=str(screenshot_dir / "web-fullring-charts.png"), full_page=True)
    charts = shipped_charts()  # a spot above its target says so
    over = int(np.argmax(charts.gains.max(axis=1)))
    seats, depth, rule = int(charts.key[over, 0]), float(charts.key[over, 1]), int(charts.key[over, 2])
    page.locator("#ring-seats").select_option(str(seats))
    page.locator("#ring-depth").fill(f"{depth:g}")
    page.locator("#ring-ante").select_option(list(ANTES)[rule])
    page.locator("#ring-show").click()
    page.wait_for_function("document.querySelector('#ring-summary').textContent.length > 0")  # (cleared above)
    assert "above the 0.002 bb target" in page.locator("#ring-summary").inner_text()
    page.locator("#ring-ante").select_option("bb")  # a big-blind ante is heads-up only: the page says so
    page.locator("#ring-show").click()
    page.wait_for_selector("#ring-error:not([hidden])")
    assert "heads-up only" in page.locator("#ring-error").inner_text()
    assert page.locator(".ring-chart").count() == 0
    page.locator("#ring-ante").select_option("none")  # an ICM chart: its real-game gain in money
    page.locator("#ring-seats").select_option("6")
    page.locator("#ring-depth").fill("10")
    page.locator("#ring-model").select_option("final")
    page.locator("#ring-show").click()
    page.wait_for_selector(".ring-chart")
    real = stage_real_game("final").of(icm_chart(6, 10, "final"))
    assert real is not None
    seat = int(np.argmax(real.low))
    shown = f"{real.low[seat]:.1e}".replace("e-0", "e-")
    summary = page.locator("#ring-summary").inner_text()
    assert f"In the real game, the chart as read (with its over-call ranges): largest gain {shown} money" in summary
    assert "over-call ranges shipped (tick over-calls to show them)" in summary
    page.locator("#ring-overcalls").check()  # an ICM chart's over-call ranges, as a chip-EV chart's
    page.locator("#ring-show").click()
    page.wait_for_selector("text=BB calls CO jam, BTN call")
