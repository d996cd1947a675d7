"""router.logs: one JSON line per event from structlog and stdlib loggers alike, written
to stderr as it is at write time, and a closed stream never fails the caller."""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator

import pytest
import structlog

from router.logs import configure_logging


@pytest.fixture
def json_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    configure_logging("json", "info")
    yield
    root.handlers = handlers
    root.setLevel(level)
    structlog.reset_defaults()


def test_own_and_foreign_events_are_json_lines_on_the_current_stderr(
        json_logging: None, monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)  # replaced after configure_logging ran
    structlog.get_logger("switchboard.test").info("request_completed", status=200)
    logging.getLogger("uvicorn.error").warning("port %d busy", 8000)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["event"] for line in lines] == ["request_completed", "port 8000 busy"]
    assert lines[0]["status"] == 200 and lines[0]["level"] == "info"
    assert lines[1]["level"] == "warning" and lines[1]["logger"] == "uvicorn.error"


def test_a_closed_stderr_fails_no_caller_and_prints_nothing(
        json_logging: None, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str]) -> None:
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stderr", closed)
    structlog.get_logger("switchboard.test").info("request_completed")
    logging.getLogger("vllm").warning("engine says %s", "hi")
    monkeypatch.undo()
    assert "Logging error" not in capfd.readouterr().err
