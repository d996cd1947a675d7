"""A/B on two real CPU engines: /v1/compare, shadow copies, /metrics and ab-report.

Self-contained: its own `switchboard serve` subprocess on 127.0.0.1 with a small routes
file whose one route splits between SmolLM2-135M-Instruct and Gemma-3-270M.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 600

ROUTES = """
server: {{record_file: {record}}}
default_route: ab
engines:
  smol:
    model: builtin:smollm2-135m-instruct
    engine_args: {{dtype: float32, max_model_len: 512, max_num_seqs: 4,
                  kv_cache_memory_bytes: 134217728, enforce_eager: true, seed: 0,
                  scheduling_policy: priority}}
    sampling: {{temperature: 0.0}}
  gemma:
    model: builtin:gemma-3-270m
    engine_args: {{dtype: float32, max_model_len: 512, max_num_seqs: 4,
                  kv_cache_memory_bytes: 134217728, enforce_eager: true, seed: 0,
                  scheduling_policy: priority}}
    sampling: {{temperature: 0.0}}
routes:
  ab:
    engine: smol
    sampling: {{max_tokens: 12}}
    variants:
      - {{name: smol-chat, engine: smol, weight: 1}}
      - name: gemma-fewshot
        engine: gemma
        weight: 1
        prompt_template: "Text: Good morning.\\nFrench: Bonjour.\\n\\nText: {{text}}\\nFrench:"
    shadow: {{engine: gemma, name: gemma-shadow, fraction: 1.0,
              prompt_template: "Translate into French: {{text}}\\nFrench:"}}
"""

MESSAGES = [{"role": "user", "content": "Thank you very much."}]


@dataclass
class Gateway:
    process: subprocess.Popen[bytes]
    url: str
    log_path: Path
    record_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def ab_gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    folder = tmp_path_factory.mktemp("ab")
    record = folder / "records.jsonl"
    config = folder / "routes.yaml"
    config.write_text(ROUTES.format(record=record))
    port = _free_port()
    log_path = folder / "gateway.log"
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "router.cli", "serve", "--config", str(config),
             "--port", str(port)],
            cwd=REPO, stdout=log_file, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    gateway = Gateway(process, f"http://127.0.0.1:{port}", log_path, record)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gateway exited with {process.returncode}:\n{gateway.log()}")
            try:
                if httpx.get(f"{gateway.url}/ready", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"gateway not ready:\n{gateway.log()}")
            time.sleep(1)
        yield gateway
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _sse(response: httpx.Response) -> list[Any]:
    events: list[Any] = []
    for raw in response.iter_lines():
        if raw.startswith("data: "):
            data = raw[len("data: "):]
            events.append(data if data == "[DONE]" else json.loads(data))
    return events


def test_compare_streams_both_real_engines_and_every_event_names_its_variant(
    ab_gateway: Gateway,
) -> None:
    body = {"model": "ab", "stream": True, "messages": MESSAGES}
    with httpx.stream("POST", f"{ab_gateway.url}/v1/compare", json=body,
                      timeout=120) as response:
        assert response.status_code == 200
        events = _sse(response)
    assert events[-1] == "[DONE]"
    payloads = events[:-1]
    assert payloads and all(p["variant"] in ("smol-chat", "gemma-fewshot") for p in payloads)
    for variant, engine in (("smol-chat", "smol"), ("gemma-fewshot", "gemma")):
        mine = [p for p in payloads if p["variant"] == variant]
        text = "".join(c["choices"][0]["delta"].get("content", "") for c in mine
                       if c["object"] == "chat.completion.chunk" and c["choices"])
        done = [p for p in mine if p["object"] == "compare.variant.done"]
        assert len(done) == 1, mine[-1]
        assert done[0]["engine"] == engine and mine[-1] is done[0]
        assert done[0]["usage"]["completion_tokens"] > 0 and text
        assert 0 < done[0]["ttft_s"] <= done[0]["duration_s"]
    # Both variants were generating at once: each one's first token came before the other's
    # last one.
    content = [p["variant"] for p in payloads if p["object"] == "chat.completion.chunk"
               and p["choices"] and p["choices"][0]["delta"].get("content")]
    first = {v: content.index(v) for v in set(content)}
    last = {v: len(content) - 1 - content[::-1].index(v) for v in set(content)}
    assert first["smol-chat"] < last["gemma-fewshot"]
    assert first["gemma-fewshot"] < last["smol-chat"]


def test_compare_non_streaming_returns_each_answer_with_tokens_and_timings(
    ab_gateway: Gateway,
) -> None:
    response = httpx.post(f"{ab_gateway.url}/v1/compare", timeout=120,
                          json={"model": "ab", "messages": MESSAGES, "max_tokens": 6})
    assert response.status_code == 200, response.text
    results = {r["variant"]: r for r in response.json()["results"]}
    assert set(results) == {"smol-chat", "gemma-fewshot"}
    for result in results.values():
        assert result["error"] is None
        assert 0 < result["usage"]["completion_tokens"] <= 6
        assert result["choices"][0]["message"]["content"]
        assert 0 < result["ttft_s"] <= result["duration_s"]


def test_live_request_is_sticky_shadowed_recorded_and_counted(ab_gateway: Gateway) -> None:
    url = f"{ab_gateway.url}/v1/chat/completions"
    body = {"model": "ab", "messages": MESSAGES, "user": "alice", "max_tokens": 6}
    variants = {httpx.post(url, json=body, timeout=120).headers["x-switchboard-variant"]
                for _ in range(2)}
    assert len(variants) == 1  # sticky
    forced = httpx.post(url, json={**body, "max_tokens": 3}, timeout=120,
                        headers={"x-switchboard-variant": "gemma-fewshot"})
    assert forced.headers["x-switchboard-variant"] == "gemma-fewshot"
    deadline = time.monotonic() + 60
    shadows: list[dict[str, Any]] = []
    while time.monotonic() < deadline and len(shadows) < 3:
        time.sleep(0.5)
        lines = [json.loads(x) for x in ab_gateway.record_path.read_text().splitlines() if x]
        shadows = [x for x in lines if x["traffic"] == "shadow"]
    assert len(shadows) >= 3, ab_gateway.log()
    assert all(s["status"] == 200 and s["engine"] == "gemma" and s["text"][0] for s in shadows)
    metrics = httpx.get(f"{ab_gateway.url}/metrics", timeout=10).text
    assert ('switchboard_requests_total{engine="gemma",outcome="ok",route="ab",'
            'traffic="live",variant="gemma-fewshot"}') in metrics
    assert 'traffic="shadow",variant="gemma-shadow"' in metrics
    assert 'switchboard_engine_state{engine="smol",state="ready"} 1.0' in metrics
    report = subprocess.run(
        [sys.executable, "-m", "router.cli", "ab-report", str(ab_gateway.record_path)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert report.returncode == 0, report.stderr
    assert "route ab" in report.stdout and "gemma-shadow" in report.stdout
