"""Numeric precision through the API: the public view states it, /validate warns, the grader agrees."""

from checkers.bank import params_for
from checkers.kinds.numeric import precision
from checkers.params import resolve_value
from quiz_testing import SAMPLE_QUESTION

URL = "/api/v1/questions/svc-sample-double"
PART = SAMPLE_QUESTION["parts"][0]  # 2p at rtol 1e-3: at least 4 significant figures


def test_public_view_states_the_precision(client):
    en = client.get(f"{URL}?variant=3&lang=en").get_json()
    zh = client.get(f"{URL}?variant=3&lang=zh").get_json()
    a_en, b_en = en["parts"]
    assert a_en["precision"] == precision.statement(PART)["en"]
    assert a_en["precision"].startswith("Give at least 4 significant figures")
    assert zh["parts"][0]["precision"].startswith("请至少给出 4 位有效数字")
    assert "precision" not in b_en  # a choice part has none


def test_validate_warns_about_too_few_figures(client):
    body = client.post(f"{URL}/validate", json={"variant": 3, "part": "a", "answer": "0.7"}).get_json()
    assert body["valid"] is True and body["interpreted_as"]["text"] == "0.7"
    assert "0.7 has 1 significant figure" in body["warning"] and "at least 4" in body["warning"]
    zh = client.post(f"{URL}/validate", json={"variant": 3, "part": "a", "answer": "0.7", "lang": "zh"}).get_json()
    assert "至少 4 位有效数字" in zh["warning"]
    for answer in ("0.7000", "ln(2)", "0"):
        body = client.post(f"{URL}/validate", json={"variant": 3, "part": "a", "answer": answer}).get_json()
        assert body["valid"] is True and body["warning"] is None, answer
    bad = client.post(f"{URL}/validate", json={"variant": 3, "part": "a", "answer": "2*("}).get_json()
    assert bad["valid"] is False and bad["warning"] is None


def test_a_coarse_rounding_is_warned_then_graded_give_more_digits(client):
    # a variant whose 2p, rounded to one figure, falls outside the 0.1 % band (most do)
    for variant in range(50):
        b = resolve_value(PART["expected"], params_for(SAMPLE_QUESTION, variant))
        coarse = f"{b:.0e}"
        if abs(float(coarse) - b) > 1e-6 + 1e-3 * abs(b):
            break
    else:
        raise AssertionError("no variant with a coarse rounding outside the band")
    warned = client.post(f"{URL}/validate", json={"variant": variant, "part": "a", "answer": coarse}).get_json()
    assert warned["warning"]
    graded = client.post(f"{URL}/attempts", json={"variant": variant, "answers": {"a": coarse}}).get_json()
    part = graded["parts"]["a"]
    assert (part["status"], part["note"]) == ("incorrect", "insufficient_precision")
    assert "4 significant figures" in part["feedback"]
    fine = f"{b:.3e}"
    assert client.post(f"{URL}/validate", json={"variant": variant, "part": "a",
                                                 "answer": fine}).get_json()["warning"] is None
    graded = client.post(f"{URL}/attempts", json={"variant": variant, "answers": {"a": fine}}).get_json()
    assert graded["parts"]["a"]["status"] == "correct"
