"""Hot reload of routes.yaml: swap models, routes and weights with no restart, no failed request.

    parse + validate the new file in full, read its API keys ──invalid──▶ nothing changes
      │
    diff engines: unchanged (untouched) · added · changed · removed; "changed" means a new
    model, engine_args or backend — gateway-side fields (admission bounds, restart policy,
    default sampling) apply to the running engine at the switch
      │
    memory plan: can old and new run side by side?
      ├─ yes ("coexist"): start added+changed engines detached, warm each up
      │                   ──any fails──▶ close them, old config stays, error reported
      └─ no ("in_place"): drain + stop the old engine first, then start the new one
                          (its routes answer 503 meanwhile; on failure the old one is
                          started again)
      │
    atomic switch: a new snapshot (config, routing table, limits, keys, engine handles with
      their admissions) assigned in one step, no await around it: requests that started
      before keep their engine handle and ticket; every later one sees the new snapshot
      │
    retire replaced/removed engines: drain (bounded), abort the rest, close (processes gone)

Route-only changes (weights, sampling, prompts, rules, keys) skip every engine step.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import structlog
from prometheus_client import Counter, Gauge

from engines.config import EngineConfig
from engines.memory import host_inventory, plan_memory
from engines.protocol import GenerationRequest
from engines.registry import EngineHandle, EngineState
from router.classify import Classifier
from router.config import ConfigError, GatewayConfig
from router.gateway import Gateway
from router.keys import KeyStore
from router.pipeline.choose import build_classifier
from router.snapshot import Snapshot

log = structlog.get_logger("switchboard.reload")

STRATEGIES = ("auto", "coexist", "in_place")
WARMUP_PROMPT = [{"role": "user", "content": "Hello"}]


class ReloadError(Exception):
    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind  # "invalid_config" | "memory" | "engine_failed" | "unavailable"


@dataclass(frozen=True, slots=True)
class EngineDiff:
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    unchanged: tuple[str, ...]

    @property
    def touches_engines(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    def as_dict(self) -> dict[str, list[str]]:
        return {"added": list(self.added), "changed": list(self.changed),
                "removed": list(self.removed), "unchanged": list(self.unchanged)}


def diff_engines(old: Mapping[str, EngineConfig], new: Mapping[str, EngineConfig]) -> EngineDiff:
    def changed(name: str) -> bool:
        return old[name].needs_restart_for(new[name])

    return EngineDiff(
        added=tuple(n for n in new if n not in old),
        changed=tuple(n for n in new if n in old and changed(n)),
        removed=tuple(n for n in old if n not in new),
        unchanged=tuple(n for n in new if n in old and not changed(n)),
    )


@dataclass
class ReloadResult:
    ok: bool
    trigger: str
    started_at: float
    duration_s: float = 0.0
    config_hash: str | None = None
    strategy: str | None = None
    changes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    error_kind: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok, "trigger": self.trigger,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started_at)),
            "duration_s": round(self.duration_s, 3), "config_hash": self.config_hash,
            "strategy": self.strategy, "changes": self.changes, "error": self.error,
            "error_kind": self.error_kind,
        }  # fmt: skip


ConfigLoader = Callable[[str], GatewayConfig]


class Reloader:
    def __init__(self, gateway: Gateway, load: ConfigLoader, drain_timeout_s: float,
                 refusal: str | None = None) -> None:
        self.gateway = gateway
        # Set: this gateway cannot reload (several API processes share its engines' cores),
        # and every reload fails with this reason, changing nothing.
        self.refusal = refusal
        self.load = load
        self.drain_timeout_s = drain_timeout_s
        self.loaded_at = time.time()
        self.last: ReloadResult | None = None
        self.successes = 0
        self.failures = 0
        self._lock = asyncio.Lock()
        registry = gateway.metrics.registry
        self._reloads = Counter("switchboard_config_reloads", "Config reloads by outcome",
                                ["outcome", "error_kind"], registry=registry)
        self._loaded = Gauge("switchboard_config_loaded_timestamp_seconds",
                             "When the config in force was loaded", registry=registry,
                             multiprocess_mode="max")  # several API processes: the newest
        self._loaded.set(self.loaded_at)

    def status(self) -> dict[str, Any]:
        return {"loaded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.loaded_at)),
                "reloads_ok": self.successes, "reloads_failed": self.failures,
                "last_reload": None if self.last is None else self.last.as_dict()}

    async def reload(self, trigger: str, path: str | None = None,
                     strategy: str = "auto") -> ReloadResult:
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}")
        async with self._lock:  # one reload at a time; a second waits for the first
            result = ReloadResult(ok=False, trigger=trigger, started_at=time.time())
            started = time.monotonic()
            try:
                if self.refusal is not None:
                    raise ReloadError(self.refusal, "unavailable")
                await self._apply(path or self.gateway.snapshot.config.source_path, strategy,
                                  result)
                result.ok = True
                self.successes += 1
                self.loaded_at = time.time()
                self._loaded.set(self.loaded_at)
                self._reloads.labels("ok", "").inc()
            except Exception as exc:  # a reload reports every failure, never a bare 500
                if not isinstance(exc, ReloadError):
                    log.exception("reload_crashed")
                    exc = ReloadError(f"{type(exc).__name__}: {exc}", "internal")
                result.error, result.error_kind = str(exc), exc.kind
                self.failures += 1
                self._reloads.labels("failed", exc.kind).inc()
            result.duration_s = time.monotonic() - started
            self.last = result
            if result.ok:
                log.info("reload_applied", **_log_fields(result))
            else:
                log.error("reload_failed", **_log_fields(result))
            return result

    async def _apply(self, path: str, strategy: str, result: ReloadResult) -> None:
        gateway = self.gateway
        try:
            # Off the loop: file reads, YAML parsing, and (first time) vLLM's arg names.
            # Always re-read the keys: a keys file may change while routes.yaml does not.
            new, keys = await asyncio.to_thread(validate_config, path, self.load)
        except ConfigError as exc:
            raise ReloadError(f"{path}: {exc}", "invalid_config") from exc
        result.config_hash = new.digest
        old = gateway.snapshot.config
        diff = diff_engines(old.engines, new.engines)
        result.changes = {"engines": diff.as_dict(), "routes_changed": old.routes != new.routes
                          or old.default_route != new.default_route}
        classifier = await self._classifier_for(new)
        if not diff.touches_engines:
            result.strategy = "routes_only"
            self._switch(new, classifier, keys, [], diff.removed)
            return
        result.strategy = chosen = self._choose_strategy(old, new, diff, strategy)
        if chosen == "coexist":
            fresh = await self._start_warm(new, [*diff.added, *diff.changed])
            replaced = self._switch(new, classifier, keys, fresh, diff.removed)
            await asyncio.gather(*(gateway.registry.retire(h, self.drain_timeout_s)
                                   for h in replaced))
        else:
            await self._swap_in_place(old, new, diff, classifier, keys)

    def _choose_strategy(self, old: GatewayConfig, new: GatewayConfig, diff: EngineDiff,
                         wanted: str) -> str:
        try:
            new_plan = plan_memory(new.engines)
            old_plan = plan_memory(old.engines, new_plan.inventory)
        except ValueError as exc:  # a non-numeric memory setting
            raise ReloadError(str(exc), "invalid_config") from exc
        if not new_plan.fits:
            raise ReloadError(
                "the new config's memory plan does not fit: "
                + "; ".join(new_plan.shortfalls()), "memory")
        # During a side-by-side swap the old versions of changed and removed engines still run.
        staying_old = [old_plan.engine(n) for n in (*diff.changed, *diff.removed)
                       if n in old.engines]
        fits_together = new_plan.fits_with(staying_old)
        if wanted == "coexist" and not fits_together:
            raise ReloadError(
                "old and new engines do not fit side by side ("
                + "; ".join(new_plan.shortfalls(staying_old))
                + "); reload with strategy=in_place to swap with a brief unavailability",
                "memory")
        if wanted == "in_place" or not fits_together:
            return "in_place"
        return "coexist"

    async def _classifier_for(self, new: GatewayConfig) -> Classifier:
        current = self.gateway.snapshot.table
        same = (new.default_route == current.config.default_route and
                {n: r.recognize for n, r in new.routes.items()}
                == {n: r.recognize for n, r in current.config.routes.items()})
        if same:
            return current.classifier
        # Building one loads language models (~0.5 s of CPU): not on the event loop.
        return await asyncio.to_thread(build_classifier, new)

    async def _start_warm(self, new: GatewayConfig, names: Iterable[str]) -> list[EngineHandle]:
        fresh = await self.gateway.registry.start_detached(new.engines[n] for n in names)
        try:
            for handle in fresh:
                if handle.state is not EngineState.READY:
                    raise ReloadError(f"engine {handle.name!r} failed to start: {handle.error}",
                                      "engine_failed")
                await _warm_up(handle)
        except BaseException:
            await self.gateway.registry.close_handles(fresh)
            raise
        return fresh

    def _switch(self, new: GatewayConfig, classifier: Classifier, keys: KeyStore | None,
                fresh: list[EngineHandle], removed: Iterable[str]) -> list[EngineHandle]:
        """The atomic step: no await in here, so no request sees half of it. Returns the
        handles it replaced, for the caller to retire."""
        registry = self.gateway.registry
        replaced: list[EngineHandle] = []
        for handle in fresh:
            previous = registry.install(handle)
            if previous is not None:
                replaced.append(previous)
        for name in removed:
            gone = registry.detach(name)
            if gone is not None:
                replaced.append(gone)
        started = {id(h) for h in fresh}
        for name, handle in registry.handles.items():
            if id(handle) not in started and handle.config != new.engines[name]:
                handle.reconfigure(new.engines[name])  # gateway-side fields only
        self.gateway.snapshot = Snapshot.build(new, classifier, keys, registry.handles)
        return replaced

    async def _swap_in_place(self, old: GatewayConfig, new: GatewayConfig, diff: EngineDiff,
                             classifier: Classifier, keys: KeyStore | None) -> None:
        """Not enough memory for both: stop each old engine before its successor starts."""
        registry = self.gateway.registry
        leaving = [registry.get(n) for n in (*diff.changed, *diff.removed)]
        log.warning("reload_in_place", engines=[h.name for h in leaving],
                    note="routes on these engines answer 503 until the new engines are ready")
        await asyncio.gather(*(registry.retire(h, self.drain_timeout_s) for h in leaving))
        try:
            fresh = await self._start_warm(new, [*diff.added, *diff.changed])
        except ReloadError:
            # Put the old engines back so the old configuration really stays in force.
            restored = await registry.start_detached(
                old.engines[n] for n in (*diff.changed, *diff.removed))
            for handle in restored:
                registry.install(handle)
            snapshot = self.gateway.snapshot
            self.gateway.snapshot = Snapshot.build(snapshot.config, snapshot.table.classifier,
                                                   snapshot.keys, registry.handles)
            raise
        self._switch(new, classifier, keys, fresh, diff.removed)


def validate_config(path: str, load: ConfigLoader) -> tuple[GatewayConfig, KeyStore | None]:
    """Everything a file must pass before it may serve: the one check behind both
    `switchboard check` and every reload. Any problem is a ConfigError naming its YAML path."""
    try:
        config = load(path)
        # Memory settings must be numbers, whatever this machine has (plan sizes come later).
        plan_memory(config.engines, host_inventory(0))
        keys = KeyStore.from_config(config.auth) if config.auth.enabled else None
    except ConfigError:
        raise
    except UnicodeDecodeError as exc:
        raise ConfigError("", f"not valid UTF-8 (byte {exc.start})") from exc
    except ValueError as exc:  # engines/memory.py names the YAML path in its message
        raise ConfigError("", str(exc)) from exc
    except OSError as exc:  # the file or its keys file cannot be read
        raise ConfigError("", f"cannot read {exc.filename or path}: {exc.strerror or exc}") \
            from exc
    return config, keys


async def _warm_up(handle: EngineHandle) -> None:
    """One real generation before the engine takes traffic."""
    engine = handle.engine
    try:
        prompt = await engine.prepare_chat(WARMUP_PROMPT)
        request = GenerationRequest(f"warmup-{uuid.uuid4().hex}", prompt, {"max_tokens": 1})
        async with asyncio.timeout(120):
            async for _ in engine.generate(request):
                pass
    except Exception as exc:
        raise ReloadError(f"engine {handle.name!r} failed its warm-up request: {exc}",
                          "engine_failed") from exc


def _log_fields(result: ReloadResult) -> dict[str, Any]:
    return {k: v for k, v in result.as_dict().items() if v not in (None, {}, [])}


def install_sighup(gateway: Gateway, reloader: Reloader) -> None:
    """SIGHUP reloads, as daemons do. Only possible in the main thread (not under tests)."""
    import signal

    async def reload() -> None:
        await reloader.reload("SIGHUP")

    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGHUP,
                                lambda: gateway.spawn(reload(), name="reload-sighup"))
    except (RuntimeError, ValueError, NotImplementedError):
        log.debug("sighup_unavailable")


async def watch_file(reloader: Reloader, path: str) -> None:
    """`serve --watch`: reload whenever the file's content changes (router.watch says how
    rename-saves and ConfigMap swaps are followed)."""
    from router.watch import watch_config

    await watch_config(path, lambda: reloader.reload("file change"))
