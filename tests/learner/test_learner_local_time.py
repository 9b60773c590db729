"""Timestamps are <time class="local-time" datetime="ISO"> elements whose text is the UTC time with its
zone named (static/localtime.js rewrites them in the browser's zone); and the block of previous attempts
is served alone for static/memory.js."""

import re

from quizapp.learning.timetext import time_tag, utc_text


def test_time_tag_states_utc_and_keeps_the_instant():
    tag = time_tag("2026-11-27T14:05:59.123Z")
    assert str(tag) == '<time class="local-time" datetime="2026-11-27T14:05:59.123Z">2026-11-27 14:05 UTC</time>'
    assert 'id="when"' in time_tag("2026-11-27T14:05:59Z", "when")
    assert time_tag(None) == "" and utc_text(None) == ""


def test_time_tag_escapes_what_it_is_given():
    tag = str(time_tag('2026"><script>x</script>'))
    assert "<script>" not in tag and "&#34;" in tag


def test_pages_show_times_as_local_time_elements(client, lm):
    created = lm.answer(client, 1, right=False)["created_at"]
    stamp = f'<time class="local-time" datetime="{created}">{created[:16].replace("T", " ")} UTC</time>'
    assert stamp in client.get("/history").get_data(as_text=True)
    assert stamp in client.get(f"/questions/{lm.QID}?variant=2").get_data(as_text=True)
    review = client.get("/review").get_data(as_text=True)
    assert review.count('class="local-time"') >= 2  # the next due time and the upcoming item
    assert "(UTC)" not in review
    for page in ("/history", "/review", "/progress"):
        html = client.get(page).get_data(as_text=True)
        assert '<script src="/assets/localtime.js" defer></script>' in html
    assert client.get("/assets/localtime.js").status_code == 200
    # the question page keeps its one script tag (quiz.js), which loads those the memory block names
    question = client.get(f"/questions/{lm.QID}?variant=2").get_data(as_text=True)
    assert re.findall(r"<script[^>]*>", question) == ['<script src="/assets/quiz.js" defer>']
    assert 'data-scripts="/assets/localtime.js /assets/memory.js"' in question


def test_memory_block_alone_follows_the_answers(client, lm):
    empty = client.get(f"/questions/{lm.QID}/memory").get_data(as_text=True)
    assert 'id="learner-memory"' in empty and "No attempts yet." in empty and "<html" not in empty
    first = lm.answer(client, 1, right=False)
    second = lm.answer(client, 2, right=True)
    block = client.get(f"/questions/{lm.QID}/memory").get_data(as_text=True)
    assert "Best: 2 / 2" in block and "Last: 2 / 2" in block and "2 attempts" in block
    assert re.findall(r'href="/history/([0-9a-f]+)"', block) == [second["attempt_id"], first["attempt_id"]]
    assert client.get("/questions/no-such-question/memory").status_code == 404
    assert client.get("/assets/memory.js").status_code == 200
