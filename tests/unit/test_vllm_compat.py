"""The vLLM internals the adapter reads, one shape per supported release (fakes; one test
checks the installed vLLM's own SamplingParams)."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from engines.vllm_compat import (
    VllmIncompatibleError,
    engine_pids,
    fresh_sampling_params,
    launch_shared_cores,
    probe,
    token_prompt_factory,
)


class AsyncLLM033:
    """0.32/0.33: the count is public on AsyncLLM."""

    def __init__(self) -> None:
        self.output_processor = SimpleNamespace(get_num_unfinished_requests=lambda: 99)

    def get_num_unfinished_requests(self) -> int:
        return 3


class AsyncLLM026:
    """0.26: only the output processor knows (the public method was added later)."""

    def __init__(self) -> None:
        self.output_processor = SimpleNamespace(get_num_unfinished_requests=lambda: 5)


def test_the_public_count_wins_where_it_exists() -> None:
    shape = probe(AsyncLLM033(), "0.32.0")
    assert shape.unfinished() == 3
    assert shape.unfinished_source == "AsyncLLM.get_num_unfinished_requests"


def test_vllm_026_counts_through_the_output_processor() -> None:
    shape = probe(AsyncLLM026(), "0.26.0")
    assert shape.unfinished() == 5
    assert "output_processor" in shape.unfinished_source


def test_an_unknown_release_fails_at_start_naming_its_version() -> None:
    with pytest.raises(VllmIncompatibleError, match=r"vLLM 9\.9\.9: cannot count"):
        probe(SimpleNamespace(), "9.9.9")


def test_engine_pids_from_the_local_process_manager() -> None:
    processes = [SimpleNamespace(pid=41), SimpleNamespace(pid=None), SimpleNamespace(pid=42)]
    llm = SimpleNamespace(engine_core=SimpleNamespace(
        resources=SimpleNamespace(engine_manager=SimpleNamespace(processes=processes))))
    assert engine_pids(llm) == [41, 42]


def test_engine_pids_are_empty_when_cores_are_not_local_processes() -> None:
    ray_like = SimpleNamespace(engine_core=SimpleNamespace(
        resources=SimpleNamespace(engine_manager=SimpleNamespace(actors=["a"]))))
    assert engine_pids(ray_like) == []
    assert engine_pids(SimpleNamespace()) == []


def test_token_ids_go_in_as_vllms_typed_input_where_it_has_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # vLLM's own TokensInput constructor, not a dict shaped by hand: a typed input skips the
    # raw-prompt preprocessor (and, in 0.3x, its thread-pool round trip).
    made: list[list[int]] = []

    def tokens_input(ids: list[int]) -> dict[str, object]:
        made.append(ids)
        return {"type": "token", "prompt_token_ids": ids}

    monkeypatch.setitem(sys.modules, "vllm.inputs.engine",
                        SimpleNamespace(tokens_input=tokens_input))
    assert token_prompt_factory()([7, 8]) == {"type": "token", "prompt_token_ids": [7, 8]}
    assert made == [[7, 8]]


def test_token_ids_fall_back_to_the_plain_prompt_dict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm.inputs.engine", None)  # import raises ImportError
    assert token_prompt_factory()([7, 8]) == {"prompt_token_ids": [7, 8]}


def test_fresh_sampling_params_are_copied_shallowly_by_this_vllm() -> None:
    from vllm import SamplingParams

    params = fresh_sampling_params(SamplingParams)(max_tokens=4, stop=["\n"])
    assert params.skip_clone is True and params.max_tokens == 4
    copy = params.clone()  # what AsyncLLM.add_request does with every request's parameters
    assert copy is not params and copy.stop is params.stop  # shallow: no deep copy paid


def test_a_sampling_params_class_without_skip_clone_is_used_as_it_is() -> None:
    class OldParams:
        __struct_fields__ = ("max_tokens",)

        def __init__(self, **kwargs: object) -> None:
            self.kwargs = kwargs

    assert fresh_sampling_params(OldParams) is OldParams


# -- launching engine cores shared by several API processes -------------------------------------

class _Addresses:
    def __init__(self, inputs: list[str], outputs: list[str]) -> None:
        self.inputs, self.outputs = inputs, outputs


class _Coordinator:
    def get_stats_publish_address(self) -> str:
        return "ipc:///stats"


def _utils_026(calls: list[tuple[object, ...]]) -> SimpleNamespace:
    """0.26: addresses from get_engine_zmq_addresses; the launcher takes the client count
    and yields a tuple."""
    import contextlib

    def get_engine_zmq_addresses(vllm_config: object, num_api_servers: int = 1) -> _Addresses:
        return _Addresses([f"ipc:///in{i}" for i in range(num_api_servers)],
                          [f"ipc:///out{i}" for i in range(num_api_servers)])

    @contextlib.contextmanager
    def launch_core_engines(vllm_config: object, executor_class: object, log_stats: bool,
                            addresses: _Addresses, num_api_servers: int = 1):  # type: ignore[no-untyped-def]
        calls.append(("launch", num_api_servers, tuple(addresses.inputs)))
        yield "manager", _Coordinator(), addresses, None
        calls.append(("waited",))

    return SimpleNamespace(get_engine_zmq_addresses=get_engine_zmq_addresses,
                           launch_core_engines=launch_core_engines)


def _utils_03x(calls: list[tuple[object, ...]]) -> SimpleNamespace:
    """0.3x: bind addresses, EngineZmqAddresses, and a CoreEngineLaunch yielded."""
    import contextlib

    def get_engine_zmq_bind_addresses(vllm_config: object, num_api_servers: int = 1
                                      ) -> _Addresses:
        return _Addresses([f"ipc:///in{i}" for i in range(num_api_servers)],
                          [f"ipc:///out{i}" for i in range(num_api_servers)])

    @contextlib.contextmanager
    def launch_core_engines(vllm_config: object, executor_class: object, log_stats: bool,
                            addresses: _Addresses):  # type: ignore[no-untyped-def]
        calls.append(("launch", type(addresses).__name__, tuple(addresses.inputs)))
        yield SimpleNamespace(engine_manager="manager", coordinator=None, addresses=addresses)
        calls.append(("waited",))

    return SimpleNamespace(get_engine_zmq_bind_addresses=get_engine_zmq_bind_addresses,
                           EngineZmqAddresses=_Addresses,
                           launch_core_engines=launch_core_engines)


def test_shared_cores_launch_through_vllm_026s_launcher() -> None:
    calls: list[tuple[object, ...]] = []
    with launch_shared_cores("config", "executor", False, 3, _utils_026(calls), "0.26.0") as got:
        assert calls == [("launch", 3, ("ipc:///in0", "ipc:///in1", "ipc:///in2"))]
    assert calls[-1] == ("waited",)  # leaving the block waits for the cores
    assert got.manager == "manager"
    assert got.client_addresses(2) == {"input_address": "ipc:///in2",
                                       "output_address": "ipc:///out2",
                                       "stats_update_address": "ipc:///stats"}


def test_shared_cores_launch_through_vllm_03x_launcher() -> None:
    calls: list[tuple[object, ...]] = []
    with launch_shared_cores("config", "executor", True, 2, _utils_03x(calls), "0.32.0") as got:
        assert calls == [("launch", "_Addresses", ("ipc:///in0", "ipc:///in1"))]
    assert calls[-1] == ("waited",)
    assert got.client_addresses(1) == {"input_address": "ipc:///in1",
                                       "output_address": "ipc:///out1"}


def test_an_unknown_launcher_fails_naming_the_version() -> None:
    def launch_core_engines(vllm_config: object, something_else: object) -> None:
        raise AssertionError("never called")

    for utils in (SimpleNamespace(), SimpleNamespace(launch_core_engines=launch_core_engines)):
        with pytest.raises(VllmIncompatibleError, match=r"vLLM 9\.9.*api_processes: 1"), \
                launch_shared_cores("c", "e", False, 2, utils, "9.9"):
            pass


def test_the_installed_vllm_has_a_known_launcher_shape() -> None:
    utils = pytest.importorskip("vllm.v1.engine.utils")
    from vllm import __version__

    from engines.vllm_compat import _launch_shape

    assert _launch_shape(utils, __version__) in ("0.26", "0.3x")


def test_a_shared_launch_stops_its_cores_and_coordinator_even_when_one_fails() -> None:
    from engines.vllm_compat import SharedLaunch

    stopped: list[str] = []

    def failing() -> None:
        stopped.append("manager")
        raise RuntimeError("already gone")

    launch = SharedLaunch(SimpleNamespace(shutdown=failing),
                          SimpleNamespace(shutdown=lambda: stopped.append("coordinator")),
                          ["ipc:///in0"], ["ipc:///out0"], None)
    launch.shutdown()
    assert stopped == ["manager", "coordinator"]
