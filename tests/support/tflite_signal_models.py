"""Single-op TFLite models of TFLite Micro's signal-library custom operators (SignalWindow, ...), written with
the project's TFLite writer (`custom_op`: flexbuffer options), and the sample inputs that reach their corners.

Builders make only models TFLite Micro's Prepare accepts: the types and ranks its kernels check. Window
weights are a seeded Q-format Hann window or seeded noise, so hypothesis draws one integer, not the table.
"""

from __future__ import annotations

import numpy as np

from micro_relay.frontend.tflite.writer import TFLiteBuilder


def hann_q(size: int, shift: int) -> np.ndarray:
    """A Hann window in Q`shift` (the micro_speech front end uses 400 samples, Q12), as int16."""
    n = np.arange(size)
    return np.round((0.5 - 0.5 * np.cos(2 * np.pi * (n + 0.5) / size)) * (1 << min(shift, 14))).astype(np.int16)


def window_model(shape=(1, 400), window_size=400, shift=12, seed=None) -> bytes:
    """SignalWindow: int16 `shape` times an int16 window of `window_size` (Hann, or noise when `seed`)."""
    if seed is None:
        weights = hann_q(window_size, shift)
    else:
        weights = np.random.default_rng(seed).integers(-32768, 32768, window_size)
    b = TFLiteBuilder()
    x = b.tensor("input", shape, "int16")
    w = b.tensor("window", (window_size,), "int16", data=weights)
    y = b.tensor("output", shape, "int16")
    b.custom_op("SignalWindow", [x, w], [y], shift=shift)
    return b.inputs(x).outputs(y).build()


def extremes_int16(shape, seed: int) -> np.ndarray:
    """int16 samples with the extremes (-32768, 32767, 0, +-1) mixed into uniform noise."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-32768, 32768, int(np.prod(shape)))
    corners = np.array([-32768, 32767, 0, 1, -1])
    x[: min(len(corners), x.size)] = corners[: x.size]
    return rng.permutation(x).astype(np.int16).reshape(shape)


def fft_auto_scale_model(size=512) -> bytes:
    """SignalFftAutoScale: int16 [size] -> int16 [size] and the int32 scalar shift."""
    b = TFLiteBuilder()
    x = b.tensor("input", (size,), "int16")
    y = b.tensor("output", (size,), "int16")
    s = b.tensor("scale_bits", (), "int32")
    b.custom_op("SignalFftAutoScale", [x], [y, s])
    return b.inputs(x).outputs(y, s).build()


def energy_model(bins=257, start_index=0, end_index=None) -> bytes:
    """SignalEnergy: interleaved int16 [2 * bins] -> uint32 [bins]."""
    b = TFLiteBuilder()
    x = b.tensor("input", (2 * bins,), "int16")
    y = b.tensor("output", (bins,), "uint32")
    b.custom_op("SignalEnergy", [x], [y], start_index=start_index,
                end_index=bins if end_index is None else end_index)
    return b.inputs(x).outputs(y).build()


def filter_bank_log_model(channels=40, output_scale=1600, input_correction_bits=3) -> bytes:
    """SignalFilterBankLog: uint32 [channels] -> int16 [channels]."""
    b = TFLiteBuilder()
    x = b.tensor("input", (channels,), "uint32")
    y = b.tensor("output", (channels,), "int16")
    b.custom_op("SignalFilterBankLog", [x], [y], output_scale=output_scale,
                input_correction_bits=input_correction_bits)
    return b.inputs(x).outputs(y).build()


def scaled_frames(size: int, seed: int) -> list[np.ndarray]:
    """int16 frames of every loudness: silence, one bit, each magnitude 2^k, and -32768 early and late."""
    rng = np.random.default_rng(seed)
    frames = [np.zeros(size, np.int16)]
    for bits in sorted(rng.choice(16, 4, replace=False)):
        frames.append(rng.integers(-(1 << bits), (1 << bits) + 1, size).astype(np.int16))
    for where in (0, size - 1, size // 2):
        frame = rng.integers(-300, 301, size).astype(np.int16)
        frame[where] = -32768
        frames.append(frame)
    return frames


def wide_uint32(shape, seed: int) -> np.ndarray:
    """uint32 values spread over every magnitude 2^0..2^32, with 0, 1, 2 and the maximum."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 33, int(np.prod(shape)))
    x = (rng.random(bits.size) * np.exp2(bits)).astype(np.uint64).clip(0, 2 ** 32 - 1)
    corners = np.array([0, 1, 2, 3, 2 ** 32 - 1, 2 ** 31, 65535, 65536], dtype=np.uint64)
    x[: min(len(corners), x.size)] = corners[: x.size]
    return x.astype(np.uint32).reshape(shape)


