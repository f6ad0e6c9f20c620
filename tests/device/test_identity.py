"""The HELLO payload round-trips, and the model hash tells apart what the host must not mistake for its model:
another model, other weights, a debug build of the same model."""

from __future__ import annotations

import pytest

from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.device.identity import decode, encode, identity_of, model_hash
from micro_relay.examples.kws_model import build_kws_model
from micro_relay.examples.sine_model import build_sine_model


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models")
    paths = {}
    for key, data in (("kws", build_kws_model()), ("kws_other_weights", build_kws_model(seed=8)),
                      ("sine", build_sine_model())):
        paths[key] = folder / f"{key}.tflite"
        paths[key].write_bytes(data)
    return paths


def _compile(path, debug=False, name="m"):
    return compile_graph(prepare_graph(path), name, path.name, debug_guards=debug)


def test_hello_round_trip(models):
    model = _compile(models["kws"], debug=True)
    identity = identity_of(model)
    found, unit = decode(encode(identity) + b"\x00")
    assert found == identity and unit == "instructions"
    assert found.inputs[0].shape == (1, 49, 10, 1) and found.outputs[0].nbytes == 12
    assert found.debug and found.tensors == len(model.plan.order)  # one output per layer in this model


def test_the_hash_tells_models_apart(models):
    hashes = {model_hash(_compile(models["kws"])), model_hash(_compile(models["kws_other_weights"])),
              model_hash(_compile(models["sine"])), model_hash(_compile(models["kws"], debug=True))}
    assert len(hashes) == 4
    assert model_hash(_compile(models["kws"])) == model_hash(_compile(models["kws"]))


def test_a_cut_reply_is_refused(models):
    blob = encode(identity_of(_compile(models["sine"])))
    with pytest.raises(ValueError, match="cut short"):
        decode(blob[:20])
    with pytest.raises(ValueError, match="not a Micro Relay"):
        decode(b"XXXX" + blob[4:])
