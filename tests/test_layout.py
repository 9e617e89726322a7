"""The house rules of the package layout (docs/layout.md), checked on the source.

* the import graph of ``structcrawl`` (every ``import`` statement, function-local ones
  included, read with :mod:`ast`) has no cycle between modules;
* each package imports only the packages docs/layout.md's map allows (the table is read from
  the doc, so the doc and the check cannot drift apart), and the allowed imports have no cycle;
* ``structcrawl/`` has at most 12 top-level ``.py`` files;
* no module is over 500 lines; a module over 400 lines or a function over 80 says why at its
  top (a line ``Size: <reason>`` in its docstring).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "structcrawl"
LAYOUT_DOC = ROOT / "docs" / "layout.md"
TOP = "(top)"  # the top-level modules: settings.py

MAX_TOP_LEVEL_FILES = 12
MODULE_HARD_LIMIT = 500
MODULE_LIMIT = 400
FUNCTION_LIMIT = 80

#: Modules and functions over the limits that other open work is splitting (temporary: each
#: entry names its issue and goes when that work lands; a new entry needs the same).
SIZE_ALLOWED: dict[str, str] = {}


@dataclass(frozen=True)
class Module:
    name: str  # structcrawl.extract.rdfa._processor
    path: Path
    is_package: bool

    @property
    def package(self) -> str:
        """The first-level package (``extract``), ``structcrawl`` for the root's __init__,
        or TOP for a top-level module."""
        parts = self.name.split(".")
        if len(parts) == 1:
            return "structcrawl"
        if len(parts) == 2 and not self.is_package:
            return TOP
        return parts[1]


def modules() -> dict[str, Module]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        name = ".".join(parts)
        found[name] = Module(name, path, is_package)
    return found


def imported_names(module: Module) -> Iterator[str]:
    """Every dotted name ``module`` imports, at any depth (function-local imports too)."""
    tree = ast.parse(module.path.read_text(encoding="utf-8"))
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            yield source
            yield from (f"{source}.{alias.name}" for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports. Importing ``a.b.c`` also runs the ``__init__`` of
    ``a.b`` (unless it is the importer's own package), so that counts as an import too."""
    mods = modules()
    graph: dict[str, set[str]] = {name: set() for name in mods}
    for name, module in mods.items():
        for target in imported_names(module):
            if not target.startswith("structcrawl"):
                continue
            while target and target not in mods:  # an attribute: its module
                target = target.rpartition(".")[0]
            if not target or target == name:
                continue
            graph[name].add(target)
            parts = target.split(".")
            for i in range(2, len(parts)):
                ancestor = ".".join(parts[:i])
                if not name.startswith(ancestor + "."):
                    graph[name].add(ancestor)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
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
                        found.append(sorted(component))
    return found


def allowed_imports() -> dict[str, set[str]]:
    """The map of docs/layout.md: package -> the packages it may import."""
    rows = re.findall(
        r"^\| `(\w+)/` \| [^|]+ \| ([^|]+) \|$", LAYOUT_DOC.read_text(encoding="utf-8"), re.M
    )
    table = {}
    for package, cell in rows:
        cell = cell.strip()
        table[package] = set() if cell == "nothing" else {p.strip() for p in cell.split(",")}
    return table


