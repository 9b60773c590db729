"""Markdown + maths rendering: MathML on the server, and nothing authored can run a script."""

import re
from html.parser import HTMLParser

import pytest

from quizapp.rendering import render_inline, render_markdown, render_math, sanitize_html

_SAFE_TAGS = {
    "p", "br", "hr", "em", "strong", "b", "i", "u", "s", "del", "ins", "sub", "sup", "small", "mark", "kbd",
    "code", "pre", "blockquote", "ul", "ol", "li", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6",
    "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "a", "img", "span", "div", "details",
    "summary", "abbr", "q", "cite", "wbr",
    "math", "semantics", "annotation", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub",
    "msubsup", "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mlabeledtr",
    "mstyle", "mpadded", "mphantom", "menclose", "merror", "mfenced", "mmultiscripts", "mprescripts", "none",
}
_URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "background", "poster", "data"}


class _Inspector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems = []

    def handle_starttag(self, tag, attrs):
        if tag not in _SAFE_TAGS:
            self.problems.append(f"tag <{tag}>")
        for name, value in attrs:
            value = (value or "").strip().lower()
            if name.startswith("on") or name in {"style", "id", "name", "srcdoc", "xmlns:xlink"} or ":" in name:
                self.problems.append(f"attribute {name} on <{tag}>")
            if name in _URL_ATTRS:
                scheme = re.match(r"^([a-z][a-z0-9+.-]*):", re.sub(r"[\x00-\x20]", "", value))
                if scheme and scheme.group(1) not in {"http", "https", "mailto"}:
                    self.problems.append(f"{name}={value!r} on <{tag}>")
            if tag in {"mstyle", "mi", "mo", "mn", "mtext"} and "(" in value:
                self.problems.append(f"{name}={value!r} on <{tag}>")

    handle_startendtag = handle_starttag


def assert_inert(html: str) -> None:
    """Parse the output as a browser would and reject any element or attribute that could run code."""
    inspector = _Inspector()
    inspector.feed(str(html))
    inspector.close()
    assert not inspector.problems, f"{inspector.problems} in {html!r}"


XSS_PAYLOADS = [
    # raw HTML
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    "<img src=\"javascript:alert(1)\">",
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    "<iframe src=\"javascript:alert(1)\"></iframe>",
    "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
    "<object data=\"javascript:alert(1)\"></object>",
    "<embed src=\"javascript:alert(1)\">",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<a href=\"JaVaScRiPt:alert(1)\">x</a>",
    "<a href=\"&#106;avascript:alert(1)\">x</a>",
    "<a href=\"  javascript:alert(1)\">x</a>",
    "<a href=\"vbscript:msgbox(1)\">x</a>",
    "<a href=\"data:text/html,<script>alert(1)</script>\">x</a>",
    "<div style=\"background:url(javascript:alert(1))\">x</div>",
    "<style>body{background:url(javascript:alert(1))}</style>",
    "<body onload=alert(1)>",
    "<details open ontoggle=alert(1)>x</details>",
    "<form action=\"javascript:alert(1)\"><button>x</button></form>",
    "<input autofocus onfocus=alert(1)>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<base href=\"javascript:alert(1)//\">",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    "<img name=getElementById id=x src=/a.png>",
    "<!--<img src=x onerror=alert(1)>-->",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
    "<math href=\"javascript:alert(1)\"><mi>x</mi></math>",
    "<math><maction actiontype=\"statusline\" onclick=\"alert(1)\"><mi>x</mi></maction></math>",
    "<math><annotation-xml encoding=\"text/html\"><img src=x onerror=alert(1)></annotation-xml></math>",
    "<math><mstyle mathbackground=\"url(javascript:alert(1))\"><mi>x</mi></mstyle></math>",
    "<math><mi style=\"x:expression(alert(1))\" onmouseover=\"alert(1)\">x</mi></math>",
    # Markdown
    "[click](javascript:alert(1))",
    "[click](JAVASCRIPT:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![img](javascript:alert(1))",
    "[a]: javascript:alert(1)\n\n[link][a]",
    "<javascript:alert(1)>",
    "**bold<script>alert(1)</script>**",
    "```html\n<script>alert(1)</script>\n```",
    "`<img src=x onerror=alert(1)>`",
    "> <img src=x onerror=alert(1)>",
    "| a |\n|---|\n| <img src=x onerror=alert(1)> |",
    # Maths
    r"$\href{javascript:alert(1)}{x}$",
    r"$$\href{javascript:alert(1)}{\frac{a}{b}}$$",
    r"inline $$\href{javascript:alert(1)}{y}$$ display",
    r"$\text{<script>alert(1)</script>}$",
    r"$\text{<img src=x onerror=alert(1)>}$",
    r"$\mathrm{<svg onload=alert(1)>}$",
    r"$\color{javascript:alert(1)}{x}$",
    r"$x$<img src=x onerror=alert(1)>$y$",
    "$</span><script>alert(1)</script>$",
]


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_web_rendering_xss_payload_is_inert(payload):
    assert_inert(render_markdown(payload))
    assert_inert(render_inline(payload))


