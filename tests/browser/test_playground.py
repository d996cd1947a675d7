"""The playground in a real Chromium, on fake engines served over real sockets: the page
loads clean, classifies, streams two lanes at once, stops (the engines keep nothing), votes
into the record file, renders the report; keyboard only; 360 px wide."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import orjson
import pytest

from tests.browser.conftest import PageErrors
from tests.browser.harness import FakeServer

sync_api = pytest.importorskip("playwright.sync_api",
                               reason="Playwright is not installed (pip install playwright)")
expect = sync_api.expect

TRANSLATE = "Translate into French: good morning, how are you today?"
BOTH_STREAMING = """() => {
  const lanes = [...document.querySelectorAll('.lane')];
  return lanes.length === 2 && lanes.every(
    (lane) => Number(lane.dataset.tokens) >= 3 && lane.dataset.state === 'streaming');
}"""
ALL_DONE = "() => [...document.querySelectorAll('.lane')].every(l => l.dataset.state === 'done')"


def open_playground(page: Any, server: FakeServer) -> None:
    page.goto(f"{server.base_url}/playground")
    expect(page.locator("#routes-table tbody tr")).to_have_count(2)
    expect(page.locator("#engines-table tbody tr")).to_have_count(2)


def classify(page: Any, text: str) -> Any:
    page.fill("#prompt", text)
    decision = page.locator("#decision")
    expect(decision.locator('[data-field="route"]')).to_have_text("translation")
    expect(page.locator('#variant-choice input[name="variant"]')).to_have_count(2)
    return decision


def lane_tokens(page: Any) -> dict[str, int]:
    values: dict[str, int] = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('.lane')]"
        ".map(l => [l.dataset.variant, Number(l.dataset.tokens)]))")
    return values


def wait_for_vote_line(server: FakeServer, timeout_s: float = 5.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for raw in server.record_lines():
            line: dict[str, Any] = orjson.loads(raw)
            if line["traffic"] == "vote":
                return line
        time.sleep(0.05)
    raise AssertionError(f"no vote line in {server.record_file}")


def wait_for_records(server: FakeServer, count: int, timeout_s: float = 5.0) -> None:
    """Lines reach the file from the record writer's thread, a moment after the answer."""
    deadline = time.monotonic() + timeout_s
    while len(server.record_lines()) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(server.record_lines()) >= count


def test_page_loads_without_console_errors(page: Any, server: FakeServer,
                                           page_errors: PageErrors) -> None:
    open_playground(page, server)
    routes = page.locator("#routes-table tbody")
    expect(routes).to_contain_text("translation")
    expect(routes).to_contain_text("gemma, smol")
    engines = page.locator("#engines-table tbody")
    expect(engines).to_contain_text("fake-mt")
    expect(engines.locator("tr").first).to_contain_text("ready")
    expect(page.locator("#route-select option")).to_have_count(3)  # auto, qa, translation
    assert page_errors.messages == []


def test_classification_of_an_english_and_a_non_english_translation_request(
    page: Any, server: FakeServer, page_errors: PageErrors
) -> None:
    open_playground(page, server)
    decision = classify(page, TRANSLATE)
    expect(decision.locator('[data-field="languages"]')).to_have_text("English → French")
    expect(decision.locator('[data-field="tier"]')).to_have_text("language")
    expect(decision.locator('[data-field="confidence"]')).not_to_have_text("–")
    expect(decision.locator('[data-field="reason"]')).to_contain_text("translate")
    decision = classify(page, "Übersetze ins Englische: Guten Morgen, wie geht es dir heute?")
    expect(decision.locator('[data-field="languages"]')).to_have_text("German → English")
    expect(decision.locator('[data-field="reason"]')).to_contain_text("übersetze")
    page.fill("#prompt", "What is the capital of France?")
    expect(decision.locator('[data-field="route"]')).to_have_text("qa")
    expect(page.locator("#variant-choice")).to_contain_text("nothing to compare")
    assert page_errors.messages == []


