"""The per-request record: filled in along the request's path, logged once when it ends.

Who writes what: the HTTP middleware (id, path, status), the endpoint (``traffic``: only a
request that passed authentication and reached a generation endpoint is a generation), the
pipeline (route, engine, tokens, timings, outcome). Telemetry reads it when it completes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RequestRecord:
    request_id: str
    method: str
    path: str
    client_request_id: str | None = None
    started: float = field(default_factory=time.monotonic)
    status: int | None = None
    route: str | None = None
    engine: str | None = None
    model: str | None = None
    variant: str | None = None
    route_reason: str | None = None
    route_tier: str | None = None
    stream: bool | None = None
    prompt_tokens: int | None = None
    completion_tokens: int = 0
    # handed to the engine: parsed, routed, rendered, tokenised and admitted by then
    submitted_at: float | None = None
    first_token_at: float | None = None
    finished_at: float | None = None
    finish_reason: str | None = None
    error: str | None = None
    # The status an error maps to, also when the stream had already started (status 200).
    error_status: int | None = None
    # Stopped by the client or by the gateway (reload, shutdown), not by its engine or its
    # timeout: the answer says nothing about the variant, so A/B reports leave it out.
    aborted: bool = False
    client_closed: bool = False
    # The variant was forced by the caller (x-switchboard-variant): self-selected traffic.
    forced: bool = False
    # "live", "shadow" or "compare" for a generation; None for anything else (never recorded).
    traffic: str | None = None
    extra_headers: dict[str, str] = field(default_factory=dict)

    @property
    def ttft_s(self) -> float | None:
        return None if self.first_token_at is None else self.first_token_at - self.started

    @property
    def to_engine_s(self) -> float | None:
        """The gateway's share of the time to first token (the rest is the engine's)."""
        return None if self.submitted_at is None else self.submitted_at - self.started

    @property
    def duration_s(self) -> float:
        return (self.finished_at or time.monotonic()) - self.started

    def response_headers(self) -> list[tuple[bytes, bytes]]:
        headers = [(b"x-request-id", (self.client_request_id or self.request_id).encode())]
        if self.client_request_id:
            headers.append((b"x-switchboard-request-id", self.request_id.encode()))
        for name, value in (
            ("x-switchboard-route", self.route),
            ("x-switchboard-engine", self.engine),
            ("x-switchboard-model", self.model),
            ("x-switchboard-variant", self.variant),
            ("x-switchboard-route-reason", self.route_reason),
        ):
            if value is not None:
                # Header values must be latin-1; reasons may quote non-Latin text.
                safe = value.encode("ascii", "backslashreplace").replace(b"\r", b"").replace(
                    b"\n", b" "
                )
                headers.append((name.encode(), safe[:300]))
        headers.extend((k.encode(), v.encode("latin-1", "replace"))
                       for k, v in self.extra_headers.items())
        return headers

    def log_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "request_id": self.request_id,
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "duration_ms": round(self.duration_s * 1000, 2),
        }
        optional = {
            "client_request_id": self.client_request_id,
            "route": self.route,
            "engine": self.engine,
            "variant": self.variant,
            "route_tier": self.route_tier,
            "stream": self.stream,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens if self.engine else None,
            "to_engine_ms": None if self.to_engine_s is None else round(self.to_engine_s * 1000, 2),
            "ttft_ms": None if self.ttft_s is None else round(self.ttft_s * 1000, 2),
            "finish_reason": self.finish_reason,
            "error": self.error,
            "aborted": self.aborted or None,
        }
        fields.update({k: v for k, v in optional.items() if v is not None})
        return fields
