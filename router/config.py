"""routes.yaml → frozen dataclasses.

The file maps one-to-one onto the dataclasses below. Every error names its YAML path
(``routes.translation.engine: unknown engine 'gema' (known: qa, translation)``), and an
unknown key carries a close-match hint. ``engine_args`` keys are checked against a set of
names the caller passes in (the vLLM adapter supplies ``AsyncEngineArgs``' fields), so this
module never imports vLLM.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import string
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from engines.config import SAMPLING_FIELDS, EngineConfig, RemoteConfig
from engines.placement import parse_gpus
from router.classify.config import SIGNAL_NAMES, RecognitionConfig
from router.http.pacing import PACING_MODES

__all__ = ["EngineConfig"]  # built here from routes.yaml; the engine layer owns the type

class ConfigError(ValueError):
    """A routes.yaml problem; the message starts with the YAML path it concerns."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path


@dataclass(frozen=True, slots=True)
class VariantConfig:
    name: str
    engine: str
    weight: float = 1.0
    sampling: Mapping[str, Any] = field(default_factory=dict)
    system_prompt: str | None = None
    prompt_template: str | None = None


@dataclass(frozen=True, slots=True)
class ShadowConfig:
    variant: VariantConfig
    fraction: float


@dataclass(frozen=True, slots=True)
class RouteConfig:
    name: str
    engine: str
    description: str = ""
    sampling: Mapping[str, Any] = field(default_factory=dict)
    system_prompt: str | None = None
    prompt_template: str | None = None
    timeout_s: float | None = None
    first_token_timeout_s: float | None = None
    max_tokens_cap: int | None = None
    recognize: RecognitionConfig = field(default_factory=RecognitionConfig)
    variants: tuple[VariantConfig, ...] = ()
    shadow: ShadowConfig | None = None
    fallback: str | None = None
    # With auth on: the tiers and key names that may use this route (empty: every key).
    allow: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8000
    log_format: str = "console"
    log_level: str = "info"
    request_timeout_s: float = 300.0
    shutdown_timeout_s: float = 30.0
    # On reload, how long a replaced engine may finish its requests before they are aborted.
    reload_drain_timeout_s: float = 30.0
    max_body_bytes: int = 1_000_000
    max_messages: int = 256
    max_message_chars: int = 200_000
    max_n: int = 8
    record_file: str | None = None
    # Rotate the record file past this size (0: never; logrotate + SIGUSR1 is the other way),
    # keeping this many old files; lines beyond the writer's queue are dropped and counted.
    record_max_bytes: int = 0
    record_backups: int = 5
    record_queue_lines: int = 10_000
    # Serve even when an engine failed to start (its routes answer 503 or fall back);
    # by default such a start-up fails, naming the engine and the cause.
    allow_degraded_start: bool = False
    # While the event loop is behind, streams wait about its lag between events so that
    # tokens merge (router/http/pacing.py): "lag", or "off" (every output its own event).
    stream_pacing: str = "lag"
    # HTTP front-end processes sharing each vLLM engine's core (vLLM's multi-API-server
    # design): the gateway's per-token work is spread over them. 1: one process, as before.
    api_processes: int = 1


MAX_API_PROCESSES = 64

DEFAULT_TIERS: Mapping[str, int] = {"vip": -10, "standard": 0}


@dataclass(frozen=True, slots=True)
class AuthConfig:
    """Where API keys come from. Keys are never written in routes.yaml itself."""

    # An environment variable holding "KEY:TIER[,KEY:TIER...]" (TIER may be "admin").
    keys_env: str | None = None
    # A YAML file listing keys by their sha256 digest: [{name, sha256, tier, admin}].
    keys_file: str | None = None
    # Tier name -> vLLM request priority (lower runs first).
    tiers: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_TIERS))
    # Tiers that may address an engine directly ("engine:NAME", X-Route); admin keys always may.
    direct_engine_tiers: tuple[str, ...] = ()

    @property
    def enabled(self) -> bool:
        return self.keys_env is not None or self.keys_file is not None


@dataclass(frozen=True, slots=True)
class RateLimitConfig:
    """One tier's budget per API key (None: that dimension is not limited)."""

    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    tokens_per_day: int | None = None


TRACING_EXPORTERS = ("none", "otlp")
TRACING_PROTOCOLS = ("http/protobuf", "grpc")


