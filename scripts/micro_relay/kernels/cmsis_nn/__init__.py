"""CMSIS-NN through the adapters of crt/cmsis_nn (`--kernels cmsis-nn`), where it is bit-exact."""
