"""A seeded family of small int8 TFLite models with the layer shapes real networks have.

Kernel speed is usually tuned on a few friendly shapes (channels a multiple of 8 or 16, square even maps).
Deployed networks are less kind: 3-channel image stems, 27 or 20 channels, 33x17 maps, 1-D convolutions over
time, dilation, stride 2 on odd sizes, FC-only stacks. Each spec below is one such pattern (MobileNetV1 and
V2 blocks, DS-CNN keyword spotting, temporal convolutions, dense stacks), small enough to run in seconds on
an emulated Cortex-M4, so benchmarks/shape_family.py can find the shapes where a kernel falls off its fast path.

Quantization follows kws_model.py (TFLite's post-training scheme): weights drawn from a generator seeded by
the model's name, activation ranges observed by a float numpy forward pass on seeded calibration inputs,
per-channel symmetric int8 weights for the convolutions (axis 0, depthwise axis 3), per-tensor for dense
layers, int32 biases with scale input_scale x weight_scale. The same name always gives the same bytes.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from ..frontend.tflite.writer import TFLiteBuilder
from .quantization import int8_affine

__all__ = ["FAMILY", "Layer", "ModelSpec", "build_family_model", "build_model", "family_macs", "family_names",
           "family_spec"]

INPUT_RANGE = (-1.0, 1.0)
CALIBRATION_SAMPLES = 8


@dataclass(frozen=True)
class Layer:
    """One layer. kind: "conv", "depthwise", "dense", "add" (the current activation plus the one `back` layers
    earlier: a residual) or "pool" (global average pool and flatten, the usual head before a dense layer)."""
    kind: str
    channels: int = 0  # conv: output channels; dense: units; depthwise: the depth multiplier
    kernel: tuple[int, int] = (1, 1)
    stride: tuple[int, int] = (1, 1)
    dilation: tuple[int, int] = (1, 1)
    padding: str = "SAME"
    activation: str = "RELU"
    back: int = 0


@dataclass(frozen=True)
class ModelSpec:
    name: str
    covers: str  # what shape pattern this model is in the family for
    input_shape: tuple[int, ...]
    layers: tuple[Layer, ...]

    @property
    def fc_only(self) -> bool:
        return all(layer.kind == "dense" for layer in self.layers)


def _pair(value) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else tuple(value)


def conv(channels: int, kernel=3, stride=1, dilation=1, activation="RELU", padding="SAME") -> Layer:
    return Layer("conv", channels, _pair(kernel), _pair(stride), _pair(dilation), padding, activation)


def depthwise(kernel=3, stride=1, dilation=1, activation="RELU", multiplier=1, padding="SAME") -> Layer:
    return Layer("depthwise", multiplier, _pair(kernel), _pair(stride), _pair(dilation), padding, activation)


def dense(units: int, activation="RELU") -> Layer:
    return Layer("dense", units, activation=activation)


def residual(back: int) -> Layer:
    return Layer("add", back=back, activation="NONE")


POOL = Layer("pool", activation="NONE")


def inverted_residual(cin: int, cout: int, expand: int, stride: int = 1) -> tuple[Layer, ...]:
    """MobileNetV2's block: 1x1 expand (skipped for expand 1), depthwise 3x3, linear 1x1 project, and the
    residual ADD when the block keeps its shape."""
    layers = [conv(cin * expand, 1, activation="RELU6")] if expand != 1 else []
    layers += [depthwise(3, stride, activation="RELU6"), conv(cout, 1, activation="NONE")]
    if stride == 1 and cin == cout:
        layers.append(residual(len(layers)))
    return tuple(layers)


def separable(channels: int, stride: int = 1, kernel=3, dilation=1, activation="RELU") -> tuple[Layer, ...]:
    """MobileNetV1 and DS-CNN's block: depthwise then pointwise."""
    return (depthwise(kernel, stride, dilation, activation), conv(channels, 1, activation=activation))


