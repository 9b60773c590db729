"""GET /api/v1/attempts: own attempts only, newest first, filters, cursor pagination, errors naming the
field; attempts readable only by their owner or through a link the owner made."""



def test_history_newest_first_with_scores_and_status(client, lm):
    first = lm.answer(client, 1, right=False)
    second = lm.answer(client, 2, right=True)
    page = client.get("/api/v1/attempts").get_json()
    assert [a["attempt_id"] for a in page["attempts"]] == [second["attempt_id"], first["attempt_id"]]
    assert [a["status"] for a in page["attempts"]] == ["correct", "incorrect"]
    assert [(a["score"], a["max_score"]) for a in page["attempts"]] == [(2.0, 2.0), (0.0, 2.0)]
    assert page["attempts"][0]["title"] == "Double it" and page["attempts"][0]["level"] == "L1"
    assert page["next_cursor"] is None
    assert client.get("/api/v1/attempts?lang=zh").get_json()["attempts"][0]["title"] == "加倍"


def test_history_is_per_learner(client, app, lm):
    lm.answer(client, 1, right=True)
    other = app.test_client()
    assert other.get("/api/v1/attempts").get_json()["attempts"] == []


def test_history_cursor_pages_cover_everything_once(client, lm):
    ids = [lm.answer(client, v, right=v % 2 == 0)["attempt_id"] for v in range(5)]
    seen, cursor = [], None
    while True:
        url = "/api/v1/attempts?limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(url).get_json()
        assert len(page["attempts"]) <= 2
        seen += [a["attempt_id"] for a in page["attempts"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert seen == list(reversed(ids))


def test_history_filters(client, lm):
    lm.answer(client, 1, right=True)
    lm.answer(client, 2, right=False)
    get = lambda q: [a["status"] for a in client.get("/api/v1/attempts?" + q).get_json()["attempts"]]  # noqa: E731
    assert get("status=correct") == ["correct"]
    assert get("status=incorrect") == ["incorrect"]
    assert get("level=L1") == ["incorrect", "correct"] and get("level=L2") == []
    assert get("tag=service-test") == ["incorrect", "correct"] and get("tag=nope") == []
    assert get(f"question={lm.QID}") == ["incorrect", "correct"] and get("question=other") == []
    assert get("since=2000-01-01") == ["incorrect", "correct"] and get("since=2999-01-01") == []


def test_history_bad_filters_name_the_field(client, lm):
    lm.error(client.get("/api/v1/attempts?level=L9"), 422, "level")
    lm.error(client.get("/api/v1/attempts?status=great"), 422, "status")
    lm.error(client.get("/api/v1/attempts?since=yesterday"), 422, "since")
    lm.error(client.get("/api/v1/attempts?cursor=!!notacursor"), 422, "cursor")
    lm.error(client.get("/api/v1/attempts?limit=0"), 422, "limit")
    lm.error(client.get("/api/v1/attempts?limit=abc"), 422, "limit")


def test_attempt_readable_only_by_owner_or_a_shared_link(client, app, lm):
    created = lm.answer(client, 3, right=True)
    aid = created["attempt_id"]
    assert client.get(f"/api/v1/attempts/{aid}").status_code == 200
    other = app.test_client()
    lm.error(other.get(f"/api/v1/attempts/{aid}"), 404, "attempt_id")  # not 403: the id's existence stays secret
    lm.error(other.post(f"/api/v1/attempts/{aid}/share", json={}), 404, "attempt_id")
    link = client.post(f"/api/v1/attempts/{aid}/share", json={})
    assert link.status_code == 201
    shared = other.get(link.get_json()["url"])
    assert shared.status_code == 200 and shared.get_json()["attempt_id"] == aid
    assert "learner_id" not in shared.get_json()
    lm.error(other.get("/api/v1/shared/forged." + link.get_json()["token"][-10:]), 404, "token")


def test_question_page_shows_previous_attempts_best_and_last(client, lm):
    lm.answer(client, 1, right=True)
    lm.answer(client, 2, right=False)
    html = client.get(f"/questions/{lm.QID}?variant=5").get_data(as_text=True)
    assert 'id="learner-memory"' in html
    assert "Best: 2 / 2" in html and "Last: 0 / 2" in html and "2 attempts" in html


def test_history_page_lists_attempts_and_reports_bad_filters(client, lm):
    lm.answer(client, 1, right=True)
    html = client.get("/history").get_data(as_text=True)
    assert 'data-question="svc-sample-double" data-score="2/2"' in html
    resp = client.get("/history?since=nope")
    assert resp.status_code == 422 and 'id="history-error"' in resp.get_data(as_text=True)
