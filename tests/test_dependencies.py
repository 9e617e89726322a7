"""What the package imports is declared (at module level: a run-time dependency; inside a
function: at least an extra), and extruct and boto3 are not run-time dependencies."""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

#: import name -> distribution name, where they differ
DISTRIBUTIONS = {
    "backports": "backports.zstd",
    "jsonschema_rs": "jsonschema-rs",
    "price_parser": "price-parser",
    "scrapy_playwright": "scrapy-playwright",
    "scrapy_redis": "scrapy-redis",
    "twisted": "twisted",
    "yaml": "pyyaml",
}


def _name(requirement: str) -> str:
    for sep in "<>=;[ ~!":
        requirement = requirement.split(sep)[0]
    return requirement.strip().lower()


def _imports() -> tuple[set[str], set[str]]:
    """The third-party names the package imports: (at module level, only inside a function).
    A function-level import is one a feature makes when it is used (an s3:// feed imports
    boto3), so its distribution may be an extra."""
    top: set[str] = set()
    lazy: set[str] = set()
    for path in (ROOT / "structcrawl").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_functions = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module.split(".")[0]]
            (lazy if id(node) in in_functions else top).update(names)
    # and the standard library of newer Pythons than this one: Python 3.14's compression.zstd
    # (its backport is declared for older Pythons: structcrawl.core.zstdlib)
    ignored = set(sys.stdlib_module_names) | {"structcrawl", "__future__", "compression"}
    return top - ignored, lazy - ignored - top


def _distribution(name: str) -> str:
    return DISTRIBUTIONS.get(name, name).lower()


def test_every_third_party_import_of_the_package_is_declared():
    runtime = {_name(r) for r in PROJECT["dependencies"]}
    extras = {_name(r) for extra in PROJECT["optional-dependencies"].values() for r in extra}
    top, lazy = _imports()
    missing = sorted(name for name in top if _distribution(name) not in runtime)
    assert not missing, f"imported at module level but not in [project.dependencies]: {missing}"
    undeclared = sorted(name for name in lazy if _distribution(name) not in runtime | extras)
    assert not undeclared, f"imported in a function but in no dependency or extra: {undeclared}"


def test_extruct_and_boto3_are_extras_only():
    runtime = {_name(r) for r in PROJECT["dependencies"]}
    assert "extruct" not in runtime and "boto3" not in runtime
    extras = PROJECT["optional-dependencies"]
    assert "boto3" in {_name(r) for r in extras["s3"]}
    assert "extruct" in {_name(r) for r in extras["test"]}
    assert "extruct" in {_name(r) for r in extras["bench"]}


def test_subclassed_dependencies_have_upper_bounds():
    for requirement in PROJECT["dependencies"]:
        if _name(requirement) in ("scrapy-playwright", "scrapy-redis"):
            assert "<" in requirement, requirement


def test_every_declared_dependency_is_pinned_in_the_constraints():
    pinned = {
        line.split("==")[0].strip().lower().replace("_", "-")
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if "==" in line
    }
    requirements = [
        *PROJECT["dependencies"],
        *(r for extra in PROJECT["optional-dependencies"].values() for r in extra),
    ]
    # setuptools is the installer's own (pip freeze leaves it out): its range is in pyproject
    unpinned = sorted({_name(r).replace("_", "-") for r in requirements} - pinned - {"setuptools"})
    assert not unpinned, unpinned
