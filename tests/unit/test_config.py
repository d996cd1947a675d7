"""routes.yaml parsing: the happy path and every error path, with exact messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.config import ConfigError, load_config, parse_config

ARG_NAMES = frozenset({"max_model_len", "max_num_seqs", "dtype", "enforce_eager", "seed",
                       "kv_cache_memory_bytes", "gpu_memory_utilization", "scheduling_policy"})

BASE = """
engines:
  qa: {model: m1}
  translation: {model: m2, engine_args: {max_model_len: 512}}
routes:
  qa: {engine: qa}
  translation: {engine: translation}
"""


def test_repository_routes_yaml_is_valid() -> None:
    config = load_config(Path(__file__).parents[2] / "routes.yaml", engine_arg_names=ARG_NAMES)
    assert {"qa", "translation"} <= set(config.engines)
    assert {"qa", "translation"} <= set(config.routes)
    assert config.engines["qa"].engine_args != config.engines["translation"].engine_args
    assert config.routes["translation"].recognize.signals == "translation"


def test_parses_engines_routes_and_defaults() -> None:
    config = parse_config(BASE, engine_arg_names=ARG_NAMES)
    assert config.default_route == "qa"  # the first route when none is named
    assert config.engines["translation"].engine_args == {"max_model_len": 512}
    assert config.routes["translation"].engine == "translation"
    assert config.server.port == 8000
    assert config.server.stream_pacing == "lag"
    assert len(config.digest) == 16


def test_several_routes_may_share_an_engine() -> None:
    text = BASE + "  summarise: {engine: qa, sampling: {temperature: 0.1}}\n"
    config = parse_config(text)
    assert config.routes["summarise"].engine == "qa"
    assert config.routes["summarise"].sampling == {"temperature": 0.1}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("engines: [", "invalid YAML"),
        ("- a\n- b\n", "the top level must be a mapping with 'engines' and 'routes'"),
        (BASE + "rutes: {}\n", "rutes: unknown key 'rutes'; did you mean 'routes'?"),
        ("routes: {qa: {engine: qa}}\n", "engines: at least one engine is required"),
        ("engines: {qa: {model: m}}\n", "routes: at least one route is required"),
        (
            "engines: {qa: {model: m}}\nroutes: {x: {engine: gema}}\n",
            "routes.x.engine: unknown engine 'gema' (known: qa)",
        ),
        (
            "engines: {qa: {}}\nroutes: {qa: {engine: qa}}\n",
            "engines.qa.model: required: a model id, a path or builtin:NAME",
        ),
        (
            "engines: {qa: {model: m, engine_args: {max_modle_len: 5}}}\n"
            "routes: {qa: {engine: qa}}\n",
            "engines.qa.engine_args.max_modle_len: unknown AsyncEngineArgs field "
            "'max_modle_len'; did you mean 'max_model_len'?",
        ),
        (
            "engines: {qa: {model: m, engine_args: {model: x}}}\nroutes: {qa: {engine: qa}}\n",
            "engines.qa.engine_args.model: set the model with engines.*.model",
        ),
        (
            BASE + "default_route: nope\n",
            "default_route: unknown route 'nope' (known: qa, translation)",
        ),
        (
            "engines: {qa: {model: m}}\nroutes: {qa: {engine: qa, sampling: {temprature: 1}}}\n",
            "routes.qa.sampling.temprature: unknown key 'temprature'; did you mean 'temperature'?",
        ),
        (
            "engines: {qa: {model: m}}\nroutes: {qa: {engine: qa, sampling: {max_tokens: many}}}\n",
            "routes.qa.sampling.max_tokens: must be an integer",
        ),
        (  # ranges come from the same table that validates request bodies
            "engines: {qa: {model: m, sampling: {temperature: 5}}}\nroutes: {qa: {engine: qa}}\n",
            "engines.qa.sampling.temperature: must satisfy 0 <= temperature <= 2",
        ),
        (
            "engines: {qa: {model: m}}\nroutes: {qa: {engine: qa, timeout_s: -1}}\n",
            "routes.qa.timeout_s: must be > 0",
        ),
        (
            "engines: {qa: {model: m}}\nroutes: {qa: {engine: qa, prompt_template: 'x {lang}'}}\n",
            "routes.qa.prompt_template: unknown placeholder {lang} "
            "(known: text, system, target_language, source_language)",
        ),
        (
            "engines: {qa: {model: m}}\n"
            "routes: {qa: {engine: qa, variants: [{name: a, engine: qa}, "
            "{name: a, engine: qa}]}}\n",
            "routes.qa.variants[1].name: duplicate variant 'a'",
        ),
        (
            "engines: {qa: {model: m}}\n"
            "routes: {qa: {engine: qa, variants: [{name: a, engine: qb}]}}\n",
            "routes.qa.variants[0].engine: unknown engine 'qb' (known: qa)",
        ),
        (
            "engines: {qa: {model: m}}\nroutes: {qa: {engine: qa, fallback: other}}\n",
            "routes.qa.fallback: unknown route 'other' (known: qa)",
        ),
        (
            "engines: {qa: {model: m}}\nroutes: {qa: {engine: qa, recognize: {patterns: ['(']}}}\n",
            "routes.qa.recognize.patterns[0]: invalid regex",
        ),
        (
            "engines: {qa: {model: m, backend: tgi}}\nroutes: {qa: {engine: qa}}\n",
            "engines.qa.backend: must be 'vllm' or 'fake'",
        ),
        (
            "server: {port: eighty}\nengines: {qa: {model: m}}\nroutes: {qa: {engine: qa}}\n",
            "server.port: must be int, got str",
        ),
        (
            "server: {stream_pacing: fast}\n"
            "engines: {qa: {model: m}}\nroutes: {qa: {engine: qa}}\n",
            "server.stream_pacing: must be 'lag' or 'off'",
        ),
        (
            "server: {api_processes: 0}\n"
            "engines: {qa: {model: m}}\nroutes: {qa: {engine: qa}}\n",
            "server.api_processes: must be 1 to 64",
        ),
    ],
)
def test_errors_name_their_yaml_path(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, engine_arg_names=ARG_NAMES)
    assert str(info.value).startswith(message)


def test_engine_args_are_not_checked_without_names() -> None:
    text = "engines: {qa: {model: m, engine_args: {anything: 1}}}\nroutes: {qa: {engine: qa}}\n"
    assert parse_config(text).engines["qa"].engine_args == {"anything": 1}


def test_gpus_pin_a_vllm_engine_and_a_change_of_them_restarts_it() -> None:
    text = """
