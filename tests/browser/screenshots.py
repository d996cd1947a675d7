"""Screenshots of the playground for the README: `python -m tests.browser.screenshots docs`.

Runs the page on fake engines in the system Chromium: a few comparisons with votes (so the
report has win rates), then one comparison left on screen, at 360 px and at 1440 px.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from tests.browser.harness import CHROMIUM_ARGS, chromium_path, fake_server

PROMPT = "Translate into French: the meeting moved to Thursday at ten."
ALL_DONE = "() => [...document.querySelectorAll('.lane')].every(l => l.dataset.state === 'done')"


def compare_and_vote(page: Any, winner: str | None) -> None:
    page.click("#compare-button")
    page.wait_for_function(ALL_DONE)
    if winner is not None:
        page.check(f'#vote-options input[value="{winner}"]')
        page.click("#vote-button")
        page.wait_for_selector("#vote-status:text('Vote recorded.')")


def shoot(browser: Any, base_url: str, width: int, height: int, path: Path) -> None:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(f"{base_url}/playground")
    page.wait_for_selector("#routes-table tbody tr")
    page.fill("#prompt", PROMPT)
    page.wait_for_selector('#variant-choice input[name="variant"]')
    page.fill("#max-tokens", "24")
    compare_and_vote(page, None)
    page.click("#load-report")
    page.wait_for_selector(".report-route")
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=True)
    page.close()


def main(out_dir: str) -> int:
    executable = chromium_path()
    if executable is None:
        print("no Chromium: apt-get install chromium", file=sys.stderr)
        return 1
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, \
            fake_server(Path(tmp) / "records.jsonl", token_delay_s=0.01) as server, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable,
                                             args=list(CHROMIUM_ARGS))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server.base_url}/playground")
        page.wait_for_selector("#routes-table tbody tr")
        page.fill("#prompt", PROMPT)
        page.wait_for_selector('#variant-choice input[name="variant"]')
        page.fill("#max-tokens", "16")
        for winner in ("winner:gemma", "winner:gemma", "winner:smol", "winner:gemma",
                       "outcome:tie", "winner:gemma"):
            compare_and_vote(page, winner)
        page.close()
        time.sleep(0.3)  # the record writer's thread appends the last lines
        shoot(browser, server.base_url, 360, 780, out / "playground-360.png")
        shoot(browser, server.base_url, 1440, 900, out / "playground-wide.png")
        browser.close()
    print(f"wrote {out / 'playground-360.png'} and {out / 'playground-wide.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs"))
