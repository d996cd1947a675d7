"""Read and parse request bodies — once per request — into the pipeline's typed requests.

The body is read with its size bounded while it streams in, decoded once (orjson), and
validated before any engine work: known fields are type- and range-checked (400 with
``param`` naming the field; sampling fields from the one table in engines.config); unknown
fields are ignored, as vLLM's own server does, so SDKs that send newer fields keep working.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from starlette.requests import ClientDisconnect, Request

from router.access import check_request
from router.errors import GatewayError, InvalidRequestError, PayloadTooLargeError
from router.http.responses import CLIENT_CLOSED_REQUEST
from router.keys import ANONYMOUS, Principal
from router.pipeline.request import Caller, ChatMessage, CompletionRequest, RequestLimits
from router.pipeline.sampling import parse_request_sampling
from router.telemetry.record import RequestRecord


class ClientClosedError(GatewayError):
    """The client left while sending its body: a client close (nginx's 499 in logs, metrics
    and records), not a server error; its error body goes nowhere."""

    status_code = CLIENT_CLOSED_REQUEST
    error_type = "client_closed"


ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
MAX_NESTING = 32


async def read_json_body(request: Request, limits: RequestLimits) -> dict[str, Any]:
    """Read the body, refusing it as soon as it passes the limit (not after buffering it)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limits.max_body_bytes:
        raise PayloadTooLargeError(
            f"request body is {declared} bytes; the limit is {limits.max_body_bytes}"
        )
    parts: list[bytes] = []
    size = 0
    try:
        async for part in request.stream():
            size += len(part)
            if size > limits.max_body_bytes:
                raise PayloadTooLargeError(f"request body exceeds {limits.max_body_bytes} bytes")
            parts.append(part)
    except ClientDisconnect:
        record: RequestRecord | None = getattr(request.state, "record", None)
        if record is not None:
            record.client_closed = True
        raise ClientClosedError(f"the client closed the connection after sending {size} bytes "
                                "of its body") from None
    return decode_json_body(b"".join(parts), limits)


def caller_of(request: Request, parsed: CompletionRequest) -> Caller:
    """The pipeline's view of who asks: priority from the API key, routing hints from
    headers, the sticky key from the body's user, a user header or the API key."""
    principal: Principal = getattr(request.state, "principal", ANONYMOUS)
    headers = request.headers
    snapshot = request.state.gateway.snapshot
    if snapshot.keys is not None:  # with auth on: routes' allow lists, direct engine opt-in
        check_request(snapshot.table, principal, parsed.model, parsed.raw_messages,
                      headers.get("x-route"))
    return Caller(priority=principal.priority, vip=principal.vip,
                  route_header=headers.get("x-route"),
                  forced_variant=headers.get("x-switchboard-variant") or None,
                  sticky_key=sticky_key(parsed.user, headers))


def sticky_key(user: str | None, headers: Mapping[str, str]) -> str | None:
    if user:
        return f"user:{user}"
    if headers.get("x-switchboard-user"):
        return f"user:{headers['x-switchboard-user']}"
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer ") and len(auth) > 7:
        return f"key:{auth[7:].strip()}"
    return None


