"""The ceiling arm: the same prompts straight into an in-process `AsyncLLM`, no HTTP.

Run as `python -m benchmarks.direct --spec S --plan P --out O` (the runner does this, in a
process of its own). Prompts are chat-templated and tokenised before the clock starts, as
a server would do per request; metrics follow `vllm bench serve`'s definitions (TTFT from
submit to first token, ITL between deltas, TPOT = (E2E - TTFT) / (tokens - 1)).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.metrics import Outcome, summarise
from engines.vllm_compat import fresh_sampling_params, token_prompt_factory


async def one_request(llm: Any, ids: Sequence[int], max_tokens: int) -> Outcome:
    from vllm import SamplingParams
    from vllm.sampling_params import RequestOutputKind

    # built per request, as the gateway's adapter builds them (no deep copy in vLLM)
    params = fresh_sampling_params(SamplingParams)(
        max_tokens=max_tokens, ignore_eos=True, temperature=1.0,
        output_kind=RequestOutputKind.DELTA)
    # vLLM's typed token input, as the gateway's adapter hands it over, so the ceiling
    # is measured on the same path.
    prompt = token_prompt_factory()(list(ids))
    outcome = Outcome()
    start = last = time.perf_counter()
    try:
        async for output in llm.generate(prompt, params, uuid.uuid4().hex):
            now = time.perf_counter()
            new = sum(len(c.token_ids) for c in output.outputs)
            if new:
                if outcome.tokens == 0:
                    outcome.ttft = now - start
                else:
                    outcome.itl.append(now - last)
                last = now
                outcome.tokens += new
        outcome.latency = time.perf_counter() - start
        outcome.ok = True
    except Exception as exc:
        outcome.error = f"{type(exc).__name__}: {exc}"
    return outcome


async def run_level(llm: Any, prompts: Sequence[tuple[list[int], int]], level: dict[str, Any],
                    seed: int, warmups: int) -> dict[str, Any]:
    for ids, out_len in prompts[:warmups]:  # as vllm bench's --num-warmups: not counted
        await one_request(llm, ids, out_len)
    concurrency = level.get("concurrency")
    rate = level.get("rate")
    limit = asyncio.Semaphore(concurrency or len(prompts))
    gaps = np.random.default_rng(seed).exponential(1.0 / rate, len(prompts)) if rate else None

    async def limited(ids: list[int], out_len: int) -> Outcome:
        async with limit:
            return await one_request(llm, ids, out_len)

    start = time.perf_counter()
    tasks = []
    for i, (ids, out_len) in enumerate(prompts):
        if gaps is not None:
            await asyncio.sleep(float(gaps[i]))
        tasks.append(asyncio.create_task(limited(ids, out_len)))
    outcomes = await asyncio.gather(*tasks)
    duration = time.perf_counter() - start
    return summarise(outcomes, [len(ids) for ids, _ in prompts], duration, level)


async def drive(spec: dict[str, Any], plan: list[dict[str, Any]]) -> dict[str, Any]:
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.v1.engine.async_llm import AsyncLLM

    started = time.monotonic()
    llm = AsyncLLM.from_engine_args(AsyncEngineArgs(model=spec["model"], **spec["engine_args"]))
    try:
        tokenizer = llm.get_tokenizer()
        if asyncio.iscoroutine(tokenizer):
            tokenizer = await tokenizer
        startup = time.monotonic() - started
        results = []
        for item in plan:
            prompts = [(render(tokenizer, p["prompt"]), int(p["output_len"]))
                       for p in item["prompts"]]
            result = await run_level(llm, prompts, item["level"], spec["seed"], spec["warmups"])
            results.append({"level": item["level"], "result": result})
            print(json.dumps({"level": item["level"], "output_throughput":
                              round(result["output_throughput"], 1)}), flush=True)
        return {"startup_s": startup, "levels": results}
    finally:
        llm.shutdown()


def render(tokenizer: Any, prompt: str) -> list[int]:
    """What a chat server does with one user message: template, then tokens (no extra BOS)."""
    text = tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                         add_generation_prompt=True)
    return list(tokenizer.encode(text, add_special_tokens=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spec", type=Path, required=True)
    parser.add_argument("--plan", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    spec = json.loads(args.spec.read_text())
    plan = json.loads(args.plan.read_text())
    args.out.write_text(json.dumps(asyncio.run(drive(spec, plan)), indent=1))


if __name__ == "__main__":
    main()