def test_two_lanes_stream_concurrently_without_layout_shift(
    page: Any, server: FakeServer, page_errors: PageErrors
) -> None:
    open_playground(page, server)
    classify(page, TRANSLATE)
    page.fill("#max-tokens", "100")
    page.evaluate("""() => {
      window.shifts = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          if (!entry.hadRecentInput) window.shifts.push([entry.startTime, entry.value]);
        }
      }).observe({ type: 'layout-shift', buffered: true });
    }""")
    page.click("#compare-button")
    # Counts rise in both lanes before either has finished.
    page.wait_for_function(BOTH_STREAMING)
    streaming_since = page.evaluate("() => performance.now()")
    boxes = page.evaluate("() => [...document.querySelectorAll('.lane')].map(l => "
                          "{ const r = l.getBoundingClientRect(); return [r.x, r.y, r.width, "
                          "r.height]; })")
    first = lane_tokens(page)
    page.wait_for_function("""(first) => [...document.querySelectorAll('.lane')].every(
      (l) => Number(l.dataset.tokens) > first[l.dataset.variant] + 3
        && l.dataset.state === 'streaming')""", arg=first)
    page.wait_for_function(ALL_DONE)
    assert lane_tokens(page) == {"gemma": 100, "smol": 100}
    expect(page.locator('.lane[data-variant="gemma"] .text')).to_contain_text("alpha bravo")
    for lane in page.locator(".lane").all():
        expect(lane.locator(".stats dd").nth(0)).to_have_text(re.compile(r"^\d+ ms$"))
        expect(lane.locator(".stats dd").nth(1)).to_have_text(re.compile(r"^\d+\.\d$"))
    after = page.evaluate("() => [...document.querySelectorAll('.lane')].map(l => "
                          "{ const r = l.getBoundingClientRect(); return [r.x, r.y, r.width, "
                          "r.height]; })")
    assert after == boxes  # the lanes did not move or grow while tokens streamed in
    shifts = page.evaluate("(since) => window.shifts.filter(([t]) => t >= since)",
                           streaming_since)
    assert shifts == []
    expect(page.locator("#compare-status")).to_have_text("Finished.")
    expect(page.locator("#vote-button")).to_be_enabled()
    assert page_errors.messages == []


def test_stop_aborts_and_the_engines_keep_nothing(
    page: Any, server: FakeServer, page_errors: PageErrors
) -> None:
    open_playground(page, server)
    classify(page, TRANSLATE)
    page.fill("#max-tokens", "2000")  # about a minute per lane at the fake engines' pace
    page.click("#compare-button")
    page.wait_for_function(BOTH_STREAMING)
    page.click("#stop-button")
    status = page.locator("#compare-status")
    expect(status).to_have_text("Stopped: the engines hold 0 unfinished requests.")
    expect(status).to_have_attribute("data-unfinished", "0")
    expect(page.locator('.lane[data-state="stopped"]')).to_have_count(2)
    stopped_at = lane_tokens(page)
    time.sleep(0.3)
    assert lane_tokens(page) == stopped_at and max(stopped_at.values()) < 2000
    # The gateway's own view, and the engines': every request aborted, none left running.
    engines = httpx.get(f"{server.base_url}/admin/status").json()["engines"]
    assert {name: e["engine_unfinished"] for name, e in engines.items()} == {
        "qa": 0, "translation": 0}
    assert all(engine.aborted and not engine.running for engine in server.engines.values())
    expect(page.locator("#vote-button")).to_be_disabled()
    expect(page.locator("#compare-button")).to_be_enabled()
    assert page_errors.messages == []


