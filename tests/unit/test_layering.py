"""The layers depend one way: router/ never imports vLLM (only engines/vllm_engine.py does,
lazily); engines/ never imports router/; the pipeline never imports the HTTP layer."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def offenders(folder: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{path.relative_to(REPO)}: {name}"
        for path in (REPO / folder).rglob("*.py")
        for name in imported_modules(path)
        if name in forbidden or name.startswith(tuple(f"{f}." for f in forbidden))
    )


def test_importing_the_gateway_loads_no_vllm() -> None:
    code = (
        "import sys, router.http.app, router.cli, engines.factory, engines.registry;"
        "print(sorted(m for m in sys.modules if m == 'vllm' or m.startswith('vllm.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_router_never_imports_vllm() -> None:
    assert offenders("router", ("vllm",)) == []


def test_engines_never_import_router() -> None:
    assert offenders("engines", ("router",)) == []


def test_the_pipeline_never_imports_the_http_layer() -> None:
    assert offenders("router/pipeline", ("router.http", "starlette")) == []
    assert offenders("router/telemetry", ("router.http", "router.pipeline")) == []
