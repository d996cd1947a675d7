"""The gateway's OpenAPI description, served at /openapi.json so standard tools can fuzz it.

Written out by hand (not generated from handlers): the handlers parse raw JSON themselves to
give OpenAI-shaped errors, so there are no models to generate it from.
"""

from __future__ import annotations

from typing import Any

_MESSAGE = {
    "type": "object",
    "required": ["role", "content"],
    "properties": {
        "role": {"type": "string", "enum": ["system", "developer", "user", "assistant", "tool"]},
        "content": {"oneOf": [
            {"type": "string"},
            {"type": "array", "items": {"type": "object", "required": ["type", "text"],
                                        "properties": {"type": {"const": "text"},
                                                       "text": {"type": "string"}}}},
        ]},
    },
}

_SAMPLING: dict[str, Any] = {
    "model": {"type": "string", "description": "route, engine, or 'auto'"},
    "stream": {"type": "boolean"},
    "stream_options": {"type": "object", "properties": {"include_usage": {"type": "boolean"}}},
    "max_tokens": {"type": "integer", "minimum": 1},
    "temperature": {"type": "number", "minimum": 0, "maximum": 2},
    "top_p": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
    "top_k": {"type": "integer", "minimum": -1},
    "min_p": {"type": "number", "minimum": 0, "maximum": 1},
    "min_tokens": {"type": "integer", "minimum": 0},
    "presence_penalty": {"type": "number", "minimum": -2, "maximum": 2},
    "frequency_penalty": {"type": "number", "minimum": -2, "maximum": 2},
    "repetition_penalty": {"type": "number", "exclusiveMinimum": 0, "maximum": 10},
    "n": {"type": "integer", "minimum": 1},
    "seed": {"type": "integer"},
    "ignore_eos": {"type": "boolean"},
    "stop": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    "user": {"type": "string"},
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

_JSON_OK = {"description": "OK", "content": {"application/json": {"schema": {"type": "object"}}}}
_ERRORS = {str(code): _ERROR for code in (400, 401, 403, 404, 413, 429, 503, 504)}


def _generation(description: str, required: str, body_field: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "required": [required],
              "properties": {**_SAMPLING, required: body_field}}
    return {"post": {
        "summary": description,
        "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
        "responses": {"200": {"description": "completion (JSON, or SSE when stream=true)",
                              "content": {"application/json": {"schema": {"type": "object"}},
                                          "text/event-stream": {"schema": {"type": "string"}}}},
                      **_ERRORS},
    }}


def _get(summary: str, *codes: int) -> dict[str, Any]:
    return {"get": {"summary": summary,
                    "responses": {"200": _JSON_OK, **{str(c): _ERROR for c in codes}}}}


def openapi_spec() -> dict[str, Any]:
    messages = {"type": "array", "minItems": 1, "items": _MESSAGE}
    chat = _generation("Chat completion (OpenAI-compatible)", "messages", messages)
    classify = _generation("Routing decision for a chat body, without generating",
                           "messages", messages)
    classify["post"]["responses"]["200"] = _JSON_OK
    return {
        "openapi": "3.1.0",
        "info": {"title": "switchboard", "version": "0.1.0",
                 "description": "One OpenAI-compatible endpoint in front of many vLLM engines."},
        "paths": {
            "/v1/chat/completions": chat,
            "/v1/completions": _generation("Text completion (OpenAI-compatible)", "prompt",
                                           {"type": "string", "minLength": 1}),
            "/v1/classify": classify,
            "/v1/models": _get("Routes, engines and 'auto'", 401),
            "/health": _get("Liveness"),
            "/ready": _get("Readiness: 200 when every engine is up", 503),
            "/admin/status": _get("Engines, routes, config", 401, 403),
        },
    }