engines:
  qa: {model: /m/qa, gpus: [1]}
  up: {model: qa, backend: remote, remote: {urls: ["http://10.0.0.5:8000"]}}
routes:
  qa: {engine: qa}
"""
    config = parse_config(text)
    assert config.engines["qa"].gpus == (1,)
    assert config.engines["up"].gpus is None
    moved = parse_config(text.replace("gpus: [1]", "gpus: [0]")).engines["qa"]
    assert config.engines["qa"].needs_restart_for(moved)
    with pytest.raises(ConfigError, match=r"engines\.up\.gpus.*only for backend: vllm"):
        parse_config(text.replace('backend: remote,', 'backend: remote, gpus: [0],'))
    with pytest.raises(ConfigError, match=r"engines\.qa\.gpus.*spans 1"):
        parse_config(text.replace("gpus: [1]", "gpus: [0, 1]"))


def test_an_api_process_admits_its_share_of_an_engines_bounds() -> None:
    from router.processes import share_of

    config = parse_config("engines: {qa: {model: m, max_in_flight: 10, max_queue: 256}}\n"
                          "routes: {qa: {engine: qa}}\n", engine_arg_names=ARG_NAMES)
    engine = config.engines["qa"]
    shared = share_of(engine, 4)
    assert (shared.max_in_flight, shared.max_queue) == (3, 64)  # rounded up: never 0
    unset = share_of(parse_config("engines: {qa: {model: m}}\nroutes: {qa: {engine: qa}}\n",
                                  engine_arg_names=ARG_NAMES).engines["qa"], 3)
    assert unset.max_in_flight is None  # the engine's max_num_seqs, split by the adapter
