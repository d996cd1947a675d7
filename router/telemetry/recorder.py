"""The record file: one JSON line per completed generation (live, shadow or compare).

The gateway appends to ``server.record_file`` when it is set; ``switchboard ab-report``
reads it back. A line holds what the comparison needs — route, variant, engine, outcome,
token counts and timings — and, for shadow requests only, the generated text (the point of
a shadow is to read its answers next to the live ones). Prompts are never written.

Lines are written whole with a single ``write`` on a file opened for appending, so several
gateway processes may share one file. Encoding and writing happen on the writer's own
thread, never on the event loop; each line is written as soon as that thread gets it, and
``close`` writes everything still queued.

The queue between the loop and that thread is bounded (``server.record_queue_lines``): when
the disk cannot keep up, lines are dropped and counted (``switchboard_record_lines_dropped``)
rather than held in memory or making requests wait. SIGUSR1 reopens the file by its path
(logrotate's ``postrotate``); ``server.record_max_bytes`` rotates it by size instead, keeping
``server.record_backups`` old files (``records.jsonl.1`` the newest). Size rotation assumes
one writing process; several processes sharing a file rotate it with logrotate + SIGUSR1.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import signal
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any, Final

import orjson
import structlog
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from router.telemetry.metrics import error_kind, tpot_s
from router.telemetry.record import RequestRecord

log = structlog.get_logger("switchboard.recorder")

TRAFFIC_KINDS = ("live", "shadow", "compare")


def record_line(
    record: RequestRecord, traffic: str, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    ttft = record.ttft_s
    tpot = tpot_s(record)
    line: dict[str, Any] = {
        "ts": round(time.time(), 3),
        "request_id": record.request_id,
        "traffic": traffic,
        "route": record.route,
        "variant": record.variant,
        "engine": record.engine,
        "status": record.status,
        "error_kind": error_kind(record),
        "error": record.error,
        "stream": record.stream,
        "prompt_tokens": record.prompt_tokens,
        "completion_tokens": record.completion_tokens,
        "ttft_s": None if ttft is None else round(ttft, 6),
        "tpot_s": None if tpot is None else round(tpot, 6),
        "duration_s": round(record.duration_s, 6),
        "finish_reason": record.finish_reason,
        "aborted": record.aborted,
        "forced": record.forced,
    }
    if extra:
        line.update(extra)
    return line


# Queue items besides lines: wake the writer to reopen the file, or to finish.
_REOPEN: Final = "reopen"
_STOP: Final = "stop"
DEFAULT_QUEUE_LINES = 10_000


class RecordWriter:
    """Appends record lines from a thread of its own; `write` only enqueues, never blocks."""

    def __init__(
        self,
        path: str | Path,
        max_bytes: int = 0,
        backups: int = 5,
        queue_lines: int = DEFAULT_QUEUE_LINES,
    ) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes  # 0: never rotate by size
        self.backups = backups
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] = self._open()
        self._lines: queue.Queue[dict[str, Any] | str] = queue.Queue(maxsize=queue_lines)
        self._closed = False
        self.written = 0
        self.dropped = 0  # only the event loop's thread adds to it
        self.reopens = 0
        self.rotations = 0
        self._reopen_wanted = threading.Event()
        self._thread = threading.Thread(target=self._drain, name="record-writer", daemon=True)
        self._thread.start()

    @property
    def queued(self) -> int:
        return self._lines.qsize()

    def write(
        self, record: RequestRecord, traffic: str, extra: Mapping[str, Any] | None = None
    ) -> None:
        """Queue one line, or drop and count it when the queue is full. Never raises:
        recording must not fail or slow a request."""
        if self._closed:
            return
        try:
            self._lines.put_nowait(record_line(record, traffic, extra))
        except queue.Full:
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                log.warning("record_lines_dropped", path=str(self.path), dropped=self.dropped)
        except Exception as exc:  # an unserialisable extra, say
            log.warning("record_line_failed", error=f"{type(exc).__name__}: {exc}")

    def reopen(self) -> None:
        """Reopen the file by its path before the next line (after logrotate moved it)."""
        if self._closed:
            return
        self._reopen_wanted.set()
        # Wake the writer so that an idle gateway recreates the file now; a full queue
        # means the writer is busy and will see the flag before its next line anyway.
        with contextlib.suppress(queue.Full):
            self._lines.put_nowait(_REOPEN)

    def _open(self) -> IO[bytes]:
        return open(self.path, "ab", buffering=0)

    def _reopen_file(self) -> None:
        try:
            fresh = self._open()
        except OSError as exc:  # keep writing to the old file rather than losing lines
            log.warning("record_reopen_failed", path=str(self.path), error=str(exc))
            return
        self._file.close()
        self._file = fresh
        self.reopens += 1

    def _rotate(self) -> None:
        """record.jsonl -> .1 -> .2 ... up to `backups` files, then a fresh file."""
        self._file.close()
        try:
            if self.backups > 0:
                for index in range(self.backups - 1, 0, -1):
                    older = self.path.with_name(f"{self.path.name}.{index}")
                    if older.exists():
                        os.replace(older, self.path.with_name(f"{self.path.name}.{index + 1}"))
                os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
            else:
                self.path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("record_rotate_failed", path=str(self.path), error=str(exc))
        self._file = self._open()
        self.rotations += 1

    def _write_line(self, line: dict[str, Any]) -> None:
        data = orjson.dumps(line) + b"\n"
        if self.max_bytes:
            size = os.fstat(self._file.fileno()).st_size
            if size and size + len(data) > self.max_bytes:
                self._rotate()
        self._file.write(data)
        self.written += 1

    def _drain(self) -> None:
        while (item := self._lines.get()) != _STOP:
            try:
                if self._reopen_wanted.is_set():
                    self._reopen_wanted.clear()
                    self._reopen_file()
                if isinstance(item, dict):
                    self._write_line(item)
            except Exception as exc:
                log.warning("record_write_failed", path=str(self.path),
                            error=f"{type(exc).__name__}: {exc}")
        self._file.close()

    def close(self) -> None:
        """Write what is queued, then close (blocks: call it off the event loop)."""
        if not self._closed:
            self._closed = True
            self._lines.put(_STOP)
            self._thread.join()

    def install_reopen_signal(self) -> None:
        """SIGUSR1 reopens the file. Only possible in the main thread (not under tests)."""
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, self.reopen)
        except (RuntimeError, ValueError, NotImplementedError):
            log.debug("sigusr1_unavailable")


class RecordCollector(Collector):
    """The record file's counters for /metrics, read at scrape time."""

    def __init__(self, writer: RecordWriter) -> None:
        self._writer = writer

    def collect(self) -> Iterator[Metric]:
        w = self._writer
        yield CounterMetricFamily("switchboard_record_lines_written",
                                  "Lines written to the record file", value=w.written)
        yield CounterMetricFamily(
            "switchboard_record_lines_dropped",
            "Record lines dropped because the writer's queue was full", value=w.dropped)
        yield CounterMetricFamily("switchboard_record_file_rotations",
                                  "Size-based rotations of the record file", value=w.rotations)
        yield CounterMetricFamily("switchboard_record_file_reopens",
                                  "Reopens of the record file (SIGUSR1)", value=w.reopens)
        yield GaugeMetricFamily("switchboard_record_queue_lines",
                                "Record lines waiting for the writer", value=w.queued)


def open_recorder(
    path: str | None,
    max_bytes: int = 0,
    backups: int = 5,
    queue_lines: int = DEFAULT_QUEUE_LINES,
) -> RecordWriter | None:
    return None if not path else RecordWriter(path, max_bytes, backups, queue_lines)
