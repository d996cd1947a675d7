"""API keys: who a bearer key belongs to, its tier (vLLM priority) and admin rights.

Keys come from an environment variable (``KEY:TIER,...``) or a keys file that stores only
sha256 digests, so no key sits in plain text in a repository. A presented key is hashed and
compared with every stored digest in constant time (hmac.compare_digest, no early exit),
so response timing does not reveal how much of a key matched.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from router.config import AuthConfig, ConfigError

ADMIN = "admin"


@dataclass(frozen=True, slots=True)
class Principal:
    name: str
    tier: str
    priority: int
    admin: bool = False

    @property
    def vip(self) -> bool:
        return self.priority < 0


ANONYMOUS = Principal(name="anonymous", tier="standard", priority=0)


@dataclass(frozen=True, slots=True)
class _StoredKey:
    digest: bytes
    principal: Principal


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


class KeyStore:
    def __init__(self, keys: list[_StoredKey]) -> None:
        self._keys = keys

    def __len__(self) -> int:
        return len(self._keys)

    @classmethod
    def from_config(cls, config: AuthConfig, environ: dict[str, str] | None = None) -> KeyStore:
        """Read the keys (a file read: call it off the event loop once serving)."""
        env = os.environ if environ is None else environ
        keys: list[_StoredKey] = []
        if config.keys_env is not None:
            keys.extend(_keys_from_env(config, env.get(config.keys_env, "")))
        if config.keys_file is not None:
            keys.extend(_keys_from_file(config, Path(config.keys_file)))
        if config.enabled and not keys:
            raise ConfigError("auth", "auth is configured but no API key was found")
        return cls(keys)

    def authenticate(self, presented: str) -> Principal | None:
        digest = _digest(presented)
        found: Principal | None = None
        for stored in self._keys:  # no early exit: every key is compared
            if hmac.compare_digest(stored.digest, digest):
                found = stored.principal
        return found


def _principal(config: AuthConfig, name: str, tier: str, admin: bool, where: str) -> Principal:
    if tier == ADMIN:
        admin, tier = True, "standard"
    if tier not in config.tiers:
        known = ", ".join([*config.tiers, ADMIN])
        raise ConfigError(where, f"unknown tier {tier!r} (known: {known})")
    return Principal(name=name, tier=tier, priority=config.tiers[tier], admin=admin)


def _keys_from_env(config: AuthConfig, value: str) -> list[_StoredKey]:
    keys = []
    for index, item in enumerate(filter(None, (part.strip() for part in value.split(",")))):
        key, _, tier = item.rpartition(":")
        if not key:
            key, tier = tier, "standard"
        where = f"${config.keys_env}[{index}]"
        keys.append(_StoredKey(_digest(key), _principal(config, f"env-{index}", tier, False,
                                                        where)))
    return keys


def _keys_from_file(config: AuthConfig, path: Path) -> list[_StoredKey]:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise ConfigError("auth.keys_file", f"cannot read {path}: {exc}") from exc
    entries = raw.get("keys") if isinstance(raw, dict) else None
    if not isinstance(entries, list):
        raise ConfigError("auth.keys_file", f"{path}: expected a mapping with a 'keys' list")
    keys = []
    for index, entry in enumerate(entries):
        where = f"{path}: keys[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
            raise ConfigError(where, "each key needs 'sha256' (hex digest of the key)")
        try:
            digest = bytes.fromhex(entry["sha256"])
        except ValueError:
            raise ConfigError(where, "'sha256' must be a hex digest") from None
        principal = _principal(config, str(entry.get("name", f"key-{index}")),
                               str(entry.get("tier", "standard")), bool(entry.get("admin")), where)
        keys.append(_StoredKey(digest, principal))
    return keys
