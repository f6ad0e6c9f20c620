"""Portable C99 kernels (crt/src): every op, every target."""
