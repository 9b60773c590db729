"""The schemas of API v1's stand-alone checks (symbolic, derivation, code) and of the reference engine's
endpoints (list, call, verify), with the examples their operations show.
"""

from __future__ import annotations

from typing import Any

from checkers.limits import MAX_TEXT
from checkers.mathparse.symbols import ASSUMPTION_FLAGS

from ..httpkit.openapi import ref

NUMBER_OR_NONFINITE = {"oneOf": [{"type": "number"}, {"type": "string", "enum": ["nan", "inf", "-inf"]}]}
TENSOR = {"description": "a number, a non-finite string or a nested list of them",
          "oneOf": [NUMBER_OR_NONFINITE, {"type": "array", "items": {}}]}
#: A variable or function name the check endpoints accept (quizapp.api.questions.NAME).
NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,31}$"
ASSUMPTIONS = {"type": "object", "additionalProperties": ref("Assumptions"), "maxProperties": 50,
               "propertyNames": {"pattern": NAME_PATTERN}}
#: The k3 KL estimate as a code answer: the example body of the code-check endpoints.
K3_SOURCE = ("import torch\n\n\ndef k3(log_prob, ref_log_prob):\n"
             "    x = ref_log_prob - log_prob\n    return torch.exp(x) - x - 1\n")
#: The IPO loss (Azar et al. 2023) on the DPO log-ratios: the example of a check whose args fix beta.
IPO_SOURCE = ("def loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta):\n"
              "    h = (policy_chosen_logps - ref_chosen_logps) - (policy_rejected_logps - ref_rejected_logps)\n"
              "    return (h - 1 / (2 * beta)) ** 2\n")


def assumption_rules(*fields: str) -> list[tuple[str, str, str]]:
    """Variables' assumptions must be satisfiable together (positive and negative cannot both hold, nor
    nonnegative, nonpositive and nonzero): sympy decides when an expression is read, and the error names
    that expression's field."""
    return [(name, "invalid_field", "the variables' assumptions contradict each other") for name in fields]


