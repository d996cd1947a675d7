"""Read a record file written by the gateway (router.telemetry.recorder), for offline tools."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson


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
