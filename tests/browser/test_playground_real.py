"""The playground against real vLLM CPU engines (the default routes.yaml: Gemma-3 and SmolLM2
on the translation route): classify, compare both variants to the end, vote, stop a second
comparison mid-stream and find nothing left in the engines."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from tests.browser.conftest import PageErrors
from tests.integration.conftest import REPO, RunningGateway, start_gateway, stop_gateway

sync_api = pytest.importorskip("playwright.sync_api",
                               reason="Playwright is not installed (pip install playwright)")
expect = sync_api.expect

pytestmark = pytest.mark.integration

LONG_TEXT = ("Translate into French: The committee met on Thursday to review the budget for "
             "the coming year. After a long discussion about schools, roads and the new "
             "library, the members agreed to postpone the final vote until next month, when "
             "the updated figures from the finance office will be available to everyone.")
LANE_STATES = ("() => Object.fromEntries([...document.querySelectorAll('.lane')]"
               ".map(l => [l.dataset.variant, l.dataset.state]))")


@pytest.fixture(scope="module")
def real_gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningGateway]:
    folder = tmp_path_factory.mktemp("playground-real")
    config = yaml.safe_load((REPO / "routes.yaml").read_text())
    config.setdefault("server", {})["record_file"] = str(folder / "records.jsonl")
    config_path = folder / "routes.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    running = start_gateway(config_path, folder / "gateway.log")
    yield running
    stop_gateway(running)


def test_playground_on_real_engines(browser: Any, real_gateway: RunningGateway,
                                    page_errors: PageErrors, tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("console", page_errors.console)
    page.on("pageerror", page_errors.exception)
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{real_gateway.base_url}/playground")
        expect(page.locator("#engines-table tbody")).to_contain_text("ready")
        page.fill("#prompt", "Translate into German: Thank you for the lovely dinner.")
        decision = page.locator("#decision")
        expect(decision.locator('[data-field="route"]')).to_have_text("translation")
        expect(decision.locator('[data-field="languages"]')).to_have_text("English → German")
        expect(page.locator('#variant-choice input[name="variant"]')).to_have_count(2)
        page.fill("#max-tokens", "24")
        page.click("#compare-button")
        page.wait_for_function("() => [...document.querySelectorAll('.lane')]"
                               ".every(l => l.dataset.state === 'done')")
        for lane in page.locator(".lane").all():
            # The route's stop string ("\n") may end an answer at its first token: a count
            # and a TTFT, but possibly no text.
            assert int(lane.get_attribute("data-tokens") or 0) > 0
            expect(lane.locator(".stats dd").first).to_contain_text("ms")
        expect(page.locator('.lane[data-variant="gemma-fewshot"] .text')).not_to_be_empty()
        page.check('#vote-options input[value="winner:gemma-fewshot"]')
        page.click("#vote-button")
        expect(page.locator("#vote-status")).to_have_text("Vote recorded.")
        record_file = Path(str(real_gateway.status()["config"]["path"])).parent / "records.jsonl"
        deadline = time.monotonic() + 10
        votes: list[dict[str, Any]] = []
        while not votes and time.monotonic() < deadline:
            votes = [line for raw in record_file.read_bytes().splitlines()
                     if (line := orjson.loads(raw))["traffic"] == "vote"]
            time.sleep(0.1)
        assert votes and votes[0]["winner"] == "gemma-fewshot"

        # Stop a long answer mid-stream: the engines must keep no request.
        page.fill("#prompt", LONG_TEXT)
        expect(decision.locator('[data-field="languages"]')).to_have_text("English → French")
        page.fill("#max-tokens", "400")
        page.click("#compare-button")
        page.wait_for_function("() => [...document.querySelectorAll('.lane')].some("
                               "l => l.dataset.state === 'streaming' && l.dataset.tokens >= 2)")
        page.click("#stop-button")
        expect(page.locator("#compare-status")).to_have_text(
            "Stopped: the engines hold 0 unfinished requests.", timeout=30_000)
        states = page.evaluate(LANE_STATES)
        assert "stopped" in states.values(), states  # cut short, not finished
        for engine in ("qa", "translation"):
            assert real_gateway.wait_engine_idle(engine) == 0
    finally:
        context.close()
    assert page_errors.messages == []
