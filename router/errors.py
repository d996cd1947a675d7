"""One error tree, one renderer for the OpenAI error body.

    GatewayError                      -> {"error": {"message", "type", "param", "code"}}
    ├── ClientError (4xx)             the request is wrong; retrying it unchanged won't help
    │   ├── InvalidRequestError  400  malformed JSON, wrong types, out-of-range sampling
    │   │   └── ContextLengthError 400 prompt or max_tokens beyond the engine's max_model_len
    │   ├── AuthenticationError  401
    │   ├── PermissionDeniedError 403
    │   ├── ModelNotFoundError   404  unknown model / route
    │   ├── PayloadTooLargeError 413
    │   └── OverloadedError      429  admission queue full (Retry-After)
    └── ServerError (5xx)             the gateway or an engine can't serve right now
        ├── InternalError        500
        ├── EngineUnavailableError 503 engine dead, starting or draining; gateway draining;
        │                             a request the gateway cut short (reload drain timeout)
        └── GatewayTimeoutError  504  per-route first-token or total timeout

The HTTP layer renders them (router.http.responses); after an SSE stream has started, an
error becomes a final ``data: {"error": ...}`` event followed by ``data: [DONE]``
(router.http.sse).
"""

from __future__ import annotations

from typing import Any


class GatewayError(Exception):
    status_code = 500
    error_type = "server_error"
    code: str | None = None

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        if code is not None:
            self.code = code
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        # Bounded: a client can't make us echo megabytes back.
        return {
            "error": {
                "message": self.message[:2000],
                "type": self.error_type,
                "param": self.param,
                "code": self.code,
            }
        }


class ClientError(GatewayError):
    status_code = 400
    error_type = "invalid_request_error"


class InvalidRequestError(ClientError):
    code = "invalid_request"


class ContextLengthError(InvalidRequestError):
    code = "context_length_exceeded"


class AuthenticationError(ClientError):
    status_code = 401
    error_type = "authentication_error"
    code = "invalid_api_key"


class PermissionDeniedError(ClientError):
    status_code = 403
    error_type = "permission_error"
    code = "forbidden"


class ModelNotFoundError(ClientError):
    status_code = 404
    code = "model_not_found"


class NotFoundError(ClientError):
    status_code = 404
    code = "not_found"


class MethodNotAllowedError(ClientError):
    status_code = 405
    code = "method_not_allowed"


class PayloadTooLargeError(ClientError):
    status_code = 413
    code = "payload_too_large"


class OverloadedError(ClientError):
    status_code = 429
    error_type = "rate_limit_error"
    code = "overloaded"


class ServerError(GatewayError):
    status_code = 500
    error_type = "server_error"


class InternalError(ServerError):
    code = "internal_error"


class EngineUnavailableError(ServerError):
    status_code = 503
    error_type = "service_unavailable"
    code = "engine_unavailable"


class GatewayTimeoutError(ServerError):
    status_code = 504
    error_type = "timeout"
    code = "timeout"
