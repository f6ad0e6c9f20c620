"""Memory planning: operator order, tensor lifetimes and offsets in one arena, all at compile time."""

from .memory_plan import MemoryPlan, plan_memory

__all__ = ["MemoryPlan", "plan_memory"]
