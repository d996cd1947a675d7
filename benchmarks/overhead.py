"""Gateway overhead without a model: switchboard on the fake engine, pinned to one core.

Three loads, each from a lean raw-socket client on another core (it counts SSE events
without parsing them, so the client is never the bottleneck):
- latency: sequential streamed requests of 16 tokens; the median minus that of a bare
  uvicorn app streaming the same bytes is the latency the gateway adds per request;
- chunks/s: many concurrent long streams (one SSE event per token);
- requests/s: many concurrent one-token streams.
`python -m benchmarks.overhead --bare-server PORT` is the bare app (used internally).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from benchmarks.arms import child_env, free_port, stop, wait_ready

TOKENS_LATENCY = 16


@dataclass(frozen=True, slots=True)
class Load:
    requests: int
    concurrency: int
    max_tokens: int


def fake_config(port: int) -> dict[str, Any]:
    return {
        "server": {"host": "127.0.0.1", "port": port, "log_format": "json"},
        "default_route": "qa",
        "engines": {"qa": {"model": "fake-model", "backend": "fake", "max_queue": 8192,
                           "engine_args": {"max_model_len": 65536, "max_num_seqs": 1024}}},
        "routes": {"qa": {"engine": "qa"}},
    }


def request_bytes(port: int, max_tokens: int) -> bytes:
    body = json.dumps({"model": "qa", "stream": True, "max_tokens": max_tokens,
                       "stream_options": {"include_usage": True},
                       "messages": [{"role": "user", "content": "say something"}]}).encode()
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode() + body


async def stream_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      payload: bytes) -> tuple[float, int]:
    """One request on a kept-alive connection: (seconds, SSE events). Chunked body assumed."""
    start = time.perf_counter()
    writer.write(payload)
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(head.decode(errors="replace")[:200])
    events = 0
    tail = b""
    done = False
    while True:
        data = await reader.read(65536)
        if not data:
            raise ConnectionError("server closed the connection mid-stream")
        events += data.count(b"data: ")
        tail = (tail + data)[-24:]
        done = done or b"[DONE]" in tail or b"[DONE]" in data
        if done and tail.endswith(b"\r\n0\r\n\r\n"):  # the chunked body's last chunk
            return time.perf_counter() - start, events


async def drive(port: int, load: Load) -> dict[str, Any]:
    payload = request_bytes(port, load.max_tokens)
    latencies: list[float] = []
    events = 0
    errors = 0
    todo = iter(range(load.requests))

    async def worker() -> None:
        nonlocal events, errors
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            for _ in todo:
                try:
                    seconds, count = await stream_once(reader, writer, payload)
                except (RuntimeError, ConnectionError):
                    errors += 1
                    writer.close()
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
                    continue
                latencies.append(seconds)
                events += count
        finally:
            writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(load.concurrency)))
    wall = time.perf_counter() - start
    ordered = sorted(latencies) or [0.0]
    return {
        "requests": len(latencies), "errors": errors, "concurrency": load.concurrency,
        "max_tokens": load.max_tokens, "wall_s": wall, "requests_per_s": len(latencies) / wall,
        "events_per_s": events / wall, "events": events,
        "median_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000,
    }


@contextlib.contextmanager
def pinned(cpus: set[int]) -> Iterator[None]:
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus & before or before)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


@contextlib.contextmanager
def server(argv: list[str], ready_url: str, log_path: Path) -> Iterator[None]:
    with log_path.open("ab") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                env=child_env({}), start_new_session=True)
    try:
        wait_ready(proc, ready_url, log_path)
        yield
    finally:
        stop(proc, grace_s=10)


def measure(port: int, loads: dict[str, Load]) -> dict[str, Any]:
    async def all_loads() -> dict[str, Any]:
        await drive(port, Load(200, 8, 64))  # warm-up: connections, caches, lazy imports
        return {name: await drive(port, load) for name, load in loads.items()}

    return asyncio.run(all_loads())


def run_overhead(workdir: Path, quick: bool, server_cpu: int = 0,
                 client_cpu: int = 1) -> dict[str, Any]:
    """Gateway and bare app on `server_cpu`, the client on `client_cpu`."""
    scale = 4 if quick else 1
    gateway_loads = {
        "latency": Load(1000 // scale, 1, TOKENS_LATENCY),
        "chunks": Load(256 // scale, 64, 2000),
        "requests": Load(8000 // scale, 64, 1),
    }
    taskset = ["taskset", "-c", str(server_cpu)]
    results: dict[str, Any] = {"server_cpu": server_cpu, "client_cpu": client_cpu}
    with pinned({client_cpu}):
        port = free_port()
        bare = [*taskset, sys.executable, "-m", "benchmarks.overhead", "--bare-server", str(port)]
        with server(bare, f"http://127.0.0.1:{port}/health", workdir / "bare.log"):
            results["bare"] = measure(port, {"latency": gateway_loads["latency"]})
        port = free_port()
        config = workdir / "fake-routes.yaml"
        config.write_text(yaml.safe_dump(fake_config(port), sort_keys=False))
        switchboard = str(Path(sys.executable).with_name("switchboard"))
        argv = [*taskset, switchboard, "serve", "--config", str(config), "--port", str(port)]
        with server(argv, f"http://127.0.0.1:{port}/ready", workdir / "fake-gateway.log"):
            results["gateway"] = measure(port, gateway_loads)
    results["added_latency_ms"] = (results["gateway"]["latency"]["median_ms"]
                                   - results["bare"]["latency"]["median_ms"])
    return results


def bare_app_events(tokens: int) -> list[bytes]:
    """The bytes switchboard streams for `tokens` tokens, pre-encoded: role, deltas, usage."""
    base = {"id": "chatcmpl-0", "object": "chat.completion.chunk", "created": 0, "model": "qa"}

    def event(choices: list[Any], **extra: Any) -> bytes:
        return b"data: " + json.dumps({**base, "choices": choices, **extra}).encode() + b"\n\n"

    out = [event([{"index": 0, "delta": {"role": "assistant", "content": ""}}])]
    out += [event([{"index": 0, "delta": {"content": " alpha"}}]) for _ in range(tokens)]
    out.append(event([], usage={"prompt_tokens": 3, "completion_tokens": tokens}))
    return [*out, b"data: [DONE]\n\n"]


def serve_bare(port: int) -> None:
    """A bare ASGI app under the same uvicorn: the floor of client + HTTP + loopback."""
    import uvicorn

    events = bare_app_events(TOKENS_LATENCY)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/health":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})
            return
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        for data in events:
            await send({"type": "http.response.body", "body": data, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bare-server", type=int, metavar="PORT")
    parser.add_argument("--workdir", type=Path, default=Path("benchmarks/results/raw/overhead"))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.bare_server:
        serve_bare(args.bare_server)
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    print(json.dumps(run_overhead(args.workdir, args.quick), indent=1))


if __name__ == "__main__":
    main()
