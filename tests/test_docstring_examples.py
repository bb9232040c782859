"""Every example in a public docstring runs and prints what it says (the examples are documentation users copy)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import pokerlab

MODULES = sorted(info.name for info in pkgutil.walk_packages(pokerlab.__path__, "pokerlab."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (python -m doctest -v)"
