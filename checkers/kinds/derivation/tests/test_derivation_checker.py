from checkers import grading
from checkers.kinds.derivation.standalone import check_derivation

PQ = {"p": {"domain": "probability"}, "q": {"domain": "probability"}}
F = {"f": {"args": ["x"], "expr": "exp(x) - x - 1"}}
DPO = {"pi_star": {"positive": True}, "pi_ref": {"positive": True}, "r": {"real": True},
       "beta": {"positive": True}, "Z": {"positive": True}}
GAO = {"d": {"positive": True}, "alpha": {"positive": True}, "beta": {"positive": True}}
U = {"u": {"real": True}}
DPO_START = "pi_star = pi_ref*exp(r/beta)/Z"
DPO_GOAL = "r = beta*log(pi_star/pi_ref) + beta*log(Z)"


def statuses(v):
    return [s["status"] for s in v.details["steps"]]


def test_k3_from_f(inprocess):
    v = check_derivation(["f(log(q/p))", "= exp(log(q/p)) - log(q/p) - 1", "= q/p - log(q/p) - 1"],
                                 "f(log(q/p))", "q/p - log(q/p) - 1", PQ, F)
    assert v.status == "correct", v.details
    assert v.details["first_error"] is None and statuses(v) == ["ok"] * 3


def test_dpo_from_the_optimal_policy(inprocess):
    lines = ["pi_star = pi_ref exp(r/beta)/Z", "pi_star/pi_ref = exp(r/beta)/Z",
             "log(pi_star/pi_ref) = r/beta - log Z", "r = beta log(pi_star/pi_ref) + beta log Z"]
    v = check_derivation(lines, DPO_START, DPO_GOAL, DPO)
    assert v.status == "correct", v.details


def test_dpo_gradient_via_sigma_prime(inprocess):
    lines = ["-log(sigma(u))", "= softplus(-u)", "1 - sigma(u) = sigma(-u)",
             "sigma(u) (1 - sigma(u)) = sigma(u) sigma(-u)"]
    v = check_derivation(["sigma(u)(1 - sigma(u))", "= exp(-u)/(1 + exp(-u))^2", "= sigma(u) sigma(-u)"],
                                 "sigma(u)*(1 - sigma(u))", "sigma(u)*sigma(-u)", U)
    assert v.status == "correct", v.details
    v = check_derivation(lines[:2] + ["= log(1 + exp(-u))"], "-log(sigma(u))", "log(1 + exp(-u))", U)
    assert v.status == "correct", v.details
    # equal to the goal in value, but the last line must be the goal in form
    v = check_derivation(lines[:2], "-log(sigma(u))", "log(1 + exp(-u))", U)
    assert v.status == "incorrect" and v.note == "goal_form" and v.score == 0.0, v.details
    assert "form" in v.feedback["en"] and v.feedback["zh"]


def test_gao_peak_by_setting_the_derivative_to_zero(inprocess):
    lines = ["d(alpha - beta d)", "= alpha d - beta d^2", "alpha - 2 beta d = 0", "d = alpha/(2 beta)"]
    v = check_derivation(lines, "d*(alpha - beta*d)", "d = alpha/(2*beta)", GAO)
    assert v.status == "correct", v.details
    assert "derivative" in v.details["steps"][2]["feedback"]["en"]


def test_one_broken_step_is_named(inprocess):
    lines = ["f(log(q/p))", "= exp(log(q/p)) - log(q/p) - 1", "= q/p + log(q/p) - 1", "= q/p - log(q/p) - 1"]
    v = check_derivation(lines, "f(log(q/p))", "q/p - log(q/p) - 1", PQ, F)
    assert v.status == "incorrect" and v.note == "step_error"
    assert v.details["first_error"] == 2
    assert statuses(v)[:3] == ["ok", "ok", "error"]
    assert "Line 3" in v.feedback["en"] and v.feedback["zh"]


