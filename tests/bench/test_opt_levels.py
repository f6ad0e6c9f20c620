"""A build at -O0 computes what the -Os build computes: the project's kws model (conv, depthwise, pointwise, average
pool, dense, softmax) built unoptimized for mps2-an386 (Cortex-M4F) and run under QEMU gives the reference
interpreter's outputs bit for bit. At -O0 the int8 conv2d and dense kernels take their portable loops (their DSP
assembly needs r7, the frame pointer there; MR_DSP_ASM in crt/include/micro_relay/simd.h), the depthwise DSP
path stays."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from micro_relay.bench.measure import bench_model
from micro_relay.errors import CompileError
from micro_relay.examples.kws_model import build_kws_model
from micro_relay.examples.shape_family import build_family_model
from support.cortex_m_cases import BOARD, assert_bit_exact


def _symbols(elf) -> set[str]:
    nm = shutil.which("arm-none-eabi-nm")
    listing = subprocess.run([nm, str(elf)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in listing.splitlines() if line.strip()}


def test_kws_built_at_O0_matches_the_reference_on_cortex_m4(arm_tools, tmp_path):
    model = tmp_path / "kws.tflite"
    model.write_bytes(build_kws_model())
    result = bench_model(model, BOARD, runs=1, seed=3, keep=tmp_path / "build", opt_level="0")
    assert_bit_exact(result)
    assert result["opt_level"] == "0"
    symbols = _symbols(tmp_path / "build" / "runner.elf")
    assert {"mr_conv2d_s8", "mr_dense_s8", "dot_s8", "mr_depthwise_conv2d_s8_strip3x3_fast"} <= symbols
    assert "tile_pairs" not in symbols and "dense_blocks" not in symbols  # conv and dense: the portable loops


# Named shape family models (micro_relay.examples.shape_family) built at -O0: name -> functions the image holds
AT_O0 = {
    # 5 and 7 channels: the pointwise layers take mr_conv2d_s8_pw8_padded's C loop, whose input and output share
    # arena bytes (the overlap the plan allows the tile order); the depthwise layers gather a partial block
    "mbv1_odd_channels_5_7_12": {"mr_conv2d_s8_pw8_padded", "dw_roll_gather"},
    # a dilated 3x3 depthwise: the strip's tap loop a tap a call (no twelfth register at -O0)
    "dilated_dw3x3_d2_17x17x12": {"dw_pixels"},
}


@pytest.mark.parametrize("name", sorted(AT_O0))
def test_shape_family_built_at_O0_matches_the_reference_on_cortex_m4(arm_tools, tmp_path, name):
    model = tmp_path / f"{name}.tflite"
    model.write_bytes(build_family_model(name))
    result = bench_model(model, BOARD, runs=1, seed=3, keep=tmp_path / "build", opt_level="0")
    assert_bit_exact(result)
    assert AT_O0[name] <= _symbols(tmp_path / "build" / "runner.elf")


def test_unknown_optimization_level_is_refused_before_anything_is_built(tmp_path):
    model = tmp_path / "kws.tflite"
    model.write_bytes(build_kws_model())
    with pytest.raises(CompileError, match="optimization level '7'"):
        bench_model(model, BOARD, opt_level="7", keep=tmp_path / "build")
    assert not (tmp_path / "build").exists()
