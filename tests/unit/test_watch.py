"""The config watcher follows rename-saves and ConfigMap `..data` swaps, and survives errors."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from router.watch import watch_config

EVENT_WAIT_S = 5.0


class Calls:
    def __init__(self, fail: bool = False) -> None:
        self.count = 0
        self.fail = fail
        self.event = asyncio.Event()

    async def __call__(self) -> None:
        self.count += 1
        self.event.set()
        if self.fail:
            raise RuntimeError("reload broke")

    async def wait_for(self, count: int) -> None:
        async with asyncio.timeout(EVENT_WAIT_S):
            while self.count < count:
                self.event.clear()
                await self.event.wait()


def rename_save(path: Path, text: str) -> None:
    """What vim and `sed -i` do: write a sibling, rename it over the file (new inode)."""
    temp = path.with_name(f".{path.name}.swp")
    temp.write_text(text)
    os.replace(temp, path)


async def _started(path: str, calls: Calls) -> asyncio.Task[None]:
    task = asyncio.create_task(watch_config(path, calls, debounce_ms=50, retry_after_s=0.05))
    await asyncio.sleep(0.3)  # let the watcher register before anything changes
    return task


async def _stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_every_rename_save_reloads(tmp_path: Path) -> None:
    path = tmp_path / "routes.yaml"
    path.write_text("v: 0\n")
    calls = Calls()
    task = await _started(str(path), calls)
    try:
        for version in range(1, 4):
            rename_save(path, f"v: {version}\n")
            await calls.wait_for(version)
        (tmp_path / "other.yaml").write_text("unrelated\n")
        path.touch()  # same bytes: not a change
        await asyncio.sleep(0.4)
        assert calls.count == 3
    finally:
        await _stop(task)


async def test_a_failing_reload_does_not_end_the_watch(tmp_path: Path) -> None:
    path = tmp_path / "routes.yaml"
    path.write_text("v: 0\n")
    calls = Calls(fail=True)
    task = await _started(str(path), calls)
    try:
        rename_save(path, "v: 1\n")
        await calls.wait_for(1)
        rename_save(path, "v: 2\n")
        await calls.wait_for(2)
        assert not task.done()
    finally:
        await _stop(task)


async def test_configmap_data_symlink_swap_reloads(tmp_path: Path) -> None:
    """kubelet's layout: routes.yaml -> ..data/routes.yaml, ..data -> ..<timestamp>/; an
    update writes a new timestamped dir and renames a fresh `..data` link over the old one."""
    mount = tmp_path / "config"
    mount.mkdir()

    def publish(version: int) -> None:
        payload = mount / f"..2026_12_02_{version}"
        payload.mkdir()
        (payload / "routes.yaml").write_text(f"v: {version}\n")
        link = mount / "..data_tmp"
        link.symlink_to(payload.name)
        os.replace(link, mount / "..data")

    publish(0)
    (mount / "routes.yaml").symlink_to("..data/routes.yaml")
    calls = Calls()
    task = await _started(str(mount / "routes.yaml"), calls)
    try:
        for version in range(1, 3):
            publish(version)
            await calls.wait_for(version)
        assert calls.count == 2
    finally:
        await _stop(task)