def decode_json_body(body: bytes, limits: RequestLimits) -> dict[str, Any]:
    if len(body) > limits.max_body_bytes:
        raise PayloadTooLargeError(
            f"request body is {len(body)} bytes; the limit is {limits.max_body_bytes}"
        )
    if not body.strip():
        raise InvalidRequestError("request body is empty; expected a JSON object")
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise InvalidRequestError(f"request body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidRequestError("request body must be a JSON object")
    _check_depth(data, 0)
    return data


def _check_depth(value: Any, depth: int) -> None:
    if depth > MAX_NESTING:
        raise InvalidRequestError(f"request body is nested deeper than {MAX_NESTING} levels")
    if isinstance(value, dict):
        for item in value.values():
            _check_depth(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_depth(item, depth + 1)


def parse_chat_request(data: Mapping[str, Any], limits: RequestLimits) -> CompletionRequest:
    messages = _parse_messages(data.get("messages"), limits)
    return CompletionRequest(
        kind="chat",
        messages=messages,
        **_common_fields(data, limits, max_tokens_keys=("max_completion_tokens", "max_tokens")),
    )


def parse_text_request(data: Mapping[str, Any], limits: RequestLimits) -> CompletionRequest:
    prompt = data.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
        prompt = prompt[0]
    if isinstance(prompt, list):
        raise InvalidRequestError(
            "'prompt' must be a string (batched prompts are not supported)", param="prompt"
        )
    if not isinstance(prompt, str):
        raise InvalidRequestError("'prompt' is required and must be a string", param="prompt")
    if not prompt:
        raise InvalidRequestError("'prompt' must not be empty", param="prompt")
    _check_length(prompt, "prompt", limits)
    echo = data.get("echo", False)
    if echo not in (True, False, None):
        raise InvalidRequestError("'echo' must be a boolean", param="echo")
    return CompletionRequest(
        kind="text",
        prompt=prompt,
        echo=bool(echo),
        **_common_fields(data, limits, max_tokens_keys=("max_tokens",)),
    )


def _common_fields(
    data: Mapping[str, Any], limits: RequestLimits, max_tokens_keys: tuple[str, ...]
) -> dict[str, Any]:
    model = data.get("model", "auto")
    if model is None:
        model = "auto"
    if not isinstance(model, str):
        raise InvalidRequestError("'model' must be a string", param="model")
    stream = data.get("stream", False)
    if stream is None:
        stream = False
    if not isinstance(stream, bool):
        raise InvalidRequestError("'stream' must be a boolean", param="stream")
    include_usage = False
    options = data.get("stream_options")
    if options is not None:
        if not isinstance(options, dict):
            raise InvalidRequestError("'stream_options' must be an object", param="stream_options")
        include_usage = options.get("include_usage", False)
        if not isinstance(include_usage, bool):
            raise InvalidRequestError(
                "'stream_options.include_usage' must be a boolean",
                param="stream_options.include_usage",
            )
    user = data.get("user")
    if user is not None and not isinstance(user, str):
        raise InvalidRequestError("'user' must be a string", param="user")
    for unsupported in ("tools", "functions"):
        if data.get(unsupported):
            raise InvalidRequestError(f"'{unsupported}' is not supported", param=unsupported)
    if data.get("logprobs") not in (None, False) or data.get("top_logprobs") not in (None, 0):
        raise InvalidRequestError("'logprobs' is not supported", param="logprobs")
    return {
        "model": model.strip() or "auto",
        "stream": stream,
        "include_usage": include_usage,
        "sampling": parse_request_sampling(data, max_tokens_keys, max_n=limits.max_n),
        "user": user,
    }


def _check_length(text: str, param: str, limits: RequestLimits) -> None:
    if len(text) > limits.max_message_chars:
        raise InvalidRequestError(
            f"'{param}' has {len(text)} characters; the limit is {limits.max_message_chars}",
            param=param,
        )


def _parse_messages(raw: Any, limits: RequestLimits) -> tuple[ChatMessage, ...]:
    if raw is None:
        raise InvalidRequestError("'messages' is required", param="messages")
    if not isinstance(raw, list):
        raise InvalidRequestError("'messages' must be an array", param="messages")
    if not raw:
        raise InvalidRequestError("'messages' must not be empty", param="messages")
    if len(raw) > limits.max_messages:
        raise InvalidRequestError(
            f"'messages' has {len(raw)} entries; the limit is {limits.max_messages}",
            param="messages",
        )
    messages = tuple(_parse_message(i, m, limits) for i, m in enumerate(raw))
    if all(m.role in ("system", "developer") for m in messages):
        raise InvalidRequestError(
            "'messages' needs at least one user or assistant message", param="messages"
        )
    return messages


def _parse_message(index: int, raw: Any, limits: RequestLimits) -> ChatMessage:
    param = f"messages[{index}]"
    if not isinstance(raw, dict):
        raise InvalidRequestError(f"'{param}' must be an object", param=param)
    role = raw.get("role")
    if not isinstance(role, str) or role not in ROLES:
        raise InvalidRequestError(
            f"'{param}.role' must be one of {', '.join(sorted(ROLES))}", param=f"{param}.role"
        )
    content = _content_text(raw.get("content"), f"{param}.content")
    _check_length(content, f"{param}.content", limits)
    # "developer" is OpenAI's newer name for the system role; chat templates know "system".
    return ChatMessage(role="system" if role == "developer" else role, content=content)


def _content_text(content: Any, param: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for index, part in enumerate(content):
            if not isinstance(part, dict) or part.get("type") != "text":
                raise InvalidRequestError(
                    f"'{param}[{index}]' must be a text part (only text is supported)",
                    param=f"{param}[{index}]",
                )
            text = part.get("text")
            if not isinstance(text, str):
                raise InvalidRequestError(
                    f"'{param}[{index}].text' must be a string", param=f"{param}[{index}].text"
                )
            parts.append(text)
        return "".join(parts)
    raise InvalidRequestError(f"'{param}' must be a string or an array of text parts", param=param)
