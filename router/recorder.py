"""The record file: one JSON line per completed generation (live, shadow or compare).

The gateway appends to ``server.record_file`` when it is set; ``switchboard ab-report``
reads it back. A line holds what the comparison needs — route, variant, engine, outcome,
token counts and timings — and, for shadow requests only, the generated text (the point of
a shadow is to read its answers next to the live ones). Prompts are never written.

Lines are written whole with a single ``write`` on a file opened for appending, so several
gateway processes may share one file; each line is flushed at once so a crash loses nothing
that completed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson
import structlog

from router.metrics import error_kind, tpot_s
from router.record import RequestRecord

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
    }
    if extra:
        line.update(extra)
    return line


class RecordWriter:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] | None = open(self.path, "ab", buffering=0)  # noqa: SIM115
        self.written = 0

    def write(
        self, record: RequestRecord, traffic: str, extra: Mapping[str, Any] | None = None
    ) -> None:
        """Append one line. Never raises: recording must not fail a request."""
        if self._file is None:
            return
        try:
            self._file.write(orjson.dumps(record_line(record, traffic, extra)) + b"\n")
            self.written += 1
        except Exception as exc:
            log.warning("record_write_failed", path=str(self.path),
                        error=f"{type(exc).__name__}: {exc}")

    def close(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            file.close()


def open_recorder(path: str | None) -> RecordWriter | None:
    return None if not path else RecordWriter(path)


@dataclass(frozen=True, slots=True)
class LoadResult:
    lines: list[dict[str, Any]]
    skipped: int


def read_records(path: str | Path) -> LoadResult:
    """Read a record file; lines that are not JSON objects (a torn last line) are skipped."""
    lines: list[dict[str, Any]] = []
    skipped = 0
    for raw in _raw_lines(Path(path)):
        try:
            item = orjson.loads(raw)
        except orjson.JSONDecodeError:
            skipped += 1
            continue
        if isinstance(item, dict):
            lines.append(item)
        else:
            skipped += 1
    return LoadResult(lines, skipped)


def _raw_lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as file:
        for raw in file:
            if raw.strip():
                yield raw
