"""Per-engine admission: a bound on outstanding work, decided before any tokenisation.

The gateway does not hold its own queue: work past the engine's running capacity goes to
vLLM's scheduler, which orders it by priority. Admission only bounds how much may be
outstanding (running + waiting), in units of sequences (a request with ``n`` choices is ``n``
units), and keeps a slice of the bound for VIP traffic, so overload turns into immediate
429s instead of an unbounded queue. Shadow copies never queue: they only take free running
slots that standard traffic may also use.

Each EngineHandle creates and owns one Admission; a Ticket gives back exactly what it took.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engines.errors import AdmissionRefusedError


class Bound(Enum):
    VIP = "vip"  # the whole capacity
    STANDARD = "standard"  # capacity minus the VIP reserve
    SHADOW = "shadow"  # free running slots within the standard bound; never queued


def share(bound: int, parts: int) -> int:
    """One of `parts` processes' share of a bound, rounded up (never 0): N API processes
    sharing an engine's cores each admit this much (router.processes)."""
    return -(-bound // parts)


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

    def limit(self, bound: Bound) -> int:
        standard = max(1, int(self.capacity * (1 - self.vip_reserve)))
        if bound is Bound.VIP:
            return self.capacity
        if bound is Bound.SHADOW:
            return min(self.max_in_flight, standard)
        return standard

    def has_room(self, weight: int, bound: Bound) -> bool:
        return self.outstanding + weight <= self.limit(bound)

    def acquire(self, weight: int = 1, bound: Bound = Bound.STANDARD) -> Ticket:
        if not self.has_room(weight, bound):
            self.rejected += 1
            raise AdmissionRefusedError(
                f"engine {self.engine!r} is at capacity ({self.outstanding} of "
                f"{self.limit(bound)} sequences outstanding; this request needs {weight}); "
                "retry shortly"
            )
        self.outstanding += weight
        return Ticket(self, weight)

    def resize(self, max_in_flight: int, max_queue: int) -> None:
        """New bounds (a reload); what is outstanding stays counted."""
        self.max_in_flight, self.max_queue = max(1, max_in_flight), max_queue


class Ticket:
    """What one admitted request holds; released once, however often release is called."""

    __slots__ = ("_admission", "weight")

    def __init__(self, admission: Admission, weight: int) -> None:
        self._admission: Admission | None = admission
        self.weight = weight

    def release(self) -> None:
        admission, self._admission = self._admission, None
        if admission is not None:
            admission.outstanding = max(0, admission.outstanding - self.weight)