def test_broken_equation_step_is_named(inprocess):
    lines = ["pi_star = pi_ref exp(r/beta)/Z", "log(pi_star/pi_ref) = r/beta + log Z", "r = beta log(pi_star/pi_ref) - beta log Z"]
    v = check_derivation(lines, DPO_START, DPO_GOAL, DPO)
    assert v.status == "incorrect" and v.details["first_error"] == 1


def test_wrong_stationary_point_is_rejected(inprocess):
    lines = ["d(alpha - beta d)", "= alpha d - beta d^2", "alpha - beta d = 0", "d = alpha/beta"]
    v = check_derivation(lines, "d*(alpha - beta*d)", "d = alpha/(2*beta)", GAO)
    assert v.status == "incorrect" and v.details["first_error"] == 2


def test_chain_that_does_not_reach_the_goal(inprocess):
    v = check_derivation(["f(log(q/p))", "= exp(log(q/p)) - log(q/p) - 1"], "f(log(q/p))",
                                 "q/p - log(q/p)", PQ, F)
    assert v.status == "incorrect" and v.note == "goal_not_reached" and v.details["first_error"] is None


def test_wrong_start(inprocess):
    v = check_derivation(["f(log(p/q))", "= p/q - log(p/q) - 1"], "f(log(q/p))", "q/p - log(q/p) - 1", PQ, F)
    assert v.status == "incorrect" and v.details["first_error"] == 0


def test_parse_error_names_the_line(inprocess):
    v = check_derivation(["f(log(q/p))", "= q/p - log(q/p -"], "f(log(q/p))", "q/p - log(q/p) - 1", PQ, F)
    assert v.status == "invalid" and v.details["error"]["field"] == "answer[1]"
    assert not v.consumes_attempt


def test_known_wrong_line_gets_its_feedback(inprocess):
    spec = {"kind": "derivation", "variables": PQ, "functions": F, "start": "f(log(q/p))", "goal": "q/p - log(q/p) - 1",
            "mistakes": [{"line": "q/p + log(q/p) - 1", "note": "log-sign",
                          "feedback": {"en": "log(q/p) enters with a minus sign", "zh": "log(q/p) 前面是负号"}}]}
    v = grading.grade(["f(log(q/p))", "= q/p + log(q/p) - 1"], spec, {})
    assert v.status == "incorrect" and v.note == "log-sign"


# --- equation-form soundness (regressions) -------------------------------------------------------------
GAO_EQ_START, GAO_EQ_GOAL = "alpha - 2*beta*d = 0", "d = alpha/(2*beta)"


def test_generated_wrong_example_for_an_equation_start_is_incorrect(inprocess):
    # the start equation already has the goal's solutions; "= 0" restates it and must not reach the goal
    v = check_derivation(["alpha - 2*beta*d = 0", "= 0"], GAO_EQ_START, GAO_EQ_GOAL, GAO)
    assert v.status == "incorrect" and v.note == "goal_not_reached", v.details
    v = check_derivation(["alpha - 2*beta*d = 0"], GAO_EQ_START, GAO_EQ_GOAL, GAO)
    assert v.status == "incorrect" and v.note == "no_steps"   # only the start: no step of its own


def test_checker_examples_of_an_equation_part_grade_as_declared(inprocess):
    from checkers.kinds.base import get_kind
    spec = {"kind": "derivation", "variables": GAO, "start": GAO_EQ_START, "goal": GAO_EQ_GOAL,
            "reference": ["alpha - 2*beta*d = 0", "2*beta*d = alpha", "d = alpha/(2*beta)"],
            "mistakes": [{"line": "d = alpha/beta", "note": "missing-half", "feedback": {"en": "half", "zh": "半"}}]}
    ex = get_kind("derivation").examples(spec, {})
    for raw in ex.correct:
        assert grading.grade(raw, spec, {}).status == "correct", raw
    for raw, note in ex.incorrect:
        v = grading.grade(raw, spec, {})
        assert v.status == "incorrect", (raw, v.status, v.details)
        if note:
            assert v.note == note


