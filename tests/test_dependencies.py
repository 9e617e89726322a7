"""What the package imports is declared, and extruct and boto3 are not run-time dependencies."""

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


def _imports() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "structcrawl").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"structcrawl", "__future__"}


def test_every_third_party_import_of_the_package_is_declared():
    declared = {_name(r) for r in PROJECT["dependencies"]}
    missing = sorted(
        name for name in _imports() if DISTRIBUTIONS.get(name, name).lower() not in declared
    )
    assert not missing, f"imported but not in [project.dependencies]: {missing}"


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
