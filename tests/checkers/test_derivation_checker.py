from checkers import grading

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
    v = grading.check_derivation(["f(log(q/p))", "= exp(log(q/p)) - log(q/p) - 1", "= q/p - log(q/p) - 1"],
                                 "f(log(q/p))", "q/p - log(q/p) - 1", PQ, F)
    assert v.status == "correct", v.details
    assert v.details["first_error"] is None and statuses(v) == ["ok"] * 3


def test_dpo_from_the_optimal_policy(inprocess):
    lines = ["pi_star = pi_ref exp(r/beta)/Z", "pi_star/pi_ref = exp(r/beta)/Z",
             "log(pi_star/pi_ref) = r/beta - log Z", "r = beta log(pi_star/pi_ref) + beta log Z"]
    v = grading.check_derivation(lines, DPO_START, DPO_GOAL, DPO)
    assert v.status == "correct", v.details


def test_dpo_gradient_via_sigma_prime(inprocess):
    lines = ["-log(sigma(u))", "= softplus(-u)", "1 - sigma(u) = sigma(-u)",
             "sigma(u) (1 - sigma(u)) = sigma(u) sigma(-u)"]
    v = grading.check_derivation(["sigma(u)(1 - sigma(u))", "= sigma(u) sigma(-u)", "= exp(-u)/(1 + exp(-u))^2"],
                                 "sigma(u)*(1 - sigma(u))", "sigma(u)*sigma(-u)", U)
    assert v.status == "correct", v.details
    v = grading.check_derivation(lines[:2], "-log(sigma(u))", "log(1 + exp(-u))", U)
    assert v.status == "correct", v.details


def test_gao_peak_by_setting_the_derivative_to_zero(inprocess):
    lines = ["d(alpha - beta d)", "= alpha d - beta d^2", "alpha - 2 beta d = 0", "d = alpha/(2 beta)"]
    v = grading.check_derivation(lines, "d*(alpha - beta*d)", "d = alpha/(2*beta)", GAO)
    assert v.status == "correct", v.details
    assert "derivative" in v.details["steps"][2]["feedback"]["en"]


def test_one_broken_step_is_named(inprocess):
    lines = ["f(log(q/p))", "= exp(log(q/p)) - log(q/p) - 1", "= q/p + log(q/p) - 1", "= q/p - log(q/p) - 1"]
    v = grading.check_derivation(lines, "f(log(q/p))", "q/p - log(q/p) - 1", PQ, F)
    assert v.status == "incorrect" and v.note == "step_error"
    assert v.details["first_error"] == 2
    assert statuses(v)[:3] == ["ok", "ok", "error"]
    assert "Line 3" in v.feedback["en"] and v.feedback["zh"]


def test_broken_equation_step_is_named(inprocess):
    lines = ["pi_star = pi_ref exp(r/beta)/Z", "log(pi_star/pi_ref) = r/beta + log Z", "r = beta log(pi_star/pi_ref) - beta log Z"]
    v = grading.check_derivation(lines, DPO_START, DPO_GOAL, DPO)
    assert v.status == "incorrect" and v.details["first_error"] == 1


def test_wrong_stationary_point_is_rejected(inprocess):
    lines = ["d(alpha - beta d)", "= alpha d - beta d^2", "alpha - beta d = 0", "d = alpha/beta"]
    v = grading.check_derivation(lines, "d*(alpha - beta*d)", "d = alpha/(2*beta)", GAO)
    assert v.status == "incorrect" and v.details["first_error"] == 2


def test_chain_that_does_not_reach_the_goal(inprocess):
    v = grading.check_derivation(["f(log(q/p))", "= exp(log(q/p)) - log(q/p) - 1"], "f(log(q/p))",
                                 "q/p - log(q/p)", PQ, F)
    assert v.status == "incorrect" and v.note == "goal_not_reached" and v.details["first_error"] is None


def test_wrong_start(inprocess):
    v = grading.check_derivation(["f(log(p/q))", "= p/q - log(p/q) - 1"], "f(log(q/p))", "q/p - log(q/p) - 1", PQ, F)
    assert v.status == "incorrect" and v.details["first_error"] == 0


def test_parse_error_names_the_line(inprocess):
    v = grading.check_derivation(["f(log(q/p))", "= q/p - log(q/p -"], "f(log(q/p))", "q/p - log(q/p) - 1", PQ, F)
    assert v.status == "invalid" and v.details["error"]["field"] == "answer[1]"
    assert not v.consumes_attempt


def test_known_wrong_line_gets_its_feedback(inprocess):
    spec = {"kind": "derivation", "variables": PQ, "functions": F, "start": "f(log(q/p))", "goal": "q/p - log(q/p) - 1",
            "mistakes": [{"line": "q/p + log(q/p) - 1", "note": "log-sign",
                          "feedback": {"en": "log(q/p) enters with a minus sign", "zh": "log(q/p) 前面是负号"}}]}
    v = grading.grade(["f(log(q/p))", "= q/p + log(q/p) - 1"], spec, {})
    assert v.status == "incorrect" and v.note == "log-sign"
