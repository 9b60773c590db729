"""UI strings in English and Chinese, and the learner's language (query ``?lang=`` > cookie > browser)."""

from __future__ import annotations

from flask import g, request

LANGS = ("en", "zh")
DEFAULT_LANG = "en"
LANG_COOKIE = "quiz_lang"
LANG_COOKIE_MAX_AGE = 400 * 24 * 3600

STRINGS: dict[str, dict[str, str]] = {
    "site_name": {"en": "RLHF quiz", "zh": "RLHF 练习"},
    "tagline": {"en": "KL divergence, PPO, GRPO and DPO — practise with instant checking.",
                "zh": "KL 散度、PPO、GRPO 与 DPO——即时判分的练习。"},
    "home": {"en": "All questions", "zh": "全部题目"},
    "switch_lang": {"en": "中文", "zh": "English"},
    "switch_lang_label": {"en": "切换到中文", "zh": "Switch to English"},
    "level": {"en": "Level", "zh": "难度"},
    "level_L1": {"en": "L1 · Foundations", "zh": "L1 · 基础"},
    "level_L2": {"en": "L2 · Derivations", "zh": "L2 · 推导"},
    "level_L3": {"en": "L3 · Implementation", "zh": "L3 · 实现"},
    "all_levels": {"en": "All levels", "zh": "全部难度"},
    "tags": {"en": "Tags", "zh": "标签"},
    "all_tags": {"en": "All tags", "zh": "全部标签"},
    "filter": {"en": "Filter", "zh": "筛选"},
    "clear_filter": {"en": "Clear filters", "zh": "清除筛选"},
    "no_questions": {"en": "No questions match.", "zh": "没有符合条件的题目。"},
    "last_result": {"en": "Last result", "zh": "上次成绩"},
    "not_attempted": {"en": "Not tried yet", "zh": "尚未作答"},
    "questions_count": {"en": "{n} questions", "zh": "{n} 道题"},
    "variant": {"en": "Variant", "zh": "变体"},
    "new_variant": {"en": "New variant", "zh": "换一组数据"},
    "part": {"en": "Part", "zh": "小题"},
    "hint": {"en": "Hint", "zh": "提示"},
    "your_answer": {"en": "Your answer", "zh": "你的答案"},
    "interpreted_as": {"en": "Interpreted as", "zh": "解析为"},
    "checking": {"en": "Checking…", "zh": "检查中…"},
    "column": {"en": "column {n}", "zh": "第 {n} 列"},
    "line": {"en": "line {n}", "zh": "第 {n} 行"},
    "derivation_help": {"en": "One step per line; each line must follow from the previous one.",
                        "zh": "每行写一步;每一行都应由上一行推出。"},
    "start_from": {"en": "Start from", "zh": "起点"},
    "reach": {"en": "Reach", "zh": "目标"},
    "array_help": {"en": "One row per line, numbers separated by spaces or commas — or JSON such as [[1, 2], [3, 4]].",
                   "zh": "每行一行数据,数字以空格或逗号分隔;也可以写 JSON,如 [[1, 2], [3, 4]]。"},
    "array_bad": {"en": "Not a list of numbers", "zh": "不是数字列表"},
    "array_ragged": {"en": "Rows have different lengths", "zh": "各行长度不一致"},
    "array_shape": {"en": "Shape", "zh": "形状"},
    "freetext_help": {"en": "Self-assessed: compare your answer with the key points after submitting.",
                      "zh": "自评题:提交后请与要点对照。"},
    "variables": {"en": "Variables", "zh": "变量"},
    "functions": {"en": "Functions", "zh": "函数"},
    "submit": {"en": "Submit", "zh": "提交"},
    "submitting": {"en": "Submitting…", "zh": "提交中…"},
    "try_again": {"en": "Try again", "zh": "再试一次"},
    "score": {"en": "Score", "zh": "得分"},
    "result": {"en": "Result", "zh": "结果"},
    "status_correct": {"en": "Correct", "zh": "正确"},
    "status_incorrect": {"en": "Incorrect", "zh": "错误"},
    "status_invalid": {"en": "Could not read", "zh": "无法解析"},
    "status_undecided": {"en": "Undecided", "zh": "无法判定"},
    "status_partial": {"en": "Partly correct", "zh": "部分正确"},
    "status_ungraded": {"en": "Self-assessed", "zh": "自评"},
    "status_unanswered": {"en": "No answer", "zh": "未作答"},
    "step_ok": {"en": "follows", "zh": "成立"},
    "step_error": {"en": "does not follow", "zh": "不成立"},
    "solution": {"en": "Solution", "zh": "解答"},
    "key_points": {"en": "Key points", "zh": "要点"},
    "pitfalls": {"en": "Pitfalls", "zh": "常见错误"},
    "worked": {"en": "Worked solution", "zh": "详细解答"},
    "expected": {"en": "Expected answers", "zh": "参考答案"},
    "network_error": {"en": "The server could not be reached. Your answers are still here; try again.",
                      "zh": "无法连接服务器。答案仍保留在页面上,请重试。"},
    "server_error": {"en": "The server refused the answer", "zh": "服务器拒绝了该答案"},
    "not_found_title": {"en": "Not found", "zh": "未找到"},
    "not_found_text": {"en": "There is no question with that id.", "zh": "没有这个编号的题目。"},
    "back_home": {"en": "Back to all questions", "zh": "返回题目列表"},
    "step": {"en": "Step {n}", "zh": "第 {n} 步"},
    "first_error": {"en": "First step that does not follow: {n}", "zh": "第一个不成立的步骤:{n}"},
    "noscript": {"en": "This page needs JavaScript to check answers.", "zh": "本页需要 JavaScript 才能判分。"},
    "choose_one": {"en": "Choose one", "zh": "单选"},
    "choose_any": {"en": "Choose all that apply", "zh": "多选"},
    "footer": {"en": "Maths is rendered on the server as MathML; nothing is loaded from other sites.",
               "zh": "数学公式在服务器端渲染为 MathML,不从其他网站加载任何内容。"},
}

