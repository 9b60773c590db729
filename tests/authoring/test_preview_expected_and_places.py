"""The authoring pages speak as a learner reads: the preview's expected answers are numbers without float
noise, arrays as ``[a, b]``, choices by their (rendered) text, formulas as MathML, and a sentence for a
part with no expected value -- never Python's ``repr`` (a dict, ``None``, ``-0.018000000000000016``); and
every self-test failure names the line and column of the field it is about in the author's YAML."""

from __future__ import annotations

import re
from pathlib import Path

import quiz_testing as testing

SAMPLE_TEXT = (Path(testing.__file__).with_name("quiz_testing_sample.yaml")).read_text(encoding="utf-8")


def _preview_question() -> dict:
    q = testing.sample_question(id="auth-preview-shown")
    q["params"] = {}
    q["prompt"] = {"en": "Numbers.", "zh": "数字。"}
    q["solution"]["worked"] = {"en": "Done.", "zh": "完成。"}
    a, b = q["parts"]
    a["expected"] = {"expr": "0.482 - 0.5"}      # -0.018000000000000016 in float64
    a["mistakes"] = [{"expr": "0.5 - 0.482", "note": "sign", "feedback": {"en": "Sign.", "zh": "符号。"}}]
    b["options"][1]["text"] = {"en": "No: $\\mathrm{KL}(P \\| Q) \\ne \\mathrm{KL}(Q \\| P)$",
                               "zh": "否:$\\mathrm{KL}(P \\| Q) \\ne \\mathrm{KL}(Q \\| P)$"}
    q["parts"] += [
        {"id": "arr", "kind": "array", "prompt": {"en": "Array.", "zh": "数组。"},
         "expected": {"value": [0.12000000000000005, 0.4]}},
        {"id": "why", "kind": "freetext", "prompt": {"en": "Why?", "zh": "为什么?"}, "weight": 0},
    ]
    return q


def test_preview_shows_expected_values_as_a_learner_reads_them(authoring_client, authoring_passwords,
                                                               authoring_login):
    from checkers.bank import dump_question

    c = authoring_client
    csrf = authoring_login(c, "alice", authoring_passwords["alice"])
    text = dump_question(_preview_question())
    for lang, none_words in (("en", "No fixed answer"), ("zh", "没有固定答案")):
        r = c.post("/author/preview", json={"yaml": text, "seed": 0, "lang": lang}, headers={"X-CSRF-Token": csrf})
        body = r.get_json()
        assert body["ok"], body
        html = body["html"]
        expected = html.split('id="preview-expected"')[1].split("</section>")[0]
        cells = dict(re.findall(r'<dd class="expected-value" data-part="([^"]+)">(.*?)</dd>', expected, re.S))
        assert set(cells) == {"a", "b", "arr", "why"}, expected
        assert cells["a"] == "<code>-0.018</code>"
        assert cells["arr"] == "<code>[0.12, 0.4]</code>"
        assert "<math" in cells["b"] and "$" not in cells["b"] and ">no<" not in cells["b"]
        assert none_words in cells["why"]
        # the formulas' words for screen readers follow the preview's language, not the page's (English)
        spoken = re.findall(r'<span class="sr-only">([^<]*)</span>', html)
        assert spoken and all(("不等于" in w) == (lang == "zh") for w in spoken if "KL" in w), spoken
        assert "None" not in expected and "{'" not in expected and "{&#39;" not in expected


def test_selftest_failures_name_line_and_column_of_the_field(authoring_client, authoring_passwords,
                                                             authoring_login):
    c = authoring_client
    csrf = authoring_login(c, "alice", authoring_passwords["alice"])
    # the known mistake of part a now equals the correct answer: a self-test failure about parts[0].mistakes[0]
    text = SAMPLE_TEXT.replace("id: svc-sample-double", "id: auth-place-q").replace(
        "  - expr: p\n    note: forgot-double", "  - expr: 2*p\n    note: forgot-double")
    lines = text.splitlines()
    line = lines.index("  - expr: 2*p") + 1
    r = c.post("/author/save", data={"yaml": text, "csrf_token": csrf})
    assert r.status_code == 302, r.data[:2000]
    page = c.get(r.headers["Location"]).get_data(as_text=True)
    table = page.split('id="selftest-failures"')[1].split("</table>")[0]
    rows = re.findall(r'<tr class="failure"[^>]*>(.*?)</tr>', table, re.S)
    assert rows, table
    for row in rows:
        assert "—</td>" not in row.split("</td>")[3] + "</td>", f"a failure without its place: {row}"
    assert f"line {line}, column 5" in table, table
    assert "parts[0].mistakes[0]" in table


def test_question_list_titles_in_the_page_language_with_maths(authoring_client, authoring_passwords,
                                                               authoring_login):
    from checkers.bank import dump_question

    c = authoring_client
    csrf = authoring_login(c, "alice", authoring_passwords["alice"])
    q = testing.sample_question(id="auth-list-title", title={"en": "Tuning $\\beta$", "zh": "调节 $\\beta$"})
    assert c.post("/author/save", data={"yaml": dump_question(q), "csrf_token": csrf}).status_code == 302
    for lang, words in (("en", "Tuning"), ("zh", "调节")):
        page = c.get(f"/author/?lang={lang}").get_data(as_text=True)
        row = page.split('href="/author/q/auth-list-title"')[1].split("</td>")[0]
        assert words in row and "<math" in row and "$" not in row, row
