"""Reload when routes.yaml changes on disk, whatever way it was saved.

Editors (vim, `sed -i`) save by writing a new file and renaming it over the old one, and
Kubernetes swaps a ConfigMap by re-pointing the `..data` symlink; a watch on the file itself
follows the first inode and sees nothing after. So the *directory* is watched, filtered to the
file's name and `..data`, and a reload happens only when the bytes the path resolves to change.
A failing reload or watcher is logged and the watch goes on.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from pathlib import Path

import structlog
from watchfiles import Change, awatch

log = structlog.get_logger("switchboard.watch")

CONFIGMAP_LINK = "..data"  # kubelet's atomic-swap symlink in a mounted ConfigMap
RETRY_AFTER_S = 2.0


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:  # mid-rename, or deleted: the next event tells
        return None


async def watch_config(path: str, on_change: Callable[[], Awaitable[object]],
                       debounce_ms: int = 300, retry_after_s: float = RETRY_AFTER_S) -> None:
    """Call `on_change` each time the content behind `path` changes. Runs until cancelled."""
    target = Path(path).absolute()
    names = {target.name, CONFIGMAP_LINK}

    def relevant(_: Change, changed: str) -> bool:
        return Path(changed).name in names

    seen = await asyncio.to_thread(_digest, target)
    while True:
        try:
            async for _ in awatch(target.parent, watch_filter=relevant, debounce=debounce_ms,
                                  recursive=False):
                current = await asyncio.to_thread(_digest, target)
                if current is None or current == seen:
                    continue  # a half-done save, a delete, or a touch with the same bytes
                seen = current
                try:
                    await on_change()
                except Exception:  # a failed reload must not end the watch
                    log.exception("config_reload_on_change_failed", path=str(target))
            log.warning("config_watch_ended", path=str(target))  # e.g. the directory vanished
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("config_watch_failed", path=str(target))
        await asyncio.sleep(retry_after_s)
