"""The CMSIS-NN adapters in the runtime's status scheme: a refusal is MR_ERR_CMSIS_NN, success MR_OK (on the host,
against CMSIS-NN's portable C from CMSIS_NN_PATH; skipped without it, like tests/cmsis_nn)."""

from __future__ import annotations

import re
import subprocess

from cmsis_nn.conftest import cmsis_nn_root, host_cmsis_nn  # noqa: F401 (fixtures)
from support.c_harness import STRICT_FLAGS
from micro_relay.compiler import CRT_DIR
from micro_relay.kernels.cmsis_nn._adapters import conv2d_buffer_bytes
from micro_relay.ops._conv_common import Geometry

# a 3x3 SAME convolution over 4 channels: CMSIS-NN's im2col path, which needs its buffer
CONV3X3 = Geometry(1, 5, 5, 4, 5, 5, 4, 3, 3, 4, 1, 1, 1, 1, 1, 1)

MAIN = r"""
#include <stdio.h>
#include "micro_relay_cmsis_nn.h"

static const int32_t mult[4] = {1300000000, 1300000000, 1300000000, 1300000000};
static const int32_t shift[4] = {-8, -8, -8, -8};
static const int32_t bias[4] = {10, -20, 30, -40};
static int8_t in[100], w[144], out[100];
static int64_t scratch[@SCRATCH@ / 8 + 1];

int main(void)
{
    const mr_conv2d_q_params p = {@GEOMETRY@, -3, 2, -128, 127, mult, shift, NULL, @SCRATCH@};
    int i;
    for (i = 0; i < 100; ++i) {
        in[i] = (int8_t)(i * 37);
    }
    for (i = 0; i < 144; ++i) {
        w[i] = (int8_t)(i * 11 - 70);
    }
    printf("%d %d\n", mr_cmsis_conv2d_s8(&p, in, w, bias, out, NULL), mr_cmsis_conv2d_s8(&p, in, w, bias, out, scratch));
    return 0;
}
"""


def test_a_cmsis_nn_refusal_is_mr_err_cmsis_nn(cmsis_nn_root, host_cmsis_nn, tmp_path):  # noqa: F811
    scratch = conv2d_buffer_bytes(CONV3X3)
    assert scratch > 0
    main = tmp_path / "main.c"
    main.write_text(MAIN.replace("@GEOMETRY@", CONV3X3.c_initializer()).replace("@SCRATCH@", str(scratch)))
    exe = tmp_path / "status"
    command = ["gcc", *STRICT_FLAGS, "-O2", "-I", str(CRT_DIR / "include"), "-I", str(CRT_DIR / "cmsis_nn"),
               "-isystem", str(cmsis_nn_root / "Include"), str(main), str(CRT_DIR / "cmsis_nn" / "mr_cmsis_conv2d.c"),
               str(host_cmsis_nn), "-o", str(exe), "-lm"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    crt_h = (CRT_DIR / "include" / "micro_relay" / "crt.h").read_text()
    refused = re.search(r"^#define MR_ERR_CMSIS_NN (\d+)$", crt_h, re.MULTILINE).group(1)
    assert subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split() == [refused, "0"]
