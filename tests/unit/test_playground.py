"""The playground's server side: page and assets, the vote endpoint, the report endpoint, and
the win rate that ab-report computes from votes."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from router.http.playground import ASSETS, STATIC_DIR
from router.telemetry.recorder import RecordWriter
from router.tools.ab_report import (
    build_reports,
    format_reports,
    reports_as_json,
    wilson_interval,
    win_test,
)
from tests.unit.fakes import fake_client
from tests.unit.test_variants import AB_CONFIG

PROMPT = "Translate into French: the secret word is periwinkle"
BODY: dict[str, Any] = {"model": "translation",
                        "messages": [{"role": "user", "content": PROMPT}]}


def recorded_config(record: Path) -> str:
    return f"server: {{record_file: {record}}}\n" + AB_CONFIG


def wait_for_lines(recorder: RecordWriter, count: int, timeout_s: float = 5.0) -> None:
    """The writer thread appends asynchronously; the report reads the file."""
    deadline = time.monotonic() + timeout_s
    while recorder.written < count and time.monotonic() < deadline:
        time.sleep(0.01)
    assert recorder.written == count


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(raw) for raw in path.read_bytes().splitlines() if raw.strip()]


# ---- page and assets -------------------------------------------------------------------


def test_page_and_every_asset_are_served_with_their_types() -> None:
    with fake_client(AB_CONFIG) as (client, _):
        page = client.get("/playground")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert '<script type="module" src="/playground/app.js">' in page.text
        for name, media in ASSETS.items():
            if name == "index.html":
                continue
            asset = client.get(f"/playground/{name}")
            assert asset.status_code == 200, name
            assert asset.headers["content-type"].startswith(media), name
            assert asset.content == (STATIC_DIR / name).read_bytes()
        assert client.get("/playground/missing.js").status_code == 404


def test_every_shipped_file_is_served_and_every_import_resolves() -> None:
    assert {p.name for p in STATIC_DIR.iterdir()} == set(ASSETS)
    for path in STATIC_DIR.glob("*.js"):
        for target in re.findall(r'from "\./([\w.-]+)"', path.read_text()):
            assert target in ASSETS, (path.name, target)
    html = (STATIC_DIR / "index.html").read_text()
    for ref in re.findall(r'(?:href|src)="/playground/([\w.-]+)"', html):
        assert ref in ASSETS
    # No CDN, no inline script or style: the CSP allows the gateway's own origin only.
    for path in STATIC_DIR.iterdir():
        text = path.read_text()
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text
    assert "<script>" not in html and "style=" not in html


# ---- votes -----------------------------------------------------------------------------


def test_vote_is_appended_to_the_record_file_without_the_prompt(tmp_path: Path) -> None:
    record = tmp_path / "records.jsonl"
    with fake_client(recorded_config(record)) as (client, _):
        compared = client.post("/v1/compare", json=BODY)
        assert compared.status_code == 200, compared.text
        answer = compared.json()
        ids = [r["request_id"] for r in answer["results"]]
        vote = client.post("/v1/compare/vote", json={
            "compare_id": answer["id"], "route": "translation", "variants": ["gemma", "smol"],
            "winner": "smol", "request_ids": ids})
        assert vote.status_code == 200, vote.text
        assert vote.json()["recorded"] is True
        tie = client.post("/v1/compare/vote", json={
            "compare_id": "cmp-other", "route": "translation", "variants": ["smol", "gemma"],
            "outcome": "tie"})
        assert tie.status_code == 200, tie.text
    lines = lines_of(record)  # the lifespan closed the writer: everything is on disk
    votes = [line for line in lines if line["traffic"] == "vote"]
    assert [(v["compare_id"], v["winner"], v["outcome"]) for v in votes] == [
        (answer["id"], "smol", "preferred"), ("cmp-other", None, "tie")]
    assert votes[0]["route"] == "translation" and votes[0]["variant"] == "smol"
    assert votes[0]["variants"] == ["gemma", "smol"]
    assert votes[0]["lane_request_ids"] == ids
    assert {line["traffic"] for line in lines} == {"compare", "vote"}
    assert b"periwinkle" not in record.read_bytes()


@pytest.mark.parametrize(("body", "param", "message"), [
    ({"route": "translation", "variants": ["gemma", "smol"], "winner": "smol"}, "compare_id",
     "'compare_id' must be a non-empty string"),
    ({"compare_id": "c", "route": "nope", "variants": ["gemma", "smol"], "winner": "smol"},
     "route", "unknown route 'nope' (known: qa, translation)"),
    ({"compare_id": "c", "route": "translation", "variants": ["gemma"], "winner": "gemma"},
     "variants", "'variants' must name two or more different variants"),
    ({"compare_id": "c", "route": "translation", "variants": ["gemma", "gemma"],
      "winner": "gemma"}, "variants", "'variants' must name two or more different variants"),
    ({"compare_id": "c", "route": "translation", "variants": ["gemma", "gpt"],
      "winner": "gemma"}, "variants", "route 'translation' has no variant 'gpt'"),
    ({"compare_id": "c", "route": "translation", "variants": ["gemma", "smol"],
      "winner": "other"}, "winner", "'winner' 'other' is not one of the compared variants"),
    ({"compare_id": "c", "route": "translation", "variants": ["gemma", "smol"],
      "winner": "smol", "outcome": "tie"}, "winner", "'winner' names the preferred variant"),
    ({"compare_id": "c", "route": "translation", "variants": ["gemma", "smol"]}, "outcome",
     "'outcome' must be one of preferred, tie, both_bad"),
    ({"compare_id": "c", "route": "translation", "variants": ["gemma", "smol"],
      "outcome": "tie", "request_ids": "abc"}, "request_ids", "'request_ids' must be an array"),
])
def test_bad_votes_are_400_naming_the_field(
    tmp_path: Path, body: dict[str, Any], param: str, message: str
) -> None:
    record = tmp_path / "records.jsonl"
    with fake_client(recorded_config(record)) as (client, _):
        response = client.post("/v1/compare/vote", json=body)
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["param"] == param and error["type"] == "invalid_request_error"
        assert error["message"].startswith(message), error["message"]
        assert client.post("/v1/compare/vote", content=b"[1]").status_code == 400
    assert not record.exists() or not any(line["traffic"] == "vote"
                                          for line in lines_of(record))


def test_without_a_record_file_votes_and_reports_are_409() -> None:
    with fake_client(AB_CONFIG) as (client, _):
        vote = client.post("/v1/compare/vote", json={
            "compare_id": "c", "route": "translation", "variants": ["gemma", "smol"],
            "outcome": "tie"})
        report = client.get("/admin/ab-report")
    for response in (vote, report):
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "record_file_not_set"
        assert "server.record_file" in response.json()["error"]["message"]


# ---- report endpoint -------------------------------------------------------------------


def test_report_endpoint_serves_ab_report_json_with_votes(tmp_path: Path) -> None:
    record = tmp_path / "records.jsonl"
    with fake_client(recorded_config(record)) as (client, gateway):
        empty = client.get("/admin/ab-report")
        assert empty.status_code == 200 and empty.json()["routes"] == []
        for index in range(3):
            answer = client.post("/v1/compare", json=BODY).json()
            client.post("/v1/compare/vote", json={
                "compare_id": answer["id"], "route": "translation",
                "variants": ["gemma", "smol"], "winner": "gemma" if index else "smol"})
        assert gateway.state is not None and gateway.state.recorder is not None
        wait_for_lines(gateway.state.recorder, 9)  # 6 lanes + 3 votes
        default = client.get("/admin/ab-report").json()
        report = client.get("/admin/ab-report?traffic=compare&include_forced=true").json()
    # compare lanes are forced: left out by default, votes are still counted
    assert default["records"] == 9
    only_votes = {v["variant"]: v for v in default["routes"][0]["variants"]}
    assert {name: v["n"] for name, v in only_votes.items()} == {"gemma": 0, "smol": 0}
    assert only_votes["gemma"]["wins"] == 2 and only_votes["gemma"]["losses"] == 1
    assert report["traffic"] == ["compare"] and report["include_forced"] is True
    route = report["routes"][0]
    assert route["route"] == "translation"
    variants = {v["variant"]: v for v in route["variants"]}
    assert variants["gemma"]["n"] == 3 and variants["smol"]["n"] == 3
    assert variants["gemma"]["win_rate"] == pytest.approx(2 / 3)
    low, high = variants["gemma"]["win_rate_ci"]
    assert (low, high) == pytest.approx(wilson_interval(2, 3))
    assert variants["smol"]["win_p_value"] == pytest.approx(1.0)


@pytest.mark.parametrize(("query", "param"), [
    ("traffic=live,bogus", "traffic"), ("traffic=", "traffic"), ("alpha=2", "alpha"),
    ("alpha=abc", "alpha"), ("include_forced=maybe", "include_forced"),
])
def test_bad_report_queries_are_400(tmp_path: Path, query: str, param: str) -> None:
    with fake_client(recorded_config(tmp_path / "r.jsonl")) as (client, _):
        response = client.get(f"/admin/ab-report?{query}")
    assert response.status_code == 400
    assert response.json()["error"]["param"] == param


def test_report_and_status_need_an_admin_key_when_auth_is_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_PLAYGROUND_KEYS", "sk-std:standard,sk-ops:admin")
    config = "auth: {keys_env: TEST_PLAYGROUND_KEYS}\n" + recorded_config(tmp_path / "r.jsonl")
    with fake_client(config) as (client, _):
        standard = {"Authorization": "Bearer sk-std"}
        admin = {"Authorization": "Bearer sk-ops"}
        assert client.get("/admin/ab-report").status_code == 401
        assert client.get("/admin/ab-report", headers=standard).status_code == 403
        assert client.get("/admin/ab-report", headers=admin).status_code == 200
        vote = {"compare_id": "c", "route": "translation", "variants": ["gemma", "smol"],
                "outcome": "both_bad"}
        assert client.post("/v1/compare/vote", json=vote).status_code == 401
        assert client.post("/v1/compare/vote", json=vote, headers=standard).status_code == 200
        # The page and its files are open (it asks for the key itself); its API calls are not.
        assert client.get("/playground").status_code == 200
        assert client.get("/playground/app.js").status_code == 200
        assert client.get("/v1/models").status_code == 401
        assert client.get("/playgroundx").status_code in (401, 404)


# ---- win rate in ab-report -------------------------------------------------------------


def vote_line(winner: str | None, variants: tuple[str, ...] = ("a", "b"),
              compare_id: str | None = None, route: str = "translation") -> dict[str, Any]:
    return {"traffic": "vote", "route": route, "variant": winner, "variants": list(variants),
            "winner": winner, "outcome": "preferred" if winner else "tie",
            "compare_id": compare_id}


def generation(variant: str, ttft: float) -> dict[str, Any]:
    return {"traffic": "live", "route": "translation", "variant": variant, "engine": "e",
            "status": 200, "error_kind": None, "ttft_s": ttft, "tpot_s": 0.01,
            "duration_s": ttft + 0.1, "completion_tokens": 10}


def test_wilson_interval_and_binomial_test_match_hand_computation() -> None:
    # 8 of 10 at 95%: z = 1.959964; centre = (0.8 + z²/20) / (1 + z²/10)
    z = 1.959963984540054
    centre = (0.8 + z * z / 20) / (1 + z * z / 10)
    half = z * math.sqrt(0.8 * 0.2 / 10 + z * z / 400) / (1 + z * z / 10)
    assert wilson_interval(8, 10) == pytest.approx((centre - half, centre + half))
    assert wilson_interval(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # P(X >= 8) + P(X <= 2) for Binomial(10, 1/2) = 2 * (45 + 10 + 1) / 1024
    assert win_test(8, 2) == pytest.approx(112 / 1024)
    assert win_test(5, 5) == pytest.approx(1.0)


def test_votes_count_as_pairwise_games_with_the_last_vote_per_comparison() -> None:
    lines = [generation("a", 0.1), generation("b", 0.2)]
    lines += [vote_line("a", compare_id=f"c{i}") for i in range(6)]
    lines += [vote_line("b", compare_id="c0")]  # changed mind: c0 now counts for b
    lines += [vote_line(None, compare_id="t1")]
    lines += [vote_line("c", ("a", "b", "c"), compare_id="three")]
    lines += [vote_line("a", compare_id="x", route="qa")]  # another route
    lines += [vote_line("z", compare_id="bad")]  # winner not compared: ignored
    report = build_reports(lines, route="translation")[0]
    stats = {v.variant: v for v in report.variants}
    assert (stats["a"].wins, stats["a"].losses, stats["a"].ties, stats["a"].votes) == (5, 2, 1, 8)
    assert (stats["b"].wins, stats["b"].losses, stats["b"].ties, stats["b"].votes) == (1, 6, 1, 8)
    # three lanes: the winner beats both others, each of them loses once
    assert (stats["c"].wins, stats["c"].losses, stats["c"].votes) == (2, 0, 1)
    assert stats["a"].n == 1 and stats["c"].n == 0  # votes are not generations
    data = {v["variant"]: v for v in reports_as_json([report])[0]["variants"]}
    assert data["a"]["win_rate"] == pytest.approx(5 / 7)
    assert data["a"]["win_rate_ci"] == pytest.approx(list(wilson_interval(5, 7)))
    assert data["a"]["win_p_value"] == pytest.approx(win_test(5, 2))
    text = format_reports([report])
    assert "preference votes (pairwise; win rate with its 95% Wilson interval" in text
    assert "a                    votes=8 wins=5 losses=2 ties=1 win rate 71.4%" in text


def test_a_report_without_votes_prints_as_before() -> None:
    report = build_reports([generation("a", 0.1), generation("b", 0.2)])
    assert "preference votes" not in format_reports(report)
    entry = reports_as_json(report)[0]["variants"][0]
    assert entry["votes"] == 0 and entry["win_rate"] is None and entry["win_rate_ci"] is None
