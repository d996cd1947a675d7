"""``switchboard ab-report``: per route and variant statistics from the record file.

For every (route, variant): n, error rate, TTFT / TPOT / end-to-end p50 and p95 and output
length, over the requests that succeeded. Each variant is tested against the route's
baseline (``--baseline``, else the variant with the most requests):

- latencies and output length: two-sided Mann-Whitney U test (no normality assumption;
  latency distributions are skewed). scipy picks the exact distribution for small samples
  without ties and the normal approximation (tie- and continuity-corrected) otherwise;
- error rate: Fisher's exact test when any expected cell count is below 5, else the
  two-proportion z test with a pooled standard error.

"significant" means p < alpha (0.05 by default), for each test on its own: with many
variants and metrics, some will pass by chance (no multiple-comparison correction).
Client disconnects (499) count neither as errors nor as samples.

Preference votes (``traffic: "vote"`` lines, written by the playground's vote endpoint) count
per variant as pairwise games: the chosen variant beats every other variant of that
comparison, each of those loses once; a tie or "both bad" is a tie for all. The win rate is
wins / (wins + losses) with a Wilson score interval at 1 - alpha and an exact two-sided
binomial test against 0.5 (what a coin would give). With three or more lanes the games of one
comparison are not independent, so the interval is then a little too narrow. A comparison
voted on twice counts once, with its last vote. Votes are read whatever ``traffic`` selects.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

NOT_ERRORS = frozenset({"client_closed"})
VOTE_TRAFFIC = "vote"
LATENCY_METRICS = ("ttft_s", "tpot_s", "duration_s")
METRIC_LABELS = {"ttft_s": "TTFT", "tpot_s": "TPOT", "duration_s": "E2E",
                 "completion_tokens": "output tokens"}


@dataclass
class VariantStats:
    route: str
    variant: str
    engines: set[str] = field(default_factory=set)
    traffic: set[str] = field(default_factory=set)
    n: int = 0
    errors: int = 0
    client_closed: int = 0
    samples: dict[str, list[float]] = field(
        default_factory=lambda: {m: [] for m in (*LATENCY_METRICS, "completion_tokens")}
    )
    # Preference votes, as pairwise games (see the module docstring).
    votes: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0

    @property
    def error_rate(self) -> float:
        return self.errors / self.n if self.n else 0.0

    def add(self, line: Mapping[str, Any]) -> None:
        if line.get("engine"):
            self.engines.add(str(line["engine"]))
        self.traffic.add(str(line.get("traffic") or "live"))
        kind = line.get("error_kind")
        if kind in NOT_ERRORS:
            self.client_closed += 1
            return
        self.n += 1
        if kind is not None:
            self.errors += 1
            return
        for metric, values in self.samples.items():
            value = line.get(metric)
            if isinstance(value, int | float) and math.isfinite(value):
                values.append(float(value))

    def quantile(self, metric: str, q: float) -> float | None:
        return quantile(self.samples[metric], q)

    def win_rate(self) -> float | None:
        decided = self.wins + self.losses
        return self.wins / decided if decided else None

    def mean(self, metric: str) -> float | None:
        values = self.samples[metric]
        return sum(values) / len(values) if values else None


@dataclass(frozen=True, slots=True)
class TestResult:
    metric: str
    test: str
    statistic: float
    p_value: float
    significant: bool
    n_baseline: int
    n_variant: int
    # variant minus baseline: median difference for latencies, rate difference for errors
    difference: float | None = None


@dataclass
class RouteReport:
    route: str
    baseline: str
    variants: list[VariantStats]
    tests: dict[str, list[TestResult]]


def quantile(values: Sequence[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default, 'type 7')."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def mann_whitney(baseline: Sequence[float], variant: Sequence[float]) -> tuple[float, float]:
    """Two-sided Mann-Whitney U; returns (U of the variant sample, p)."""
    from scipy.stats import mannwhitneyu

    result = mannwhitneyu(variant, baseline, alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


def error_rate_test(
    errors_a: int, n_a: int, errors_b: int, n_b: int
) -> tuple[str, float, float]:
    """(test name, statistic, p) comparing the error rates of two samples."""
    total = n_a + n_b
    failures = errors_a + errors_b
    expected = [n * failures / total for n in (n_a, n_b)]
    expected += [n * (total - failures) / total for n in (n_a, n_b)]
    if min(expected) < 5:
        from scipy.stats import fisher_exact

        table = [[errors_a, n_a - errors_a], [errors_b, n_b - errors_b]]
        odds, p = fisher_exact(table, alternative="two-sided")
        return "Fisher exact", float(odds), float(p)
    from scipy.stats import norm

    pooled = failures / total
    se = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    z = (errors_b / n_b - errors_a / n_a) / se
    return "two-proportion z", z, float(2 * norm.sf(abs(z)))


def wilson_interval(successes: int, trials: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (sound near 0 and 1 and for small n,
    where the normal 'Wald' interval is not)."""
    if trials <= 0:
        return 0.0, 1.0
    from scipy.stats import norm

    z = float(norm.ppf(1 - alpha / 2))
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def win_test(wins: int, losses: int) -> float:
    """Exact two-sided binomial test of wins against losses at even odds; returns p."""
    from scipy.stats import binomtest

    return float(binomtest(wins, wins + losses, 0.5, alternative="two-sided").pvalue)


