"""`switchboard` command line: serve, check, prepare-models, eval-routing, ab-report."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from router.config import ConfigError, GatewayConfig, load_config

if TYPE_CHECKING:
    from engines.memory import Inventory

DEFAULT_CONFIG = "routes.yaml"


def _engine_arg_names() -> frozenset[str] | None:
    try:
        from engines.vllm_engine import async_engine_arg_names
    except ImportError:  # no vLLM here: check everything but the engine_args names
        return None
    try:
        return async_engine_arg_names()
    except ImportError:
        return None


def load_for_serving(path: str) -> GatewayConfig:
    """routes.yaml as `serve` reads it: engine_args names checked against this vLLM."""
    return _load(path)


def _load(path: str, check_engine_args: bool = True) -> GatewayConfig:
    names = _engine_arg_names() if check_engine_args else None
    return load_config(path, engine_arg_names=names)


def cmd_serve(args: argparse.Namespace) -> int:
    from engines import factory
    from router.logs import configure_logging
    from router.server import serve_gateway

    config = load_for_serving(args.config)
    server_cfg = config.server
    log_format = args.log_format or server_cfg.log_format
    configure_logging(log_format, server_cfg.log_level)
    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")
    host = args.host or server_cfg.host
    port = args.port or server_cfg.port
    if server_cfg.api_processes > 1:
        if args.watch:
            print("switchboard: --watch reloads routes.yaml, which needs "
                  "server.api_processes: 1", file=sys.stderr)
            return 2
        from router.processes import ApiProcessSpec, serve_api_processes

        spec = ApiProcessSpec(config_path=args.config, config_digest=config.digest,
                              host=host, port=port, log_format=log_format,
                              count=server_cfg.api_processes)
        return serve_api_processes(config, spec)

    def ready(engines: list[str]) -> None:
        print(f"switchboard ready on http://{host}:{port} "
              f"(routes: {', '.join(config.routes)}; engines: {', '.join(engines)})",
              flush=True)

    return serve_gateway(config, factory.build_engine, load_for_serving, host, port, on_ready=ready,
                         watch=args.watch)


def cmd_check(args: argparse.Namespace, inventory: Inventory | None = None) -> int:
    """Exit 0 when the file is valid and its plan fits this machine (or `inventory`: tests,
    plans for another machine), 1 when it is invalid, 2 when it does not fit."""
    from engines.memory import format_plan, plan_memory
    from router.reload import validate_config

    try:
        config, _ = validate_config(args.config, _load)  # exactly what a reload accepts
    except ConfigError as exc:
        print(f"{args.config}: {exc}", file=sys.stderr)
        return 1
    print(f"{args.config}: OK (hash {config.digest})")
    print("engines:")
    for name, engine in config.engines.items():
        args_text = ", ".join(f"{k}={v}" for k, v in engine.engine_args.items()) or "defaults"
        print(f"  {name}: {engine.model} [{engine.backend}] ({args_text})")
    print(f"routes (default: {config.default_route}):")
    for name, route in config.routes.items():
        variants = ", ".join(f"{v.name}->{v.engine} w={v.weight:g}" for v in route.variants)
        print(f"  {name} -> {route.engine}" + (f" [variants: {variants}]" if variants else ""))
    plan = plan_memory(config.engines, inventory)
    print(format_plan(plan))
    return 0 if plan.fits else 2


def cmd_prepare_models(args: argparse.Namespace) -> int:
    from engines.sources import ModelSourceError, is_builtin, prepare_builtin

    config = _load(args.config, check_engine_args=False)
    models = sorted({e.model for e in config.engines.values() if is_builtin(e.model)})
    for model in models:
        print(f"preparing {model} ...", flush=True)
        try:
            path = prepare_builtin(model)
        except ModelSourceError as exc:  # no index, a bad digest: say so, no traceback
            print(f"switchboard: {exc}", file=sys.stderr)
            return 1
        print(f"  {model} -> {path}", flush=True)
    return 0


def cmd_eval_routing(args: argparse.Namespace) -> int:
    from router.classify.evaluate import run_eval_routing
    from router.pipeline.choose import build_classifier

    config = _load(args.config, check_engine_args=False)
    report = run_eval_routing(Path(args.file), build_classifier(config), sys.stdout)
    return 0 if report.accuracy >= args.min_accuracy else 1


def cmd_explain(args: argparse.Namespace) -> int:
    import orjson

    from router.pipeline.choose import build_classifier

    config = _load(args.config, check_engine_args=False)
    messages = [{"role": "user", "content": args.text}]
    if args.system:
        messages.insert(0, {"role": "system", "content": args.system})
    explained = build_classifier(config).explain(messages)
    print(orjson.dumps(explained, option=orjson.OPT_INDENT_2).decode())
    return 0


def cmd_ab_report(args: argparse.Namespace) -> int:
    import orjson

    from router.tools.ab_report import build_reports, format_reports, plot, reports_as_json
    from router.tools.records import read_records

    path = args.records
    if path is None:
        path = _load(args.config, check_engine_args=False).server.record_file
        if path is None:
            print(f"{args.config}: server.record_file is not set; name a record file",
                  file=sys.stderr)
            return 1
    if not Path(path).is_file():
        print(f"{path}: no such record file", file=sys.stderr)
        return 1
    loaded = read_records(path)
    traffic = tuple(t.strip() for t in args.traffic.split(",") if t.strip())
    reports = build_reports(loaded.lines, traffic, args.route, args.baseline, args.alpha,
                            include_aborted=args.include_aborted,
                            include_forced=args.include_forced)
    if args.json:
        print(orjson.dumps(reports_as_json(reports, args.alpha),
                           option=orjson.OPT_INDENT_2).decode())
    else:
        print(f"{path}: {len(loaded.lines)} records"
              + (f" ({loaded.skipped} unreadable lines skipped)" if loaded.skipped else ""))
        print(format_reports(reports, args.alpha))
    if args.plot:
        plot(reports, args.plot)
        print(f"latency distributions written to {args.plot}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="switchboard", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="serve the routes.yaml registry")
    serve.add_argument("--config", default=DEFAULT_CONFIG)
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument("--log-format", choices=["console", "json"])
    serve.add_argument("--watch", action="store_true",
                       help="reload routes.yaml whenever it changes on disk")
    serve.set_defaults(func=cmd_serve)

    check = sub.add_parser("check", help="validate a routes.yaml and print its memory plan")
    check.add_argument("config", nargs="?", default=DEFAULT_CONFIG)
    check.set_defaults(func=cmd_check)

    prep = sub.add_parser("prepare-models", help="prepare the built-in models a config uses")
    prep.add_argument("--config", default=DEFAULT_CONFIG)
    prep.set_defaults(func=cmd_prepare_models)

    ev = sub.add_parser("eval-routing", help="evaluate the classifier on a labelled JSONL file")
    ev.add_argument("file")
    ev.add_argument("--config", default=DEFAULT_CONFIG)
    ev.add_argument("--min-accuracy", type=float, default=0.0)
    ev.set_defaults(func=cmd_eval_routing)

    explain = sub.add_parser("explain", help="every routing tier's view of one request")
    explain.add_argument("text", help="the user message")
    explain.add_argument("--system", help="a system prompt to classify with")
    explain.add_argument("--config", default=DEFAULT_CONFIG)
    explain.set_defaults(func=cmd_explain)

    ab = sub.add_parser("ab-report", help="compare variants from the gateway's record file")
    ab.add_argument("records", nargs="?", help="record file (default: server.record_file)")
    ab.add_argument("--config", default=DEFAULT_CONFIG)
    ab.add_argument("--route", help="only this route")
    ab.add_argument("--baseline", help="variant to test the others against")
    ab.add_argument("--traffic", default="live,shadow",
                    help="comma-separated: live, shadow, compare (default: live,shadow)")
    ab.add_argument("--alpha", type=float, default=0.05)
    ab.add_argument("--include-aborted", action="store_true",
                    help="count requests the client or the gateway cut short")
    ab.add_argument("--include-forced", action="store_true",
                    help="count requests that forced their variant (x-switchboard-variant)")
    ab.add_argument("--plot", metavar="FILE.png", help="draw the latency distributions")
    ab.add_argument("--json", action="store_true", help="print the report as JSON")
    ab.set_defaults(func=cmd_ab_report)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