def test_identity_lines_do_not_follow_from_an_equation(inprocess):
    for ident in ("0 = 0", "d = d", "beta*d = d*beta", "alpha - 2*beta*d = alpha - 2*beta*d"):
        v = check_derivation(["alpha - 2*beta*d = 0", ident, "d = alpha/(2*beta)"], GAO_EQ_START,
                                     GAO_EQ_GOAL, GAO)
        assert v.status == "incorrect" and v.details["first_error"] == 1, (ident, v.details)
        assert "every value" in v.details["steps"][1]["feedback"]["en"]


def test_identity_must_continue_the_expression_in_expression_mode(inprocess):
    # "0 = 0" is true but does not continue d(alpha - beta d): it cannot smuggle the chain to 0
    v = check_derivation(["d(alpha - beta d)", "0 = 0"], "d*(alpha - beta*d)", "0", GAO)
    assert v.status == "incorrect" and v.details["first_error"] == 1
    # an identity that continues the running expression is fine
    v = check_derivation(["d(alpha - beta d)", "alpha d - beta d^2 = d(alpha - beta d)",
                                  "= alpha^2/(4 beta) - beta (d - alpha/(2 beta))^2"],
                                 "d*(alpha - beta*d)", "alpha^2/(4*beta) - beta*(d - alpha/(2*beta))^2", GAO)
    assert v.status == "correct", v.details


def test_gao_peak_in_equation_form(inprocess):
    for lines in (["alpha - 2 beta d = 0", "2 beta d = alpha", "d = alpha/(2 beta)"],
                  ["alpha - 2 beta d = 0", "alpha = 2 beta d", "alpha/(2 beta) = d"]):
        v = check_derivation(lines, GAO_EQ_START, GAO_EQ_GOAL, GAO)
        assert v.status == "correct", (lines, v.details)
    # the start then the goal (in any order of sides) shows no step of its own
    for lines in (["alpha - 2*beta*d = 0", "d = alpha/(2*beta)"], ["0 = alpha - 2 beta d", "d = alpha/2/beta"]):
        v = check_derivation(lines, GAO_EQ_START, GAO_EQ_GOAL, GAO)
        assert v.status == "incorrect" and v.note == "no_steps" and v.score == 0.0, (lines, v.details)


def test_first_line_must_be_the_start_equation(inprocess):
    # writing the goal straight away is not a derivation from the start
    v = check_derivation(["d = alpha/(2 beta)"], GAO_EQ_START, GAO_EQ_GOAL, GAO)
    assert v.status == "incorrect" and v.details["first_error"] == 0


def test_dpo_chain_in_equation_form(inprocess):
    for lines in (["pi_star = pi_ref exp(r/beta)/Z", "pi_star Z/pi_ref = exp(r/beta)",
                   "log(pi_star/pi_ref) + log Z = r/beta", "r = beta log(pi_star/pi_ref) + beta log Z"],
                  ["pi_star = pi_ref exp(r/beta)/Z", "log(pi_star) = log(pi_ref) + r/beta - log(Z)",
                   "r/beta = log(pi_star/pi_ref) + log Z", "r = beta (log(pi_star/pi_ref) + log Z)", DPO_GOAL],
                  ["pi_ref exp(r/beta)/Z = pi_star", "exp(r/beta) = Z pi_star/pi_ref", "r = beta log(Z pi_star/pi_ref)",
                   "r = beta log(pi_star/pi_ref) + beta log(Z)"]):
        v = check_derivation(lines, DPO_START, DPO_GOAL, DPO)
        assert v.status == "correct", (lines, v.details)
    v = check_derivation([DPO_START, "= 0"], DPO_START, DPO_GOAL, DPO)
    assert v.status == "incorrect" and v.details["first_error"] == 1


