"""Raw per-run results → a summary (median over repeats), ratios, targets, markdown."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from benchmarks.spec import MULTI_PROCESS_ARM

METRICS = (
    "output_throughput", "request_throughput",
    "median_ttft_ms", "p99_ttft_ms", "median_tpot_ms", "p99_tpot_ms",
    "median_itl_ms", "p99_itl_ms", "median_e2el_ms", "p99_e2el_ms",
)  # fmt: skip
ARM_TITLES = {
    "direct": "direct AsyncLLM", "vllm": "vllm serve", "switchboard": "switchboard, 1 route",
    MULTI_PROCESS_ARM: "switchboard, 1 route, N API processes",
    "switchboard-2": "switchboard, 2 engines (auto, mixed)",
    "upstream": "upstream vllm serve (bare)", "litellm": "LiteLLM proxy → upstream",
    "switchboard-remote": "switchboard, remote engine → upstream",
}
# The front-end arms, each compared with the bare upstream they all sit in front of.
FRONT_ENDS = ("switchboard-remote", "litellm")
# HTTP arms serving their own engines.
SERVERS = ("vllm", "switchboard", MULTI_PROCESS_ARM, "switchboard-2")
# The gateway arms whose ratios to the peers are reported and checked against the targets.
GATEWAY_ARMS = ("switchboard", MULTI_PROCESS_ARM)
# (metric, how: ratio to the upstream or milliseconds added, levels, op, bound per arm);
# issue 15: switchboard(remote) >= 0.97x the upstream's output tok/s at 32 and 64 streams and
# <= +2 ms TTFT p50 at 1 stream. LiteLLM's same figures are reported, with no target.
FRONT_TARGETS = (
    ("output_throughput", "ratio", ("c32", "c64"), ">=", {"switchboard-remote": 0.97}),
    ("median_ttft_ms", "added_ms", ("c1",), "<=", {"switchboard-remote": 2.0}),
)
# (metric, ratio of switchboard to the peer: at least / at most)
# (metric, peer, op, bound) per preset: the CPU figures of the first round, the GPU ones of
# the GPU issue (switchboard >= 0.97x a direct AsyncLLM, TTFT p50 <= 1.3x, >= 1.3x vllm serve).
TARGETS = {
    "cpu": (("output_throughput", "vllm", ">=", 1.00), ("median_ttft_ms", "vllm", "<=", 1.05),
            ("output_throughput", "direct", ">=", 0.95)),
    "gpu": (("output_throughput", "direct", ">=", 0.97), ("median_ttft_ms", "direct", "<=", 1.30),
            ("output_throughput", "vllm", ">=", 1.30)),
}


def summarise(runs: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """{arm: {level label: {metric: median over repeats, ...}}} with spread and errors."""
    grouped: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    levels: dict[str, Mapping[str, Any]] = {}
    for run in runs:
        grouped[(run["arm"], run["level"]["label"])].append(run["result"])
        levels[run["level"]["label"]] = run["level"]
    summary: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for (arm, label), results in grouped.items():
        row: dict[str, Any] = {"level": dict(levels[label]), "repeats": len(results)}
        for metric in METRICS:
            values = [float(r[metric]) for r in results if r.get(metric) is not None]
            row[metric] = statistics.median(values) if values else None
            row[metric + "_all"] = values
        # CPU seconds per 1,000 output tokens of the arm's server process tree (and, for a
        # front-end, of the upstream behind it), median over repeats
        for proc in ("server", "upstream"):
            per_k = [1000 * float(r[f"{proc}_cpu_s"]) / float(r["total_output_tokens"])
                     for r in results if r.get(f"{proc}_cpu_s") is not None
                     and r.get("total_output_tokens")]
            row[f"{proc}_cpu_s_per_1k_tokens"] = statistics.median(per_k) if per_k else None
        # ms per request the server's threads were runnable but waited for a core
        waits = [1000 * float(r["server_runq_s"]) / float(r["completed"]) for r in results
                 if r.get("server_runq_s") is not None and r.get("completed")]
        row["server_runq_ms_per_request"] = statistics.median(waits) if waits else None
        # the load generator's busiest process's CPU over the level's duration: near 1.0
        # its asyncio thread is saturated and the figures measure the client as much as the
        # server (runs before the client was split report the one process as client_cpu_s)
        busy = [float(r.get("client_busiest_cpu_s", r.get("client_cpu_s"))) / float(r["duration"])
                for r in results if r.get("client_cpu_s") is not None and r.get("duration")]
        row["client_busy"] = statistics.median(busy) if busy else None
        counts = {int(r.get("client_processes") or 1) for r in results
                  if r.get("client_cpu_s") is not None}
        row["client_processes"] = max(counts) if counts else None
        # runs whose client undercounted fixed-length outputs (loadgen.fixed_output_tokens)
        row["recounted"] = [r["output_throughput_counted"] for r in results
                            if r.get("output_throughput_counted") is not None]
        row["failed"] = sum(int(r.get("failed") or 0) for r in results)
        row["completed"] = sum(int(r.get("completed") or 0) for r in results)
        row["first_error"] = next((r["first_error"] for r in results if r.get("first_error")), "")
        summary[arm][label] = row
    return dict(summary)


def ratios(summary: Mapping[str, Mapping[str, Mapping[str, Any]]],
           arm: str = "switchboard") -> dict[str, dict[str, dict[str, float | None]]]:
    """{peer: {level: {metric: arm ÷ peer}}} for the peers present."""
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for peer in ("vllm", "direct"):
        if peer not in summary or arm not in summary:
            continue
        out[peer] = {}
        for label, row in summary[arm].items():
            base = summary[peer].get(label)
            if base is None:
                continue
            out[peer][label] = {m: _div(row.get(m), base.get(m)) for m in METRICS}
    return out


def check_targets(summary: Mapping[str, Mapping[str, Mapping[str, Any]]],
                  labels: Sequence[str], preset: str = "cpu",
                  arm: str = "switchboard") -> list[dict[str, Any]]:
    table = ratios(summary, arm)
    checks = []
    for label in labels:
        for metric, peer, op, bound in TARGETS.get(preset, TARGETS["cpu"]):
            value = table.get(peer, {}).get(label, {}).get(metric)
            ok = None if value is None else (value >= bound if op == ">=" else value <= bound)
            checks.append({"metric": metric, "peer": peer, "level": label, "ratio": value,
                           "target": f"{op} {bound:.2f}", "met": ok})
    return checks


def front_checks(summary: Mapping[str, Mapping[str, Mapping[str, Any]]]
                 ) -> list[dict[str, Any]]:
    """The front-end figures against the bare upstream: a check per arm, metric and level
    (met is None for an arm with no target, or a level not measured)."""
    up = summary.get("upstream", {})
    checks = []
    for metric, how, levels, op, bounds in FRONT_TARGETS:
        for arm in FRONT_ENDS:
            if arm not in summary:
                continue
            for label in levels:
                mine, base = summary[arm].get(label, {}).get(metric), up.get(label, {}).get(metric)
                value = (_div(mine, base) if how == "ratio"
                         else None if mine is None or base is None else float(mine) - float(base))
                bound = bounds.get(arm)
                ok = None if value is None or bound is None else (
                    value >= bound if op == ">=" else value <= bound)
                unit = "×" if how == "ratio" else " ms"
                checks.append({"arm": arm, "metric": metric, "peer": "upstream", "level": label,
                               "how": how, "value": value, "unit": unit.strip(),
                               "target": "—" if bound is None else f"{op} {bound:g}{unit}",
                               "met": ok})
    return checks


def front_table(summary: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """Each front-end ÷ the bare upstream at every level, and the TTFT it adds in ms."""
    up = summary.get("upstream", {})
    lines = ["| front-end ÷ upstream | load | out tok/s | req/s | TTFT p50 | TTFT p50 added (ms) "
             "| TTFT p99 | TPOT p50 | ITL p50 | E2E p50 |", "|" + " --- |" * 10]
    for arm in FRONT_ENDS:
        for label in level_order(summary.get(arm, {})):
            row, base = summary[arm][label], up.get(label)
            if base is None:
                continue
            mine, ref = row.get("median_ttft_ms"), base.get("median_ttft_ms")
            added = None if mine is None or ref is None else float(mine) - float(ref)
            cells = [_f(_div(row.get(m), base.get(m)), 3) for m in
                     ("output_throughput", "request_throughput", "median_ttft_ms")]
            cells.append(_f(added, 1))
            cells += [_f(_div(row.get(m), base.get(m)), 3) for m in
                      ("p99_ttft_ms", "median_tpot_ms", "median_itl_ms", "median_e2el_ms")]
            lines.append(f"| {ARM_TITLES[arm]} | {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cpu_table(summary: Mapping[str, Mapping[str, Mapping[str, Any]]],
              arms: Sequence[str] = ("upstream", *FRONT_ENDS)) -> str:
    """CPU seconds per 1,000 output tokens of each arm's server process (a front-end's beside
    its upstream's: on a CPU-bound host every front-end CPU second is taken from vLLM), and
    the load generator's processes and the cores of its busiest one."""
    lines = ["| arm | load | front-end process CPU s / 1k tokens | upstream CPU s / 1k tokens "
             "| server's wait for a core, ms / request | client processes × busiest one's cores |",
             "| --- | --- | --- | --- | --- | --- |"]
    for arm in arms:
        for label in level_order(summary.get(arm, {})):
            row = summary[arm][label]
            if arm == "upstream":
                front, up = "— (none)", _f(row.get("server_cpu_s_per_1k_tokens"), 3)
            else:
                front = _f(row.get("server_cpu_s_per_1k_tokens"), 3)
                up = _f(row.get("upstream_cpu_s_per_1k_tokens"), 3)
            wait = _f(row.get("server_runq_ms_per_request"), 1)
            client = _f(row.get("client_busy"), 2)
            if row.get("client_processes"):
                client = f"{row['client_processes']} × {client}"
            lines.append(f"| {ARM_TITLES[arm]} | {label} | {front} | {up} | {wait} | {client} |")
    return "\n".join(lines)


