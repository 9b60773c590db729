"""Search and walk cases run on both databases (tests/discover on SQLite, tests/pg on PostgreSQL)."""

from __future__ import annotations


def ids(client, **args) -> list[str]:
    resp = client.get("/api/v1/search", query_string=args)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body = resp.get_json()
    assert body["total"] == len(body["questions"])
    return [q["id"] for q in body["questions"]]


def check_search(client) -> None:
    # an English word, as a prefix ("clip" finds "clipped" in a title and "Clipping" as a tag name)
    assert set(ids(client, q="clip")) == {"disc-clip-by-hand", "disc-kl-tokens"}
    assert ids(client, q="clipped") == ["disc-clip-by-hand"]
    # a Chinese word inside a sentence (no spaces around it), from a title and from a tag's name
    assert ids(client, q="硬币") == ["disc-kl-coins"]
    assert ids(client, q="优势") == ["disc-group-baseline"]
    assert set(ids(client, q="裁剪")) == {"disc-clip-by-hand", "disc-kl-tokens"}
    # every term must match; characters in another order are not the word
    assert ids(client, q="clip 惩罚") == ["disc-kl-tokens"]
    assert ids(client, q="币硬") == []
    # filters narrow a search; no query lists the filter in level then id order
    assert ids(client, q="clip", level="L2") == ["disc-kl-tokens"]
    assert ids(client, tag="kl-divergence") == ["disc-kl-coins", "disc-kl-tokens"]
    assert ids(client, status="new", level="L1") == ["disc-clip-by-hand", "disc-kl-coins"]
    # the engine's query syntax never comes from the learner
    for hostile in ['"', 'clip" OR "', "NEAR(clip", "*", "clip:* | x", "!!", "(", "a & b", "\\"]:
        assert isinstance(ids(client, q=hostile), list)


def check_errors(client) -> None:
    for args, field in [({"level": "L9"}, "level"), ({"status": "forgotten"}, "status"),
                        ({"tag": "kl"}, "tag"), ({"q": "x" * 201}, "q")]:
        resp = client.get("/api/v1/search", query_string=args)
        assert resp.status_code == 422, args
        assert resp.get_json()["error"]["field"] == field


def check_walk(client) -> None:
    assert client.get("/find", query_string={"tag": "kl-divergence"}).status_code == 200
    step = client.get("/walk/next", query_string={"from": "disc-kl-coins"})
    assert step.status_code == 303 and step.headers["Location"].endswith("/questions/disc-kl-tokens")
    step = client.get("/walk/next", query_string={"from": "disc-kl-tokens"})  # wraps round
    assert step.headers["Location"].endswith("/questions/disc-kl-coins")
    step = client.get("/walk/prev", query_string={"from": "disc-kl-tokens"})
    assert step.headers["Location"].endswith("/questions/disc-kl-coins")
    step = client.get("/walk/random", query_string={"from": "disc-kl-tokens"})  # another one of the filter
    assert step.headers["Location"].endswith("/questions/disc-kl-coins")
    # a search filter walks in rank order too
    client.get("/find", query_string={"q": "裁剪"})
    first = client.get("/walk/next").headers["Location"].rsplit("/", 1)[1]
    second = client.get("/walk/next", query_string={"from": first}).headers["Location"].rsplit("/", 1)[1]
    assert {first, second} == {"disc-clip-by-hand", "disc-kl-tokens"}
