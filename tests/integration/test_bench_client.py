"""The benchmark's load generator split over client processes, against a real gateway
(`switchboard serve`, fake engine, real sockets) with vLLM's own client in each process:
every prompt is sent once, the processes start together, and the merged level adds up."""

from __future__ import annotations

from pathlib import Path

from benchmarks import loadgen
from benchmarks.spec import BenchSpec, Level
from engines.sources import resolve_model
from tests.integration.conftest import start_gateway, stop_gateway

CONFIG = """
engines:
  qa: {model: fake-qa, backend: fake, engine_args: {max_model_len: 2048, max_num_seqs: 64}}
routes:
  qa: {engine: qa}
"""


def test_a_level_split_over_two_client_processes_sends_each_prompt_once(tmp_path: Path) -> None:
    config = tmp_path / "routes.yaml"
    config.write_text(CONFIG)
    gateway = start_gateway(config, tmp_path / "gateway.log")
    try:
        # the tokenizer of the built-in model: the client samples random token ids with it
        level = Level(24, concurrency=8, output_len=8)
        spec = BenchSpec(model=resolve_model("builtin:smollm2-135m-instruct"), engine_args={},
                         levels=(level,), input_len=32, output_len=8, warmups=1)
        args = loadgen.bench_args(spec, level, base_url=gateway.base_url, served_name="qa",
                                  dataset=loadgen.Dataset())
        prompts = loadgen.sample_prompts(args, processes=2)
        with loadgen.LoadClient(processes=2) as client:
            out = client.run_level(args, tmp_path / "client.log", {"concurrency": 8})
    finally:
        stop_gateway(gateway)
    assert (out["completed"], out["failed"]) == (24, 0), out.get("first_error")
    assert out["total_output_tokens"] == 24 * 8
    assert out["client_processes"] == 2
    assert out["client_start_skew_s"] < 2.0  # a barrier starts both processes' levels
    assert out["median_ttft_ms"] > 0 and out["median_itl_ms"] >= 0
    # the whole load's wall time: at least as long as either process's own run
    assert out["duration"] >= max(float(d) for d in out["client_part_durations"].split(",")) * 0.9
    assert 0 < out["client_busiest_cpu_s"] <= out["client_cpu_s"]
    assert (tmp_path / "client-p0.log").exists() and (tmp_path / "client-p1.log").exists()
    # the direct arm's plan: the same 24 prompts, none twice
    assert len(prompts) == 24 and len({p["prompt"] for p in prompts}) == 24
