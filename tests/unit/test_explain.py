"""Routing explanations: /v1/classify?explain=1 and `switchboard explain`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.unit.fakes import fake_client

REPO = Path(__file__).resolve().parents[2]


def test_classify_explains_every_tier_only_when_asked() -> None:
    body = {"messages": [{"role": "user", "content": "how do you say thank you in Japanese"}]}
    with fake_client() as (client, _):
        plain = client.post("/v1/classify", json=body).json()
        explained = client.post("/v1/classify?explain=1", json=body).json()
    assert "explain" not in plain
    assert explained["route"] == plain["route"] == "translation"
    tiers = explained["explain"]["tiers"]
    assert set(tiers) >= {"rules", "examples", "signals", "default"}
    learned = tiers["signals"]["translation"]["learned"]
    assert 0.5 < learned["probability"] <= 1.0
    assert explained["explain"]["decision"]["route"] == "translation"


def test_the_cli_prints_the_same_explanation_for_a_question() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "router.cli", "explain", "What is the capital of Japan?",
         "--config", str(REPO / "routes.yaml")],
        cwd=REPO, capture_output=True, text=True, check=True)
    explained = json.loads(out.stdout)
    assert explained["decision"]["route"] == "qa"
    assert explained["tiers"]["signals"]["translation"]["learned"]["probability"] < 0.5