FAMILY: tuple[ModelSpec, ...] = (
    # MobileNetV1 blocks
    ModelSpec("mbv1_block_16x16x8", "MobileNetV1 dw3x3+pw1x1, channels multiple of 8 (the friendly baseline)",
              (1, 16, 16, 8), separable(16)),
    ModelSpec("mbv1_block_s2_15x15x12", "MobileNetV1 block, stride-2 depthwise on an odd 15x15 map, 12->20 ch",
              (1, 15, 15, 12), separable(20, stride=2)),
    ModelSpec("mbv1_stem_rgb_33x17", "3-channel stem conv3x3 s2 on 33x17, then a MobileNetV1 block 8->16",
              (1, 33, 17, 3), (conv(8, 3, 2, activation="RELU6"), *separable(16, activation="RELU6"))),
    ModelSpec("mbv1_odd_channels_5_7_12", "two MobileNetV1 blocks with 5, 7, 12 channels on 15x15",
              (1, 15, 15, 5), (*separable(7), *separable(12, stride=2))),
    ModelSpec("mbv1_rgb_depth_multiplier_2", "depthwise with depth_multiplier 2 on a 3-channel 32x32 input",
              (1, 32, 32, 3), (depthwise(3, 2, multiplier=2), conv(16, 1))),
    # MobileNetV2 inverted residuals
    ModelSpec("mbv2_ir_residual_12x12x16", "MobileNetV2 inverted residual x6 with the residual ADD, 16 ch",
              (1, 12, 12, 16), inverted_residual(16, 16, 6)),
    ModelSpec("mbv2_ir_s2_15x15x12", "MobileNetV2 inverted residual, stride 2 on 15x15, 12->72->20, no ADD",
              (1, 15, 15, 12), inverted_residual(12, 20, 6, stride=2)),
    ModelSpec("mbv2_ir_residual_11x11x27", "inverted residual with ADD, 27 ch expanded x4 to 108 on 11x11",
              (1, 11, 11, 27), inverted_residual(27, 27, 4)),
    ModelSpec("mbv2_ir_expand1_24x24x32", "MobileNetV2's first block: no expand, dw3x3 32 ch, project to 16",
              (1, 24, 24, 32), inverted_residual(32, 16, 1)),
    ModelSpec("mbv2_two_ir_residual_9x9x20", "two chained inverted residuals with ADD, 20 ch x3 on 9x9",
              (1, 9, 9, 20), (*inverted_residual(20, 20, 3), *inverted_residual(20, 20, 3))),
    # DS-CNN keyword spotting
    ModelSpec("dscnn_kws_c20", "DS-CNN on 49x10 MFCCs: 1-ch conv 10x4 s2, one dw/pw block, pool, FC 12",
              (1, 49, 10, 1), (conv(20, (10, 4), 2), *separable(20), POOL, dense(12, "NONE"))),
    ModelSpec("dscnn_kws_c27_2blocks", "DS-CNN with 27 channels and two blocks",
              (1, 49, 10, 1), (conv(27, (10, 4), 2), *separable(27), *separable(27), POOL, dense(12, "NONE"))),
    ModelSpec("dscnn_kws_c64_2blocks", "DS-CNN at the MLPerf Tiny width (64 ch), two blocks",
              (1, 49, 10, 1), (conv(64, (10, 4), 2), *separable(64), *separable(64), POOL, dense(12, "NONE"))),
    # plain convolutions on awkward shapes
    ModelSpec("conv_1ch_28x28", "1-channel input: conv3x3 1->8, then conv3x3 s2 8->12",
              (1, 28, 28, 1), (conv(8), conv(12, 3, 2))),
    ModelSpec("conv_rgb_s2_32x32", "3-channel image stem conv3x3 s2 3->16 (VWW-like)",
              (1, 32, 32, 3), (conv(16, 3, 2, activation="RELU6"),)),
    ModelSpec("conv_odd_channels_3_5_7_12", "conv3x3 chain 3->5->7->12 on 15x15",
              (1, 15, 15, 3), (conv(5), conv(7), conv(12))),
    ModelSpec("conv3x3_20ch_33x17", "conv3x3 20->20 on an odd 33x17 map",
              (1, 33, 17, 20), (conv(20),)),
    ModelSpec("conv5x5_s2_rgb_33x17", "5x5 stride-2 conv 3->12 on 33x17",
              (1, 33, 17, 3), (conv(12, 5, 2),)),
    ModelSpec("conv5x5_valid_15x15x7", "5x5 VALID conv 7->20, no activation",
              (1, 15, 15, 7), (conv(20, 5, padding="VALID", activation="NONE"),)),
    ModelSpec("pointwise_33x17_12_27", "pointwise 1x1 12->27 on 33x17",
              (1, 33, 17, 12), (conv(27, 1),)),
    # dilation
    ModelSpec("dilated_conv3x3_d2_16x16x8", "conv3x3 with dilation 2, 8->16",
              (1, 16, 16, 8), (conv(16, 3, dilation=2),)),
    ModelSpec("dilated_dw3x3_d2_17x17x12", "depthwise 3x3 dilation 2 on 17x17x12, then pw 12->20",
              (1, 17, 17, 12), separable(20, dilation=2)),
    # 1-D convolutions over time
    ModelSpec("conv1d_time_w_99x10", "1-D conv over time along W: [1,1,99,10], 1x5 kernels 10->16, s2 16->16",
              (1, 1, 99, 10), (conv(16, (1, 5)), conv(16, (1, 5), (1, 2)))),
    ModelSpec("conv1d_time_h_99x10", "1-D conv over time along H: [1,99,1,10], 5x1 kernels 10->16->24",
              (1, 99, 1, 10), (conv(16, (5, 1)), conv(24, (5, 1), (2, 1)))),
    ModelSpec("conv1d_separable_99x24", "temporal separable conv: depthwise 1x5 then pointwise 24->24",
              (1, 1, 99, 24), separable(24, kernel=(1, 5))),
    ModelSpec("conv1d_dilated_tcn_64x12", "TCN: 1x3 convs with dilation 1, 2, 4 along time, 12 ch",
              (1, 1, 64, 12), (conv(12, (1, 3)), conv(12, (1, 3), dilation=(1, 2)), conv(12, (1, 3), dilation=(1, 4)))),
    # FC-only stacks
    ModelSpec("fc_64_128_128_10", "FC stack 64->128->128->10", (1, 64), (dense(128), dense(128), dense(10, "NONE"))),
    ModelSpec("fc_odd_250_27_5", "FC with odd widths 250->27->5", (1, 250), (dense(27), dense(5, "NONE"))),
    ModelSpec("fc_wide_640_256_12", "wide FC 640->256->12 (pooled-feature classifier)",
              (1, 640), (dense(256), dense(12, "NONE"))),
    ModelSpec("fc_tiny_3_20_20_1", "tiny FC 3->20->20->1 (sensor regression)",
              (1, 3), (dense(20), dense(20), dense(1, "NONE"))),
)

