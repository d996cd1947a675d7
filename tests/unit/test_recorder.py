"""The record file: a bounded queue that drops and counts instead of blocking, reopen on
SIGUSR1 (logrotate), size-based rotation, counters in /metrics."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from pathlib import Path
from typing import IO

import orjson
import pytest

from router.config import ConfigError, parse_config
from router.telemetry.record import RequestRecord
from router.telemetry.recorder import RecordWriter, record_line
from tests.unit.fakes import fake_client


def record(n: int) -> RequestRecord:
    return RequestRecord(request_id=f"req-{n}", method="POST", path="/v1/chat/completions",
                         status=200, route="qa", engine="qa", completion_tokens=3)


def ids(path: Path) -> list[str]:
    return [orjson.loads(line)["request_id"] for line in path.read_bytes().splitlines()]


def wait_for(condition: object, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.01)
    assert condition(), "timed out"  # type: ignore[operator]


class StuckFile:
    """A file whose writes wait until released: a disk that cannot keep up."""

    def __init__(self, inner: IO[bytes]) -> None:
        self.inner = inner
        self.release = threading.Event()
        self.entered = threading.Event()

    def write(self, data: bytes) -> int:
        self.entered.set()
        self.release.wait(10)
        return self.inner.write(data)

    def close(self) -> None:
        self.inner.close()


def test_a_full_queue_drops_and_counts_without_blocking(tmp_path: Path) -> None:
    writer = RecordWriter(tmp_path / "r.jsonl", queue_lines=4)
    stuck = StuckFile(writer._file)
    writer._file = stuck  # type: ignore[assignment]
    writer.write(record(0), "live")
    assert stuck.entered.wait(5)  # the writer holds line 0 and waits on the disk
    started = time.monotonic()
    for n in range(1, 101):
        writer.write(record(n), "live")
    assert time.monotonic() - started < 0.5  # the loop never waited for the disk
    assert writer.queued == 4
    assert writer.dropped == 96
    stuck.release.set()
    writer.close()
    assert ids(tmp_path / "r.jsonl") == [f"req-{n}" for n in range(5)]
    assert writer.written == 5


def test_reopen_writes_to_a_fresh_file_after_a_move(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    writer = RecordWriter(path)
    writer.write(record(1), "live")
    wait_for(lambda: writer.written == 1)
    path.rename(tmp_path / "r.jsonl.1")  # what logrotate does before its postrotate signal
    writer.reopen()
    wait_for(path.exists)  # recreated at once, before any new line
    writer.write(record(2), "live")
    writer.close()
    assert ids(tmp_path / "r.jsonl.1") == ["req-1"]
    assert ids(path) == ["req-2"]
    assert writer.reopens == 1


async def test_sigusr1_reopens_the_file(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    writer = RecordWriter(path)
    writer.install_reopen_signal()
    try:
        path.rename(tmp_path / "moved.jsonl")
        os.kill(os.getpid(), signal.SIGUSR1)
        for _ in range(200):
            await asyncio.sleep(0.01)
            if path.exists():
                break
        assert path.exists()
    finally:
        asyncio.get_running_loop().remove_signal_handler(signal.SIGUSR1)
        writer.close()


def test_size_rotation_keeps_the_configured_backups(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    line_bytes = len(orjson.dumps(record_line(record(10), "live"))) + 1
    # Room for two lines per file (ids 10..11 are as long as any other here).
    writer = RecordWriter(path, max_bytes=2 * line_bytes + 5, backups=2)
    for n in range(12):
        writer.write(record(n), "live")
    writer.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl", "r.jsonl.1", "r.jsonl.2"]
    assert ids(tmp_path / "r.jsonl.2") == ["req-6", "req-7"]
    assert ids(tmp_path / "r.jsonl.1") == ["req-8", "req-9"]
    assert ids(path) == ["req-10", "req-11"]  # the newest; older files beyond 2 are gone
    assert writer.rotations == 5


def test_record_counters_are_in_metrics(tmp_path: Path) -> None:
    config = (f"server: {{record_file: {tmp_path / 'r.jsonl'}, record_queue_lines: 100}}\n"
              "engines:\n  qa: {model: fake, backend: fake}\nroutes:\n  qa: {engine: qa}\n")
    with fake_client(config) as (client, _):
        response = client.post("/v1/chat/completions", json={
            "model": "qa", "messages": [{"role": "user", "content": "hello"}]})
        assert response.status_code == 200
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            text = client.get("/metrics").text
            if "switchboard_record_lines_written_total 1.0" in text:
                break
            time.sleep(0.02)
        assert "switchboard_record_lines_written_total 1.0" in text
        assert "switchboard_record_lines_dropped_total 0.0" in text
        assert "switchboard_record_queue_lines 0.0" in text


@pytest.mark.parametrize("field, value", [("record_max_bytes", -1), ("record_backups", -2),
                                          ("record_queue_lines", 0)])
def test_record_settings_are_validated(field: str, value: int) -> None:
    with pytest.raises(ConfigError, match=f"server.{field}: must be >= "):
        parse_config(f"server: {{{field}: {value}}}\n"
                     "engines:\n  qa: {model: fake, backend: fake}\nroutes:\n  qa: {engine: qa}\n")
