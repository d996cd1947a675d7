"""Front-end benchmark arms (upstream, LiteLLM, switchboard remote): their configs, argv,
run order and report figures (no model, no server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmarks import arms, litellm_proxy, profile_summary
from benchmarks.loadgen import fixed_output_tokens
from benchmarks.report import cpu_table, front_checks, markdown, summarise
from benchmarks.run import build_spec, parse_args, rotated
from benchmarks.spec import CPU_ENGINE_ARGS, BenchSpec, Level
from router.config import load_config

UPSTREAM = "http://127.0.0.1:8123"


def spec() -> BenchSpec:
    return BenchSpec(model="/models/smollm2", engine_args=dict(CPU_ENGINE_ARGS),
                     levels=(Level(8, concurrency=1),))


def test_switchboard_remote_arm_routes_qa_to_the_upstream_with_the_remote_engine(
        tmp_path: Path) -> None:
    argv, served = arms.server_command("switchboard-remote", spec(), 9000, tmp_path, UPSTREAM)
    assert served == "qa"
    assert argv[-4:] == ["--host", "127.0.0.1", "--port", "9000"]
    path = tmp_path / "switchboard-remote-routes.yaml"
    engine = yaml.safe_load(path.read_text())["engines"]["qa"]
    assert engine == {"backend": "remote", "model": "qa",
                      "remote": {"urls": [UPSTREAM], "max_model_len": 1024},
                      "max_in_flight": 256, "max_queue": 4096}
    config = load_config(path)  # the gateway itself accepts it
    assert config.engines["qa"].backend == "remote"


def test_litellm_arm_points_a_hosted_vllm_model_at_the_upstream(tmp_path: Path) -> None:
    argv, served = arms.server_command("litellm", spec(), 9001, tmp_path, UPSTREAM + "/")
    assert served == "qa"
    assert argv[0] == str(litellm_proxy.VENV / "bin" / "litellm")
    assert argv[argv.index("--num_workers") + 1] == "1"
    assert argv[argv.index("--port") + 1] == "9001"
    config = yaml.safe_load(Path(argv[argv.index("--config") + 1]).read_text())
    assert config["model_list"] == [{"model_name": "qa", "litellm_params": {
        "model": "hosted_vllm/qa", "api_base": UPSTREAM + "/v1", "api_key": "none"}}]
    settings = config["litellm_settings"]
    assert settings["callbacks"] == settings["success_callback"] == []
    assert settings["set_verbose"] is False


@pytest.mark.parametrize("arm", ["litellm", "switchboard-remote"])
def test_front_end_arms_refuse_to_start_without_an_upstream(arm: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="upstream"):
        arms.server_command(arm, spec(), 9002, tmp_path)


def test_upstream_arm_is_the_running_upstream_itself(tmp_path: Path) -> None:
    up = arms.Serving(UPSTREAM, "qa", 4242, 30.0)
    with arms.serving("upstream", spec(), tmp_path, tmp_path / "log", upstream=up) as live:
        assert live is up
    with pytest.raises(ValueError), \
            arms.serving("upstream", spec(), tmp_path, tmp_path / "log"):
        pass


def test_front_arms_are_known_to_the_cli() -> None:
    args = parse_args(["--arms", "upstream,switchboard-remote", "--concurrency", "1,32,64",
                       "--model", "/models/smollm2"])
    built = build_spec(args, {"concurrency": "1", "rate": 0.0, "repeats": 2, "per_stream": 2,
                              "min_prompts": 8, "engine_args": CPU_ENGINE_ARGS})
    assert built.arms == ("upstream", "switchboard-remote")
    assert [lv.label for lv in built.levels] == ["c1", "c32", "c64"]


def test_arm_order_rotates_every_repeat() -> None:
    order = ("upstream", "litellm", "switchboard-remote")
    assert rotated(order, 0) == list(order)
    assert rotated(order, 1) == ["litellm", "switchboard-remote", "upstream"]
    assert rotated(order, 3) == list(order)


def row(tps: float, ttft: float) -> dict[str, Any]:
    return {"output_throughput": tps, "median_ttft_ms": ttft}


def test_front_targets_compare_each_front_end_with_the_bare_upstream() -> None:
    summary = {
        "upstream": {"c1": row(30.0, 20.0), "c32": row(500.0, 90.0), "c64": row(600.0, 150.0)},
        "switchboard-remote": {"c1": row(29.9, 21.5), "c32": row(490.0, 92.0),
                               "c64": row(570.0, 160.0)},
        "litellm": {"c1": row(28.0, 40.0), "c32": row(425.0, 120.0), "c64": row(500.0, 200.0)},
    }
    got = {(c["arm"], c["level"]): (round(c["value"], 3), c["met"])
           for c in front_checks(summary)}
    assert got == {
        ("switchboard-remote", "c32"): (0.98, True),  # >= 0.97
        ("switchboard-remote", "c64"): (0.95, False),
        ("switchboard-remote", "c1"): (1.5, True),  # +1.5 ms <= +2 ms
        ("litellm", "c32"): (0.85, None),  # reported, no target
        ("litellm", "c64"): (0.833, None),
        ("litellm", "c1"): (20.0, None),
    }


def test_front_checks_leave_unmeasured_levels_undecided() -> None:
    summary = {"upstream": {"c1": row(30.0, 20.0)},
               "switchboard-remote": {"c1": row(30.0, 25.0)}}
    checks = {c["level"]: c["met"] for c in front_checks(summary)}
    assert checks == {"c32": None, "c64": None, "c1": False}


def test_report_has_a_front_end_section_only_with_the_upstream() -> None:
    meta = {"title": "t", "date": "d", "command": "c", "machine": "m", "model": "x",
            "engine_args": {}, "input_len": 64, "output_len": 64, "seed": 0, "repeats": 1}
    base = {"output_throughput_all": [1.0], "request_throughput": 1.0, "p99_ttft_ms": 1.0,
            "median_tpot_ms": 1.0, "p99_tpot_ms": 1.0, "median_itl_ms": 1.0,
            "p99_itl_ms": 1.0, "median_e2el_ms": 1.0, "p99_e2el_ms": 1.0, "failed": 0}
    summary = {"upstream": {"c1": {**base, **row(30.0, 20.0)}},
               "switchboard-remote": {"c1": {**base, **row(30.0, 21.0)}}}
    text = markdown(meta, summary, None, [])
    assert "## Front-ends over one upstream" in text
    assert "| switchboard, remote engine → upstream − upstream, TTFT p50 (ms) at c1 | +1.0 " \
           "| <= 2 ms | yes |" in text
    del summary["upstream"]
    assert "Front-ends" not in markdown(meta, summary, None, [])


def test_undercounted_fixed_length_outputs_are_counted_as_produced() -> None:
    out = {"completed": 8, "duration": 10.0, "total_output_tokens": 492,
           "output_throughput": 49.2}
    fixed = fixed_output_tokens(out, 64)
    assert fixed["total_output_tokens"] == 512
    assert fixed["output_throughput"] == pytest.approx(51.2)
    assert fixed["output_throughput_counted"] == 49.2
    assert fixed["total_output_tokens_counted"] == 492
    exact = {**out, "total_output_tokens": 512, "output_throughput": 51.2}
    assert fixed_output_tokens(exact, 64) == exact  # vLLM's own usage chunk: untouched


def test_cpu_per_token_is_reported_for_each_front_end_and_its_upstream() -> None:
    runs = [{"arm": "upstream", "level": {"label": "c32"}, "result": {
                "output_throughput": 100.0, "total_output_tokens": 4096, "server_cpu_s": 40.96}},
            {"arm": "switchboard-remote", "level": {"label": "c32"}, "result": {
                "output_throughput": 99.0, "total_output_tokens": 4096, "server_cpu_s": 2.048,
                "upstream_cpu_s": 41.0, "server_runq_s": 0.32, "completed": 64,
                "client_cpu_s": 3.3, "duration": 4.0}}]
    summary = summarise(runs)
    assert summary["upstream"]["c32"]["server_cpu_s_per_1k_tokens"] == pytest.approx(10.0)
    assert summary["switchboard-remote"]["c32"]["server_cpu_s_per_1k_tokens"] == \
        pytest.approx(0.5)
    table = cpu_table(summary)
    assert summary["switchboard-remote"]["c32"]["client_busy"] == pytest.approx(0.825)
    assert summary["upstream"]["c32"]["client_busy"] is None  # not measured: no figure
    assert ("| switchboard, remote engine → upstream | c32 | 0.500 | 10.010 | 5.0 | 1 × 0.82 |"
            in table)


def test_profile_summary_separates_the_event_loop_from_python_work(tmp_path: Path) -> None:
    loop = "thread (1): MainThread;main (router/cli.py:1);Runner.run (asyncio/runners.py:118)"
    send = ("thread (1): MainThread;main (router/cli.py:1);stream_events (router/http/sse.py:9)"
            ";RequestResponseCycle.send (uvicorn/protocols/http/httptools_impl.py:542)")
    path = tmp_path / "p.txt"
    path.write_text(f"{loop} 6\n{send} 3\nthread (2): T;select (selectors.py:1) 5\n")
    samples = profile_summary.read(path)
    assert profile_summary.in_loop(samples) == 6
    assert [s.count for s in profile_summary.busy(samples)] == [3]
    text = profile_summary.summarise(samples)
    assert text.startswith("samples: 14; event loop (native): 6; Python: 3")
    assert "100.0 %  stream_events (router/http/sse.py)" in text


def test_a_plain_run_keeps_the_original_arms() -> None:
    assert parse_args([]).arms == "direct,vllm,switchboard,switchboard-2"


def test_report_shows_cpu_per_token_of_the_http_arms_when_measured() -> None:
    meta = {"title": "t", "date": "d", "command": "c", "machine": "m", "model": "x",
            "engine_args": {}, "input_len": 128, "output_len": 64, "seed": 0, "repeats": 1}
    runs = [{"arm": arm, "level": {"label": "c256", "concurrency": 256}, "result": {
                "output_throughput": 10.0, "total_output_tokens": 2000, "server_cpu_s": cpu,
                "client_cpu_s": 4.5, "duration": 5.0, "completed": 32, "failed": 0}}
            for arm, cpu in (("vllm", 0.4), ("switchboard", 0.3))]
    text = markdown(meta, summarise(runs), None, [])
    assert "## CPU per token (HTTP arms)" in text
    assert "| switchboard, 1 route | c256 | 0.150 | — | — | 1 × 0.90 |" in text
    assert "| vllm serve | c256 | 0.200 | — | — | 1 × 0.90 |" in text
    unmeasured = [{**run, "result": {k: v for k, v in run["result"].items()  # type: ignore[attr-defined]
                                     if k != "server_cpu_s"}} for run in runs]
    assert "CPU per token" not in markdown(meta, summarise(unmeasured), None, [])