@dataclass(frozen=True, slots=True)
class TracingConfig:
    """OpenTelemetry export (read at start-up; off unless an exporter is named)."""

    exporter: str = "none"
    endpoint: str = "http://127.0.0.1:4318/v1/traces"
    protocol: str = "http/protobuf"
    insecure: bool = True  # grpc only: plain text to a local collector
    service_name: str = "switchboard"
    sample_ratio: float = 1.0


@dataclass(frozen=True, slots=True)
class GatewayConfig:
    server: ServerConfig
    engines: Mapping[str, EngineConfig]
    routes: Mapping[str, RouteConfig]
    default_route: str
    source_path: str = ""
    digest: str = ""
    auth: AuthConfig = field(default_factory=AuthConfig)
    # Tier name -> rate limits for each key of that tier; tiers not listed are unlimited.
    rate_limits: Mapping[str, RateLimitConfig] = field(default_factory=dict)
    tracing: TracingConfig = field(default_factory=TracingConfig)


def load_config(
    path: str | Path,
    engine_arg_names: Collection[str] | None = None,
) -> GatewayConfig:
    """Read and validate a routes.yaml file."""
    text = Path(path).read_text(encoding="utf-8")
    return parse_config(text, engine_arg_names=engine_arg_names, source_path=str(path))


