"""Every numba kernel in ``src/pokerlab`` carries type annotations (issue 11).

Kernels trust their inputs (DESIGN.md: façades validate, kernels trust), so their
signatures are the only statement of what they accept: numpy arrays as
``np.ndarray``, NamedTuple bundles by their type, scalars as ``int``/``float``/``bool``.
The scan is static (AST), so it sees every kernel, including ones no test compiles.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pokerlab

SOURCE_ROOT = Path(pokerlab.__file__).resolve().parent

#: Decorator names that compile a function with numba.
NUMBA_DECORATORS = frozenset({"njit", "jit", "vectorize", "guvectorize", "cfunc", "generated_jit"})


def _decorator_name(decorator: ast.expr) -> str | None:
    """The final name of a decorator: ``njit`` for ``@njit``, ``@njit(...)``, ``@numba.njit(...)``."""
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    if isinstance(decorator, ast.Name):
        return decorator.id
    if isinstance(decorator, ast.Attribute):
        return decorator.attr
    return None


def _is_kernel(node: ast.FunctionDef) -> bool:
    return any(_decorator_name(d) in NUMBA_DECORATORS for d in node.decorator_list)


def _compiled_by_call(tree: ast.AST) -> set[str]:
    """Names of functions compiled by a call rather than a decorator: ``njit(function)``,
    ``njit(cache=True)(function)``."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _decorator_name(node.func) in NUMBA_DECORATORS:
            names.update(arg.id for arg in node.args if isinstance(arg, ast.Name))
    return names


def _kernel_definitions(tree: ast.AST) -> list[ast.FunctionDef]:
    by_call = _compiled_by_call(tree)
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and (_is_kernel(node) or node.name in by_call)]


def missing_annotations(source: str) -> list[str]:
    """Names of kernel parameters (and ``return``) without annotations, as ``function(name)``."""
    problems: list[str] = []
    for node in _kernel_definitions(ast.parse(source)):
        args = node.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        if args.vararg is not None:
            params.append(args.vararg)
        if args.kwarg is not None:
            params.append(args.kwarg)
        problems += [f"{node.name}({p.arg})" for p in params if p.annotation is None]
        if node.returns is None:
            problems.append(f"{node.name}(return)")
    return problems


def _kernels(path: Path) -> list[ast.FunctionDef]:
    return _kernel_definitions(ast.parse(path.read_text(encoding="utf-8")))


KERNEL_FILES = [path for path in sorted(SOURCE_ROOT.rglob("*.py")) if _kernels(path)]


def test_scan_finds_kernels() -> None:
    """The scan sees the package's kernels; an empty scan would pass vacuously."""
    assert len(KERNEL_FILES) >= 15
    assert sum(len(_kernels(path)) for path in KERNEL_FILES) >= 100


def test_scan_flags_unannotated_kernels() -> None:
    """The checker itself: every decorator spelling and every missing piece is reported."""
    source = (
        "import numba\n"
        "from numba import njit\n"
        "@njit(cache=True)\n"
        "def a(x, y: int) -> int:\n    return y\n"
        "@numba.njit\n"
        "def b(x: int):\n    return x\n"
        "@numba.jit(nopython=True)\n"
        "def c(*xs, flag=True, **kw) -> None:\n    pass\n"
        "@njit\n"
        "def ok(x: int, y: float) -> float:\n    return x + y\n"
        "def plain(x, y):\n    return x\n"
        "def _d(x: int, y) -> int:\n    return x\n"
        "d = njit(cache=True)(_d)\n"
        "def _e(x) -> int:\n    return x\n"
        "e = numba.njit(_e)\n"
    )
    assert missing_annotations(source) == [
        "a(x)",
        "b(return)",
        "c(flag)",
        "c(xs)",
        "c(kw)",
        "_d(y)",
        "_e(x)",
    ]


@pytest.mark.parametrize("path", KERNEL_FILES, ids=lambda p: str(p.relative_to(SOURCE_ROOT)))
def test_every_kernel_is_annotated(path: Path) -> None:
    problems = missing_annotations(path.read_text(encoding="utf-8"))
    assert not problems, f"unannotated numba kernels in {path.name}: {', '.join(problems)}"
