"""``_()`` in templates keeps Jinja's new-style gettext rules: the page's language, Markup under autoescape
(the translation is trusted, the variables are escaped), and always a ``%`` format."""

from __future__ import annotations

from flask import render_template_string

import quiz_testing as testing


def _render(app, source: str, lang: str, **context) -> str:
    with app.test_request_context(f"/?lang={lang}"):
        return render_template_string(source, **context)


def test_template_strings_follow_the_page_language_and_escape_their_variables(tmp_path):
    app = testing.make_app(tmp_path, migrate=False)
    source = "{{ _('Part %(n)s', n=n) }}|{{ gettext('Part %(n)s', n=n) }}|{{ _('Submit') }}"
    assert _render(app, source, "en", n="<b>") == "Part &lt;b&gt;|Part &lt;b&gt;|Submit"
    assert _render(app, source, "zh", n=2) == "第 2 小题|第 2 小题|提交"
    # always formatted, as Jinja's new style has it: %% is one sign whether or not there are variables
    assert _render(app, "{{ _('100%% sure') }}", "en") == "100% sure"
    assert _render(app, "{% trans n=3 %}Part {{ n }}{% endtrans %}", "zh") == "第 3 小题"
