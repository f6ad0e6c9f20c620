"""The numpy reference interpreter: runs a Micro Relay graph with each op's reference semantics."""

from .interpreter import Session, initial_state, run

__all__ = ["Session", "initial_state", "run"]
