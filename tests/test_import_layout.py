"""No two threads importing pokerlab can deadlock: modules import their siblings by full path, and the module
locks that imports take form no cycle, packages' ``__init__`` included.

A package's ``__init__`` imports its modules; a module that then said ``from pokerlab.equity import few_boards``
waited for that ``__init__`` to finish. With two threads importing at once (the web server loads its prechecks in
a thread while a request imports the equity façade) each held the lock the other wanted, and Python broke the
deadlock by handing one of them a half-initialised module: ``ImportError: cannot import name 'equity' from
partially initialized module 'pokerlab.equity.core'``, a 500 on a server's first request (in 6 of 233 server
logs on this machine). ``from pokerlab.equity.few_boards import answers`` takes no package lock (``import
pokerlab.equity.few_boards as few_boards`` would not do: the attribute ``pokerlab.equity`` is the function).
(``../shared/tools/import_cycles.py`` maps ``from P import m`` to the module ``P.m`` and so does not see these.)"""

from __future__ import annotations

import ast
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src"


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_time_statements(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs as it loads: top level, inside ``if`` and ``try``, not under TYPE_CHECKING."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.append(node)
            elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                visit(node.orelse)
                visit(node.finalbody)
                for handler in node.handlers:
                    visit(handler.body)

    visit(tree.body)
    return found


def lock_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules and packages whose import locks it may wait for while it loads. Importing ``a.b.c``
    imports (and may wait for) ``a`` and ``a.b`` first, except the packages the importer itself is inside (they
    are in ``sys.modules`` by then); ``from P import x`` waits for ``P`` whoever asks, and for ``P.x`` if a module."""
    modules = {module_name(path, root): path for path in root.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in import_time_statements(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif node.level == 0 and node.module:
                targets = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
                if name.startswith(node.module + "."):
                    graph[name].add(node.module)  # the package namespace itself: its lock
            else:
                continue
            for target in targets:
                pieces = target.split(".")
                for end in range(1, len(pieces) + 1):
                    needed = ".".join(pieces[:end])
                    if needed in modules and needed != name and not name.startswith(needed + "."):
                        graph[name].add(needed)
    return graph


def lock_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        cycles.append(sorted(component))
    return cycles


def test_no_cycle_of_import_locks_in_pokerlab():
    assert lock_cycles(lock_graph(SOURCE)) == [], "import from the module itself: from pokerlab.p.m import name"


def test_the_check_finds_the_cycle_that_failed(tmp_path):
    package = tmp_path / "pokerlab" / "equity"
    package.mkdir(parents=True)
    (tmp_path / "pokerlab" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from pokerlab.equity.core import equity\n")
    (package / "few_boards.py").write_text("import numpy as np\n")
    (package / "core.py").write_text("from pokerlab.equity import few_boards\n")
    assert lock_cycles(lock_graph(tmp_path)) == [["pokerlab.equity", "pokerlab.equity.core"]]
    (package / "core.py").write_text("import pokerlab.equity.few_boards as few_boards\n"
                                     "from pokerlab.equity.few_boards import np\n")
    assert lock_cycles(lock_graph(tmp_path)) == []
