"""The request and grading metrics keep the child of each label set (quizapp.ops.metrics._child) instead of
asking ``labels()`` at every request: the kept child is the series Prometheus shows, counted at every
request, and past the bound a label set is still counted, only not kept."""

from __future__ import annotations

import quiz_testing as testing
from quizapp.ops import metrics

QID = testing.SAMPLE_QUESTION["id"]
SUBMITS = 'quizapp_requests_total{endpoint="api.submit_attempt",method="POST",status="201"}'
NUMERIC = 'quizapp_grading_seconds_count{kind="numeric"}'
LISTS = 'quizapp_request_seconds_count{endpoint="api.list_questions",method="GET"}'


def _value(text: str, series: str) -> float:
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def _counts(client) -> list[float]:
    text = client.get("/metrics").get_data(as_text=True)
    return [_value(text, s) for s in (SUBMITS, NUMERIC, LISTS)]


def _submit(client, variant: int) -> None:
    r = client.post(f"/api/v1/questions/{QID}/attempts", json={"variant": variant, "answers": {"a": "1.0", "b": "yes"}})
    assert r.status_code == 201


def test_every_request_counts_through_its_kept_child(client):
    before = _counts(client)
    for variant in (1, 2, 3):
        _submit(client, variant)
    client.get("/api/v1/questions")
    client.get("/api/v1/questions")
    after = _counts(client)
    assert [a - b for a, b in zip(after, before)] == [3.0, 3.0, 2.0]
    kept = metrics._get()["children"]
    assert kept[("requests", "api.submit_attempt", "POST", "201")] is metrics._get()["requests"].labels(
        "api.submit_attempt", "POST", "201")


def test_past_the_bound_a_label_set_is_counted_but_not_kept(client, monkeypatch):
    monkeypatch.setattr(metrics, "MAX_KEPT_CHILDREN", 0)
    metrics._get()["children"].clear()
    before = _counts(client)
    for variant in (4, 5):
        _submit(client, variant)
    after = _counts(client)
    assert [a - b for a, b in zip(after, before)][:2] == [2.0, 2.0]
    assert metrics._get()["children"] == {}
