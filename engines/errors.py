"""Errors an engine raises; router.pipeline maps them onto HTTP answers (router.errors)."""


class EngineError(Exception):
    """Base of everything an engine raises on purpose."""


class EngineDeadError(EngineError):
    """The engine (or its core process) is gone; only a restart brings it back."""


class EngineNotReadyError(EngineError):
    """The engine has not finished starting, or is shutting down."""


class EngineRequestError(EngineError):
    """The engine rejected one request (bad sampling for this model, say); others are fine."""


class UpstreamRequestError(EngineRequestError):
    """An upstream server (engines.remote) refused one request with a 4xx: passed through to
    the client with the upstream's message (a context-length 400, say)."""

    def __init__(self, message: str, *, status: int, param: str | None = None,
                 context_length: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.param = param
        self.context_length = context_length


class AdmissionRefusedError(EngineError):
    """The engine's admission bound is full for this request; retrying later may succeed."""