def test_continuations_update_the_running_equation(inprocess):
    lines = ["pi_star = pi_ref exp(r/beta)/Z", "log(pi_star/pi_ref) = log(exp(r/beta)/Z)", "= r/beta - log Z",
             "= r/beta - log(Z)", "r = beta log(pi_star/pi_ref) + beta log Z"]
    v = check_derivation(lines, DPO_START, DPO_GOAL, DPO)
    assert v.status == "correct", v.details
    bad = lines[:2] + ["= r/beta - log Z", "= r/beta + log Z"]
    v = check_derivation(bad, DPO_START, DPO_GOAL, DPO)
    assert v.status == "incorrect" and v.details["first_error"] == 3


def test_broken_equation_step_is_named_in_first_error(inprocess):
    lines = ["alpha - 2 beta d = 0", "2 beta d = alpha", "d = 2 alpha/beta", "d = alpha/(2 beta)"]
    v = check_derivation(lines, GAO_EQ_START, GAO_EQ_GOAL, GAO)
    assert v.status == "incorrect" and v.note == "step_error" and v.details["first_error"] == 2
    assert statuses(v) == ["ok", "ok", "error"] and "Line 3" in v.feedback["en"]
    lines = ["pi_star = pi_ref exp(r/beta)/Z", "pi_star/pi_ref = exp(r/beta)/Z", "log(pi_star/pi_ref) = r/beta + log Z"]
    v = check_derivation(lines, DPO_START, DPO_GOAL, DPO)
    assert v.status == "incorrect" and v.details["first_error"] == 2


def test_true_but_different_final_equation_does_not_reach_the_goal(inprocess):
    # equivalent to the goal as an equation, but not the goal equation
    v = check_derivation(["alpha - 2 beta d = 0", "2 beta d = alpha"], GAO_EQ_START, GAO_EQ_GOAL, GAO)
    assert v.status == "incorrect" and v.note == "goal_not_reached" and v.details["first_error"] is None
    v = check_derivation(["pi_star = pi_ref exp(r/beta)/Z", "r/beta = log(pi_star/pi_ref) + log Z"],
                                 DPO_START, DPO_GOAL, DPO)
    assert v.status == "incorrect" and v.note == "goal_not_reached"


def test_expression_chains_still_work(inprocess):
    v = check_derivation(["d(alpha - beta d)", "= alpha d - beta d^2",
                                  "= -beta (d^2 - (alpha/beta) d)",
                                  "= -beta ((d - alpha/(2 beta))^2 - alpha^2/(4 beta^2))",
                                  "= alpha^2/(4 beta) - beta (d - alpha/(2 beta))^2"],
                                 "d*(alpha - beta*d)", "alpha^2/(4*beta) - beta*(d - alpha/(2*beta))^2", GAO)
    assert v.status == "correct", v.details
    # an expression chain proves an identity goal "start = result"
    v = check_derivation(["f(log(q/p))", "= q/p - log(q/p) - 1"], "f(log(q/p))",
                                 "f(log(q/p)) = q/p - log(q/p) - 1", PQ, F)
    assert v.status == "correct", v.details


# --- known wrong steps -----------------------------------------------------------------------------------
GAO_SPEC = {"kind": "derivation", "variables": GAO, "start": "d*(alpha - beta*d)", "goal": "d = alpha/(2*beta)",
            "mistakes": [{"line": "alpha - beta*d = 0", "note": "missing-half",
                          "feedback": {"en": "d/dd of beta d^2 is 2 beta d", "zh": "导数是 2βd"}},
                         {"line": "alpha*d - beta*d", "note": "lost-square",
                          "feedback": {"en": "d times beta d is beta d^2", "zh": "平方"}}]}


