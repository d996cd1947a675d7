"""The gateway's OpenAPI document, generated from the app's route table (every route appears
by construction) and the one sampling field table (engines.config.SAMPLING_FIELDS), served
at /openapi.json so standard tools can fuzz it.

The handlers parse raw JSON themselves to give OpenAI-shaped errors, so there are no models
to generate the bodies from; the few fields beyond sampling are written out below.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from engines.config import SAMPLING_FIELDS
from router.http.body import ROLES

Handler = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One row of the route table: what Starlette routes and what the document says."""

    path: str
    method: str
    handler: Handler
    summary: str
    body: str | None = None  # "chat", "text", "compare" or None
    errors: tuple[int, ...] = ()
    stream: bool = False  # answers text/event-stream when the body asks for it
    media_type: str = "application/json"


_MESSAGE = {
    "type": "object",
    "required": ["role", "content"],
    "properties": {
        "role": {"type": "string", "enum": sorted(ROLES)},
        "content": {"oneOf": [
            {"type": "string"},
            {"type": "array", "items": {"type": "object", "required": ["type", "text"],
                                        "properties": {"type": {"const": "text"},
                                                       "text": {"type": "string"}}}},
        ]},
    },
}

_ERROR = {
    "description": "OpenAI-shaped error",
    "content": {"application/json": {"schema": {
        "type": "object", "required": ["error"],
        "properties": {"error": {"type": "object", "required": ["message", "type"],
                                 "properties": {"message": {"type": "string"},
                                                "type": {"type": "string"},
                                                "param": {"type": ["string", "null"]},
                                                "code": {"type": ["string", "null"]}}}}}}},
}


def _body_schema(kind: str, max_n: int) -> dict[str, Any]:
    sampling = {name: f.json_schema() for name, f in SAMPLING_FIELDS.items()}
    sampling["n"] = {**sampling["n"], "maximum": max_n}
    common: dict[str, Any] = {
        "model": {"type": "string", "description": "route, engine, or 'auto'"},
        "stream": {"type": "boolean"},
        "stream_options": {"type": "object",
                           "properties": {"include_usage": {"type": "boolean"}}},
        "user": {"type": "string"},
        **sampling,
    }
    if kind == "text":
        return {"type": "object", "required": ["prompt"],
                "properties": {**common, "prompt": {"type": "string", "minLength": 1},
                               "echo": {"type": "boolean"}}}
    messages = {"type": "array", "minItems": 1, "items": _MESSAGE}
    properties = {**common, "messages": messages,
                  "max_completion_tokens": SAMPLING_FIELDS["max_tokens"].json_schema()}
    if kind == "compare":
        properties["variants"] = {"type": "array", "minItems": 1, "items": {"type": "string"}}
    return {"type": "object", "required": ["messages"], "properties": properties}


def _operation(endpoint: Endpoint, max_n: int) -> dict[str, Any]:
    content: dict[str, Any] = {endpoint.media_type: {"schema": {"type": "object"}
                                                     if endpoint.media_type ==
                                                     "application/json"
                                                     else {"type": "string"}}}
    if endpoint.stream:
        content["text/event-stream"] = {"schema": {"type": "string"}}
    operation: dict[str, Any] = {
        "summary": endpoint.summary,
        "responses": {"200": {"description": "OK", "content": content},
                      **{str(code): _ERROR for code in endpoint.errors}},
    }
    if endpoint.body is not None:
        operation["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": _body_schema(endpoint.body, max_n)}}}
    return operation


def openapi_document(endpoints: Sequence[Endpoint], max_n: int) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for endpoint in endpoints:
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = _operation(endpoint,
                                                                                  max_n)
    return {
        "openapi": "3.1.0",
        "info": {"title": "switchboard", "version": "0.1.0",
                 "description": "One OpenAI-compatible endpoint in front of many vLLM engines."},
        "paths": paths,
    }
