"""Graph -> Graph passes, each pure and in its own file, run in a fixed order by `pipeline`."""

from .pipeline import DEFAULT_PIPELINE, run_pipeline

__all__ = ["DEFAULT_PIPELINE", "run_pipeline"]
