"""Judge an image against a budget and say what the models take of it.

A model compiled under the name NAME defines every symbol it owns with the prefix NAME_: the arena
(NAME_arena), its constants (NAME_w*, NAME_b*, NAME_q*, NAME_k*: codegen/constants.py), its kernels'
parameter structs (NAME_p*) and the functions (NAME_invoke, NAME_input, ...). The runtime kernels the models share are the mr_* symbols. A
symbol is the model's whose name is the longest that prefixes it, so models `kws` and `kws_small` can live
in one image. Models are named by the caller; when none is named, they are found by their functions
(detect_models).

Each model's share is split into:
- arena: NAME_arena (RAM);
- data: its other symbols in RAM;
- weights: its constant arrays in Flash, split as NAME.plan.json's `weights` entry splits them (weights,
  biases, requantization, tables), so the two figures are one: the same arrays, summed;
- params: its parameter structs and its other constant data, such as the table of its arrays NAME_verify()
  reads (their size is the C compiler's, known only here);
- code: its functions.
The weights are also named by their CRC-32, recomputed here from the arrays' bytes in the image in the order
NAME.c declares them (their numbers): the value NAME_WEIGHTS_CRC32 and NAME.plan.json give when the image holds
the weights that model was compiled with (codegen/integrity.py).

Models of an arena group (codegen/arena_group.py) have no arena of their own: the group's, GROUP_arena, and
its owner flag are the group's share, shown once with the models that use it. Groups are named by the caller
(`--arena-group GROUP:MODEL,...`; the Zephyr integration passes its micro_relay_model() ARENA_GROUPs). The
image holds no member's own arena size: given every member's plan (`--plan NAME.plan.json`), the group's line
also says what separate arenas would take, the sum of the plans' arena_bytes, and the RAM the group saves.

A failure ends with a hint: what to try for the region that is over (hint_lines, also printed by the
generator's own check before the link, budget/before_link.py).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

from ..codegen.constants import PART_OF_PREFIX, PARTS as WEIGHT_PARTS
from ..errors import CompileError
from .config import Budget, Limit
from .elf import FLASH, RAM, ElfImage, Symbol

RUNTIME_PREFIX = "mr_"
_REGION_TITLE = {RAM: "RAM", FLASH: "Flash"}


@dataclass
class Share:
    """What one owner (a model or the runtime) takes: symbols by part."""
    owner: str
    parts: dict[str, list[Symbol]] = field(default_factory=dict)

    def add(self, part: str, symbol: Symbol) -> None:
        self.parts.setdefault(part, []).append(symbol)

    def bytes(self, part: str) -> int:
        return sum(s.size for s in self.parts.get(part, ()))

    def region_bytes(self, region: str) -> int:
        return sum(s.size for symbols in self.parts.values() for s in symbols if _in(s, region))


@dataclass(frozen=True)
class Verdict:
    ok: bool
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _in(symbol: Symbol, region: str) -> bool:
    return symbol.ram if region == RAM else symbol.flash


def size_text(n: int) -> str:
    """'812 B', '70.2 KiB (71912 B)'."""
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:.1f} KiB ({n} B)"


def detect_models(symbols) -> list[str]:
    """Every NAME with the functions NAME_invoke, NAME_input and NAME_output; or with NAME_invoke_with, or
    NAME_invoke and the data NAME_arena, which stay when the linker drops the accessors an application does not
    call (and the compiler inlines NAME_invoke_with into NAME_invoke)."""
    names = {s.name.split(".")[0] for s in symbols if s.is_code}  # kws_invoke_with.part.0 is kws_invoke_with
    data = {s.name for s in symbols if not s.is_code}
    models = set()
    for name in names:
        if name.endswith("_invoke_with") and len(name) > len("_invoke_with"):
            models.add(name[: -len("_invoke_with")])
        elif name.endswith("_invoke"):
            stem = name[: -len("_invoke")]
            if stem and ((f"{stem}_input" in names and f"{stem}_output" in names) or f"{stem}_arena" in data):
                models.add(stem)
    return sorted(models)


class BudgetJudge:
    """Holds an ElfImage against a Budget; `verdict()` gives pass or fail and the report lines."""

    PARTS = ("arena", "data", "weights", "params", "code")

    def __init__(self, image: ElfImage, budget: Budget, models=None, groups: dict[str, list[str]] | None = None,
                 plans: dict[str, dict] | None = None):
        from .regions import place

        self.image, self.placed = place(image, budget.regions)  # sections in named regions leave RAM/Flash
        self.budget = budget
        symbols = image.symbols or ()
        self.models = sorted(set(models)) if models else detect_models(symbols)
        self.shares = {m: Share(m) for m in self.models}
        self.runtime = Share("runtime")
        self.groups = {g: list(members) for g, members in sorted((groups or {}).items())}
        self.group_shares = {g: Share(g) for g in self.groups}
        self.plans = dict(plans or {})
        by_length = sorted(self.models, key=len, reverse=True)
        for symbol in symbols:
            owner = next((m for m in by_length if symbol.name.startswith(m + "_")), None)
            group = next((g for g in self.groups if symbol.name in (f"{g}_arena", f"{g}_arena_owner")), None)
            if group is not None and owner is None:
                self.group_shares[group].add("arena" if symbol.name == f"{group}_arena" else "data", symbol)
            elif owner is not None:
                self.shares[owner].add(self._part(owner, symbol), symbol)
            elif symbol.name.startswith(RUNTIME_PREFIX):
                self.runtime.add("code" if symbol.is_code else "data", symbol)

    @staticmethod
    def _part(model: str, symbol: Symbol) -> str:
        if symbol.is_code:
            return "code"
        if symbol.name == f"{model}_arena":
            return "arena"
        if symbol.ram:
            return "data"
        return "weights" if constant_part(model, symbol.name) in WEIGHT_PARTS else "params"

    def _over(self, region: str) -> tuple[int, Limit] | None:
        limit = self.budget.ram if region == RAM else self.budget.flash
        used = self.image.total(region)
        if limit is not None and used > limit.bytes:
            return used - limit.bytes, limit
        return None

    def _region_use(self, region) -> int:
        return sum(s.size for s in self.placed.get(region.name, ()))

    def _regions_over(self) -> list:
        return [r for r in self.budget.regions if self._region_use(r) > r.size]

    def _region_text(self, region) -> str:
        used = self._region_use(region)
        listed = ", ".join(f"{s.name} {s.size} B" for s in sorted(self.placed[region.name], key=lambda s: -s.size)[:4])
        return f"{region.name} {used} B of {region.size} B ({100.0 * used / region.size:.1f}%)" + \
            (f": {listed}" if listed else "")

    def verdict(self) -> Verdict:
        over = {r: self._over(r) for r in (RAM, FLASH)}
        if not any(over.values()) and not self._regions_over():
            return Verdict(True, (self.summary_line(),))
        return Verdict(False, tuple(self.failure_lines(over)))

    # -- report text ---------------------------------------------------------------------------------

    def _board(self) -> str:
        return self.budget.board or "(no board)"

    def _usage(self, region: str) -> str:
        limit = self.budget.ram if region == RAM else self.budget.flash
        used = self.image.total(region)
        title = _REGION_TITLE[region]
        if limit is None:
            return f"{title} {used} B (no budget)"
        percent = 100.0 * used / limit.bytes if limit.bytes else float("inf")
        return f"{title} {used} B of {limit.bytes} B ({percent:.1f}%)"

    def _group_of(self, model: str) -> str | None:
        return next((g for g, members in self.groups.items() if model in members), None)

    def _part_text(self, share: Share, part: str) -> str:
        group = self._group_of(share.owner)
        if part == "arena" and group is not None and not share.bytes("arena"):
            return f"arena in group {group}"
        return f"{part} {share.bytes(part)} B{self._weights_text(share) if part == 'weights' else ''}"

    def _model_brief(self, share: Share) -> str:
        if not share.parts:
            return f"{share.owner}: no symbols in the image"
        parts = [self._part_text(share, p) for p in self.PARTS if p not in ("data", "params") or share.bytes(p)]
        return f"{share.owner}: " + ", ".join(parts)

    def _group_brief(self, group: str) -> str:
        share, members = self.group_shares[group], self.groups[group]
        text = f"{group} {share.bytes('arena')} B for {', '.join(members)}"
        if share.parts and all(m in self.plans for m in members):
            separate = sum(self.plans[m]["arena_bytes"] for m in members)
            text += f" (separate arenas: {separate} B, {separate - share.bytes('arena')} B saved)"
        return text

    def summary_line(self) -> str:
        line = f"micro-relay budget: {self._board()}: {self._usage(RAM)}, {self._usage(FLASH)}"
        line += "".join(f", {self._region_text(r).split(':')[0]}" for r in self.budget.regions)
        if self.image.stripped:
            return line + "; no symbol table, model share unknown"
        if self.models:
            line += "; model " + "; model ".join(self._model_brief(self.shares[m]) for m in self.models)
        if self.groups:
            line += "; arena group " + "; arena group ".join(self._group_brief(g) for g in self.groups)
        if self.runtime.parts:
            line += f"; runtime mr_* {self.runtime.region_bytes(FLASH)} B flash"
        return line

    def _weights_text(self, share: Share) -> str:
        crc = weights_crc(self.image, share)
        return _weights_split(share) + (f" crc32 0x{crc:08x}" if crc is not None else "")

    def _section_groups(self, region: str) -> list[tuple[str, int]]:
        """(name, bytes) of the region's sections, largest first. A relocatable image (native_sim's
        zephyr.elf) keeps one section per function and object: those are summed by output name
        (.text.main and .text.printk count as .text)."""
        sizes: dict[str, int] = {}
        for section in self.image.region_sections(region):
            name = section.name
            if self.image.elf_type == "ET_REL" and name.count(".") > 1:
                name = "." + name.split(".")[1]
            sizes[name] = sizes.get(name, 0) + section.size
        return sorted(sizes.items(), key=lambda item: (-item[1], item[0]))

    def failure_lines(self, over) -> list[str]:
        lines = []
        for region in (RAM, FLASH):
            if not over[region]:
                continue
            excess, limit = over[region]
            used = self.image.total(region)
            title = _REGION_TITLE[region]
            lines.append(f"error: {title} over budget on {self._board()}: {used} B used, budget {limit.bytes} B "
                         f"({limit.source}), {excess} B over ({self.image.path})")
        for region in self._regions_over():
            used = self._region_use(region)
            lines.append(f"error: region {region.name} over budget on {self._board()}: {used} B used, size "
                         f"{region.size} B ({region.source}), {used - region.size} B over ({self.image.path})")
        for region in (RAM, FLASH):
            sections = self._section_groups(region)
            listed = ", ".join(f"{name} {size} B" for name, size in sections[:6])
            more = f", +{len(sections) - 6} more" if len(sections) > 6 else ""
            limit = self.budget.ram if region == RAM else self.budget.flash
            state = "OVER, " if over[region] else ("within budget, " if limit else "")
            lines.append(f"  {self._usage(region)}, {state}sections: {listed or '-'}{more}")
        for region in self.budget.regions:
            state = "OVER" if region in self._regions_over() else "within its size"
            lines.append(f"  region {self._region_text(region).replace(':', f', {state}, sections:', 1)}"
                         if self.placed[region.name] else f"  region {self._region_text(region)}, {state}")
        if self.image.stripped:
            lines.append("  no symbol table (stripped ELF): the models' share is unknown")
            return lines
        if not self.models:
            lines.append("  no Micro Relay model found in the image")
        for model in self.models:
            share = self.shares[model]
            lines.append(f"  model {model}: RAM {share.region_bytes(RAM)} B, Flash {share.region_bytes(FLASH)} B")
            for part in self.PARTS:
                symbols = share.parts.get(part, [])
                if symbols or part not in ("data", "params"):
                    lines.append(f"    {self._part_text(share, part)}: {_symbol_list(symbols)}")
        for group, share in self.group_shares.items():
            lines.append(f"  arena group {self._group_brief(group)}: RAM {share.region_bytes(RAM)} B: "
                         f"{_symbol_list(share.parts.get('arena', []) + share.parts.get('data', []))}")
        if self.runtime.parts:
            lines.append(f"  runtime (mr_*): RAM {self.runtime.region_bytes(RAM)} B, "
                         f"Flash {self.runtime.region_bytes(FLASH)} B: "
                         f"{_symbol_list(self.runtime.parts.get('code', []) + self.runtime.parts.get('data', []))}")
        lines += hint_lines(region for region in (RAM, FLASH) if over[region])
        return lines


def parse_groups(values) -> dict[str, list[str]]:
    """{group: [models]} from `--arena-group` values, each GROUP:MODEL pairs, comma-separated."""
    groups: dict[str, list[str]] = {}
    for value in values:
        for pair in filter(None, value.split(",")):
            group, colon, model = pair.partition(":")
            if not (colon and group and model):
                raise CompileError(f"'{pair}' is not GROUP:MODEL", "--arena-group")
            groups.setdefault(group, []).append(model)
    return groups


def constant_part(model: str, symbol_name: str) -> str | None:
    """The part (codegen/constants.py) a model's constant symbol holds, from its name; None for another name."""
    match = re.fullmatch(rf"{re.escape(model)}_([a-z])[0-9]+", symbol_name)
    return PART_OF_PREFIX.get(match.group(1)) if match else None


