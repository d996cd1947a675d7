"""Build the Engine for one `engines:` entry of routes.yaml."""

from __future__ import annotations

from engines.config import EngineConfig
from engines.fake import FakeEngine
from engines.protocol import Engine


def build_engine(config: EngineConfig) -> Engine:
    if config.backend == "fake":
        max_model_len = int(config.engine_args.get("max_model_len", 2048))
        max_num_seqs = int(config.engine_args.get("max_num_seqs", 256))
        return FakeEngine(config.name, config.model, max_model_len, max_num_seqs)
    if config.backend == "remote":
        from engines.remote import RemoteEngine

        return RemoteEngine(config)
    from engines.vllm_engine import VllmEngine  # imports no vLLM until start()

    return VllmEngine(config)
