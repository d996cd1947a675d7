"""deploy/ (Kubernetes manifests), checked without a cluster (none runs on these machines).

Each manifest is validated against the Kubernetes JSON schemas (strict: unknown fields fail)
when `kubernetes-validate` is installed, which bundles them offline; without it, a strict
structural check of the same manifests runs instead. Either way the cross-references are
checked: the probes are public GET endpoints of the gateway, the port and config path in the
container's arguments are the ones its own CLI parses and mounts, the ConfigMap's key is the
file `--config` reads and it is a valid routes.yaml whose memory plan fits the GPUs the pod
asks for, and the grace period outlasts the preStop sleep plus the gateway's drain.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from engines.memory import Device, Inventory, plan_memory
from engines.vllm_engine import PROCESS_EXIT_TIMEOUT_S
from router.cli import build_parser
from router.config import parse_config
from router.http.app import ENDPOINTS
from router.http.auth import PUBLIC_PATHS

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
# The oldest Kubernetes these manifests are meant for, and the newest the schemas know.
KUBERNETES_VERSIONS = ("1.30.0", "1.37.0")


def load(name: str) -> dict[str, Any]:
    documents = [d for d in yaml.safe_load_all((DEPLOY / name).read_text()) if d is not None]
    assert len(documents) == 1, f"{name}: one object per file"
    document: dict[str, Any] = documents[0]
    return document


def kustomization() -> dict[str, Any]:
    return load("kustomization.yaml")


def resources() -> dict[str, dict[str, Any]]:
    """The objects kustomization.yaml lists, by kind."""
    found = {}
    for name in kustomization()["resources"]:
        document = load(name)
        found[document["kind"]] = document
    return found


def container() -> dict[str, Any]:
    containers = resources()["Deployment"]["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    found: dict[str, Any] = containers[0]
    return found


def serve_args() -> Any:
    """The container's command line as `switchboard` itself parses it."""
    c = container()
    command = [*c["command"], *c["args"]]
    assert command[0] == "switchboard"
    return build_parser().parse_args(command[1:])


