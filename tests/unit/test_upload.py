"""A client that leaves mid-upload is a client close (499), not a server error."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import pytest
from structlog.testing import capture_logs

from router.config import parse_config
from router.http.app import build_app
from tests.unit.asgi import running
from tests.unit.fakes import FAKE_CONFIG, FakeGateway


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/completions", "/v1/classify"])
async def test_client_leaving_mid_upload_is_a_499_without_traceback(path: str) -> None:
    fakes = FakeGateway(parse_config(FAKE_CONFIG))
    app = build_app(fakes.config, fakes.factory, on_state=fakes.on_state)
    messages: list[dict[str, Any]] = [
        {"type": "http.request", "body": b'{"model": "auto", "messages": [', "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    with capture_logs() as logs:
        async with running(app) as state:
            scope = {
                "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
                "query_string": b"",
                "root_path": "", "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 8000),
                "state": dict(state), "headers": [(b"content-type", b"application/json")],
            }  # fmt: skip
            await app(scope, receive, send)
            metrics = state["gateway"].metrics.render().decode()
    assert sent[0]["status"] == 499
    assert not [e for e in logs if e["log_level"] in ("error", "critical") or "exc_info" in e]
    completed = [e for e in logs if e["event"] == "request_completed"]
    assert [e["status"] for e in completed] == [499]
    assert f'path="{path}",status="499"' in metrics
    assert 'status="500"' not in metrics
    if path != "/v1/classify":  # a generation endpoint: counted as a client close
        assert 'kind="client_closed"' in metrics and 'kind="internal"' not in metrics
    assert not any(engine.requests for engine in fakes.engines.values())
