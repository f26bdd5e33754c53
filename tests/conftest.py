"""The suite's own rule on skips: with ``--fail-on-skip`` (CI's runs, ``.ci/run``) a test that skips fails the run,
unless it skips because of the engine build it runs on.

The tests that need a tool CI installs (Fairy-Stockfish, Sjaak II, Fairy-Max, PyPy, Chromium, docker-compose)
skip without it, which is right on a developer's machine and wrong in CI: there a skip means the tool is
missing or a test's check for it is broken, and the suite would pass without testing what it names. The two
builds of the engine each have tests the other cannot run; their skip reasons start with ``pure-Python build:``
or ``compiled build:`` and are allowed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

#: a skip that depends only on the build of the engine under test (each build has tests the other cannot run)
BUILD_SKIP = re.compile(r"^(Skipped: )?(pure-Python|compiled) build: ")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fail-on-skip", action="store_true", default=False,
                     help="fail the run when a test skips for any reason but the engine build (CI installs "
                          "every tool the tests need)")


def skip_reason(report: Any) -> str:
    """The reason of a skipped test's report (``longrepr`` is ``(path, line, "Skipped: reason")``)."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def unexpected_skips(reports: list[Any]) -> list[str]:
    """``node id: reason`` of each skip that is not a build's."""
    return [f"{report.nodeid}: {skip_reason(report)}" for report in reports
            if not BUILD_SKIP.match(skip_reason(report))]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not session.config.getoption("--fail-on-skip"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:  # an xdist worker: its reports reach the controller, which decides
        return
    found = unexpected_skips(reporter.stats.get("skipped", []))
    if found:
        reporter.write_line("--fail-on-skip: these tests skipped, which CI's installed tools should prevent:",
                            red=True)
        for line in found:
            reporter.write_line(f"  {line}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
