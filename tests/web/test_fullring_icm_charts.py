"""The shipped full-ring ICM charts on the web: ``/api/pushfold/chart`` with ``icm`` answers what
:func:`pokerlab.pushfold.fullring_icm_charts.icm_chart_answer` reads from the package's ICM chart file, refuses bad
input with a 422 and a sentence, and the push/fold tab draws them."""

from __future__ import annotations

import pytest

from pokerlab.cards.classes import CLASS_NAMES
from pokerlab.pushfold.fullring_icm_charts import icm_chart_answer, icm_ring_table


def test_the_answer_is_the_shipped_icm_chart(client):
    answer = client.post("/api/pushfold/chart", json={"seats": 4, "depth": 10, "icm": "bubble"})
    assert answer.status_code == 200
    body = answer.json()
    assert body == icm_chart_answer(4, 10, "bubble")
    assert body["payouts"] == [50.0, 30.0, 20.0] and abs(sum(body["values_money"]) - 100.0) < 1e-3
    assert client.get("/api/pushfold/chart?seats=4&depth=10&icm=bubble").json() == body


@pytest.mark.parametrize(("body", "words"), [
    ({"seats": 2, "icm": "final"}, "3 to 10 seats"),
    ({"seats": 5, "icm": "semi"}, "'final'"),
    ({"seats": 5, "icm": "final", "ante": "10"}, "no ante"),
])
def test_bad_icm_input_is_a_422_with_a_sentence(client, body, words):
    answer = client.post("/api/pushfold/chart", json=body)
    assert answer.status_code == 422 and words in answer.json()["detail"]


def test_the_push_fold_tab_shows_the_icm_charts(page):
    page.locator("#tabs a[data-tab=pushfold]").click()
    page.locator("#ring-seats").select_option("6")
    page.locator("#ring-depth").fill("10")
    page.locator("#ring-model").select_option("final")
    page.locator("#ring-show").click()
    page.wait_for_selector(".ring-chart")
    summary = page.locator("#ring-summary").inner_text()
    assert summary.startswith("6 seats of 10.0 bb with no ante under ICM at the final table, payouts "
                              "32/22/16/12/10/8 (the pool 100): largest best-response gain")
    chart = icm_ring_table(6, "final", [10]).table.charts[0]
    for hand in ("AA", "A9o", "72o"):
        shown = float(page.locator(f".ring-chart >> nth=0 >> .cell[data-hand='{hand}']").get_attribute("data-p"))
        assert shown == pytest.approx(chart.jam[0, CLASS_NAMES.index(hand)], abs=1e-4)