def package_imports() -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) -> the module imports behind it."""
    mods = modules()
    found: dict[tuple[str, str], list[str]] = {}
    for name, targets in import_graph().items():
        for target in targets:
            pair = (mods[name].package, mods[target].package)
            if pair[0] != pair[1]:
                found.setdefault(pair, []).append(f"{name} -> {target}")
    return found


# ---------------------------------------------------------------------------------------------


def test_the_graph_reader_sees_function_local_and_relative_imports(tmp_path):
    source = (
        "from ._context import PrefixMap\n"
        "def f():\n    from structcrawl.core import hosts\n    import structcrawl.rules.model\n"
    )
    path = tmp_path / "m.py"
    path.write_text(source)
    names = set(imported_names(Module("structcrawl.extract.rdfa.m", path, False)))
    assert {"structcrawl.extract.rdfa._context", "structcrawl.core.hosts"} <= names
    assert "structcrawl.rules.model" in names
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_modules():
    found = cycles(import_graph())
    assert not found, f"import cycles (function-local imports included): {found}"


def test_the_map_names_every_package_and_allows_no_cycle():
    table = allowed_imports()
    on_disk = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert set(table) == on_disk, "docs/layout.md's map and structcrawl/ list other packages"
    for package, allowed in table.items():
        assert allowed <= set(table), f"{package}: unknown package(s) {allowed - set(table)}"
    assert cycles(table) == [], "the allowed imports of docs/layout.md form a cycle"


def test_each_package_imports_only_what_the_map_allows():
    table = allowed_imports()
    wrong = [
        f"{importer} may not import {imported} ({', '.join(sorted(via)[:3])})"
        for (importer, imported), via in sorted(package_imports().items())
        if importer != TOP and imported != "structcrawl" and imported not in table[importer]
    ]
    assert not wrong, "\n".join(wrong)


def test_nothing_imports_the_top_level_modules():
    via = [
        line
        for (importer, imported), lines in package_imports().items()
        for line in lines
        if imported == TOP
    ]
    assert not via, via


def test_at_most_twelve_top_level_files():
    files = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(files) <= MAX_TOP_LEVEL_FILES, files


def _has_reason(docstring: str | None) -> bool:
    return bool(docstring) and re.search(r"^\s*Size: \S", docstring or "", re.M) is not None


def size_problems() -> Iterator[str]:
    for module in modules().values():
        rel = module.path.relative_to(ROOT).as_posix()
        text = module.path.read_text(encoding="utf-8")
        lines = text.count("\n")
        tree = ast.parse(text)
        if lines > MODULE_HARD_LIMIT and rel not in SIZE_ALLOWED:
            yield f"{rel}: {lines} lines (the limit is {MODULE_HARD_LIMIT})"
        elif lines > MODULE_LIMIT and rel not in SIZE_ALLOWED:
            if not _has_reason(ast.get_docstring(tree)):
                yield f"{rel}: {lines} lines and no 'Size: <reason>' in its docstring"
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            where = f"{rel}:{node.name}"
            if length > FUNCTION_LIMIT and where not in SIZE_ALLOWED:
                if not _has_reason(ast.get_docstring(node)):
                    yield f"{where}: {length} lines and no 'Size: <reason>' in its docstring"


def test_modules_and_functions_stay_small_or_say_why():
    problems = sorted(size_problems())
    assert not problems, "\n".join(problems)


def _stale_size_exception(entry: str) -> str | None:
    """Why ``entry`` of :data:`SIZE_ALLOWED` should go, or None while it is still needed."""
    if not re.search(r"\bissue \d+\b", SIZE_ALLOWED[entry]):
        return f"{entry}: the exception names no issue"
    rel, _, function = entry.partition(":")
    path = ROOT / rel
    if not path.is_file():
        return f"{rel} is gone: drop its entry"
    text = path.read_text(encoding="utf-8")
    if not function:
        return None if text.count("\n") > MODULE_LIMIT else f"{rel} is small now: drop its entry"
    nodes = [
        n
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function
    ]
    if not nodes:
        return f"{entry} is gone: drop its entry"
    longest = max((n.end_lineno or n.lineno) - n.lineno + 1 for n in nodes)
    return None if longest > FUNCTION_LIMIT else f"{entry} is small now: drop its entry"


def test_each_size_exception_is_still_needed_and_names_its_issue():
    stale = [why for entry in sorted(SIZE_ALLOWED) if (why := _stale_size_exception(entry))]
    assert not stale, "\n".join(stale)


def test_the_size_rule_reads_reasons(tmp_path):
    assert _has_reason("Parse a thing.\n\nSize: one state machine, split it loses the thread.")
    assert not _has_reason("Parse a thing; size matters.")
    assert not _has_reason(None)
