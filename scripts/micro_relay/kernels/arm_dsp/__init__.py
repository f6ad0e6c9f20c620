"""The Armv7E-M DSP-extension kernels (crt/src/*_dsp paths): targets with `dsp` (Cortex-M4, M7, M33, M55)."""
