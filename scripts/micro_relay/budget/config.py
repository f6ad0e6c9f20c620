"""Where the limits come from: the build's .config, the budget YAML file and the command line.

Each source may give a RAM and a Flash limit; the tightest one wins, and the report names it:
- the board's own memory, CONFIG_SRAM_SIZE and CONFIG_FLASH_SIZE (KiB) from .config (0 or absent: none);
- CONFIG_MICRO_RELAY_RAM_BUDGET_KB and CONFIG_MICRO_RELAY_FLASH_BUDGET_KB (KiB, 0: none);
- the budget YAML, entry for the board (see SCHEMA below);
- --ram and --flash on the command line.

The budget YAML, validated with pykwalify against SCHEMA:

    # Sizes are bytes, or a number with K/KB/KiB (1024) or M/MB/MiB (1024 * 1024).
    default:              # optional: boards not listed under `boards`
      ram: 48K
      flash: 192K
    boards:
      qemu_cortex_m3:     # a board name, or a full board target such as qemu_cortex_m3/ti_lm3s6965
        ram: 16K
        flash: 64K

A board target (nrf5340dk/nrf5340/cpuapp) looks for its own entry first, then for its board name
(nrf5340dk), then for `default`. An entry may also name memory regions of their own (a CCM, an external
flash), each held against its own size: budget/regions.py.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import CompileError

KIB = 1024
_SIZE = re.compile(r"^\s*([0-9]+)\s*(?:(k|kb|kib)|(m|mb|mib)|(b))?\s*$", re.IGNORECASE)
_SIZE_PATTERN = r"^\s*[0-9]+\s*([kKmM]([bB]|i[bB])?|[bB])?\s*$"

_REGION = {"type": "map", "mapping": {
    "address": {"type": "int", "required": True, "range": {"min": 0}},
    "size": {"type": "str", "pattern": _SIZE_PATTERN, "required": True},
}}
_LIMITS = {"type": "map", "mapping": {
    "ram": {"type": "str", "pattern": _SIZE_PATTERN},
    "flash": {"type": "str", "pattern": _SIZE_PATTERN},
    "regions": {"type": "map", "mapping": {"regex;(^[A-Za-z_][A-Za-z0-9_.-]*$)": _REGION}},  # budget/regions.py
}}

SCHEMA = {
    "type": "map",
    "mapping": {
        "default": _LIMITS,
        "boards": {"type": "map", "mapping": {"regex;(^[A-Za-z0-9_./@-]+$)": _LIMITS}},
    },
}


@dataclass(frozen=True)
class Limit:
    """A RAM or Flash limit in bytes and where it came from (printed in the report)."""
    bytes: int
    source: str


@dataclass(frozen=True)
class Budget:
    board: str | None
    ram: Limit | None
    flash: Limit | None
    regions: tuple = ()  # regions.Region: named memory regions, each against its own size


def parse_size(text, where: str) -> int:
    """Bytes in '65536', '64K', '64 KiB', '1M' (K = 1024)."""
    match = _SIZE.match(str(text))
    if not match:
        raise CompileError(f"bad size '{text}': expected bytes or a number with K or M", where)
    value = int(match.group(1))
    if match.group(2):
        value *= KIB
    elif match.group(3):
        value *= KIB * KIB
    return value


def read_kconfig(path: str | Path) -> dict[str, object]:
    """CONFIG_* values of a Zephyr .config: ints as int, quoted strings unquoted, y/n as str."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise CompileError("Kconfig file not found", str(path)) from None
    except OSError as exc:
        raise CompileError(f"cannot read Kconfig file: {exc.strerror}", str(path)) from None
    values: dict[str, object] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, raw = line.partition("=")
        if not sep or not name.startswith("CONFIG_"):
            raise CompileError("not a Kconfig file: expected CONFIG_NAME=value", f"{path}:{number}")
        if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
            values[name] = raw[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        else:
            try:
                values[name] = int(raw, 0)
            except ValueError:
                values[name] = raw
    return values


def load_budget_yaml(path: str | Path) -> dict:
    """The budget YAML as a dict, validated against SCHEMA; any problem is one CompileError line."""
    from pykwalify.core import Core
    from pykwalify.errors import PyKwalifyException

    from ruamel.yaml import YAML  # pykwalify's own YAML reader
    from ruamel.yaml.error import YAMLError

    path = Path(path)
    try:
        data = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CompileError("budget YAML file not found", str(path)) from None
    except OSError as exc:
        raise CompileError(f"cannot read budget YAML: {exc.strerror}", str(path)) from None
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise CompileError(f"budget YAML does not parse: {getattr(exc, 'problem', None) or exc}", where) from None
    if data is None:
        data = {}
    # Sizes may be written as plain integers; pykwalify's patterns only apply to strings.
    data = _sizes_as_text(data)
    logger = logging.getLogger("pykwalify")
    level = logger.level
    logger.setLevel(logging.CRITICAL)  # pykwalify logs every problem; the exception carries them
    try:
        Core(source_data=data, schema_data=SCHEMA).validate(raise_exception=True)
    except PyKwalifyException as exc:
        raise CompileError(f"budget YAML is invalid: {_schema_problem(exc)}", str(path)) from None
    finally:
        logger.setLevel(level)
    return data


def _sizes_as_text(data):
    if isinstance(data, dict):
        return {k: (str(v) if k in ("ram", "flash", "size") and type(v) is int else _sizes_as_text(v))
                for k, v in data.items()}
    return data


def _schema_problem(exc) -> str:
    text = getattr(exc, "msg", None) or str(exc)
    problems = [line.strip(" -") for line in str(text).splitlines()
                if line.strip() and not line.startswith("Schema validation failed")]
    return "; ".join(problems) or str(text).strip()


def yaml_limits(data: dict, board: str | None) -> tuple[dict, str] | tuple[None, None]:
    """The YAML entry that applies to this board and its key path, or (None, None)."""
    boards = data.get("boards") or {}
    if board:
        candidates = [board]
        if "/" in board:
            candidates.append(board.split("/", 1)[0])
        for key in candidates:
            if key in boards:
                return boards[key], f"boards.{key}"
    if "default" in data:
        return data["default"], "default"
    return None, None


def resolve_budget(board: str | None = None, kconfig: dict | None = None, yaml_path: str | Path | None = None,
                   ram: str | None = None, flash: str | None = None) -> Budget:
    """The tightest RAM and Flash limits over every source given."""
    kconfig = kconfig or {}
    board = board or kconfig.get("CONFIG_BOARD_TARGET") or kconfig.get("CONFIG_BOARD") or None
    candidates: dict[str, list[Limit]] = {"ram": [], "flash": []}
    regions = []

    for region, name in (("ram", "CONFIG_SRAM_SIZE"), ("flash", "CONFIG_FLASH_SIZE"),
                         ("ram", "CONFIG_MICRO_RELAY_RAM_BUDGET_KB"),
                         ("flash", "CONFIG_MICRO_RELAY_FLASH_BUDGET_KB")):
        value = kconfig.get(name)
        if isinstance(value, int) and value > 0:
            candidates[region].append(Limit(value * KIB, f"{name}={value}"))

    if yaml_path:
        data = load_budget_yaml(yaml_path)
        if not board and data.get("boards") and "default" not in data:
            raise CompileError("the budget YAML has per-board entries only: name the board (--board or --config)",
                               str(yaml_path))
        entry, key = yaml_limits(data, board)
        if entry:
            for region in ("ram", "flash"):
                if region in entry:
                    where = f"{Path(yaml_path).name} {key}.{region}"
                    candidates[region].append(Limit(parse_size(entry[region], where), f"{where}={entry[region]}"))
            from .regions import Region

            for name, region in (entry.get("regions") or {}).items():
                where = f"{Path(yaml_path).name} {key}.regions.{name}"
                regions.append(Region(name, region["address"], parse_size(region["size"], where),
                                      f"{where}.size={region['size']}"))

    for region, text in (("ram", ram), ("flash", flash)):
        if text is not None:
            candidates[region].append(Limit(parse_size(text, f"--{region}"), f"--{region} {text}"))

    def tightest(limits: list[Limit]) -> Limit | None:
        return min(limits, key=lambda limit: limit.bytes) if limits else None  # first wins a tie

    return Budget(board, tightest(candidates["ram"]), tightest(candidates["flash"]), tuple(regions))