_SPECS = {spec.name: spec for spec in FAMILY}


def family_names() -> tuple[str, ...]:
    return tuple(spec.name for spec in FAMILY)


def family_spec(name: str) -> ModelSpec:
    if name not in _SPECS:
        raise KeyError(f"no family model {name!r}; known: {', '.join(_SPECS)}")
    return _SPECS[name]


# ---------------------------------------------------------------------------------------------------------
# Shapes, float forward pass


def _pads(size: int, kernel: int, stride: int, dilation: int, padding: str) -> tuple[int, int, int]:
    """(output size, pad before, pad after): TFLite's SAME/VALID rule with the dilated kernel's extent."""
    extent = (kernel - 1) * dilation + 1
    if padding == "VALID":
        return (size - extent) // stride + 1, 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + extent - size, 0)
    return out, total // 2, total - total // 2


def _out_shape(layer: Layer, shape: tuple[int, ...]) -> tuple[int, ...]:
    if layer.kind == "dense":
        return (1, layer.channels)
    if layer.kind == "pool":
        return (1, shape[3])
    if layer.kind == "add":
        return shape
    oh = _pads(shape[1], layer.kernel[0], layer.stride[0], layer.dilation[0], layer.padding)[0]
    ow = _pads(shape[2], layer.kernel[1], layer.stride[1], layer.dilation[1], layer.padding)[0]
    channels = layer.channels if layer.kind == "conv" else shape[3] * layer.channels
    return (1, oh, ow, channels)


