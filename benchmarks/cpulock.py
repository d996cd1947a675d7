"""The machine-wide CPU lock: engine and load runs of every engineer never overlap.

The same `flock(2)` lock that `flock /tmp/switchboard-cpu.lock <command>` takes, held per
arm run (a few minutes) so that others get their turn between arms.
"""

from __future__ import annotations

import contextlib
import fcntl
import sys
import time
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def cpu_lock(path: str) -> Iterator[None]:
    if not path:
        yield
        return
    with Path(path).open("a") as handle:
        started = time.monotonic()
        fcntl.flock(handle, fcntl.LOCK_EX)
        waited = time.monotonic() - started
        if waited > 1:
            print(f"  (waited {waited:.0f} s for {path})", file=sys.stderr, flush=True)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