def mel_config(channels=40, bins=257, sample_rate=16000, lower_hz=125.0, upper_hz=7500.0, bits=12) -> dict:
    """A mel filter bank laid out as TFLite Micro's SignalFilterBank reads it: channel c (0..channels) spans
    the bins from edge c to edge c + 1, its weights rise across them in Q`bits`, its unweights are the rest."""
    mel = lambda hz: 1127.0 * np.log1p(hz / 700.0)  # noqa: E731
    edges_mel = np.linspace(mel(lower_hz), mel(upper_hz), channels + 2)
    hz = 700.0 * np.expm1(edges_mel / 1127.0)
    edges = np.maximum.accumulate(np.round(hz / (sample_rate / 2) * (bins - 1)).astype(np.int64))
    edges = edges + np.arange(edges.size)  # at least one bin per channel
    edges = np.minimum(edges, bins)
    widths = np.diff(edges)
    weights, unweights = [], []
    for c in range(channels + 1):
        ramp = (np.arange(widths[c]) + 1) / (widths[c] + 1)
        w = np.round(ramp * (1 << bits)).astype(np.int64)
        weights.extend(w)
        unweights.extend((1 << bits) - w)
    return dict(weights=np.array(weights), unweights=np.array(unweights), freq_starts=edges[:-1],
                weight_starts=np.concatenate([[0], np.cumsum(widths)[:-1]]), widths=widths)


def random_config(channels: int, bins: int, seed: int) -> dict:
    """Channels at random bins with random widths, and int16 weights of either sign (negative ones wrap
    in TFLite Micro's uint64 sums)."""
    rng = np.random.default_rng(seed)
    widths = rng.integers(0, min(bins, 12) + 1, channels + 1)
    starts = np.array([rng.integers(0, bins - w + 1) for w in widths])
    total = max(int(widths.sum()), 1)
    return dict(weights=rng.integers(-32768, 32768, total), unweights=rng.integers(-32768, 32768, total),
                freq_starts=starts, weight_starts=np.concatenate([[0], np.cumsum(widths)[:-1]]), widths=widths)


def filter_bank_model(config: dict, bins=257, channels=None) -> bytes:
    """SignalFilterBank: uint32 [bins] -> uint64 [channels], the five config tensors constant int16."""
    channels = len(config["widths"]) - 1 if channels is None else channels
    b = TFLiteBuilder()
    x = b.tensor("input", (bins,), "uint32")
    names = [b.tensor(k, (len(config[k]),), "int16", data=config[k])
             for k in ("weights", "unweights", "freq_starts", "weight_starts", "widths")]
    y = b.tensor("output", (channels,), "uint64")
    b.custom_op("SignalFilterBank", [x, *names], [y], num_channels=channels)
    return b.inputs(x).outputs(y).build()


def square_root_model(channels=40) -> bytes:
    """SignalFilterBankSquareRoot: uint64 [channels] and the int32 scalar scale_bits -> uint32 [channels]."""
    b = TFLiteBuilder()
    x = b.tensor("input", (channels,), "uint64")
    s = b.tensor("scale_bits", (), "int32")
    y = b.tensor("output", (channels,), "uint32")
    b.custom_op("SignalFilterBankSquareRoot", [x, s], [y])
    return b.inputs(x, s).outputs(y).build()


