"""Shared test plumbing: conformance pass counts are collected and printed at the end of
every run (``make test`` included), in one section, whatever the capture mode."""

from __future__ import annotations

import pytest

_REPORT: list[str] = []


@pytest.fixture
def conformance_report():
    """``conformance_report("rdfa-html5", passed, total, failures={id: reason})``."""

    def report(
        name: str,
        passed: int,
        total: int,
        failures: dict[str, str] | None = None,
        *,
        what: str = "passed",
    ) -> None:
        _REPORT.append(f"{name}: {passed}/{total} {what}")
        for case_id, reason in sorted((failures or {}).items()):
            _REPORT.append(f"  {case_id}: {reason}")

    return report


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001
    if _REPORT:
        terminalreporter.section("conformance")
        for line in _REPORT:
            terminalreporter.write_line(line)
