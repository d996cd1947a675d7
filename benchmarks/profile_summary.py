"""Where a server's CPU time goes, from the collapsed stacks `--profile` records (py-spy raw).

    python -m benchmarks.profile_summary results/raw/<stamp>/switchboard-remote-r0.pyspy.txt

py-spy keeps only samples of threads it sees running. Samples whose leaf is the event loop
itself (`Runner.run`: uvloop's C code, its socket I/O or its epoll wait, which py-spy cannot
tell apart without native frames) are counted apart as "event loop (native)"; samples parked
in Python waits (select, locks, queues) are dropped. The rest is shown as a share of Python
samples: by package (of the leaf frame), by leaf function, and inclusive per project
function (router/, engines/).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^():]+?)(?::(?P<line>\d+))?\)$")
# Leaf functions that mean "waiting, not working".
IDLE = ("select", "poll", "epoll", "wait", "_worker", "sleep", "acquire", "get (queue")
LOOP = ("Runner.run (asyncio/runners.py", "run_forever", "_run_once (asyncio/base_events.py")
PROJECT = ("router/", "engines/")


@dataclass(frozen=True, slots=True)
class Sample:
    frames: tuple[str, ...]
    count: int


def read(path: Path) -> list[Sample]:
    samples = []
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = tuple(f for f in stack.split(";")[1:] if f)  # [0] is the thread
        if frames:
            samples.append(Sample(frames, int(count)))
    return samples


def busy(samples: Iterable[Sample]) -> list[Sample]:
    return [s for s in samples if not any(word in s.frames[-1] for word in IDLE + LOOP)]


def in_loop(samples: Iterable[Sample]) -> int:
    return sum(s.count for s in samples if any(s.frames[-1].startswith(w) for w in LOOP))


def package(frame: str) -> str:
    match = FRAME.match(frame)
    path = match.group("file") if match else frame
    if path.startswith(PROJECT):
        return path.rsplit("/", 1)[0] + "/" + path.rsplit("/", 1)[-1].removesuffix(".py")
    head = path.split("/", 1)[0]
    return head.removesuffix(".py") if head else path


def function(frame: str, with_line: bool = True) -> str:
    return frame if with_line else re.sub(r":\d+\)$", ")", frame)


def summarise(samples: Sequence[Sample], top: int = 20) -> str:
    total = sum(s.count for s in samples)
    work = busy(samples)
    busy_total = sum(s.count for s in work) or 1
    loop = in_loop(samples)
    lines = [f"samples: {total}; event loop (native): {loop}; Python: {busy_total} "
             f"({100 * busy_total / max(total, 1):.0f} %)", ""]
    by_package: Counter[str] = Counter()
    by_leaf: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    for s in work:
        by_package[package(s.frames[-1])] += s.count
        by_leaf[function(s.frames[-1])] += s.count
        for frame in {function(f, with_line=False) for f in s.frames
                      if package(f).startswith(PROJECT)}:
            inclusive[frame] += s.count
    for title, counter in (("by package (leaf frame)", by_package),
                           ("by leaf function", by_leaf),
                           ("inclusive, project functions", inclusive)):
        lines.append(f"## {title}")
        lines += [f"{100 * n / busy_total:6.1f} %  {name}" for name, n in counter.most_common(top)]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--top", type=int, default=20)
    args = p.parse_args(argv)
    samples = [s for path in args.paths for s in read(path)]
    print(summarise(samples, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
