"""router/ never imports vLLM; only engines/vllm_engine.py does, and lazily."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_importing_the_gateway_loads_no_vllm() -> None:
    code = (
        "import sys, router.app, router.cli, router.endpoints, engines.factory, engines.registry;"
        "print(sorted(m for m in sys.modules if m == 'vllm' or m.startswith('vllm.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_router_module_mentions_vllm_imports() -> None:
    offenders = [
        str(path.relative_to(REPO))
        for path in (REPO / "router").rglob("*.py")
        if "import vllm" in path.read_text() or "from vllm" in path.read_text()
    ]
    assert offenders == []
