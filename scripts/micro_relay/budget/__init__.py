"""The post-link budget check: how much RAM and Flash a linked image takes, and the models' share of it.

- elf.py: `ElfImage` reads an ELF with pyelftools (sections classified into RAM/Flash, sized symbols);
- config.py: the limits, from the build's .config, the per-board budget YAML (pykwalify) and the command line;
- judge.py: `BudgetJudge` holds the image against the budget and writes the verdict;
- cli.py: `micro-relay budget` (also `python3 -m micro_relay.budget`), run after link by the Zephyr module.
"""

from .config import Budget, Limit, load_budget_yaml, parse_size, read_kconfig, resolve_budget
from .elf import ElfImage, Section, Symbol
from .judge import BudgetJudge, Verdict

__all__ = ["Budget", "BudgetJudge", "ElfImage", "Limit", "Section", "Symbol", "Verdict", "load_budget_yaml",
           "parse_size", "read_kconfig", "resolve_budget"]
