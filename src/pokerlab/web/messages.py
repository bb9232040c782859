"""A request the JSON schema refuses, said in words (``stacks item 1 must be a number, got "12,500"``), not in
the validator's own (``stacks.0: Input should be a valid number``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

MOST_PROBLEMS = 3  # named in one message; the rest are counted


def _shown(value: Any) -> str:
    """A client's value as JSON, cut short (a refused 9 MB list must not come back in the answer)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _where(location: Sequence[Any]) -> str:
    """``("body", "stacks", 0)`` -> ``'stacks item 1'``; ``("body", "paint", "AKs")`` -> ``'paint AKs'``."""
    return " ".join(f"item {x + 1}" if isinstance(x, int) else str(x) for x in location if x != "body")


def problem_in_words(item: dict[str, Any]) -> str:
    """One validation problem of pydantic (``type``, ``loc``, ``input``, ``ctx``) as a sentence.

    >>> problem_in_words({"type": "float_type", "loc": ("body", "stacks", 0), "input": True, "msg": ""})
    'stacks item 1 must be a number, got true'
    >>> problem_in_words({"type": "extra_forbidden", "loc": ("body", "speed"), "input": 1, "msg": ""})
    'speed is not an option of this request (see /docs for the options)'
    """
    kind, where, ctx = item.get("type", ""), _where(item.get("loc", ())), item.get("ctx") or {}
    got = f", got {_shown(item.get('input'))}"
    where = where or "the request body"
    if kind == "missing":
        return f"{where} is required"
    if kind == "extra_forbidden":
        return f"{where} is not an option of this request (see /docs for the options)"
    if kind in ("json_invalid", "json_type"):
        return f"the request body is not valid JSON ({ctx.get('error', 'cannot be parsed')})"
    if kind in ("float_type", "float_parsing", "finite_number"):
        return f"{where} must be a number{got}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"{where} must be a whole number{got}"
    if kind in ("bool_type", "bool_parsing"):
        return f"{where} must be true or false{got}"
    if kind in ("string_type",):
        return f"{where} must be text{got}"
    if kind in ("list_type",):
        return f"{where} must be a list{got}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"{where} must be a JSON object{got}"
    if kind == "too_short":
        least = ctx.get("min_length")
        return f"{where} must have at least {least} item{'' if least == 1 else 's'}, got {ctx.get('actual_length')}"
    if kind == "too_long":
        return f"{where} may have at most {ctx.get('max_length')} items, got {ctx.get('actual_length', 'more')}"
    if kind == "string_too_long":
        return f"{where} may be at most {ctx.get('max_length')} characters long"
    if kind in ("greater_than_equal", "greater_than"):
        bound = ctx.get("ge", ctx.get("gt"))
        return f"{where} must be {'at least' if kind.endswith('equal') else 'above'} {bound}{got}"
    if kind in ("less_than_equal", "less_than"):
        bound = ctx.get("le", ctx.get("lt"))
        return f"{where} must be {'at most' if kind.endswith('equal') else 'below'} {bound}{got}"
    if kind == "literal_error":
        return f"{where} must be one of {ctx.get('expected', '')}{got}"
    return f"{where}: {str(item.get('msg', 'invalid')).lower()}"


def validation_message(problems: Sequence[dict[str, Any]]) -> str:
    """Every problem in words, the first :data:`MOST_PROBLEMS` named and the rest counted.

    >>> validation_message([{"type": "missing", "loc": ("body", "payouts")}])
    'payouts is required'
    """
    said = [problem_in_words(item) for item in problems[:MOST_PROBLEMS]]
    more = len(problems) - len(said)
    if more > 0:
        said.append(f"and {more:,} more problem{'' if more == 1 else 's'}")
    return "; ".join(said) or "invalid request"