def test_vote_lands_in_the_record_file_and_the_report_renders(
    page: Any, server: FakeServer, page_errors: PageErrors
) -> None:
    open_playground(page, server)
    classify(page, TRANSLATE)
    page.fill("#max-tokens", "12")
    page.click("#compare-button")
    page.wait_for_function(ALL_DONE)
    page.check('#vote-options input[value="winner:smol"]')
    page.click("#vote-button")
    expect(page.locator("#vote-status")).to_have_text("Vote recorded.")
    vote = wait_for_vote_line(server)
    assert vote["route"] == "translation" and vote["winner"] == "smol"
    assert vote["variants"] == ["gemma", "smol"] and vote["compare_id"].startswith("cmp-")
    assert len(vote["lane_request_ids"]) == 2
    lanes = [orjson.loads(raw) for raw in server.record_lines()]
    assert {line["request_id"] for line in lanes if line["traffic"] == "compare"} == set(
        vote["lane_request_ids"])
    assert "good morning" not in server.record_file.read_text()  # never the prompt

    page.click("#load-report")
    route = page.locator('.report-route[data-route="translation"]')
    expect(route).to_be_visible()
    smol = route.locator('.report-table tr[data-variant="smol"]')
    expect(smol).to_contain_text("100.0%")  # its win rate: 1 win, 0 losses
    expect(route.locator('.report-table tr[data-variant="gemma"]')).to_contain_text("0.0%")
    cells = smol.locator("td")
    expect(cells.nth(1)).to_have_text("1")  # n: the forced compare lane is included
    expect(route.locator("figure.chart svg")).to_have_count(2)  # TTFT bars, win rates
    expect(route.locator("figure.chart svg rect.bar")).not_to_have_count(0)
    expect(page.locator("#report-message")).to_contain_text("3 records")
    assert page_errors.messages == []


def test_keyboard_alone_compares_votes_and_loads_the_report(
    page: Any, server: FakeServer, page_errors: PageErrors
) -> None:
    open_playground(page, server)
    for _ in range(20):  # Tab through the header to the prompt
        if page.evaluate("() => document.activeElement.id") == "prompt":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "prompt"
    page.keyboard.type("Translate into German: thank you very much for the lovely dinner")
    page.fill("#max-tokens", "8")
    page.focus("#prompt")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(ALL_DONE)
    expect(page.locator("#vote-button")).to_be_enabled()
    page.focus('#vote-options input[value="winner:gemma"]')
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "vote-button"
    page.keyboard.press("Enter")
    expect(page.locator("#vote-status")).to_have_text("Vote recorded.")
    assert wait_for_vote_line(server)["winner"] == "gemma"
    page.focus("#load-report")
    page.keyboard.press("Enter")
    expect(page.locator('.report-table tr[data-variant="gemma"]').first).to_contain_text(
        "100.0%")
    # Escape stops a running comparison.
    page.fill("#max-tokens", "2000")
    page.focus("#prompt")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(BOTH_STREAMING)
    page.keyboard.press("Escape")
    expect(page.locator("#compare-status")).to_have_text(
        "Stopped: the engines hold 0 unfinished requests.")
    assert page_errors.messages == []


def test_readable_at_360_px_without_horizontal_scrolling(
    browser: Any, server: FakeServer, page_errors: PageErrors
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 780})
    page = context.new_page()
    page.on("console", page_errors.console)
    page.on("pageerror", page_errors.exception)
    try:
        open_playground(page, server)
        classify(page, TRANSLATE)
        page.fill("#max-tokens", "30")
        page.click("#compare-button")
        page.wait_for_function(ALL_DONE)
        wait_for_records(server, 2)
        page.click("#load-report")
        expect(page.locator(".report-route")).to_have_count(1)
        # Nothing, not even a long record file path, widens the page past the screen.
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
        first, second = (box for box in (page.locator(".lane").nth(i).bounding_box()
                                          for i in range(2)) if box is not None)
        assert second["y"] >= first["y"] + first["height"]  # stacked, full width
        assert first["width"] > 300
        font = page.evaluate("() => parseFloat(getComputedStyle(document.body).fontSize)")
        assert font >= 16
    finally:
        context.close()
    assert page_errors.messages == []
