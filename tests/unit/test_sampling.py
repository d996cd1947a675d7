"""Request sampling validation and the precedence request > variant > route > engine."""

from __future__ import annotations

from typing import Any

import pytest

from router.errors import InvalidRequestError
from router.pipeline.sampling import merge_sampling, parse_request_sampling


def parse(body: dict[str, Any]) -> dict[str, Any]:
    return parse_request_sampling(body, ("max_completion_tokens", "max_tokens"), max_n=4)


def test_precedence_is_request_over_variant_over_route_over_engine() -> None:
    engine = {"temperature": 0.1, "top_p": 0.5, "max_tokens": 10, "seed": 1}
    route = {"temperature": 0.2, "max_tokens": 20}
    variant = {"temperature": 0.3}
    request = parse({"temperature": 0.9})
    merged = merge_sampling(engine, route, variant, request)
    assert merged == {"temperature": 0.9, "top_p": 0.5, "max_tokens": 20, "seed": 1}


def test_vllm_extras_pass_through() -> None:
    body = {"ignore_eos": True, "min_tokens": 3, "top_k": 20, "repetition_penalty": 1.2,
            "seed": 7, "min_p": 0.05, "max_tokens": 9, "stop": "END"}
    assert parse(body) == {**body, "stop": ["END"]}


def test_max_completion_tokens_wins_over_max_tokens() -> None:
    assert parse({"max_completion_tokens": 5, "max_tokens": 50})["max_tokens"] == 5


def test_top_k_zero_means_disabled() -> None:
    assert parse({"top_k": 0})["top_k"] == -1


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"temperature": -0.1}, "temperature"),
        ({"temperature": 2.5}, "temperature"),
        ({"temperature": "hot"}, "temperature"),
        ({"temperature": True}, "temperature"),
        ({"temperature": float("nan")}, "temperature"),
        ({"top_p": 0}, "top_p"),
        ({"top_p": 1.5}, "top_p"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": 1.5}, "max_tokens"),
        ({"max_completion_tokens": -3}, "max_completion_tokens"),
        ({"presence_penalty": 3}, "presence_penalty"),
        ({"frequency_penalty": -2.5}, "frequency_penalty"),
        ({"repetition_penalty": 0}, "repetition_penalty"),
        ({"top_k": -5}, "top_k"),
        ({"n": 0}, "n"),
        ({"n": 5}, "n"),
        ({"n": "2"}, "n"),
        ({"stop": 5}, "stop"),
        ({"stop": ["a"] * 17}, "stop"),
        ({"stop": [""]}, "stop"),
        ({"ignore_eos": "yes"}, "ignore_eos"),
        ({"min_tokens": 10, "max_tokens": 5}, "min_tokens"),
        ({"seed": 2**70}, "seed"),
    ],
)
def test_out_of_range_or_wrong_type_is_rejected(body: dict[str, Any], param: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        parse(body)
    assert info.value.param == param
    assert info.value.status_code == 400
