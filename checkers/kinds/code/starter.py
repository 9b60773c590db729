"""The starter a learner sees: the exercise's signature with a docstring, generated from the registry, or
the part's own ``starter`` source (a fix-the-bug exercise's buggy implementation)."""

from __future__ import annotations

from typing import Any, Mapping

from ...i18n import in_language

# The registry and the case builder import torch: they are imported where a starter is written, not with
# this module, so that loading the answer kinds (every server worker at start-up) stays free of torch.


def _arg_line(param: Mapping[str, Any], value: Any = None, drawn: bool = False) -> str:
    from .cases import is_tensor_param  # local: the case builder imports torch

    if is_tensor_param(param):
        return f"{param['name']}: torch.Tensor {param.get('shape', '')}".rstrip()
    if drawn:   # a scalar the cases draw from the registry's range (or cycle through, for a choice)
        return f"{param['name']}: {param['kind']} (varies from case to case)"
    return f"{param['name']}: {param['kind']} (this exercise: {value!r})"


def given_starter(spec: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The part's own ``starter: {source, fix_the_bug, note}`` block, or None when the starter is generated.

    A fix-the-bug exercise gives the learner a plausible implementation with one real-world bug
    (``fix_the_bug: true``); ``note`` is the note that buggy source is graded with (the self-test checks it).
    """
    block = spec.get("starter")
    return block if isinstance(block, Mapping) else None


def is_fix_the_bug(spec: Mapping[str, Any]) -> bool:
    """Whether the learner repairs the given starter rather than writing the function (the page says so)."""
    block = given_starter(spec)
    return bool(block and block.get("fix_the_bug"))


def starter_source(spec: Mapping[str, Any], lang: str = "en") -> str:
    """The part's own starter source when it gives one (a fix-the-bug exercise's buggy implementation),
    else ``def <name>(<args>):`` with a docstring naming each argument's shape and what to return."""
    block = given_starter(spec)
    if block is not None:
        return str(block["source"])
    from ...reference import describe  # local: the engine imports torch

    fn = spec["function"]
    name = str(spec.get("name") or fn.rsplit(".", 1)[-1])
    params = {p["name"]: p for p in describe(fn)["params"]}
    scalars = spec.get("scalars") or {}
    args = list(spec["args"])
    outputs = list(spec["outputs"])
    summary = (spec.get("summary") or {}).get(lang) or (spec.get("summary") or {}).get("en", "")
    drawn = set(spec.get("draw") or ())
    arg_lines = "\n".join(f"        {_arg_line(params[a], scalars.get(a), a in drawn)}" for a in args)
    if len(outputs) == 1:
        ret = in_language(lang, "the tensor %(name)s", name=outputs[0])
        body = f"    {outputs[0]} = ...\n    return {outputs[0]}"
    else:
        ret = in_language(lang, "a dict with %(keys)s", keys=", ".join(repr(o) for o in outputs))
        body = "    " + "\n    ".join(f"{o} = ..." for o in outputs) + \
            "\n    return {" + ", ".join(f"{o!r}: {o}" for o in outputs) + "}"
    args_word, ret_word = in_language(lang, "Args"), in_language(lang, "Returns")
    return (f"import torch\n\n\ndef {name}({', '.join(args)}):\n"
            f'    """{summary}\n\n    {args_word}:\n{arg_lines}\n\n    {ret_word}: {ret}\n    """\n{body}\n')
