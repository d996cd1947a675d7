"""schemathesis against /openapi.json on fake engines: no input produces a 5xx."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import status_code_conformance

from router.config import parse_config
from router.http.app import build_app
from tests.unit.fakes import FAKE_CONFIG, FakeGateway

gateway = FakeGateway(parse_config(FAKE_CONFIG))
app = build_app(gateway.config, gateway.factory, on_state=gateway.on_state)
schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_a_server_error(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error, status_code_conformance])
