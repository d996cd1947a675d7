"""Per-engine admission: a bound on outstanding requests, decided before any tokenisation.

The gateway does not hold its own queue: requests past the engine's running capacity go to
vLLM's scheduler, which orders them by priority. The gateway only bounds how many may be
outstanding (running + waiting), and keeps a slice of that bound for VIP traffic, so
overload turns into immediate 429s instead of an unbounded queue.
"""

from __future__ import annotations

from dataclasses import dataclass

from router.errors import OverloadedError


@dataclass
class Admission:
    engine: str
    max_in_flight: int
    max_queue: int
    # Fraction of the bound that only VIP (priority < 0) requests may use.
    vip_reserve: float = 0.2
    outstanding: int = 0
    rejected: int = 0

    @property
    def capacity(self) -> int:
        return self.max_in_flight + self.max_queue

    @property
    def waiting(self) -> int:
        return max(0, self.outstanding - self.max_in_flight)

    def acquire(self, vip: bool = False) -> None:
        limit = self.capacity if vip else max(1, int(self.capacity * (1 - self.vip_reserve)))
        if self.outstanding >= limit:
            self.rejected += 1
            raise OverloadedError(
                f"engine {self.engine!r} is at capacity ({self.outstanding} requests "
                "outstanding); retry shortly",
                headers={"Retry-After": "1"},
            )
        self.outstanding += 1

    def release(self) -> None:
        self.outstanding = max(0, self.outstanding - 1)
