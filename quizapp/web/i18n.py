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
    # ---- the author's pages (/author)
    "author_brand": {"en": "RLHF quiz · authoring", "zh": "RLHF 练习 · 出题"},
    "author_title": {"en": "Authoring", "zh": "出题"},
    "author_nav_questions": {"en": "Questions", "zh": "题目"},
    "author_nav_new": {"en": "New", "zh": "新建"},
    "author_nav_tokens": {"en": "API tokens", "zh": "API 令牌"},
    "author_logout": {"en": "Log out {name}", "zh": "退出登录({name})"},
    "author_login_title": {"en": "Log in", "zh": "登录"},
    "author_login_heading": {"en": "Author login", "zh": "出题人登录"},
    "author_username": {"en": "Username", "zh": "用户名"},
    "author_password": {"en": "Password", "zh": "密码"},
    "author_login_submit": {"en": "Log in", "zh": "登录"},
    "author_login_wrong": {"en": "Wrong username or password.", "zh": "用户名或密码错误。"},
    "author_login_throttled": {"en": "Too many failed logins. Try again in {n} seconds.",
                               "zh": "登录失败次数过多,请在 {n} 秒后重试。"},
    "author_questions": {"en": "Questions", "zh": "题目"},
    "author_new_question": {"en": "New question", "zh": "新建题目"},
    "author_col_question": {"en": "Question", "zh": "题目"},
    "author_col_level": {"en": "Level", "zh": "难度"},
    "author_col_newest": {"en": "Newest version", "zh": "最新版本"},
    "author_col_published": {"en": "Published", "zh": "已发布版本"},
    "author_col_selftest": {"en": "Self-test", "zh": "自检"},
    "author_col_version": {"en": "Version", "zh": "版本"},
    "author_col_status": {"en": "Status", "zh": "状态"},
    "author_col_created": {"en": "Created", "zh": "创建时间"},
    "author_col_part": {"en": "Part", "zh": "小题"},
    "author_col_seed": {"en": "Seed", "zh": "种子"},
    "author_col_reason": {"en": "Reason", "zh": "原因"},
    "author_drafts": {"en": "{n} draft(s)", "zh": "{n} 个草稿"},
    "author_not_run": {"en": "not run", "zh": "未运行"},
    "author_ok": {"en": "ok", "zh": "通过"},
    "author_failures": {"en": "{n} failure(s)", "zh": "{n} 项失败"},
    "author_no_questions": {"en": "No questions yet.", "zh": "还没有题目。"},
    "author_status_draft": {"en": "draft", "zh": "草稿"},
    "author_status_published": {"en": "published", "zh": "已发布"},
    "author_status_retired": {"en": "retired", "zh": "已下线"},
    "author_not_saved": {"en": "Not saved / not publishable: {n} problem(s)", "zh": "未保存/无法发布:{n} 个问题"},
    "author_yaml_label": {"en": "Question (YAML, in the format of the questions/ folder)",
                          "zh": "题目(YAML,格式与 questions/ 目录中的文件相同)"},
    "author_seed": {"en": "Seed", "zh": "种子"},
    "author_language": {"en": "Language", "zh": "语言"},
    "author_save": {"en": "Save draft (runs the self-test)", "zh": "保存草稿(运行自检)"},
    "author_preview": {"en": "Preview", "zh": "预览"},
    "author_preview_seed": {"en": "seed {n}", "zh": "种子 {n}"},
    "author_preview_live": {"en": "seed {n} (live)", "zh": "种子 {n}(实时)"},
    "author_preview_failed": {"en": "preview failed", "zh": "预览失败"},
    "author_preview_unavailable": {"en": "preview unavailable", "zh": "预览暂不可用"},
    "author_selftest_of": {"en": "Self-test of v{n}", "zh": "v{n} 的自检"},
    "author_selftest_not_run": {"en": "Not run.", "zh": "尚未运行。"},
    "author_selftest_passed": {"en": "Passed over {n} seeds.", "zh": "在 {n} 个种子上全部通过。"},
    "author_selftest_failed": {"en": "{f} failure(s) over {n} seeds: this version cannot be published.",
                               "zh": "在 {n} 个种子上有 {f} 项失败:此版本不能发布。"},
    "author_publish": {"en": "Publish v{n}", "zh": "发布 v{n}"},
    "author_retire": {"en": "Retire (hide from learners)", "zh": "下线(对学习者隐藏)"},
    "author_versions": {"en": "Versions", "zh": "版本"},
    "author_part": {"en": "Part {id}", "zh": "小题 {id}"},
    "author_expected": {"en": "Expected:", "zh": "参考答案:"},
    "author_solution": {"en": "Solution", "zh": "解答"},
    "author_pitfalls": {"en": "Pitfalls", "zh": "常见错误"},
    "author_tokens": {"en": "API tokens", "zh": "API 令牌"},
    "author_token_once": {"en": "Your new token (shown only once; only its hash is stored):",
                          "zh": "你的新令牌(只显示这一次;服务器只保存它的哈希值):"},
    "author_token_send": {"en": "Send it in the header", "zh": "请在请求头中发送"},
    "author_token_name": {"en": "Name", "zh": "名称"},
    "author_token_create": {"en": "Create token", "zh": "创建令牌"},
    "author_col_id": {"en": "Id", "zh": "编号"},
    "author_col_token": {"en": "Token", "zh": "令牌"},
    "author_col_last_used": {"en": "Last used", "zh": "最近使用"},
    "author_never": {"en": "never", "zh": "从未"},
    "author_revoked": {"en": "revoked", "zh": "已撤销"},
    "author_revoke": {"en": "Revoke", "zh": "撤销"},
    "author_no_tokens": {"en": "No tokens.", "zh": "没有令牌。"},
    "author_flash_saved": {"en": "Saved version {n} (self-test passed).", "zh": "已保存版本 {n}(自检通过)。"},
    "author_flash_saved_failures": {"en": "Saved version {n} ({f} self-test failure(s)).",
                                    "zh": "已保存版本 {n}(自检有 {f} 项失败)。"},
    "author_flash_published": {"en": "Published version {n}.", "zh": "已发布版本 {n}。"},
    "author_flash_retired": {"en": "Retired {qid}: learners no longer see it.", "zh": "已下线 {qid}:学习者不再看到这道题。"},
    "author_flash_revoked": {"en": "Token {id} revoked.", "zh": "令牌 {id} 已撤销。"},
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


def remember_lang(response):
    """Set the language cookie on ``response`` when ``?lang=`` chose a new language; returns it."""
    if getattr(g, "_quiz_lang_set_cookie", False):
        response.set_cookie(LANG_COOKIE, g._quiz_lang, max_age=LANG_COOKIE_MAX_AGE, samesite="Lax",
                            httponly=False, secure=request.is_secure)
    return response


def js_strings(lang: str) -> dict[str, str]:
    return {key: STRINGS[key][lang] for key in JS_KEYS}
