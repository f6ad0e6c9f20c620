"""Models the project generates itself (for the demo, the Zephyr samples and tests): trained with numpy,
quantized to TFLite's int8 scheme, written with our own TFLite writer. No downloads."""