@pytest.mark.parametrize("latex", [
    r"\href{javascript:alert(1)}{x}",
    r"\text{<script>alert(1)</script>}",
    r"\text{<img src=x onerror=alert(1)>}",
    r"\color{javascript:alert(1)}{x}",
    "</math><script>alert(1)</script>",
])
def test_web_rendering_render_math_is_inert(latex):
    assert_inert(render_math(latex))
    assert_inert(render_math(latex, display=True))


def test_web_rendering_inline_maths_becomes_mathml():
    out = str(render_markdown(r"The KL is $\sum_x p(x) \log \frac{p(x)}{q(x)}$."))
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in out
    assert "<mfrac>" in out and "<mi>log</mi>" in out
    assert "$" not in out


def test_web_rendering_display_maths_block():
    out = str(render_markdown("Before\n\n$$\\mathbb{E}_{x\\sim q}[r]$$\n\nafter"))
    assert 'class="math block"' in out
    assert 'display="block"' in out


def test_web_rendering_double_dollar_inside_paragraph_stays_in_paragraph():
    out = str(render_markdown("so $$x^2$$ holds"))
    assert out.count("<p>") == 1
    assert 'class="math display"' in out and 'display="block"' in out


def test_web_rendering_money_is_not_maths():
    out = str(render_markdown("It costs $5 and $6 today."))
    assert "<math" not in out and "$5" in out


def test_web_rendering_markdown_formatting_kept():
    out = str(render_markdown("**bold** *it* `code` [link](https://example.org/x)\n\n- a\n- b\n\n| h |\n|---|\n| c |"))
    for piece in ("<strong>bold</strong>", "<em>it</em>", "<code>code</code>", "<li>a</li>", "<table>", "<td>c</td>"):
        assert piece in out
    assert 'href="https://example.org/x"' in out
    assert 'rel="noopener noreferrer nofollow"' in out


def test_web_rendering_mathml_attributes_kept():
    out = str(render_markdown(r"$\mathrm{KL}(p\|q) = \left( x \right)$"))
    assert 'mathvariant="normal"' in out
    assert 'stretchy=' in out


def test_web_rendering_broken_latex_never_raises():
    for latex in [r"\frac{1", r"\style{x}", "}", r"\begin{pmatrix}1&", "^", "_"]:
        out = str(render_markdown(f"see ${latex}$ here"))
        assert "see" in out
        assert_inert(out)


def test_web_rendering_html_in_text_is_escaped_in_code():
    out = str(render_markdown("`a < b && c`"))
    assert "<code>a &lt; b &amp;&amp; c</code>" in out


def test_web_rendering_inline_drops_single_paragraph():
    assert str(render_inline("*x*")) == "<em>x</em>"
    assert str(render_inline(None)) == ""


def test_web_rendering_sanitize_foreign_mathml_keeps_structure():
    mathml = ('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><mrow><msup><mi>x</mi>'
              '<mn>2</mn></msup></mrow></math>')
    assert sanitize_html(mathml) == mathml
    assert sanitize_html('<math xmlns="http://evil/"><mi>x</mi></math>') == "<math><mi>x</mi></math>"


def test_web_rendering_huge_input_is_bounded():
    out = str(render_markdown("$x$ " * 200_000))
    assert len(out) < 20_000_000


@pytest.mark.parametrize("bad", [
    "<img src=x onerror=alert(1)>", "<a href=' javascript:alert(1)'>x</a>", "<script>x</script>",
    "<div style='x'>y</div>", "<math><mrow href='javascript:x'></mrow></math>", "<svg></svg>",
])
def test_web_rendering_inspector_catches_unsafe_html(bad):
    with pytest.raises(AssertionError):
        assert_inert(bad)


def test_web_plain_text_for_page_titles():
    from quizapp.rendering import plain_text
    assert plain_text(r"Deriving k3 from $f(x) = e^x - x - 1$") == "Deriving k3 from f(x) = e^x - x - 1"
    assert plain_text(r"$\mathrm{KL}(\pi_\theta\,\|\,\pi_{\text{ref}})$ is **not** `symmetric`") == \
        "KL(π_θ ‖ π_ref) is not symmetric"
    assert plain_text(r"$\dfrac{\pi_\theta}{\pi_{\text{ref}}}$ and $\beta$") == "π_θ/π_ref and β"
