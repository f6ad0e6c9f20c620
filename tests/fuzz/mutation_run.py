"""Run the mutation fuzzer in this process and print one JSON summary (and, with --log, one line per file).

    python tests/fuzz/mutation_run.py --files 20000 --seed 1 [--timeout 10] [--memory-mb 3000] [--log run.jsonl]

Each file gets a wall-clock budget (SIGALRM) and the process an address-space limit, so a mutant that makes
the compiler hang or allocate without bound shows up as "timeout" or a MemoryError bug instead of stalling
the run. The summary counts, per mutation class, the files tried, clean errors, compiles and everything else.
"""

from __future__ import annotations

import argparse
import json
import resource
import signal
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2] / "scripts")]

from fuzz.mutations import MUTATION_CLASSES, mutants  # noqa: E402
from fuzz.outcome import c_build_problem, compile_bytes, sanitized_run_problem  # noqa: E402
from fuzz.seeds import seed_models  # noqa: E402


class _Timeout(BaseException):
    """Not an Exception, so that the compile's own `except Exception` (fuzz/outcome.py) cannot swallow it."""


def _alarm(signum, frame):
    raise _Timeout()


def run(files: int, seed: int, timeout: int, log=None, start: int = 0, build_every: int = 0,
        sanitize_every: int = 0, classes=()) -> dict:
    """Mutate and compile; every `build_every`-th compiled file (0: none) is also built with -Werror, and
    every `sanitize_every`-th one built and run under ASan and UBSan."""
    import tempfile

    work = Path(tempfile.mkdtemp(prefix="fuzz-build-"))
    compiled = 0
    signal.signal(signal.SIGALRM, _alarm)
    counts = {k: Counter() for k in MUTATION_CLASSES}
    bugs: dict[str, list] = defaultdict(list)
    for index, name, kind, data in mutants(seed_models(), start + files, seed):
        if index < start or (classes and kind not in classes):
            continue
        signal.alarm(timeout)
        try:
            outcome = compile_bytes(data)
            result, detail = outcome.kind, outcome.detail
        except _Timeout:
            result, detail = "timeout", f"over {timeout} s"
        except MemoryError:
            result, detail = "bug", "MemoryError"
        finally:
            signal.alarm(0)
        if result == "compiled":
            compiled += 1
            per_class = counts[kind]["compiled"] + 1  # sanitize each class's compiles, not mostly the commonest
            if build_every and compiled % build_every == 0:
                counts[kind]["built"] += 1
                problem = c_build_problem(outcome, work / str(index))
                if problem:
                    result, detail = "bug", f"C build: {problem}"
            if sanitize_every and per_class % sanitize_every == 0 and result == "compiled":
                counts[kind]["sanitized"] += 1
                problem = sanitized_run_problem(outcome, work / f"{index}-san")
                if problem:
                    result, detail = "bug", f"sanitizers: {problem}"
        counts[kind]["tried"] += 1
        counts[kind][result] += 1
        if result not in ("error", "compiled"):
            bugs[detail].append([index, name, kind])
        if log is not None:
            log.write(json.dumps({"index": index, "seed": name, "class": kind, "result": result,
                                  "detail": detail}) + "\n")
    return {"counts": {k: dict(v) for k, v in counts.items()},
            "bugs": {k: {"count": len(v), "first": v[:3]} for k, v in sorted(bugs.items())}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0, help="skip the first START mutants (to split a run)")
    parser.add_argument("--timeout", type=int, default=20, help="seconds per file")
    parser.add_argument("--memory-mb", type=int, default=3000, help="address-space limit of this process")
    parser.add_argument("--log", help="write one JSON line per file here")
    parser.add_argument("--build-every", type=int, default=0, help="build every Nth compiled file with -Werror")
    parser.add_argument("--classes", nargs="*", default=(), choices=MUTATION_CLASSES, help="only these classes")
    parser.add_argument("--sanitize-every", type=int, default=0,
                        help="build every Nth compiled file under ASan/UBSan and run it on random inputs")
    args = parser.parse_args(argv)
    limit = args.memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))  # soft only:
    # the sanitized programs lift it again (ASan reserves terabytes of address space for its shadow)
    log = open(args.log, "w") if args.log else None
    try:
        summary = run(args.files, args.seed, args.timeout, log, args.start, args.build_every,
                      args.sanitize_every, tuple(args.classes))
    finally:
        if log is not None:
            log.close()
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
