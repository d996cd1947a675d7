"""Errors an engine raises; router.pipeline maps them onto HTTP answers (router.errors)."""


class EngineError(Exception):
    """Base of everything an engine raises on purpose."""


class EngineDeadError(EngineError):
    """The engine (or its core process) is gone; only a restart brings it back."""


class EngineNotReadyError(EngineError):
    """The engine has not finished starting, or is shutting down."""


class EngineRequestError(EngineError):
    """The engine rejected one request (bad sampling for this model, say); others are fine."""


class AdmissionRefusedError(EngineError):
    """The engine's admission bound is full for this request; retrying later may succeed."""
