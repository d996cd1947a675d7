"""/openapi.json describes every route the app serves, and its request bodies come from the
same sampling field table that validates bodies and routes.yaml."""

from __future__ import annotations

from starlette.routing import Route

from engines.config import SAMPLING_FIELDS
from tests.unit.fakes import fake_client


def test_every_route_of_the_app_is_in_the_document() -> None:
    with fake_client() as (client, _):
        document = client.get("/openapi.json").json()
        app_routes = {(route.path, method.lower())
                      for route in client.app.routes  # type: ignore[attr-defined]
                      if isinstance(route, Route)
                      for method in (route.methods or ()) if method != "HEAD"}
    documented = {(path, method) for path, item in document["paths"].items()
                  for method in item}
    assert app_routes and app_routes == documented
    for path in ("/v1/compare", "/metrics", "/admin/reload"):  # once missing
        assert path in document["paths"]


def test_generation_bodies_list_every_sampling_field_with_its_range() -> None:
    with fake_client() as (client, _):
        paths = client.get("/openapi.json").json()["paths"]
    for path in ("/v1/chat/completions", "/v1/completions", "/v1/compare"):
        schema = paths[path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        for name, field in SAMPLING_FIELDS.items():
            expected = field.json_schema()
            if name == "n":
                expected = {**expected, "maximum": 8}  # server.max_n
            assert schema["properties"][name] == expected, (path, name)
    assert paths["/v1/chat/completions"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]["properties"]["temperature"] == {
        "type": "number", "minimum": 0.0, "maximum": 2.0}
