"""The numpy reference interpreter: runs a Micro Relay graph with each op's reference semantics."""

from .interpreter import run

__all__ = ["run"]