def _layer_macs(layer: Layer, shape: tuple[int, ...], out: tuple[int, ...]) -> int:
    if layer.kind == "dense":
        return shape[1] * out[1]
    if layer.kind == "conv":
        return out[1] * out[2] * out[3] * layer.kernel[0] * layer.kernel[1] * shape[3]
    if layer.kind == "depthwise":
        return out[1] * out[2] * out[3] * layer.kernel[0] * layer.kernel[1]
    return 0


def family_macs(name: str) -> int:
    """Multiply-accumulates of the convolutions and dense layers (what the per-MAC figures divide by)."""
    spec = family_spec(name)
    shape, total = spec.input_shape, 0
    for layer in spec.layers:
        out = _out_shape(layer, shape)
        total += _layer_macs(layer, shape, out)
        shape = out
    return total


def _activate(x: np.ndarray, activation: str) -> np.ndarray:
    if activation == "RELU":
        return np.maximum(x, 0.0)
    if activation == "RELU6":
        return np.clip(x, 0.0, 6.0)
    return x


def _float_conv(x: np.ndarray, layer: Layer, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """NHWC convolution. w: [out, kh, kw, in] (conv) or [1, kh, kw, in * multiplier] (depthwise)."""
    (kh, kw), (sh, sw), (dh, dw) = layer.kernel, layer.stride, layer.dilation
    oh, top, bottom = _pads(x.shape[1], kh, sh, dh, layer.padding)
    ow, left, right = _pads(x.shape[2], kw, sw, dw, layer.padding)
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    depthwise_layer = layer.kind == "depthwise"
    if depthwise_layer:
        xp = np.repeat(xp, layer.channels, axis=3)  # output channel c * m + k reads input channel c
    out_c = xp.shape[3] if depthwise_layer else w.shape[0]
    y = np.zeros((x.shape[0], oh, ow, out_c))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw, :]
            y += patch * w[0, i, j, :] if depthwise_layer else patch @ w[:, i, j, :].T
    return y + b


def _weights(rng: np.random.Generator, spec: ModelSpec) -> list[dict]:
    """He-normal weights and small biases per layer, drawn in layer order from the name's generator."""
    params, shape = [], spec.input_shape
    for layer in spec.layers:
        out = _out_shape(layer, shape)
        kh, kw = layer.kernel
        if layer.kind == "conv":
            fan_in = kh * kw * shape[3]
            w = rng.normal(0.0, np.sqrt(2.0 / fan_in), (layer.channels, kh, kw, shape[3]))
        elif layer.kind == "depthwise":
            w = rng.normal(0.0, np.sqrt(2.0 / (kh * kw)), (1, kh, kw, out[3]))
        elif layer.kind == "dense":
            w = rng.normal(0.0, np.sqrt(2.0 / shape[1]), (layer.channels, shape[1]))
        else:
            params.append({})
            shape = out
            continue
        params.append({"w": w, "b": rng.normal(0.0, 0.1, w.shape[0] if layer.kind != "depthwise" else out[3])})
        shape = out
    return params


def forward(spec: ModelSpec, params: list[dict], x: np.ndarray) -> list[np.ndarray]:
    """Float activations: the input, then each layer's output."""
    acts = [x]
    for layer, p in zip(spec.layers, params):
        h = acts[-1]
        if layer.kind in ("conv", "depthwise"):
            h = _float_conv(h, layer, p["w"], p["b"])
        elif layer.kind == "dense":
            h = h @ p["w"].T + p["b"]
        elif layer.kind == "add":
            h = h + acts[-1 - layer.back]
        else:
            h = h.mean(axis=(1, 2))
        acts.append(_activate(h, layer.activation))
    return acts


# ---------------------------------------------------------------------------------------------------------
# Quantized model


