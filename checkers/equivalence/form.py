"""``same_form``: an equivalent answer must also be written no longer than the expected form.

Definition (documented in docs/supported-input.md): the answer's expression tree has no more nodes
than the expected one's (after sympy's automatic evaluation), and it contains no trivial sub-terms
(+0, *1, ^1, ^0, log(exp(.)), exp(log(.)), a term repeated in a sum).
"""

from __future__ import annotations

import sympy as sp

def tree_size(expr: sp.Basic) -> int:
    return sum(1 for _ in sp.preorder_traversal(expr))


def trivial_subterms(expr: sp.Basic) -> list[str]:
    """Sub-terms a simplified answer would not contain (only possible in unevaluated trees)."""
    found = []
    for node in sp.preorder_traversal(expr):
        if node.is_Add and any(arg == 0 for arg in node.args):
            found.append(f"adds 0 in {node}")
        elif node.is_Mul and any(arg == 1 for arg in node.args):
            found.append(f"multiplies by 1 in {node}")
        elif node.is_Pow and node.exp in (0, 1):
            found.append(f"power {node.exp} in {node}")
        elif isinstance(node, sp.log) and isinstance(node.args[0], sp.exp):
            found.append(f"log(exp(...)) in {node}")
        elif isinstance(node, sp.exp) and isinstance(node.args[0], sp.log):
            found.append(f"exp(log(...)) in {node}")
        elif node.is_Add and len(node.args) != len(set(node.args)):
            found.append(f"repeated term in {node}")
    return found


def form_problems(expected: sp.Basic, answer: sp.Basic) -> list[str]:
    """Why ``answer`` is not in a form comparable to ``expected`` ([] when it is).

    Definition (documented in docs/supported-input.md): the answer's expression tree has no more nodes
    than the expected one's (after sympy's automatic evaluation), and it contains no trivial
    sub-terms (+0, *1, ^1, ^0, log(exp(.)), exp(log(.)), a term repeated in a sum).
    """
    problems = []
    se, sa = tree_size(expected), tree_size(answer)
    if sa > se:
        problems.append(f"the answer has {sa} nodes, the expected form {se}")
    problems += trivial_subterms(answer)
    return problems

