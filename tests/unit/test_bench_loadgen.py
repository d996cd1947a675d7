"""The load generator split over client processes: how a level is shared, and how the
parts' per-request outcomes are merged into one level's metrics (no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import loadgen
from benchmarks.spec import CPU_ENGINE_ARGS, BenchSpec, Level


def level_args(level: Level) -> object:
    spec = BenchSpec(model="/models/smollm2", engine_args=dict(CPU_ENGINE_ARGS), levels=(level,))
    return loadgen.bench_args(spec, level, base_url="http://127.0.0.1:1", served_name="qa",
                              dataset=loadgen.Dataset())


def test_a_closed_loop_level_is_shared_by_prompts_and_streams_with_distinct_seeds() -> None:
    args = level_args(Level(1026, concurrency=256))
    parts = loadgen.split(args, 4)  # type: ignore[arg-type]
    assert [p.num_prompts for p in parts] == [257, 257, 256, 256]
    assert [p.max_concurrency for p in parts] == [64, 64, 64, 64]
    assert [p.seed for p in parts] == [0, 1, 2, 3]  # different prompts, none sent twice
    assert all(p.save_detailed for p in parts)  # per-request detail, for the merge
    assert args.num_prompts == 1026 and args.max_concurrency == 256  # the level is untouched


def test_an_open_loop_level_shares_its_rate() -> None:
    parts = loadgen.split(level_args(Level(40, rate=8.0)), 2)  # type: ignore[arg-type]
    assert [p.request_rate for p in parts] == [4.0, 4.0]
    assert [p.num_prompts for p in parts] == [20, 20]


def test_one_process_is_the_level_itself_and_too_few_streams_are_refused() -> None:
    args = level_args(Level(64, concurrency=16))
    assert loadgen.split(args, 1) == [args]  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cannot be split"):
        loadgen.split(level_args(Level(8, concurrency=2)), 4)  # type: ignore[arg-type]


def part(starts: list[float], ttfts: list[float], itls: list[list[float]],
         errors: list[str] | None = None, duration: float = 1.0) -> dict[str, object]:
    n, pairs = len(starts), list(zip(ttfts, itls, strict=True))
    return {"start_times": starts, "ttfts": ttfts, "itls": itls,
            "output_lens": [len(gaps) + 1 if ttft else 0 for ttft, gaps in pairs],
            "input_lens": [10] * n, "errors": errors or [""] * n, "duration": duration,
            "latencies": [t + sum(g) if t else 0.0 for t, g in pairs]}


def test_merged_metrics_come_from_every_request_and_the_whole_wall_time() -> None:
    early = part([100.0, 100.1], [0.1, 0.3], [[0.1, 0.1], [0.1, 0.1]])
    late = part([100.5], [0.2], [[0.2, 0.2, 0.2]], duration=0.9)
    out = loadgen.merge([early, late], {"concurrency": 3})
    assert out["completed"] == 3 and out["failed"] == 0
    assert out["total_output_tokens"] == 3 + 3 + 4
    # first sent at 100.0, last done at 100.5 + 0.2 + 0.6: 1.3 s, not any part's own duration
    assert out["duration"] == pytest.approx(1.3)
    assert out["output_throughput"] == pytest.approx(10 / 1.3)
    assert out["median_ttft_ms"] == pytest.approx(200.0)  # the median of all three requests
    assert out["median_itl_ms"] == pytest.approx(100.0)  # 4 gaps of 0.1 s, 3 of 0.2 s
    assert out["client_start_skew_s"] == pytest.approx(0.5)
    assert out["events_per_token"] == pytest.approx(1.0)  # every token its own event


def test_failed_requests_are_counted_and_left_out_of_the_latencies() -> None:
    ok = part([0.0], [0.05], [[0.05]])
    bad = part([0.0], [0.0], [[]], errors=["Internal Server Error"])
    out = loadgen.merge([ok, bad], {"concurrency": 2})
    assert (out["completed"], out["failed"]) == (1, 1)
    assert out["first_error"] == "Internal Server Error"
    assert out["p99_ttft_ms"] == pytest.approx(50.0)


def test_vllm_026_detail_without_latencies_takes_ttft_plus_the_gaps() -> None:
    result = {"start_times": [1.0, 2.0], "ttfts": [0.1, 0.0], "itls": [[0.2, 0.3], []],
              "output_lens": [3, 0], "input_lens": [5, 5], "errors": ["", "boom"],
              "duration": 3.0}
    assert loadgen._detail(result)["latencies"] == pytest.approx([0.6, 0.0])
    with pytest.raises(RuntimeError, match="per-request detail"):
        loadgen._detail({"duration": 1.0, "ttfts": []})


def test_the_report_shows_the_busiest_client_process_not_their_sum() -> None:
    from benchmarks.report import cpu_table, summarise

    runs = [{"arm": "switchboard", "level": {"label": "c256", "concurrency": 256},
             "result": {"output_throughput": 1.0, "duration": 10.0, "total_output_tokens": 100,
                        "server_cpu_s": 5.0, "client_cpu_s": 24.0, "client_busiest_cpu_s": 6.5,
                        "client_processes": 4, "completed": 4, "failed": 0}}]
    summary = summarise(runs)
    assert summary["switchboard"]["c256"]["client_busy"] == pytest.approx(0.65)
    assert "| 4 × 0.65 |" in cpu_table(summary, arms=("switchboard",))


def test_server_settings_reach_the_switchboard_arms_routes_yaml(tmp_path: Path) -> None:
    import yaml

    from benchmarks import arms
    from benchmarks.run import build_spec, parse_args

    args = parse_args(["--model", "/models/m", "--arms", "switchboard",
                       "--server-setting", "stream_pacing=off", "--client-processes", "2"])
    spec = build_spec(args, {"concurrency": "8", "rate": 0.0, "repeats": 1, "per_stream": 2,
                             "min_prompts": 8, "engine_args": {}, "lock": ""})
    assert spec.server_settings == {"stream_pacing": "off"} and spec.client_processes == 2
    arms.server_command("switchboard", spec, 9001, tmp_path)
    written = yaml.safe_load((tmp_path / "switchboard-routes.yaml").read_text())
    assert written["server"]["stream_pacing"] == "off"
    assert written["server"]["port"] == 9001


def test_a_client_process_that_died_is_named_not_waited_for() -> None:
    args = level_args(Level(8, concurrency=2))
    with loadgen.LoadClient(processes=2) as client:
        client._procs[1].kill()
        client._procs[1].join(timeout=10)
        with pytest.raises(RuntimeError, match="client process exited"):
            client.run_level(args, Path("/tmp/unused.log"),  # type: ignore[arg-type]
                             {"concurrency": 2})


def test_the_multi_process_arm_runs_the_gateway_with_api_processes(tmp_path: Path) -> None:
    import yaml

    from benchmarks import arms
    from benchmarks.run import build_spec, parse_args

    args = parse_args(["--model", "/models/m", "--arms", "switchboard,switchboard-mp",
                       "--api-processes", "3"])
    spec = build_spec(args, {"concurrency": "8", "rate": 0.0, "repeats": 1, "per_stream": 2,
                             "min_prompts": 8, "engine_args": {}, "lock": ""})
    _argv, served = arms.server_command("switchboard-mp", spec, 9002, tmp_path)
    written = yaml.safe_load((tmp_path / "switchboard-mp-routes.yaml").read_text())
    assert written["server"]["api_processes"] == 3 and served == "qa"
    arms.server_command("switchboard", spec, 9003, tmp_path)
    one = yaml.safe_load((tmp_path / "switchboard-routes.yaml").read_text())
    assert "api_processes" not in one["server"]
