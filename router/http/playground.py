"""The comparison playground: a page served by the gateway, a preference vote per comparison,
and the A/B report as JSON.

- ``GET /playground`` and its assets: static files shipped in the package
  (router/http/static/playground/), JavaScript modules without a build step.
- ``POST /v1/compare/vote``: one preference vote for one ``/v1/compare`` answer, appended to
  the record file (``traffic: "vote"``) through the gateway's record writer; the prompt and
  the answers are never written.
- ``GET /admin/ab-report``: ``switchboard ab-report``'s JSON (router.tools.ab_report), votes
  included, read from the record file off the event loop.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, Response

from router.errors import ClientError, InvalidRequestError
from router.gateway import Gateway
from router.http.body import read_json_body
from router.http.openapi import Endpoint, Handler
from router.http.responses import json_response
from router.telemetry.record import RequestRecord
from router.telemetry.recorder import TRAFFIC_KINDS
from router.tools.ab_report import VOTE_TRAFFIC, build_reports, reports_as_json
from router.tools.records import read_records

STATIC_DIR = Path(__file__).parent / "static" / "playground"
# The page talks to its own origin only; nothing inline, nothing from elsewhere.
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; "
                           "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                           "form-action 'none'; frame-ancestors 'none'")
ASSETS = {
    "index.html": "text/html",
    "style.css": "text/css",
    "app.js": "text/javascript",
    "api.js": "text/javascript",
    "lanes.js": "text/javascript",
    "report.js": "text/javascript",
}
OUTCOMES = ("preferred", "tie", "both_bad")
MAX_ID_CHARS = 128
MAX_LANES = 16


class VotesNeedARecordFileError(ClientError):
    """The gateway keeps no record file: there is nowhere to put a vote or read a report."""

    status_code = 409
    code = "record_file_not_set"


@dataclass(frozen=True, slots=True)
class Vote:
    compare_id: str
    route: str
    variants: tuple[str, ...]
    outcome: str
    winner: str | None
    request_ids: tuple[str, ...]

    def record_fields(self) -> dict[str, Any]:
        return {"compare_id": self.compare_id, "variants": list(self.variants),
                "winner": self.winner, "outcome": self.outcome,
                "lane_request_ids": list(self.request_ids)}


def _short_string(data: Mapping[str, Any], name: str, required: bool = True) -> str | None:
    value = data.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_ID_CHARS:
        raise InvalidRequestError(f"'{name}' must be a non-empty string of at most "
                                  f"{MAX_ID_CHARS} characters", param=name)
    return value


def _string_list(data: Mapping[str, Any], name: str) -> tuple[str, ...]:
    value = data.get(name, [])
    if (not isinstance(value, list) or len(value) > MAX_LANES
            or not all(isinstance(v, str) and 0 < len(v) <= MAX_ID_CHARS for v in value)):
        raise InvalidRequestError(f"'{name}' must be an array of at most {MAX_LANES} "
                                  f"non-empty strings", param=name)
    return tuple(value)


def parse_vote(data: Mapping[str, Any], route_variants: Mapping[str, tuple[str, ...]]) -> Vote:
    """Check a vote body against the routes and variants the gateway serves now."""
    compare_id = _short_string(data, "compare_id")
    route = _short_string(data, "route")
    assert compare_id is not None and route is not None
    if route not in route_variants:
        raise InvalidRequestError(f"unknown route {route!r} (known: "
                                  f"{', '.join(route_variants)})", param="route")
    variants = _string_list(data, "variants")
    if len(variants) < 2 or len(set(variants)) != len(variants):
        raise InvalidRequestError("'variants' must name two or more different variants",
                                  param="variants")
    unknown = [v for v in variants if v not in route_variants[route]]
    if unknown:
        raise InvalidRequestError(f"route {route!r} has no variant {unknown[0]!r} (known: "
                                  f"{', '.join(route_variants[route])})", param="variants")
    winner = _short_string(data, "winner", required=False)
    outcome = data.get("outcome", "preferred" if winner is not None else None)
    if outcome not in OUTCOMES:
        raise InvalidRequestError(f"'outcome' must be one of {', '.join(OUTCOMES)}",
                                  param="outcome")
    if (outcome == "preferred") != (winner is not None):
        raise InvalidRequestError("'winner' names the preferred variant, and only with "
                                  "outcome 'preferred'", param="winner")
    if winner is not None and winner not in variants:
        raise InvalidRequestError(f"'winner' {winner!r} is not one of the compared variants",
                                  param="winner")
    request_ids = _string_list(data, "request_ids")
    return Vote(compare_id, route, variants, str(outcome), winner, request_ids)


async def vote(request: Request) -> Response:
    gateway: Gateway = request.state.gateway
    snapshot = gateway.snapshot
    if gateway.recorder is None:
        raise VotesNeedARecordFileError("votes are kept in the record file: set "
                                        "server.record_file in routes.yaml")
    data = await read_json_body(request, snapshot.limits)
    routes = {name: tuple(v.name for v in route.variants)
              for name, route in snapshot.config.routes.items()}
    parsed = parse_vote(data, routes)
    record: RequestRecord = request.state.record
    record.route, record.variant = parsed.route, parsed.winner
    # Written as a record line of its own kind: A/B latency statistics never count it.
    gateway.recorder.write(record, VOTE_TRAFFIC, parsed.record_fields())
    return json_response({"object": "compare.vote", "recorded": True,
                          **parsed.record_fields(), "route": parsed.route})


def _flag(request: Request, name: str, default: bool) -> bool:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in ("1", "true", "yes"):
        return True
    if raw.lower() in ("0", "false", "no"):
        return False
    raise InvalidRequestError(f"'{name}' must be true or false", param=name)


@dataclass(frozen=True, slots=True)
class ReportQuery:
    traffic: tuple[str, ...]
    route: str | None
    baseline: str | None
    alpha: float
    include_aborted: bool
    include_forced: bool

    @classmethod
    def from_request(cls, request: Request) -> ReportQuery:
        params = request.query_params
        traffic = tuple(t.strip() for t in params.get("traffic", "live,shadow").split(",")
                        if t.strip())
        if not traffic or any(t not in TRAFFIC_KINDS for t in traffic):
            raise InvalidRequestError(f"'traffic' must list some of {', '.join(TRAFFIC_KINDS)}",
                                      param="traffic")
        try:
            alpha = float(params.get("alpha", "0.05"))
        except ValueError:
            alpha = math.nan
        if not 0 < alpha <= 0.5:
            raise InvalidRequestError("'alpha' must be a number in (0, 0.5]", param="alpha")
        return cls(traffic, params.get("route") or None, params.get("baseline") or None, alpha,
                   _flag(request, "include_aborted", False),
                   _flag(request, "include_forced", False))


def build_report(path: str, query: ReportQuery) -> dict[str, Any]:
    """The report's JSON for one record file (blocking: reads and tests; off the loop)."""
    if not Path(path).is_file():  # nothing recorded yet
        return {"records": 0, "skipped": 0, "routes": []}
    loaded = read_records(path)
    reports = build_reports(loaded.lines, query.traffic, query.route, query.baseline,
                            query.alpha, include_aborted=query.include_aborted,
                            include_forced=query.include_forced)
    return {"records": len(loaded.lines), "skipped": loaded.skipped,
            "routes": reports_as_json(reports, query.alpha)}


