"""Signs drawn as signs in a real headless Chromium: in ``[-1, -2]``, ``(-x)`` and ``f(a, -b)`` as the app renders
them (quizapp/rendering.py, quizapp/math_signs.py) the minus sits against its number, with no space after it,
while ``a - b`` keeps the binary operator's space on both sides. The same ``[-1, -2]`` as latex2mathml alone
writes it is drawn with that space after each sign: the fault this guards against, and proof the measurement
sees it. The markup's side is tests/web/test_math_signs.py."""

from __future__ import annotations

import urllib.parse

import latex2mathml.converter
import pytest

import quiz_testing as testing

pytestmark = pytest.mark.browser

FONT_PX = 20
#: MathML Core's spacing of a binary minus is 4/18 em on each side; a prefix sign has none.
BINARY_EM = 4 / 18

#: Each formula's drawn tokens in order; for every minus, the space after it, in em.
MEASURE = r"""
const out = {};
for (const p of document.querySelectorAll('p[id]')) {
  const toks = [...p.querySelectorAll('[aria-hidden] mi, [aria-hidden] mn, [aria-hidden] mo, math.raw mi, math.raw mn, math.raw mo')];
  const size = parseFloat(getComputedStyle(p).fontSize);
  out[p.id] = toks.flatMap((t, i) => t.textContent.trim() === '\u2212' && toks[i + 1]
    ? [(toks[i + 1].getBoundingClientRect().left - t.getBoundingClientRect().right) / size] : []);
}
return out;
"""


def test_a_sign_has_no_space_after_it_and_a_binary_minus_keeps_its_space():
    from quizapp.rendering import render_inline

    rendered = {"list": "[-1, -2]", "bracket": "(-x)", "call": "f(a, -b)", "binary": "a - b"}
    body = "".join(f"<p id={name}>{render_inline(f'${latex}$', lang='en')}</p>" for name, latex in rendered.items())
    raw = latex2mathml.converter.convert("[-1, -2]").replace("<math ", '<math class="raw" ', 1)
    page = (f"<!doctype html><html lang=en><style>body{{font-size:{FONT_PX}px}}"
            ".sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}</style>"
            f"<body>{body}<p id=raw>{raw}</p></body></html>")
    with testing.headless_chromium(window_size=(800, 600), profile_prefix="signs-chromium-") as driver:
        driver.get("data:text/html;charset=utf-8," + urllib.parse.quote(page))
        driver.execute_async_script("document.fonts.ready.then(arguments[arguments.length - 1])")
        gaps = driver.execute_script(MEASURE)
    assert [len(gaps[k]) for k in ("list", "bracket", "call", "binary", "raw")] == [2, 1, 1, 1, 2], gaps
    for name in ("list", "bracket", "call"):
        assert all(abs(g) < 0.05 for g in gaps[name]), (name, gaps[name])
    assert gaps["binary"][0] == pytest.approx(BINARY_EM, abs=0.05), gaps
    assert all(g == pytest.approx(BINARY_EM, abs=0.05) for g in gaps["raw"]), gaps  # the fault, unmarked