# Strings the browser script needs (sent as a JSON data attribute: no inline script under the CSP).
JS_KEYS = (
    "interpreted_as", "checking", "column", "line", "array_bad", "array_ragged", "array_shape", "submit",
    "submitting", "try_again", "score", "status_correct", "status_incorrect", "status_invalid",
    "status_undecided", "status_partial", "status_ungraded", "status_unanswered", "solution", "key_points",
    "pitfalls", "worked", "expected", "network_error", "server_error", "step", "first_error", "part",
    "step_ok", "step_error",
)


def norm_lang(value: str | None) -> str | None:
    if not value:
        return None
    value = value.strip().lower()
    if value.startswith("zh") or value == "cn":
        return "zh"
    if value.startswith("en"):
        return "en"
    return None


def current_lang() -> str:
    """``?lang=`` wins (and is remembered in a cookie), then the cookie, then Accept-Language."""
    cached = getattr(g, "_quiz_lang", None)
    if cached:
        return cached
    lang = norm_lang(request.args.get("lang"))
    if lang:
        g._quiz_lang_set_cookie = lang != norm_lang(request.cookies.get(LANG_COOKIE))
    else:
        lang = norm_lang(request.cookies.get(LANG_COOKIE))
    if not lang:
        best = request.accept_languages.best_match(["en", "zh", "zh-CN", "zh-TW"], default=DEFAULT_LANG)
        lang = norm_lang(best) or DEFAULT_LANG
    g._quiz_lang = lang
    return lang


def t(key: str, lang: str | None = None, **fmt) -> str:
    entry = STRINGS.get(key)
    if entry is None:
        return key
    text = entry.get(lang or current_lang()) or entry[DEFAULT_LANG]
    return text.format(**fmt) if fmt else text


def js_strings(lang: str) -> dict[str, str]:
    return {key: STRINGS[key][lang] for key in JS_KEYS}
