"""The record file: one JSON line per completed generation (live, shadow or compare).

The gateway appends to ``server.record_file`` when it is set; ``switchboard ab-report``
reads it back. A line holds what the comparison needs — route, variant, engine, outcome,
token counts and timings — and, for shadow requests only, the generated text (the point of
a shadow is to read its answers next to the live ones). Prompts are never written.

Lines are written whole with a single ``write`` on a file opened for appending, so several
gateway processes may share one file. Encoding and writing happen on the writer's own
thread, never on the event loop; each line is written as soon as that thread gets it, and
``close`` writes everything still queued.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import orjson
import structlog

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


class RecordWriter:
    """Appends record lines from a thread of its own; `write` only enqueues."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] = open(self.path, "ab", buffering=0)  # noqa: SIM115
        self._lines: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        self._closed = False
        self.written = 0
        self._thread = threading.Thread(target=self._drain, name="record-writer", daemon=True)
        self._thread.start()

    def write(
        self, record: RequestRecord, traffic: str, extra: Mapping[str, Any] | None = None
    ) -> None:
        """Queue one line. Never raises: recording must not fail a request."""
        if not self._closed:
            self._lines.put(record_line(record, traffic, extra))

    def _drain(self) -> None:
        while (line := self._lines.get()) is not None:
            try:
                self._file.write(orjson.dumps(line) + b"\n")
                self.written += 1
            except Exception as exc:
                log.warning("record_write_failed", path=str(self.path),
                            error=f"{type(exc).__name__}: {exc}")
        self._file.close()

    def close(self) -> None:
        """Write what is queued, then close (blocks: call it off the event loop)."""
        if not self._closed:
            self._closed = True
            self._lines.put(None)
            self._thread.join()


def open_recorder(path: str | None) -> RecordWriter | None:
    return None if not path else RecordWriter(path)