def latest_votes(lines: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The vote lines, one per comparison (its last vote); votes without an id all count."""
    by_comparison: dict[Any, Mapping[str, Any]] = {}
    for index, line in enumerate(lines):
        if line.get("traffic") == VOTE_TRAFFIC:
            by_comparison[line.get("compare_id") or ("line", index)] = line
    return list(by_comparison.values())


def _add_vote(stats: Mapping[str, VariantStats], winner: str | None) -> None:
    others = len(stats) - 1
    for name, variant in stats.items():
        variant.votes += 1
        if winner is None:
            variant.ties += 1
        elif name == winner:
            variant.wins += others
        else:
            variant.losses += 1


def group(
    lines: Iterable[Mapping[str, Any]],
    traffic: Sequence[str] = ("live", "shadow"),
    route: str | None = None,
    include_aborted: bool = False,
    include_forced: bool = False,
) -> dict[str, dict[str, VariantStats]]:
    """Lines by route and variant. Left out unless asked for: requests the client or the
    gateway cut short (``aborted``: they say nothing about the variant) and requests whose
    caller picked the variant (``forced``: self-selected traffic)."""
    out: dict[str, dict[str, VariantStats]] = {}
    lines = list(lines)
    for vote in latest_votes(lines):
        name, variants, winner = vote.get("route"), vote.get("variants"), vote.get("winner")
        if (not name or (route is not None and name != route) or not isinstance(variants, list)
                or len(set(variants)) < 2 or (winner is not None and winner not in variants)):
            continue
        by_name = out.setdefault(str(name), {})
        _add_vote({str(v): by_name.setdefault(str(v), VariantStats(str(name), str(v)))
                   for v in dict.fromkeys(variants)}, winner)
    for line in lines:
        if (line.get("traffic") or "live") not in traffic:
            continue
        if (line.get("aborted") and not include_aborted) or (
                line.get("forced") and not include_forced):
            continue
        name = line.get("route")
        if not name or (route is not None and name != route):
            continue
        variant = line.get("variant") or "(none)"
        stats = out.setdefault(name, {}).setdefault(variant, VariantStats(name, variant))
        stats.add(line)
    return out


def compare(base: VariantStats, other: VariantStats, alpha: float) -> list[TestResult]:
    results: list[TestResult] = []
    if base.n and other.n and (base.errors or other.errors):
        name, stat, p = error_rate_test(base.errors, base.n, other.errors, other.n)
        results.append(TestResult("error_rate", name, stat, p, p < alpha, base.n, other.n,
                                  other.error_rate - base.error_rate))
    for metric in (*LATENCY_METRICS, "completion_tokens"):
        a, b = base.samples[metric], other.samples[metric]
        if len(a) < 2 or len(b) < 2:
            continue
        u, p = mann_whitney(a, b)
        diff_a, diff_b = quantile(a, 0.5), quantile(b, 0.5)
        diff = None if diff_a is None or diff_b is None else diff_b - diff_a
        results.append(TestResult(metric, "Mann-Whitney U", u, p, p < alpha, len(a), len(b),
                                  diff))
    return results


def build_reports(
    lines: Iterable[Mapping[str, Any]],
    traffic: Sequence[str] = ("live", "shadow"),
    route: str | None = None,
    baseline: str | None = None,
    alpha: float = 0.05,
    include_aborted: bool = False,
    include_forced: bool = False,
) -> list[RouteReport]:
    reports: list[RouteReport] = []
    for name, variants in group(lines, traffic, route, include_aborted,
                                include_forced).items():
        ordered = sorted(variants.values(), key=lambda v: v.variant)
        if baseline is not None and baseline in variants:
            base = variants[baseline]
        else:
            live_first = sorted(ordered, key=lambda v: ("live" not in v.traffic, -v.n))
            base = live_first[0]
        ordered = [base, *(v for v in ordered if v is not base)]
        tests = {v.variant: compare(base, v, alpha) for v in ordered if v is not base}
        reports.append(RouteReport(name, base.variant, ordered, tests))
    return reports


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def format_reports(reports: Sequence[RouteReport], alpha: float = 0.05) -> str:
    if not reports:
        return "no completed generations recorded\n"
    lines: list[str] = []
    header = (f"{'variant':<20} {'traffic':<13} {'engine':<12} {'n':>6} {'err %':>6} "
              f"{'TTFT p50':>9} {'p95':>8} {'TPOT p50':>9} {'p95':>8} {'E2E p50':>9} "
              f"{'p95':>8} {'out mean':>8} {'p50':>6}")
    for report in reports:
        lines.append(f"route {report.route}  (baseline: {report.baseline}; times in ms)")
        lines.append(header)
        for v in report.variants:
            lines.append(
                f"{v.variant:<20} {','.join(sorted(v.traffic)):<13} "
                f"{','.join(sorted(v.engines)):<12} {v.n:>6} {100 * v.error_rate:>6.1f} "
                f"{_ms(v.quantile('ttft_s', .5)):>9} {_ms(v.quantile('ttft_s', .95)):>8} "
                f"{_ms(v.quantile('tpot_s', .5)):>9} {_ms(v.quantile('tpot_s', .95)):>8} "
                f"{_ms(v.quantile('duration_s', .5)):>9} {_ms(v.quantile('duration_s', .95)):>8} "
                f"{_num(v.mean('completion_tokens')):>8} "
                f"{_num(v.quantile('completion_tokens', .5)):>6}"
            )
        for variant, tests in report.tests.items():
            lines.append(f"  {variant} vs {report.baseline}:")
            if not tests:
                lines.append("    too few samples to test")
            for t in tests:
                verdict = f"significant at {alpha:g}" if t.significant else "not significant"
                if t.metric == "error_rate":
                    diff = "" if t.difference is None else f", {100 * t.difference:+.1f} pp"
                    label, stat = "error rate", ("odds ratio" if t.test == "Fisher exact"
                                                 else "z")
                elif t.metric == "completion_tokens":
                    diff = "" if t.difference is None else f", median {t.difference:+.1f}"
                    label, stat = METRIC_LABELS[t.metric], "U"
                else:
                    diff = ("" if t.difference is None
                            else f", median {1000 * t.difference:+.1f} ms")
                    label, stat = METRIC_LABELS[t.metric], "U"
                lines.append(
                    f"    {label:<13} {t.test}: {stat}={t.statistic:.4g}, p={t.p_value:.4g} "
                    f"(n={t.n_baseline} vs {t.n_variant}{diff}) -> {verdict}"
                )
        lines.extend(_format_votes(report, alpha))
        lines.append("")
    return "\n".join(lines)


def _format_votes(report: RouteReport, alpha: float) -> list[str]:
    voted = [v for v in report.variants if v.votes]
    if not voted:
        return []
    level = f"{100 * (1 - alpha):g}%"
    out = [f"  preference votes (pairwise; win rate with its {level} Wilson interval, "
           "binomial test against 0.5):"]
    for v in voted:
        summary = f"    {v.variant:<20} votes={v.votes} wins={v.wins} losses={v.losses} " \
                  f"ties={v.ties}"
        rate = v.win_rate()
        if rate is None:
            out.append(f"{summary} -> no decided games")
            continue
        low, high = wilson_interval(v.wins, v.wins + v.losses, alpha)
        p = win_test(v.wins, v.losses)
        verdict = f"significant at {alpha:g}" if p < alpha else "not significant"
        out.append(f"{summary} win rate {100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}] "
                   f"p={p:.4g} -> {verdict}")
    return out


def _votes_json(v: VariantStats, alpha: float) -> dict[str, Any]:
    rate = v.win_rate()
    entry: dict[str, Any] = {"votes": v.votes, "wins": v.wins, "losses": v.losses,
                             "ties": v.ties, "win_rate": rate, "win_rate_ci": None,
                             "win_p_value": None}
    if rate is not None:
        entry["win_rate_ci"] = list(wilson_interval(v.wins, v.wins + v.losses, alpha))
        entry["win_p_value"] = win_test(v.wins, v.losses)
    return entry


def reports_as_json(reports: Sequence[RouteReport], alpha: float = 0.05) -> list[dict[str, Any]]:
    out = []
    for r in reports:
        variants = []
        for v in r.variants:
            entry: dict[str, Any] = {
                "variant": v.variant, "engines": sorted(v.engines), "traffic": sorted(v.traffic),
                "n": v.n, "errors": v.errors, "error_rate": v.error_rate,
                "client_closed": v.client_closed,
                "output_tokens_mean": v.mean("completion_tokens"),
            }
            for metric in (*LATENCY_METRICS, "completion_tokens"):
                entry[f"{metric}_p50"] = v.quantile(metric, 0.5)
                entry[f"{metric}_p95"] = v.quantile(metric, 0.95)
            entry.update(_votes_json(v, alpha))
            variants.append(entry)
        tests = {name: [{"metric": t.metric, "test": t.test, "statistic": t.statistic,
                         "p_value": t.p_value, "significant": t.significant,
                         "difference": t.difference} for t in ts]
                 for name, ts in r.tests.items()}
        out.append({"route": r.route, "baseline": r.baseline, "variants": variants,
                    "tests": tests})
    return out


def plot(reports: Sequence[RouteReport], path: str) -> None:
    """Latency distributions side by side: one row per route, TTFT / TPOT / E2E columns."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = max(1, len(reports))
    fig, axes = plt.subplots(rows, 3, figsize=(15, 4 * rows), squeeze=False)
    for row, report in enumerate(reports):
        for col, metric in enumerate(LATENCY_METRICS):
            ax = axes[row][col]
            data = [[x * 1000 for x in v.samples[metric]] for v in report.variants]
            names = [f"{v.variant}\n(n={len(d)})" for v, d in zip(report.variants, data,
                                                                  strict=True)]
            present = [(n, d) for n, d in zip(names, data, strict=True) if d]
            if present:
                ax.boxplot([d for _, d in present], showfliers=True)
                ax.set_xticks(range(1, len(present) + 1), [n for n, _ in present])
            ax.set_title(f"{report.route}: {METRIC_LABELS[metric]}")
            ax.set_ylabel("ms")
            ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