def wide_uint64(shape, seed: int) -> np.ndarray:
    """uint64 values of every magnitude, with the corners of the 32- and 64-bit root paths."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    bits = rng.integers(0, 65, n)
    x = np.array([int(rng.integers(0, 2 ** 62)) * 4 % (1 << int(b)) if b else 0 for b in bits], dtype=np.uint64)
    corners = [0, 1, 2, 3, 2 ** 32 - 1, 2 ** 32, 2 ** 64 - 1, (2 ** 32 - 1) ** 2, 65535 ** 2 + 65535, 2 ** 63]
    x[: min(len(corners), n)] = np.array(corners[:n], dtype=np.uint64)
    return x.reshape(shape)


TFLITE_TYPES = {"int16": 7, "int32": 2, "float32": 0}  # tflite TensorType, the T option of SignalRfft


def rfft_model(fft_length=512, shape=(400,), dtype="int16", t=None) -> bytes:
    """SignalRfft: `dtype` frames of shape[-1] samples -> [..., fft_length + 2] interleaved bins."""
    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype)
    y = b.tensor("output", tuple(shape[:-1]) + (fft_length + 2,), dtype)
    b.custom_op("SignalRfft", [x], [y], T=TFLITE_TYPES[dtype] if t is None else t, fft_length=fft_length)
    return b.inputs(x).outputs(y).build()


def irfft_model(fft_length=512, rows=(), dtype="int16", t=None, out_length=None) -> bytes:
    """SignalIrfft: `dtype` [*rows, fft_length + 2] interleaved bins -> [*rows, fft_length] samples."""
    b = TFLiteBuilder()
    x = b.tensor("input", (*rows, fft_length + 2), dtype)
    y = b.tensor("output", (*rows, fft_length if out_length is None else out_length), dtype)
    b.custom_op("SignalIrfft", [x], [y], T=TFLITE_TYPES[dtype] if t is None else t, fft_length=fft_length)
    return b.inputs(x).outputs(y).build()


def extremes(shape, dtype: str, seed: int) -> np.ndarray:
    """Uniform noise over the whole type with its extremes mixed in (int16 or int32)."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    x = rng.integers(int(info.min), int(info.max) + 1, int(np.prod(shape)), dtype=np.int64)
    corners = np.array([info.min, info.max, 0, 1, -1], dtype=np.int64)
    x[: min(len(corners), x.size)] = corners[: x.size]
    return rng.permutation(x).astype(dtype).reshape(shape)


def pcan_lut(seed=None) -> np.ndarray:
    """A 125-entry gain table: the audio front end's shape (a falling gain of the noise, in Q`gain_bits`), or
    seeded int16 noise that reaches the polynomial's wraps."""
    if seed is not None:
        return np.random.default_rng(seed).integers(-32768, 32768, 125).astype(np.int16)
    x = np.exp2(np.arange(125) / 4.0)
    return np.clip(np.round(2 ** 11 / np.sqrt(1 + x / 64)), -32768, 32767).astype(np.int16)


def pcan_model(channels=40, snr_shift=6, lut=None) -> bytes:
    """SignalPCAN: uint32 [channels], uint32 noise estimate [channels], constant int16 gain table -> uint32."""
    b = TFLiteBuilder()
    x = b.tensor("input", (channels,), "uint32")
    noise = b.tensor("noise_estimate", (channels,), "uint32")
    table = b.tensor("gain_lut", (125,), "int16", data=pcan_lut() if lut is None else lut)
    y = b.tensor("output", (channels,), "uint32")
    b.custom_op("SignalPCAN", [x, noise, table], [y], snr_shift=snr_shift)
    return b.inputs(x, noise).outputs(y).build()


SPECTRAL_SUBTRACTION_DEFAULTS = dict(smoothing=655, one_minus_smoothing=15729, alternate_smoothing=655,
                                     alternate_one_minus_smoothing=15729, min_signal_remaining=819,
                                     smoothing_bits=10, spectral_subtraction_bits=14, clamping=False)


def spectral_subtraction_model(channels=40, **options) -> bytes:
    """SignalFilterBankSpectralSubtraction: uint32 [channels] -> (uint32 output, uint32 noise estimate); the
    defaults are the micro_speech front end's (smoothing 0.04, min signal 0.05, in Q14)."""
    b = TFLiteBuilder()
    x = b.tensor("input", (channels,), "uint32")
    y = b.tensor("output", (channels,), "uint32")
    noise = b.tensor("noise_estimate", (channels,), "uint32")
    b.custom_op("SignalFilterBankSpectralSubtraction", [x], [y, noise], num_channels=channels,
                **{**SPECTRAL_SUBTRACTION_DEFAULTS, **options})
    return b.inputs(x).outputs(y, noise).build()


