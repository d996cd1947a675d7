"""structlog configured once at start-up; stdlib loggers (uvicorn, vLLM) share its processors
and renderer, so every line has one format.

The gateway's own events (one ``request_completed`` line per request among them) are
rendered by structlog itself and written straight to stderr: going through stdlib logging
(a LogRecord, handler locks, ProcessorFormatter running the chain again) cost ~18 % of a
one-token request's time on the event loop (cProfile, fake engine, 64 concurrent
streams). Only foreign loggers take the stdlib path.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

import orjson
import structlog


class NamedLineLogger:
    """A structlog logger that writes each rendered event as one line to stderr (as it is
    when the line is written), under a lock shared with the stdlib handler so that lines
    of both never interleave. Like stdlib logging, a failed write never reaches the caller:
    a log line must not fail a request."""

    def __init__(self, name: str, lock: threading.Lock) -> None:
        self.name = name  # read by structlog.stdlib.add_logger_name
        self._lock = lock

    def msg(self, message: str) -> None:
        with self._lock:
            try:
                sys.stderr.write(message + "\n")
                sys.stderr.flush()
            except (OSError, ValueError):  # closed or broken stream
                pass

    log = debug = info = warn = warning = err = error = critical = exception = fatal = msg


class NamedLineLoggerFactory:
    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock

    def __call__(self, *args: Any) -> NamedLineLogger:
        return NamedLineLogger(str(args[0]) if args else "", self._lock)


class _LockedStreamHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to stderr as it is when the line is written (as NamedLineLogger does): a
    stream captured at start-up may have been replaced and closed since (test runners,
    daemonisers)."""

    def __init__(self, lock: threading.Lock) -> None:
        super().__init__(sys.stderr)
        self._line_lock = lock

    def emit(self, record: logging.LogRecord) -> None:
        with self._line_lock:
            self.stream = sys.stderr
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        # A closed or broken stream is dropped silently, as in NamedLineLogger; anything
        # else (a bad format string) is reported the stdlib way.
        if isinstance(sys.exc_info()[1], (OSError, ValueError)):
            return
        super().handleError(record)


def _orjson_dumps(event: Any, **_: Any) -> str:
    return orjson.dumps(event, default=repr, option=orjson.OPT_NON_STR_KEYS).decode()


def configure_logging(fmt: str = "console", level: str = "info") -> None:
    stream = sys.stderr
    lock = threading.Lock()
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer(serializer=_orjson_dumps)
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=stream.isatty(),
                                         # no local variables: they can hold prompt text
                                         exception_formatter=structlog.dev.plain_traceback)
    )
    structlog.configure(
        # ConsoleRenderer draws exceptions itself; JSON needs them as a string field.
        processors=[*shared, *([structlog.processors.format_exc_info] if fmt == "json" else []),
                    renderer],
        logger_factory=NamedLineLoggerFactory(lock),
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]),
        cache_logger_on_first_use=True,
    )
    handler = _LockedStreamHandler(lock)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.processors.format_exc_info],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level.upper())
    # uvicorn's access log would repeat our request_completed line; its other loggers stay.
    logging.getLogger("uvicorn.access").disabled = True
    for name in ("uvicorn", "uvicorn.error", "vllm"):
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True