def front_targets_table(checks: Sequence[Mapping[str, Any]]) -> str:
    lines = ["| figure | measured | target | met |", "| --- | --- | --- | --- |"]
    for c in checks:
        met = {True: "yes", False: "**no**", None: "—"}[c["met"]]
        what = ("÷ upstream, output tok/s" if c["how"] == "ratio"
                else "− upstream, TTFT p50 (ms)")
        digits = 3 if c["how"] == "ratio" else 1
        value = "—" if c["value"] is None else (
            f"{c['value']:.3f}" if c["how"] == "ratio" else f"{c['value']:+.{digits}f}")
        lines.append(f"| {ARM_TITLES[c['arm']]} {what} at {c['level']} | {value} "
                     f"| {c['target']} | {met} |")
    return "\n".join(lines)


def target_levels(labels: Iterable[str]) -> list[str]:
    """The highest closed-loop concurrency, at each output length measured."""
    closed = [lbl for lbl in level_order(labels) if lbl.startswith("c")]
    top: dict[str, str] = {}
    for label in closed:  # ascending concurrency: the last one per output length wins
        top[label.partition("-")[2]] = label
    return list(top.values())


def _div(a: Any, b: Any) -> float | None:
    return None if a is None or not b else float(a) / float(b)


def _f(value: Any, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def repeat_counts(summary: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """"direct 2, switchboard 2, vllm 1": runs per arm (the most at any level)."""
    counts = {arm: max((int(row.get("repeats", 0)) for row in rows.values()), default=0)
              for arm, rows in summary.items()}
    return ", ".join(f"{arm} {n}" for arm, n in counts.items())


def level_order(labels: Iterable[str]) -> list[str]:
    """c1 < c8 < c256 < c256-o256 < rate3: closed loop by concurrency, then longer outputs."""
    def key(label: str) -> tuple[int, float, float]:
        load, _, out = label.partition("-o")
        extra = float(out) if out else 0.0
        if load.startswith("c"):
            return (0, extra, float(load[1:]))
        return (1, extra, float(load[4:]))

    return sorted(set(labels), key=key)


def arms_table(summary: Mapping[str, Mapping[str, Mapping[str, Any]]],
               arms: Sequence[str]) -> str:
    head = ("| arm | load | out tok/s | req/s | TTFT p50 / p99 (ms) | TPOT p50 / p99 (ms) "
            "| ITL p50 / p99 (ms) | E2E p50 / p99 (ms) | errors | out tok/s per repeat |")
    lines = [head, "|" + " --- |" * 10]
    labels = level_order(label for arm in arms for label in summary.get(arm, {}))
    for label in labels:
        for arm in arms:
            row = summary.get(arm, {}).get(label)
            if row is None:
                continue
            spread = ", ".join(f"{v:,.0f}" for v in row["output_throughput_all"])
            lines.append(
                f"| {ARM_TITLES.get(arm, arm)} | {label} | {_f(row['output_throughput'])} "
                f"| {_f(row['request_throughput'], 2)} "
                f"| {_f(row['median_ttft_ms'])} / {_f(row['p99_ttft_ms'])} "
                f"| {_f(row['median_tpot_ms'])} / {_f(row['p99_tpot_ms'])} "
                f"| {_f(row['median_itl_ms'])} / {_f(row['p99_itl_ms'])} "
                f"| {_f(row['median_e2el_ms'])} / {_f(row['p99_e2el_ms'])} "
                f"| {row['failed']} | {spread} |"
            )
    return "\n".join(lines)


def ratios_table(summary: Mapping[str, Mapping[str, Mapping[str, Any]]],
                 arm: str = "switchboard") -> str:
    table = ratios(summary, arm)
    lines = ["| switchboard ÷ | load | out tok/s | req/s | TTFT p50 | TTFT p99 | TPOT p50 "
             "| ITL p50 | E2E p50 | E2E p99 |", "|" + " --- |" * 10]
    for peer, rows in table.items():
        for label in level_order(rows):
            r = rows[label]
            cells = [r[m] for m in ("output_throughput", "request_throughput", "median_ttft_ms",
                                    "p99_ttft_ms", "median_tpot_ms", "median_itl_ms",
                                    "median_e2el_ms", "p99_e2el_ms")]
            lines.append(f"| {ARM_TITLES[peer]} | {label} | "
                         + " | ".join(_f(c, 3) for c in cells) + " |")
    return "\n".join(lines)


def targets_table(checks: Sequence[Mapping[str, Any]]) -> str:
    lines = ["| figure | measured | target | met |", "| --- | --- | --- | --- |"]
    for c in checks:
        met = {True: "yes", False: "**no**", None: "—"}[c["met"]]
        name = f"switchboard ÷ {ARM_TITLES[c['peer']]}, {c['metric']} at {c['level']}"
        lines.append(f"| {name} | {_f(c['ratio'], 3)} | {c['target']} | {met} |")
    return "\n".join(lines)


def overhead_table(overhead: Mapping[str, Any]) -> str:
    gw = overhead["gateway"]
    added = overhead["added_latency_ms"]
    return "\n".join([
        "| fake-engine gateway, 1 core | measured | target |", "| --- | --- | --- |",
        f"| added latency per request, median (16-token stream, sequential; gateway "
        f"{gw['latency']['median_ms']:.3f} ms − bare uvicorn "
        f"{overhead['bare']['latency']['median_ms']:.3f} ms) | {added:.3f} ms | ≤ 1 ms |",
        f"| gateway latency p99, same load | {gw['latency']['p99_ms']:.3f} ms | — |",
        f"| streamed chunks/s (64 streams × 2000 tokens) | {gw['chunks']['events_per_s']:,.0f} "
        f"| ≥ 20,000 |",
        f"| requests/s (64 concurrent 1-token streams) | {gw['requests']['requests_per_s']:,.0f} "
        f"| — |",
        f"| errors | {sum(int(v['errors']) for v in gw.values())} | 0 |",
    ])


def markdown(meta: Mapping[str, Any], summary: Mapping[str, Mapping[str, Mapping[str, Any]]],
             overhead: Mapping[str, Any] | None, plots: Sequence[str]) -> str:
    arms = [a for a in ARM_TITLES if a in summary]
    parts = [f"# switchboard benchmark — {meta['title']}", "",
             f"- date (UTC): {meta['date']}", f"- command: `{meta['command']}`",
             f"- machine: {meta['machine']}", f"- model: `{meta['model']}`",
             f"- engine args (every arm): `{meta['engine_args']}`",
             *([f"- switchboard server settings: `{meta['server_settings']}`"]
               if meta.get("server_settings") else []),
             *([f"- {ARM_TITLES[MULTI_PROCESS_ARM]}: `server.api_processes: "
                f"{meta.get('api_processes')}`"] if MULTI_PROCESS_ARM in summary else []),
             f"- load: vLLM's `vllm.benchmarks.serve` (openai-chat, random dataset "
             f"{meta['input_len']} in / {meta['output_len']} out tokens, ignore_eos, seed "
             f"{meta['seed']})" + ("; two-engine arm: mixed QA + translation prompts, "
                                   "`model: auto`" if "switchboard-2" in summary else "")
             + (f", split over {meta['client_processes']} client processes"
                if (meta.get("client_processes") or 1) > 1 else ""),
             f"- repeats: {repeat_counts(summary) or meta['repeats']}, arms interleaved "
             "(order rotated each repeat); figures are medians over repeats", ""]
    if summary:
        parts += ["## Arms", "", arms_table(summary, arms), ""]
    recounted = [f"{arm} {label}" for arm in arms for label, row in summary[arm].items()
                 if row.get("recounted")]
    if recounted:
        parts += ["Output tok/s recounted from the fixed output length (the client re-tokenised "
                  "the text because the usage chunk came with a `choices` entry, "
                  "undercounting; its own figures are in the JSON as "
                  f"`output_throughput_counted`): {', '.join(recounted)}.", ""]
    for arm in GATEWAY_ARMS:
        if arm not in summary:
            continue
        title = "" if arm == "switchboard" else f" — {ARM_TITLES[arm]}"
        parts += [f"## Ratios{title}", "", ratios_table(summary, arm), ""]
        levels = target_levels(summary[arm])  # the arm's own: it may run without the other
        if levels:
            checks = check_targets(summary, levels, meta.get("preset", "cpu"), arm)
            parts += [f"## Targets{title}", "", targets_table(checks), ""]
    servers = [arm for arm in SERVERS if any(row.get("server_cpu_s_per_1k_tokens") is not None
                                             for row in summary.get(arm, {}).values())]
    if servers:
        parts += ["## CPU per token (HTTP arms)", "", cpu_table(summary, servers), ""]
    if "upstream" in summary and any(arm in summary for arm in FRONT_ENDS):
        parts += ["## Front-ends over one upstream", "",
                  "Every front-end arm of a repeat ran in front of the same `vllm serve` "
                  "(started once per repeat, warmed up, prefix cache reset before each arm); "
                  "`upstream` is that server measured bare.", "",
                  front_table(summary), "", "## Targets (front-ends)", "",
                  front_targets_table(front_checks(summary)), ""]
        if any(row.get("server_cpu_s_per_1k_tokens") is not None
               for row in summary["upstream"].values()):
            parts += ["## CPU per token", "", cpu_table(summary), ""]
    if overhead:
        parts += ["## Gateway overhead (fake engine, no model)", "", overhead_table(overhead), ""]
    if "mix" in meta:
        parts += [f"Two-engine arm, route split of the mixed prompts (classifier): {meta['mix']}",
                  ""]
    parts += [f"![{p}]({p})" for p in plots]
    return "\n".join(parts) + "\n"