def weight_parts(share: Share) -> dict[str, int]:
    """Bytes of the model's weights by part, in NAME.plan.json's order."""
    parts = dict.fromkeys(WEIGHT_PARTS, 0)
    for symbol in share.parts.get("weights", ()):
        parts[constant_part(share.owner, symbol.name)] += symbol.size
    return parts


def weights_crc(image, share: Share) -> int | None:
    """zlib's CRC-32 of the model's constant arrays as stored in the image, in declaration order; None when it
    has none or one has no bytes in the file."""
    arrays = share.parts.get("weights", ())
    crc = 0
    for symbol in sorted(arrays, key=lambda s: int(re.search(r"[0-9]+$", s.name).group())):
        data = image.symbol_bytes(symbol)
        if data is None:
            return None
        crc = zlib.crc32(data, crc)
    return crc if arrays else None


def _weights_split(share: Share) -> str:
    """' (weights 24368 B, biases 2352 B, requantization 4616 B)': the nonzero parts, when there are two or more."""
    shown = [f"{part} {size} B" for part, size in weight_parts(share).items() if size]
    return f" ({', '.join(shown)})" if len(shown) > 1 else ""


HINTS = {
    RAM: "hint: RAM: a smaller arena: `OPTIONS --target generic` (no DSP scratch), a smaller input, an int8 "
         "model (`--quantize int8` for a float one); the arena in another RAM bank (`--arena-section`); "
         "or a board with more RAM",
    FLASH: "hint: Flash: fewer or narrower weights: an int8 model (`--quantize int8` for a float one), a "
           "smaller model; CONFIG_SIZE_OPTIMIZATIONS=y for the rest of the image; or a board with more flash",
}


def hint_lines(regions) -> list[str]:
    """One line per region over budget: what to try."""
    return [f"  {HINTS[region]}" for region in regions]


def _symbol_list(symbols: list[Symbol], most: int = 4) -> str:
    if not symbols:
        return "-"
    ordered = sorted(symbols, key=lambda s: (-s.size, s.name))
    text = ", ".join(f"{s.name} {s.size} B" for s in ordered[:most])
    if len(ordered) > most:
        text += f", +{len(ordered) - most} more ({sum(s.size for s in ordered[most:])} B)"
    return text
