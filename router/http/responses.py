"""JSON bodies and the OpenAI error body, rendered once for every endpoint."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

from router.errors import GatewayError

# nginx's code for "the client closed the connection before the answer": logged and counted.
CLIENT_CLOSED_REQUEST = 499


def json_response(payload: Any, status_code: int = 200) -> Response:
    return Response(orjson.dumps(payload), status_code=status_code, media_type="application/json")


def error_response(error: GatewayError) -> Response:
    return Response(orjson.dumps(error.body()), status_code=error.status_code,
                    media_type="application/json", headers=error.headers)