_SCHEMAS: dict[str, Any] = {
    "Assumptions": {"type": "object", "description": "sympy-style flags, or domain=probability for (0, 1)",
                    "properties": {**{flag: {"type": "boolean"} for flag in ASSUMPTION_FLAGS},
                                   "complex": {"type": "boolean", "description": "a complex variable "
                                               "(unflagged variables are real)"},
                                   "domain": {"type": "string", "enum": ["probability"]}},
                    "additionalProperties": False},
    "SymbolicCheckRequest": {"type": "object", "required": ["expected", "answer"], "properties": {
        "expected": {"type": "string"}, "answer": {"type": "string"}, "variables": ASSUMPTIONS,
        "mode": {"type": "string", "enum": ["equivalent", "same_form", "up_to_constant", "up_to_sign"],
                 "default": "equivalent"},
        "constants": {"type": "array", "items": {"type": "string"},
                      "description": "declared variables that are given constants: in up_to_constant mode the "
                                     "allowed additive constant may depend on them"},
        "decimals": {"type": "object", "properties": {"rtol": {"type": "number", "minimum": 0},
                                                      "atol": {"type": "number", "minimum": 0}},
                     "additionalProperties": False, "minProperties": 1,
                     "description": "accept decimal answers within this tolerance (default: a decimal "
                                    "must be exactly the expected value)"},
        "lang": {"type": "string", "enum": ["en", "zh"]}}, "additionalProperties": False},
    "DerivationCheckRequest": {"type": "object", "required": ["steps", "start", "goal"], "properties": {
        "steps": {"type": "array", "items": {"type": "string", "pattern": "^[^\\x00]*$"}},
        "start": {"type": "string"}, "goal": {"type": "string"}, "variables": ASSUMPTIONS,
        "functions": {"type": "object", "propertyNames": {"pattern": NAME_PATTERN}, "additionalProperties": {
            "type": "object", "required": ["args", "expr"], "additionalProperties": False, "properties": {
                "args": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": NAME_PATTERN}},
                "expr": {"type": "string", "maxLength": MAX_TEXT}}}},
        "milestones": {"type": "array", "items": {"type": "string"}, "maxItems": 20,
                       "description": "key steps (expressions) that must appear, in order, among the lines, "
                                      "matched by form (a line, one side of it, a sub-expression or some terms "
                                      "of a sum); score = (key steps found + 1 for a valid chain to the goal) / "
                                      "(milestones + 1). With or without them, the last line must be the goal in "
                                      "form and lines that are only the start/goal score 0 (note no_steps)"},
        "lang": {"type": "string", "enum": ["en", "zh"]}}, "additionalProperties": False},
    "CodeCheckRequest": {"type": "object", "required": ["function", "source"], "properties": {
        "function": {"type": "string", "description": "engine function to implement, e.g. kl.k3 (any "
                     "registered function); the source defines a function named like its last component "
                     "(k3) taking the check's inputs as keyword arguments: the function's tensor inputs, "
                     "generated by each parameter's role, and its required scalars, drawn per case from the "
                     "registry's range unless args fixes them (the reply's args lists them)"},
        "args": {"type": "object", "additionalProperties": {},
                 "description": "hyperparameters held fixed for every case, e.g. {\"beta\": 0.1, \"loss_type\": "
                                "\"ipo\"}, validated like the engine's own arguments (422 naming args.<name>); "
                                "a fixed value also reaches your function where its signature names the "
                                "parameter. Unnamed hyperparameters keep the engine's defaults"},
        "name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]{0,63}$",
                 "description": "the function your source defines, when not the engine name's last component"},
        "source": {"type": "string", "maxLength": 65536,
                   "description": "Python source, at most 64 KB (UTF-8); larger is 413"},
        "convention": {"type": "string", "description": "the engine's convention to compare with (one of "
                       "the function's convention values; 422 otherwise)"},
        "outputs": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                    "description": "outputs to grade (default: the function's first); with more than one, "
                                   "return a dict keyed by output name"},
        "lang": {"type": "string", "enum": ["en", "zh"]}}, "additionalProperties": False},
    "CodeVerdict": {"allOf": [ref("Verdict"), {"type": "object", "properties": {
        "function": {"type": "string"}, "name": {"type": "string", "description": "the function to define"},
        "args": {"type": "array", "items": {"type": "string"},
                 "description": "the keyword arguments your function receives"},
        "fixed": {"type": "object", "additionalProperties": {},
                  "description": "the hyperparameters held fixed (args and convention)"},
        "starter": {"type": "string", "description": "the signature the check calls, with each argument's "
                                                     "shape and what to return, as Python source"},
        "outputs": {"type": "array", "items": {"type": "string"}}}}],
        "description": "details.cases: one row per case run (id, label, ok, per-output comparison); "
                       "details.first_failure: the first failing case with expected vs got at its first "
                       "mismatch and, when small, its inputs"},
    "Tensor": TENSOR,
    "FunctionList": {"type": "object", "properties": {"functions": {"type": "array", "items": {
        "type": "object", "properties": {"name": {"type": "string"}, "doc": {"type": "string"},
                                         "params": {"type": "array", "items": {"type": "object"}},
                                         "outputs": {"type": "array", "items": {"type": "string"}}}}}}},
    "ReferenceCall": {"type": "object", "description": "keyword arguments of the function",
                      "additionalProperties": {}},
    "ReferenceResult": {"type": "object", "properties": {
        "function": {"type": "string"}, "outputs": {"type": "object", "additionalProperties": ref("Tensor")}}},
    "VerifyRequest": {"type": "object", "required": ["args", "claimed"], "properties": {
        "args": {"type": "object"}, "claimed": {"type": "object", "additionalProperties": ref("Tensor")},
        "rtol": {"type": "number", "minimum": 0, "description": "default 1e-6 (1e-4 for a float32 output)"},
        "atol": {"type": "number", "minimum": 0, "description": "default 1e-8 (1e-6 for a float32 output)"}},
        "additionalProperties": False},
    "OutputComparison": {"type": "object", "description": "|claimed - expected| <= atol + rtol |expected| per "
                         "element, NaN equal to NaN (checkers.tensor_compare; the code kind reports the same)",
                         "properties": {
        "match": {"type": "boolean"}, "max_abs_err": {"oneOf": [NUMBER_OR_NONFINITE, {"type": "null"}]},
        "max_rel_err": {"oneOf": [NUMBER_OR_NONFINITE, {"type": "null"}]}, "mismatches": {"type": "integer"},
        "first_mismatch": {"type": ["array", "null"], "items": {"type": "integer"}},
        "expected_value": NUMBER_OR_NONFINITE, "got_value": NUMBER_OR_NONFINITE,
        "expected_shape": {"type": "array", "items": {"type": "integer"}},
        "shape": {"type": "array", "items": {"type": "integer"}},
        "reason": {"type": "string", "enum": ["shape"], "description": "no element comparison: shapes differ"},
        "message": {"type": "string", "description": "what differs, in English"},
        "rtol": {"type": "number"}, "atol": {"type": "number"},
        "expected": ref("Tensor"), "claimed": ref("Tensor")}},
    "VerifyResult": {"type": "object", "properties": {
        "function": {"type": "string"}, "match": {"type": "boolean"},
        "outputs": {"type": "object", "additionalProperties": ref("OutputComparison")}}},
}


def _standalone_functions() -> list[str]:
    """The engine functions ``POST /check/code`` accepts: every registered one (its inputs are chosen from
    the parameters' roles, its required scalars drawn from their ranges; checkers.kinds.code.standalone)."""
    from checkers.reference import names  # local: the engine imports torch

    return names()



def check_schemas() -> dict[str, Any]:
    """The schemas above. A code exercise implements one engine function: the names the server accepts come
    from the registry (read on the first document served: it loads torch, which app start-up leaves to the
    first request that needs it)."""
    schemas = dict(_SCHEMAS)
    code = dict(schemas["CodeCheckRequest"])
    code["properties"] = {**code["properties"],
                          "function": {**code["properties"]["function"], "enum": _standalone_functions()}}
    schemas["CodeCheckRequest"] = code
    return schemas
