"""Micro Relay: an ahead-of-time compiler from trained networks to static-memory C99."""

__version__ = "0.1.0"