def parse_config(
    text: str,
    engine_arg_names: Collection[str] | None = None,
    source_path: str = "",
) -> GatewayConfig:
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError("", f"invalid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError("", "the top level must be a mapping with 'engines' and 'routes'")
    _check_keys("", raw, {"server", "engines", "routes", "default_route", "auth",
                          "rate_limits", "tracing"})
    server = _parse_server(raw.get("server") or {})
    auth = _parse_auth(raw.get("auth"), source_path)
    rate_limits = _parse_rate_limits(raw.get("rate_limits"), auth)
    tracing = _parse_tracing(raw.get("tracing"))
    engines = _parse_engines(raw.get("engines"), engine_arg_names)
    routes = _parse_routes(raw.get("routes"), engines)
    default_route = raw.get("default_route")
    if default_route is None:
        default_route = next(iter(routes))
    if not isinstance(default_route, str) or default_route not in routes:
        raise ConfigError(
            "default_route", f"unknown route {default_route!r} (known: {', '.join(routes)})"
        )
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return GatewayConfig(server, engines, routes, default_route, source_path, digest, auth,
                         rate_limits, tracing)


def _parse_auth(raw: Any, source_path: str) -> AuthConfig:
    if raw is None:
        return AuthConfig()
    data = _mapping("auth", raw)
    _check_keys("auth", data, ("keys_env", "keys_file", "tiers", "direct_engine_tiers"))
    keys_env = _opt_str("auth.keys_env", data.get("keys_env"))
    keys_file = _opt_str("auth.keys_file", data.get("keys_file"))
    if keys_file is not None and source_path and not Path(keys_file).is_absolute():
        keys_file = str(Path(source_path).parent / keys_file)  # relative to routes.yaml
    tiers = dict(DEFAULT_TIERS)
    for name, priority in _mapping("auth.tiers", data.get("tiers") or {}).items():
        tiers[str(name)] = _typed(f"auth.tiers.{name}", priority, (int,), "an integer")
    if "admin" in tiers:
        raise ConfigError("auth.tiers.admin", "'admin' is a role, not a tier name")
    direct = _str_list("auth.direct_engine_tiers", data.get("direct_engine_tiers"))
    for tier in direct:
        if tier not in tiers:
            raise ConfigError("auth.direct_engine_tiers", _unknown_message("tier", tier, tiers))
    return AuthConfig(keys_env=keys_env, keys_file=keys_file, tiers=tiers,
                      direct_engine_tiers=direct)


def _str_list(path: str, raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(v, str) and v for v in raw):
        raise ConfigError(path, "must be a list of non-empty strings")
    return tuple(raw)


def _parse_rate_limits(raw: Any, auth: AuthConfig) -> dict[str, RateLimitConfig]:
    if raw is None:
        return {}
    out: dict[str, RateLimitConfig] = {}
    fields = RateLimitConfig.__slots__
    for tier, section in _mapping("rate_limits", raw).items():
        path = f"rate_limits.{tier}"
        if tier not in auth.tiers:
            raise ConfigError(path, _unknown_message("tier", str(tier), auth.tiers))
        data = _mapping(path, section)
        _check_keys(path, data, fields)
        values: dict[str, int] = {}
        for key, value in data.items():
            values[key] = _typed(f"{path}.{key}", value, (int,), "an integer")
            if values[key] < 1:
                raise ConfigError(f"{path}.{key}", "must be >= 1")
        out[str(tier)] = RateLimitConfig(**values)
    return out


def _parse_tracing(raw: Any) -> TracingConfig:
    if raw is None:
        return TracingConfig()
    data = _mapping("tracing", raw)
    _check_keys("tracing", data, TracingConfig.__slots__)
    defaults = TracingConfig()
    values: dict[str, Any] = {}
    for key, value in data.items():
        default = getattr(defaults, key)
        types: tuple[type, ...] = (int, float) if isinstance(default, float) else (type(default),)
        values[key] = _typed(f"tracing.{key}", value, types, types[0].__name__)
    tracing = TracingConfig(**values)
    if tracing.exporter not in TRACING_EXPORTERS:
        raise ConfigError("tracing.exporter", _unknown_message(
            "exporter", tracing.exporter, TRACING_EXPORTERS))
    if tracing.protocol not in TRACING_PROTOCOLS:
        raise ConfigError("tracing.protocol", _unknown_message(
            "protocol", tracing.protocol, TRACING_PROTOCOLS))
    if not 0.0 <= tracing.sample_ratio <= 1.0:
        raise ConfigError("tracing.sample_ratio", "must be between 0 and 1")
    return tracing


def _check_keys(path: str, mapping: Mapping[str, Any], allowed: Collection[str]) -> None:
    for key in mapping:
        if key not in allowed:
            raise ConfigError(_join(path, str(key)), _unknown_message("key", str(key), allowed))


def _unknown_message(kind: str, name: str, known: Collection[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown {kind} {name!r}{hint}"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _mapping(path: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(path, f"must be a mapping, got {type(value).__name__}")
    return value


def _typed(path: str, value: Any, types: tuple[type, ...], what: str) -> Any:
    # bool is an int in Python; a YAML `true` must not pass as a number.
    if isinstance(value, bool) and bool not in types:
        raise ConfigError(path, f"must be {what}, got bool")
    if not isinstance(value, types):
        raise ConfigError(path, f"must be {what}, got {type(value).__name__}")
    return value


def _opt_str(path: str, value: Any) -> str | None:
    return None if value is None else _typed(path, value, (str,), "a string")


def _opt_positive(path: str, value: Any) -> float | None:
    if value is None:
        return None
    number = float(_typed(path, value, (int, float), "a number"))
    if number <= 0:
        raise ConfigError(path, "must be > 0")
    return number


def _parse_server(raw: Any) -> ServerConfig:
    data = _mapping("server", raw)
    defaults = ServerConfig()
    allowed = ServerConfig.__slots__
    _check_keys("server", data, allowed)
    values: dict[str, Any] = {}
    for key in allowed:
        if key not in data:
            continue
        default = getattr(defaults, key)
        types: tuple[type, ...] = (int, float) if isinstance(default, float) else (type(default),)
        if default is None:
            types = (str,)
        values[key] = _typed(f"server.{key}", data[key], types, types[0].__name__)
    for key in ("record_max_bytes", "record_backups"):
        if values.get(key, 0) < 0:
            raise ConfigError(f"server.{key}", "must be >= 0")
    if values.get("record_queue_lines", 1) < 1:
        raise ConfigError("server.record_queue_lines", "must be >= 1")
    if values.get("log_format", "console") not in ("console", "json"):
        raise ConfigError("server.log_format", "must be 'console' or 'json'")
    if not 1 <= values.get("api_processes", 1) <= MAX_API_PROCESSES:
        raise ConfigError("server.api_processes", f"must be 1 to {MAX_API_PROCESSES}")
    if values.get("stream_pacing", "lag") not in PACING_MODES:
        raise ConfigError("server.stream_pacing",
                          "must be " + " or ".join(repr(mode) for mode in PACING_MODES))
    return ServerConfig(**values)


def _parse_sampling(path: str, raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    data = _mapping(path, raw)
    _check_keys(path, data, SAMPLING_FIELDS)
    for key, value in data.items():
        problem = SAMPLING_FIELDS[key].problem(value)
        if problem is not None:
            raise ConfigError(_join(path, key), problem)
    return dict(data)


def _parse_engines(
    raw: Any, engine_arg_names: Collection[str] | None
) -> dict[str, EngineConfig]:
    if raw is None:
        raise ConfigError("engines", "at least one engine is required")
    data = _mapping("engines", raw)
    if not data:
        raise ConfigError("engines", "at least one engine is required")
    engines: dict[str, EngineConfig] = {}
    allowed = ("model", "engine_args", "sampling", "max_in_flight", "max_queue", "backend",
               "restart_on_failure", "remote", "gpus")
    for name, body in data.items():
        path = f"engines.{name}"
        spec = _mapping(path, body)
        _check_keys(path, spec, allowed)
        model = spec.get("model")
        if not isinstance(model, str) or not model:
            raise ConfigError(f"{path}.model", "required: a model id, a path or builtin:NAME")
        args = _mapping(f"{path}.engine_args", spec.get("engine_args") or {})
        if "model" in args:
            raise ConfigError(f"{path}.engine_args.model", "set the model with engines.*.model")
        backend = spec.get("backend", "vllm")
        if engine_arg_names is not None and backend == "vllm":
            for key in args:
                if key not in engine_arg_names:
                    raise ConfigError(
                        f"{path}.engine_args.{key}",
                        _unknown_message("AsyncEngineArgs field", key, engine_arg_names),
                    )
        if backend not in ("vllm", "remote", "fake"):
            raise ConfigError(f"{path}.backend",
                              "must be 'vllm' or 'fake' (in-process) or 'remote'")
        remote = None
        if backend == "remote":
            remote = _parse_remote(path, spec)
        elif "remote" in spec:
            raise ConfigError(f"{path}.remote", "only for backend: remote")
        max_in_flight = spec.get("max_in_flight")
        if max_in_flight is not None:
            _typed(f"{path}.max_in_flight", max_in_flight, (int,), "an integer")
            if max_in_flight < 1:
                raise ConfigError(f"{path}.max_in_flight", "must be >= 1")
        max_queue = _typed(f"{path}.max_queue", spec.get("max_queue", 256), (int,), "an integer")
        if max_queue < 0:
            raise ConfigError(f"{path}.max_queue", "must be >= 0")
        gpus = None
        if "gpus" in spec:
            if backend != "vllm":
                raise ConfigError(f"{path}.gpus", "only for backend: vllm (GPUs of this host)")
            try:
                gpus = parse_gpus(spec["gpus"], args)
            except ValueError as exc:
                raise ConfigError(f"{path}.gpus", str(exc)) from exc
        engines[str(name)] = EngineConfig(
            name=str(name),
            model=model,
            engine_args=dict(args),
            sampling=_parse_sampling(f"{path}.sampling", spec.get("sampling")),
            max_in_flight=max_in_flight,
            max_queue=max_queue,
            backend=backend,
            restart_on_failure=_typed(f"{path}.restart_on_failure",
                                      spec.get("restart_on_failure", False), (bool,), "a boolean"),
            remote=remote,
            gpus=gpus,
        )
    return engines


_REMOTE_KEYS = ("urls", "api_key_env", "max_model_len", "connect_timeout_s",
                "eject_after_failures", "eject_s", "health_interval_s")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _parse_remote(path: str, spec: Mapping[str, Any]) -> RemoteConfig:
    """engines.NAME.remote: the upstream servers of a remote engine (engines.remote)."""
    if spec.get("engine_args"):
        raise ConfigError(f"{path}.engine_args",
                          "a remote engine has no engine_args (its upstream is configured "
                          "where it runs); use engines.*.remote")
    if spec.get("restart_on_failure"):
        raise ConfigError(f"{path}.restart_on_failure",
                          "not for a remote engine: it is ready again on its own as soon as "
                          "one of its URLs passes a health check")
    rpath = f"{path}.remote"
    if spec.get("remote") is None:
        raise ConfigError(rpath, "required for backend: remote (at least urls: [...])")
    data = _mapping(rpath, spec["remote"])
    _check_keys(rpath, data, _REMOTE_KEYS)
    raw_urls = data.get("urls")
    if isinstance(raw_urls, str):
        raw_urls = [raw_urls]
    if not isinstance(raw_urls, list) or not raw_urls:
        raise ConfigError(f"{rpath}.urls", "required: a list of base URLs (http://host:port)")
    urls: list[str] = []
    for index, raw_url in enumerate(raw_urls):
        urls.append(_base_url(f"{rpath}.urls[{index}]", raw_url))
    if len(set(urls)) != len(urls):
        raise ConfigError(f"{rpath}.urls", "lists the same URL twice")
    key_env = _opt_str(f"{rpath}.api_key_env", data.get("api_key_env"))
    if key_env is not None and not _ENV_NAME.fullmatch(key_env):
        raise ConfigError(f"{rpath}.api_key_env",
                          "must name an environment variable (the key itself never goes in "
                          "routes.yaml)")
    max_model_len = data.get("max_model_len")
    if max_model_len is not None:
        _typed(f"{rpath}.max_model_len", max_model_len, (int,), "an integer")
        if max_model_len < 1:
            raise ConfigError(f"{rpath}.max_model_len", "must be >= 1")
    failures = _typed(f"{rpath}.eject_after_failures", data.get("eject_after_failures", 3),
                      (int,), "an integer")
    if failures < 1:
        raise ConfigError(f"{rpath}.eject_after_failures", "must be >= 1")
    defaults = RemoteConfig(urls=())
    return RemoteConfig(
        urls=tuple(urls),
        api_key_env=key_env,
        max_model_len=max_model_len,
        connect_timeout_s=_opt_positive(f"{rpath}.connect_timeout_s",
                                        data.get("connect_timeout_s"))
        or defaults.connect_timeout_s,
        eject_after_failures=failures,
        eject_s=_opt_positive(f"{rpath}.eject_s", data.get("eject_s")) or defaults.eject_s,
        health_interval_s=_opt_positive(f"{rpath}.health_interval_s",
                                        data.get("health_interval_s"))
        or defaults.health_interval_s,
    )


def _base_url(path: str, raw: Any) -> str:
    if not isinstance(raw, str) or not raw:
        raise ConfigError(path, "must be a URL string such as http://10.0.0.5:8000")
    parts = urlsplit(raw.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(path, f"must be an http:// or https:// URL with a host, got {raw!r}")
    try:
        _ = parts.port  # raises on a port that is not a number
    except ValueError as exc:
        raise ConfigError(path, f"bad port in {raw!r}") from exc
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ConfigError(path, "must not carry a query, a fragment or credentials "
                                "(use api_key_env for a key)")
    base = raw.strip().rstrip("/")
    if base.endswith("/v1"):
        raise ConfigError(path, "give the base URL without /v1 (the engine adds "
                                "/v1/chat/completions, /v1/completions, /v1/models)")
    return base


def _engine_ref(path: str, value: Any, engines: Mapping[str, EngineConfig]) -> str:
    if not isinstance(value, str) or value not in engines:
        known = ", ".join(engines)
        raise ConfigError(path, f"unknown engine {value!r} (known: {known})")
    return value


def _parse_recognize(path: str, raw: Any) -> RecognitionConfig:
    if raw is None:
        return RecognitionConfig()
    data = _mapping(path, raw)
    list_keys = ("keywords", "patterns", "examples", "negative_examples")
    _check_keys(path, data, (*list_keys, "signals"))
    lists: dict[str, tuple[str, ...]] = {}
    for key in list_keys:
        items = data.get(key) or []
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ConfigError(f"{path}.{key}", "must be a list of strings")
        lists[key] = tuple(items)
    for index, pattern in enumerate(lists["patterns"]):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ConfigError(f"{path}.patterns[{index}]", f"invalid regex: {exc}") from exc
    signals = _opt_str(f"{path}.signals", data.get("signals"))
    if signals is not None and signals not in SIGNAL_NAMES:
        raise ConfigError(f"{path}.signals", _unknown_message("signal", signals, SIGNAL_NAMES))
    return RecognitionConfig(signals=signals, **lists)


def _parse_variant(
    path: str, raw: Any, engines: Mapping[str, EngineConfig]
) -> VariantConfig:
    data = _mapping(path, raw)
    _check_keys(
        path, data, ("name", "engine", "weight", "sampling", "system_prompt", "prompt_template")
    )
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{path}.name", "required: a non-empty string")
    weight = float(_typed(f"{path}.weight", data.get("weight", 1.0), (int, float), "a number"))
    if weight < 0:
        raise ConfigError(f"{path}.weight", "must be >= 0")
    return VariantConfig(
        name=name,
        engine=_engine_ref(f"{path}.engine", data.get("engine"), engines),
        weight=weight,
        sampling=_parse_sampling(f"{path}.sampling", data.get("sampling")),
        system_prompt=_opt_str(f"{path}.system_prompt", data.get("system_prompt")),
        prompt_template=_template(f"{path}.prompt_template", data.get("prompt_template")),
    )


TEMPLATE_FIELDS = ("text", "system", "target_language", "source_language")


def _template(path: str, value: Any) -> str | None:
    template = _opt_str(path, value)
    if template is None:
        return None

    for _, name, _, _ in string.Formatter().parse(template):
        if name is not None and name not in TEMPLATE_FIELDS:
            raise ConfigError(
                path, f"unknown placeholder {{{name}}} (known: {', '.join(TEMPLATE_FIELDS)})"
            )
    return template


def _parse_routes(raw: Any, engines: Mapping[str, EngineConfig]) -> dict[str, RouteConfig]:
    if raw is None:
        raise ConfigError("routes", "at least one route is required")
    data = _mapping("routes", raw)
    if not data:
        raise ConfigError("routes", "at least one route is required")
    allowed = (
        "engine", "description", "sampling", "system_prompt", "prompt_template", "timeout_s",
        "first_token_timeout_s", "max_tokens_cap", "recognize", "variants", "shadow", "fallback",
        "allow",
    )  # fmt: skip
    routes: dict[str, RouteConfig] = {}
    for name, body in data.items():
        path = f"routes.{name}"
        spec = _mapping(path, body)
        _check_keys(path, spec, allowed)
        if str(name) in engines and spec.get("engine") != name:
            raise ConfigError(path, f"a route named like engine {name!r} must use that engine")
        variants = _parse_variants(f"{path}.variants", spec.get("variants"), engines)
        engine = spec.get("engine")
        if engine is None and variants:
            engine = variants[0].engine
        cap = spec.get("max_tokens_cap")
        if cap is not None:
            _typed(f"{path}.max_tokens_cap", cap, (int,), "an integer")
        routes[str(name)] = RouteConfig(
            name=str(name),
            engine=_engine_ref(f"{path}.engine", engine, engines),
            description=_opt_str(f"{path}.description", spec.get("description")) or "",
            sampling=_parse_sampling(f"{path}.sampling", spec.get("sampling")),
            system_prompt=_opt_str(f"{path}.system_prompt", spec.get("system_prompt")),
            prompt_template=_template(f"{path}.prompt_template", spec.get("prompt_template")),
            timeout_s=_opt_positive(f"{path}.timeout_s", spec.get("timeout_s")),
            first_token_timeout_s=_opt_positive(
                f"{path}.first_token_timeout_s", spec.get("first_token_timeout_s")
            ),
            max_tokens_cap=cap,
            recognize=_parse_recognize(f"{path}.recognize", spec.get("recognize")),
            variants=variants,
            shadow=_parse_shadow(f"{path}.shadow", spec.get("shadow"), engines),
            fallback=_opt_str(f"{path}.fallback", spec.get("fallback")),
            allow=_str_list(f"{path}.allow", spec.get("allow")),
        )
    for name, route in routes.items():
        if route.fallback is not None and route.fallback not in routes:
            raise ConfigError(
                f"routes.{name}.fallback",
                f"unknown route {route.fallback!r} (known: {', '.join(routes)})",
            )
    return routes


def _parse_variants(
    path: str, raw: Any, engines: Mapping[str, EngineConfig]
) -> tuple[VariantConfig, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not raw:
        raise ConfigError(path, "must be a non-empty list")
    variants = tuple(_parse_variant(f"{path}[{i}]", v, engines) for i, v in enumerate(raw))
    names = [v.name for v in variants]
    for index, name in enumerate(names):
        if name in names[:index]:
            raise ConfigError(f"{path}[{index}].name", f"duplicate variant {name!r}")
    if sum(v.weight for v in variants) <= 0:
        raise ConfigError(path, "the weights must not all be 0")
    return variants


def _parse_shadow(
    path: str, raw: Any, engines: Mapping[str, EngineConfig]
) -> ShadowConfig | None:
    if raw is None:
        return None
    data = _mapping(path, raw)
    fraction = data.get("fraction", 1.0)
    _typed(f"{path}.fraction", fraction, (int, float), "a number")
    if not 0 <= fraction <= 1:
        raise ConfigError(f"{path}.fraction", "must be between 0 and 1")
    variant_raw = {k: v for k, v in data.items() if k != "fraction"}
    variant_raw.setdefault("name", "shadow")
    variant = _parse_variant(path, variant_raw, engines)
    return ShadowConfig(variant=variant, fraction=float(fraction))