async def ab_report(request: Request) -> Response:
    gateway: Gateway = request.state.gateway
    query = ReportQuery.from_request(request)
    if gateway.recorder is None:
        raise VotesNeedARecordFileError("the A/B report reads the record file: set "
                                        "server.record_file in routes.yaml")
    path = str(gateway.recorder.path)
    body = await asyncio.to_thread(build_report, path, query)
    return json_response({"object": "ab_report", "record_file": path,
                          "traffic": list(query.traffic), "alpha": query.alpha,
                          "include_aborted": query.include_aborted,
                          "include_forced": query.include_forced, **body})


def _asset(name: str) -> Handler:
    media_type = ASSETS[name]
    headers = {"cache-control": "no-cache", "x-content-type-options": "nosniff"}
    if name == "index.html":
        headers["content-security-policy"] = CONTENT_SECURITY_POLICY

    async def serve(request: Request) -> Response:
        return FileResponse(STATIC_DIR / name, media_type=media_type, headers=headers)

    serve.__name__ = f"playground_{name.replace('.', '_')}"
    return serve


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("/playground", "GET", _asset("index.html"),
             "The comparison playground (a page for people)", media_type="text/html"),
    *(Endpoint(f"/playground/{name}", "GET", _asset(name), f"Playground asset {name}",
               media_type=media) for name, media in ASSETS.items() if name != "index.html"),
    Endpoint("/v1/compare/vote", "POST", vote,
             "A preference vote for one /v1/compare answer (appended to the record file): "
             "compare_id, route, variants, winner or outcome (tie, both_bad), request_ids",
             None, (400, 401, 409, 413)),
    Endpoint("/admin/ab-report", "GET", ab_report,
             "The A/B report (ab-report's JSON, votes included) from the record file", None,
             (400, 401, 403, 409)),
)
