"""Post-training int8 quantization over the Micro Relay IR: a float graph and calibration samples become
an int8 graph in the TFLite integer scheme the kernels implement. Layers the user names run with int16
activations and int8 weights instead (TFLite's 16x8 scheme), ops the user keeps in float stay float.

- calibration_data.py: read and check the samples (.npz keyed by input name, or .npy for one input);
- observe.py: run the float graph in the reference interpreter, record ranges, choose them (minmax,
  percentile, mse);
- params.py: scales and zero points from ranges; symmetric int8 weights, int32 biases (int64 under int16);
- rules.py: which ops have int8 (and int16) kernels and how each one's output quantization is chosen;
- domains.py: which type (float, int8, int16) each node runs in;
- rewrite.py: the graph rewrite (a pure function of graph, ranges and options);
- report.py: per-layer scale, zero point and SQNR, weight and arena bytes;
- post_training.py: the whole step in one call; cli_options.py: its command-line face.
"""

from .post_training import quantize_graph, quantize_with_report
from .report import QuantizationReport
from .rewrite import QuantizeOptions

__all__ = ["QuantizeOptions", "QuantizationReport", "quantize_graph", "quantize_with_report"]