def test_kustomization_lists_every_manifest_in_the_folder() -> None:
    listed = set(kustomization()["resources"])
    on_disk = {p.name for p in DEPLOY.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk
    assert set(resources()) == {"ConfigMap", "Deployment", "Service", "PodDisruptionBudget"}
    images = {i["name"] for i in kustomization()["images"]}
    assert container()["image"].split(":")[0] in images


# --- schema: kubernetes-validate when installed, else a strict structural check --------------


HAVE_SCHEMAS = importlib.util.find_spec("kubernetes_validate") is not None


@pytest.mark.skipif(not HAVE_SCHEMAS, reason="kubernetes-validate not installed: "
                    "test_manifests_have_the_structure_kubernetes_requires runs instead")
@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_manifests_match_the_kubernetes_schemas(version: str) -> None:
    import kubernetes_validate

    for name, document in ((n, load(n)) for n in kustomization()["resources"]):
        try:
            kubernetes_validate.validate(document, version, strict=True)
        except Exception as exc:  # jsonschema's ValidationError, or no schema for the kind
            where = ".".join(str(p) for p in getattr(exc, "path", ()))
            pytest.fail(f"{name} (Kubernetes {version}): {getattr(exc, 'message', exc)} "
                        f"at {where or 'the top'}")


# Every key the manifests may use, by object path ("*" one level of list items).
ALLOWED: Mapping[str, set[str]] = {
    "": {"apiVersion", "kind", "metadata", "spec", "data"},
    "metadata": {"name", "labels", "annotations"},
    "Deployment.spec": {"replicas", "selector", "strategy", "template"},
    "Deployment.spec.strategy": {"type", "rollingUpdate"},
    "Deployment.spec.strategy.rollingUpdate": {"maxSurge", "maxUnavailable"},
    "Deployment.spec.template": {"metadata", "spec"},
    "Deployment.spec.template.spec": {"terminationGracePeriodSeconds", "securityContext",
                                      "containers", "volumes"},
    "Deployment.spec.template.spec.securityContext": {"runAsNonRoot", "runAsUser", "fsGroup"},
    "container": {"name", "image", "imagePullPolicy", "command", "args", "ports", "env",
                  "resources", "startupProbe", "livenessProbe", "readinessProbe", "lifecycle",
                  "volumeMounts"},
    "probe": {"httpGet", "periodSeconds", "timeoutSeconds", "failureThreshold",
              "initialDelaySeconds", "successThreshold"},
    "Service.spec": {"type", "selector", "ports"},
    "PodDisruptionBudget.spec": {"maxUnavailable", "minAvailable", "selector"},
}
API_VERSIONS = {"ConfigMap": "v1", "Service": "v1", "Deployment": "apps/v1",
                "PodDisruptionBudget": "policy/v1"}


def keys_ok(where: str, mapping: Mapping[str, Any]) -> None:
    unknown = set(mapping) - ALLOWED[where]
    assert not unknown, f"{where}: unknown keys {sorted(unknown)}"


@pytest.mark.skipif(HAVE_SCHEMAS, reason="the Kubernetes schemas are checked instead")
def test_manifests_have_the_structure_kubernetes_requires() -> None:
    for kind, document in resources().items():
        assert document["apiVersion"] == API_VERSIONS[kind]
        keys_ok("", document)
        keys_ok("metadata", document["metadata"])
        assert isinstance(document["metadata"]["name"], str)
        if f"{kind}.spec" in ALLOWED:
            keys_ok(f"{kind}.spec", document["spec"])
    deployment = resources()["Deployment"]["spec"]
    keys_ok("Deployment.spec.strategy", deployment["strategy"])
    keys_ok("Deployment.spec.strategy.rollingUpdate", deployment["strategy"]["rollingUpdate"])
    keys_ok("Deployment.spec.template", deployment["template"])
    pod = deployment["template"]["spec"]
    keys_ok("Deployment.spec.template.spec", pod)
    keys_ok("Deployment.spec.template.spec.securityContext", pod["securityContext"])
    c = container()
    keys_ok("container", c)
    assert all(isinstance(a, str) for a in [*c["command"], *c["args"]])
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        keys_ok("probe", c[probe])
        assert set(c[probe]["httpGet"]) <= {"path", "port", "scheme"}
    for env in c["env"]:
        assert set(env) == {"name", "value"} and isinstance(env["value"], str)
    # Extended resources (GPUs) must be whole numbers and, when requested, equal the limit.
    gpu = c["resources"]["limits"]["nvidia.com/gpu"]
    assert str(gpu).isdigit() and c["resources"]["requests"].get("nvidia.com/gpu", gpu) == gpu
    volumes = {v["name"] for v in pod["volumes"]}
    assert {m["name"] for m in c["volumeMounts"]} <= volumes
    assert all(len([k for k in v if k != "name"]) == 1 for v in pod["volumes"])  # one source
    assert set(resources()["ConfigMap"]["data"]) and all(
        isinstance(v, str) for v in resources()["ConfigMap"]["data"].values())


# Kubernetes' resource.Quantity (the schemas take any string).
QUANTITY = re.compile(r"^[0-9]+(\.[0-9]+)?([numkMGTPE]|[KMGTPE]i|[eE][0-9]+)?$")


def test_resource_quantities_are_kubernetes_quantities() -> None:
    resources_ = container()["resources"]
    for section in ("requests", "limits"):
        for name, value in resources_[section].items():
            assert QUANTITY.match(str(value)), f"resources.{section}.{name}: {value!r}"
    assert "nvidia.com/gpu" in resources_["limits"]  # GPUs are asked for as a limit


# --- cross-references with the gateway -------------------------------------------------------


def test_selectors_match_the_pod_labels() -> None:
    labels = resources()["Deployment"]["spec"]["template"]["metadata"]["labels"]
    deployment_selector = resources()["Deployment"]["spec"]["selector"]["matchLabels"]
    assert deployment_selector.items() <= labels.items()
    assert resources()["Service"]["spec"]["selector"].items() <= labels.items()
    pdb_selector = resources()["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"]
    assert pdb_selector.items() <= labels.items()


def test_the_probes_are_public_get_endpoints_of_the_gateway() -> None:
    c = container()
    gets = {e.path for e in ENDPOINTS if e.method == "GET"}
    assert c["readinessProbe"]["httpGet"]["path"] == "/ready"
    assert c["livenessProbe"]["httpGet"]["path"] == "/health"
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        path = c[probe]["httpGet"]["path"]
        assert path in gets, f"{probe}: {path} is not a GET endpoint"
        assert path in PUBLIC_PATHS, f"{probe}: {path} would need an API key with auth on"


def test_the_ports_are_the_one_the_gateway_listens_on() -> None:
    c = container()
    args = serve_args()
    assert args.func.__name__ == "cmd_serve"
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports == {"http": args.port}
    assert args.host == "0.0.0.0"  # reachable from the kubelet and the Service
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert c[probe]["httpGet"]["port"] in (args.port, "http")
    service_port = resources()["Service"]["spec"]["ports"][0]
    assert service_port["targetPort"] in (args.port, "http")


def test_the_configmap_key_is_the_file_serve_reads_and_it_is_reloaded_on_change() -> None:
    c = container()
    args = serve_args()
    assert args.watch, "without --watch a ConfigMap change is never applied"
    config_path = Path(args.config)
    mounts = {m["name"]: m for m in c["volumeMounts"]}
    pod = resources()["Deployment"]["spec"]["template"]["spec"]
    volume = next(v for v in pod["volumes"] if "configMap" in v)
    mount = mounts[volume["name"]]
    # A directory mount: kubelet swaps its ..data symlink, which router/watch.py follows; a
    # subPath mount would never change.
    assert "subPath" not in mount and Path(mount["mountPath"]) == config_path.parent
    configmap = resources()["ConfigMap"]
    assert volume["configMap"]["name"] == configmap["metadata"]["name"]
    assert "items" not in volume["configMap"]
    assert config_path.name in configmap["data"]


def routes() -> Any:
    text = resources()["ConfigMap"]["data"][Path(serve_args().config).name]
    return parse_config(text)


def test_the_configmap_routes_yaml_is_valid_and_its_plan_fits_the_gpus_the_pod_gets() -> None:
    config = routes()
    gpus = int(container()["resources"]["limits"]["nvidia.com/gpu"])
    h200 = 140 << 30
    inventory = Inventory(Device("cpu", 64 << 30),
                          tuple(Device(f"cuda:{i}", h200) for i in range(gpus)))
    plan = plan_memory(config.engines, inventory)
    assert plan.fits, plan.shortfalls()
    assert all(e.devices and set(e.devices) <= {f"cuda:{i}" for i in range(gpus)}
               for e in plan.engines)


def test_the_grace_period_outlasts_the_prestop_sleep_and_the_drain() -> None:
    c = container()
    pod = resources()["Deployment"]["spec"]["template"]["spec"]
    command = c["lifecycle"]["preStop"]["exec"]["command"]
    assert command[0] == "sleep"
    pre_stop_s = float(command[1])
    shutdown_s = routes().server.shutdown_timeout_s
    needed = pre_stop_s + shutdown_s + PROCESS_EXIT_TIMEOUT_S
    assert pod["terminationGracePeriodSeconds"] > needed
    # The sleep lets the endpoints controller take the pod out of the Service before SIGTERM
    # makes the gateway answer 503 to new requests.
    assert pre_stop_s >= 1


def test_the_startup_probe_leaves_time_for_the_engines_to_load() -> None:
    probe = container()["startupProbe"]
    assert probe["periodSeconds"] * probe["failureThreshold"] >= 600