def _per_channel(w: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    reduce_axes = tuple(a for a in range(w.ndim) if a != axis)
    scales = (np.maximum(np.abs(w).max(axis=reduce_axes), 1e-8) / 127.0).astype(np.float32).astype(np.float64)
    expand = [1] * w.ndim
    expand[axis] = -1
    return np.clip(np.round(w / scales.reshape(expand)), -127, 127).astype(np.int8), scales


def build_family_model(name: str) -> bytes:
    """The int8 .tflite bytes of the family model `name` (seeded by the name: same name, same bytes)."""
    return build_model(family_spec(name))


def build_model(spec: ModelSpec) -> bytes:
    """The int8 .tflite bytes of any spec built from these layers (seeded by its name)."""
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()))
    params = _weights(rng, spec)
    calibration = rng.uniform(*INPUT_RANGE, (CALIBRATION_SAMPLES, *spec.input_shape[1:]))
    acts = forward(spec, params, calibration)

    b = TFLiteBuilder()
    quant = [int8_affine(*INPUT_RANGE)]
    tensors = [b.tensor("input", spec.input_shape, "int8", scale=quant[0][0], zero_point=quant[0][1])]
    shape = spec.input_shape
    for index, (layer, p) in enumerate(zip(spec.layers, params)):
        prefix = f"layer{index}_{layer.kind}"
        out_shape = _out_shape(layer, shape)
        (in_scale, in_zp), current = quant[-1], tensors[-1]
        if layer.kind == "pool":  # average pool keeps its input's quantization (TFLite Micro requires it)
            pooled = b.tensor(f"{prefix}/pooled", (1, 1, 1, shape[3]), "int8", scale=in_scale, zero_point=in_zp)
            b.op("AVERAGE_POOL_2D", [current], [pooled], padding="VALID", filter_size=shape[1:3], stride=1)
            out = b.tensor(f"{prefix}/out", out_shape, "int8", scale=in_scale, zero_point=in_zp)
            new_shape = b.tensor(f"{prefix}/shape", (2,), "int32", data=np.array(out_shape, dtype=np.int32))
            b.op("RESHAPE", [pooled, new_shape], [out], new_shape=list(out_shape))
            quant.append((in_scale, in_zp))
            tensors.append(out)
            shape = out_shape
            continue
        out_scale, out_zp = int8_affine(float(acts[index + 1].min()), float(acts[index + 1].max()))
        out = b.tensor(f"{prefix}/out", out_shape, "int8", scale=out_scale, zero_point=out_zp)
        if layer.kind == "add":
            b.op("ADD", [current, tensors[-1 - layer.back]], [out], activation=layer.activation)
        elif layer.kind == "dense":
            w_scale = float(np.float32(np.abs(p["w"]).max() / 127.0))
            w_q = np.clip(np.round(p["w"] / w_scale), -127, 127).astype(np.int8)
            b_q = np.round(p["b"] / (in_scale * w_scale)).astype(np.int32)
            weight = b.tensor(f"{prefix}/weights", p["w"].shape, "int8", data=w_q, scale=w_scale, zero_point=0)
            bias = b.tensor(f"{prefix}/bias", b_q.shape, "int32", data=b_q, scale=in_scale * w_scale, zero_point=0)
            b.op("FULLY_CONNECTED", [current, weight, bias], [out], activation=layer.activation)
        else:
            axis = 3 if layer.kind == "depthwise" else 0
            w_q, w_scales = _per_channel(p["w"], axis)
            b_scales = in_scale * w_scales
            b_q = np.round(p["b"] / b_scales).astype(np.int32)
            weight = b.tensor(f"{prefix}/weights", p["w"].shape, "int8", data=w_q, scale=list(w_scales),
                              zero_point=0, axis=axis)
            bias = b.tensor(f"{prefix}/bias", b_q.shape, "int32", data=b_q, scale=list(b_scales), zero_point=0,
                            axis=0)
            options = dict(padding=layer.padding, stride=layer.stride, dilation=layer.dilation,
                           activation=layer.activation)
            if layer.kind == "depthwise":
                b.op("DEPTHWISE_CONV_2D", [current, weight, bias], [out], depth_multiplier=layer.channels, **options)
            else:
                b.op("CONV_2D", [current, weight, bias], [out], **options)
        quant.append((out_scale, out_zp))
        tensors.append(out)
        shape = out_shape
    return b.inputs(tensors[0]).outputs(tensors[-1]).build()
