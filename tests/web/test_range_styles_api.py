"""``/api/range`` reads GTO+ and per-combo text and answers the range in every style a player pastes elsewhere."""

from __future__ import annotations

from pokerlab.cards.ranges import RANGE_STYLES, parse_range


def test_the_range_api_reads_and_writes_every_style(client):
    data = client.post("/api/range", json={"text": "[50]AKs,AQs[/50], QQ+"}).json()
    assert data["text"] == "QQ+, AQs+:0.5"
    assert set(data["export"]) == set(RANGE_STYLES)
    for text in data["export"].values():
        assert parse_range(text) == parse_range("QQ+, AKs:0.5, AQs:0.5")
    bad = client.post("/api/range", json={"text": "[50]AKs"})
    assert bad.status_code == 422 and "unmatched bracket" in bad.text
