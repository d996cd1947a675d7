"""Fixtures for real-browser tests: the system Chromium through Playwright, and a gateway on
fake engines. Without Chromium or Playwright the tests skip and say why (`make test`
installs both; see the Makefile)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import CHROMIUM_ARGS, FakeServer, chromium_path, fake_server


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        pytest.skip("no Chromium at /usr/bin/chromium (apt-get install chromium), "
                    "nor in SWITCHBOARD_CHROMIUM")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable,
                                              args=list(CHROMIUM_ARGS))
        yield launched
        launched.close()


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[FakeServer]:
    with fake_server(tmp_path / "records.jsonl") as running:
        yield running


class PageErrors:
    """Console errors and uncaught exceptions of one page."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def console(self, message: Any) -> None:
        if message.type == "error":
            self.messages.append(f"console: {message.text}")

    def exception(self, error: Any) -> None:
        self.messages.append(f"page error: {error}")


@pytest.fixture()
def page_errors() -> PageErrors:
    return PageErrors()


@pytest.fixture()
def page(browser: Any, server: FakeServer, page_errors: PageErrors) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.on("console", page_errors.console)
    opened.on("pageerror", page_errors.exception)
    opened.set_default_timeout(15_000)
    yield opened
    context.close()