def front_end_model(frame=480, fft_length=512, channels=40, classes=0, seed=0) -> bytes:
    """The micro_speech audio front end as one model of signal ops: int16 PCM [frame] -> Hann window ->
    FFT auto scale -> RFFT -> energy -> mel filter bank -> square root (undoing the auto scale) -> spectral
    subtraction (stateful) -> PCAN -> log, int16 [channels]. With `classes`, the log features go on (as int16
    with a scale) through QUANTIZE to int8, a seeded FULLY_CONNECTED and SOFTMAX: keyword scores."""
    bins = fft_length // 2 + 1
    config = mel_config(channels, bins)
    first = int(config["freq_starts"].min())
    last = int((config["freq_starts"] + config["widths"]).max())
    b = TFLiteBuilder()
    pcm = b.tensor("pcm", (frame,), "int16")
    hann = b.tensor("hann", (frame,), "int16", data=hann_q(frame, 12))
    windowed = b.tensor("windowed", (frame,), "int16")
    b.custom_op("SignalWindow", [pcm, hann], [windowed], shift=12)
    scaled, scale_bits = b.tensor("scaled", (frame,), "int16"), b.tensor("scale_bits", (), "int32")
    b.custom_op("SignalFftAutoScale", [windowed], [scaled, scale_bits])
    spectrum = b.tensor("spectrum", (fft_length + 2,), "int16")
    b.custom_op("SignalRfft", [scaled], [spectrum], T=TFLITE_TYPES["int16"], fft_length=fft_length)
    energy = b.tensor("energy", (bins,), "uint32")
    b.custom_op("SignalEnergy", [spectrum], [energy], start_index=first, end_index=last)
    names = [b.tensor(k, (len(config[k]),), "int16", data=config[k])
             for k in ("weights", "unweights", "freq_starts", "weight_starts", "widths")]
    banks = b.tensor("filter_bank", (channels,), "uint64")
    b.custom_op("SignalFilterBank", [energy, *names], [banks], num_channels=channels)
    roots = b.tensor("roots", (channels,), "uint32")
    b.custom_op("SignalFilterBankSquareRoot", [banks, scale_bits], [roots])
    cleaned, noise = b.tensor("cleaned", (channels,), "uint32"), b.tensor("noise", (channels,), "uint32")
    b.custom_op("SignalFilterBankSpectralSubtraction", [roots], [cleaned, noise], num_channels=channels,
                **SPECTRAL_SUBTRACTION_DEFAULTS)
    lut = b.tensor("gain_lut", (125,), "int16", data=pcan_lut())
    normalized = b.tensor("normalized", (channels,), "uint32")
    b.custom_op("SignalPCAN", [cleaned, noise, lut], [normalized], snr_shift=6)
    quant = {"scale": 1 / 64, "zero_point": 0} if classes else {}
    features = b.tensor("features", (channels,), "int16", **quant)
    b.custom_op("SignalFilterBankLog", [normalized], [features], output_scale=1600, input_correction_bits=3)
    if not classes:
        return b.inputs(pcm).outputs(features).build()
    rng = np.random.default_rng(seed)
    flat = b.tensor("features_2d", (1, channels), "int16", **quant)
    b.op("RESHAPE", [features], [flat], new_shape=[1, channels])
    q8 = b.tensor("features_q8", (1, channels), "int8", scale=1.0, zero_point=-128)
    b.op("QUANTIZE", [flat], [q8])
    w = b.tensor("fc_weights", (classes, channels), "int8", data=rng.integers(-127, 128, (classes, channels)),
                 scale=0.0002, zero_point=0)
    bias = b.tensor("fc_bias", (classes,), "int32", data=rng.integers(-2000, 2000, classes), scale=0.0002,
                    zero_point=0)  # bias scale = input scale * weight scale, as TFLite Micro requires
    logits = b.tensor("logits", (1, classes), "int8", scale=0.1, zero_point=0)
    b.op("FULLY_CONNECTED", [q8, w, bias], [logits])
    scores = b.tensor("scores", (1, classes), "int8", scale=1 / 256, zero_point=-128)
    b.op("SOFTMAX", [logits], [scores])
    return b.inputs(pcm).outputs(scores).build()


def tone_frames(frames=6, frame=480, stride=320, hz=1000.0, seed=0) -> list[list[np.ndarray]]:
    """Consecutive overlapping frames of a 16 kHz tone (seeded amplitude ramp and noise), one per invoke."""
    rng = np.random.default_rng(seed)
    t = np.arange(stride * (frames - 1) + frame) / 16000.0
    amplitude = np.linspace(500, 12000, t.size) * rng.uniform(0.5, 1.0)
    pcm = amplitude * np.sin(2 * np.pi * hz * t) + rng.normal(0, 300, t.size)
    pcm = np.clip(np.round(pcm), -32768, 32767).astype(np.int16)
    return [[pcm[k * stride:k * stride + frame].copy()] for k in range(frames)]


def subtraction_invokes(channels: int, seed: int, invokes: int = 6):
    """Loud then quiet then loud frames, so the estimate rises, overshoots the signal and clamps."""
    rng = np.random.default_rng(seed)
    levels = [1 << int(b) for b in rng.integers(4, 31, invokes)]
    return [[(rng.random(channels) * level).astype(np.uint32)] for level in levels] + [[wide_uint32((channels,), seed)]]


def float_frames(shape, seed: int) -> np.ndarray:
    """Audio-like float32 frames: normal samples over several loudnesses, with exact zeros."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-4, 16, shape[:-1] + (1,)))
    x[..., :3] = 0.0
    return x.astype(np.float32)
