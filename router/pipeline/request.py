"""The pipeline's input: a validated completion request and what the caller brings to it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from router.config import ServerConfig


@dataclass(frozen=True, slots=True)
class RequestLimits:
    """Body limits in force, taken from the server config (its defaults are the only ones)."""

    max_body_bytes: int
    max_messages: int
    max_message_chars: int
    max_n: int

    @classmethod
    def of(cls, server: ServerConfig) -> RequestLimits:
        return cls(server.max_body_bytes, server.max_messages, server.max_message_chars,
                   server.max_n)


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: str
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    """A chat or text completion request, normalised."""

    kind: str  # "chat" or "text"
    model: str
    messages: tuple[ChatMessage, ...] = ()
    prompt: str = ""
    stream: bool = False
    include_usage: bool = False
    sampling: Mapping[str, Any] = field(default_factory=dict)
    user: str | None = None
    echo: bool = False

    @property
    def raw_messages(self) -> list[dict[str, str]]:
        return [m.as_dict() for m in self.messages]


@dataclass(frozen=True, slots=True)
class Caller:
    """Who asks and how they steer routing (from the API key and request headers)."""

    priority: int = 0  # vLLM semantics: lower runs first
    vip: bool = False  # may use the admission reserve
    route_header: str | None = None  # X-Route
    forced_variant: str | None = None  # x-switchboard-variant
    sticky_key: str | None = None  # user or API key: the same one sees the same variant