def test_known_wrong_step_gets_its_feedback_as_the_first_failing_step(inprocess):
    cases = [  # (lines, failing line, note)
        (["d(alpha - beta d)", "= alpha d - beta d^2", "alpha - beta d = 0", "d = alpha/beta"], 2, "missing-half"),
        (["d(alpha - beta d)", "= alpha d - beta d^2", "beta d = alpha"], 2, "missing-half"),  # equivalent form
        (["d(alpha - beta d)", "= alpha d - beta d"], 1, "lost-square"),                       # continuation
        (["d(alpha - beta d)", "alpha d - beta d"], 1, "lost-square"),                         # expression line
        (["d(alpha - beta d)", "d(alpha - beta d) = alpha d - beta d"], 1, "lost-square"),     # identity form
    ]
    for lines, at, note in cases:
        v = grading.grade(lines, GAO_SPEC, {})
        assert v.status == "incorrect" and v.note == note, (lines, v.status, v.note, v.details)
        assert v.details["first_error"] == at and v.details["mistake_line"] == at
        assert v.feedback == GAO_SPEC["mistakes"][0 if note == "missing-half" else 1]["feedback"]


def test_known_wrong_step_after_the_first_error_does_not_take_over(inprocess):
    # line 2 is a different slip; the known wrong step on line 3 is not the first failing step
    lines = ["d(alpha - beta d)", "= alpha d - 2 beta d^2", "alpha - beta d = 0"]
    v = grading.grade(lines, GAO_SPEC, {})
    assert v.status == "incorrect" and v.note == "step_error" and v.details["first_error"] == 1


def test_correct_chain_is_not_flagged_by_a_mistake(inprocess):
    v = grading.grade(["d(alpha - beta d)", "= alpha d - beta d^2", "alpha - 2 beta d = 0", "d = alpha/(2 beta)"],
                      GAO_SPEC, {})
    assert v.status == "correct", v.details


# --- time: one shared budget ---------------------------------------------------------------------------
def test_default_hard_limit_is_one_second():
    from checkers.kinds import derivation
    assert grading.DEFAULT_TIMEOUT == 1.0 and derivation.DEFAULT_TIMEOUT == 1.0
    assert 0 < derivation.soft_budget(1.0) < 1.0


def test_running_out_of_budget_is_undecided_naming_the_step(inprocess):
    from checkers import equivalence
    from checkers.kinds import derivation
    equivalence.clear_cache()
    lines = ["pi_star = pi_ref exp(r/beta)/Z", "pi_star/pi_ref = exp(r/beta)/Z", "log(pi_star/pi_ref) = r/beta - log Z",
             "r = beta log(pi_star/pi_ref) + beta log Z"]
    spec = {"kind": "derivation", "variables": DPO, "start": DPO_START, "goal": DPO_GOAL}
    v = derivation.grade_lines(lines, spec, {}, budget=0.0)
    assert v.status == "undecided" and not v.consumes_attempt
    assert v.details["first_undecided"] == 0 and "line 1" in v.feedback["en"]


def test_derivation_within_the_default_budget_in_the_sandbox():
    # No clock in the test: the default soft budget counts the worker's CPU time, so a derivation that
    # fits it is correct on a loaded machine too. The hard limit here is far beyond it: reaching it
    # (a killed worker) would mean the budget did not bound the work.
    from checkers import sandbox
    from checkers.kinds import derivation
    lines = ["pi_star = pi_ref exp(r/beta)/Z", "pi_star/pi_ref = exp(r/beta)/Z", "log(pi_star/pi_ref) = r/beta - log Z",
             "r = beta log(pi_star/pi_ref) + beta log Z"]
    spec = {"kind": "derivation", "variables": DPO, "start": DPO_START, "goal": DPO_GOAL}
    pool = sandbox.get_pool()
    check_derivation(["x"], "x", "x", {"x": {"real": True}})  # start the pool
    timeouts = pool.stats.timeouts
    v = sandbox.run(derivation.grade_lines, lines, spec, {}, derivation.soft_budget(grading.DEFAULT_TIMEOUT),
                    timeout=30)
    assert v.status == "correct", v.details
    assert pool.stats.timeouts == timeouts
    # a hard limit too short for the work: a time-out verdict (or the right one), never a wrong one
    v = check_derivation(lines, DPO_START, DPO_GOAL, DPO, timeout=0.2)
    assert v.status in ("correct", "undecided") and not (v.status == "undecided" and v.consumes_attempt)
