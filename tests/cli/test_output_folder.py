"""The output folder: every way writing it can fail gives exit 2, one line naming what and where, and leaves
the folder around it as it was (no half-written OUT, no `.mr-*` staging folder). A compile into an existing
folder replaces only its own files, and files whose bytes did not change keep their timestamps."""

from __future__ import annotations

import errno
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from micro_relay import compiler
from micro_relay.cli import main
from micro_relay.errors import CompileError


def listing(folder: Path) -> list[str]:
    """Every path under `folder`, with modes, and for files sizes and modification times: equal listings mean
    nothing was left behind or changed (a folder's own time changes when an entry comes and goes)."""
    entries = []
    for p in sorted(folder.rglob("*")):
        st = p.lstat()
        detail = "" if p.is_dir() else f" {st.st_size} {st.st_mtime_ns}"
        entries.append(f"{p.relative_to(folder)} {st.st_mode:o}{detail}")
    return entries


def compile_cli(capsys, *args) -> tuple[int, str]:
    code = main(["compile", *(str(a) for a in args)])
    return code, capsys.readouterr().err


def assert_refused(code: int, err: str, *fragments: str) -> None:
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def assert_no_staging_left(folder: Path) -> None:
    assert not [p for p in folder.rglob(".mr-*")], listing(folder)


def test_output_path_under_a_file(tmp_path, model, capsys):
    (tmp_path / "notes.txt").write_text("a file, not a folder\n")
    before = listing(tmp_path)
    code, err = compile_cli(capsys, model, "-o", tmp_path / "notes.txt" / "out")
    assert_refused(code, err, "a parent of the output folder is a file", "notes.txt")
    assert listing(tmp_path) == before


def test_output_path_is_a_file(tmp_path, model, capsys):
    (tmp_path / "out").write_text("in the way\n")
    before = listing(tmp_path)
    code, err = compile_cli(capsys, model, "-o", tmp_path / "out")
    assert_refused(code, err, "output path exists and is not a directory", "out")
    assert listing(tmp_path) == before


def test_file_where_the_runtime_folder_goes(tmp_path, model, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "micro_relay").write_text("not the runtime's header folder\n")
    before = listing(tmp_path)
    code, err = compile_cli(capsys, model, "-o", out)
    assert_refused(code, err, "a file is in the way of an output folder", str(out / "micro_relay"))
    assert listing(tmp_path) == before


def test_folder_where_an_output_file_goes(tmp_path, model, capsys):
    out = tmp_path / "out"
    (out / "fc.c").mkdir(parents=True)
    before = listing(tmp_path)
    code, err = compile_cli(capsys, model, "-o", out)
    assert_refused(code, err, "a folder is in the way of an output file", str(out / "fc.c"))
    assert listing(tmp_path) == before


def test_5000_character_output_name(tmp_path, model, capsys):
    before = listing(tmp_path)
    code, err = compile_cli(capsys, model, "-o", tmp_path / "new" / ("o" * 5000))
    assert_refused(code, err, "cannot write the output: File name too long", str(tmp_path / "new"))
    assert listing(tmp_path) == before  # the missing parent 'new' made for it is gone again


def test_empty_output_name(tmp_path, model, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = listing(tmp_path)
    code, err = compile_cli(capsys, model, "-o", "")
    assert_refused(code, err, "the output folder name is empty", "(-o)")
    assert listing(tmp_path) == before
    built = compiler.compile_graph(compiler.prepare_graph(model), "fc", "fc.tflite")
    with pytest.raises(CompileError, match="the output folder name is empty"):
        compiler.write_output(built, "")


class _DiskFull:
    """os.write that fills the disk after `room` bytes, as ENOSPC does."""

    def __init__(self, room: int):
        self.room = room
        self.real = os.write

    def __call__(self, fd, data):
        if len(data) > self.room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(data)
        return self.real(fd, data)


@pytest.mark.parametrize("room", [0, 9000])
def test_disk_full_into_a_new_folder(tmp_path, model, capsys, monkeypatch, room):
    before = listing(tmp_path)
    monkeypatch.setattr(os, "write", _DiskFull(room))
    code, err = compile_cli(capsys, model, "-o", tmp_path / "build" / "out")
    monkeypatch.undo()
    assert_refused(code, err, "cannot write the output: No space left on device", str(tmp_path / "build" / "out"))
    assert listing(tmp_path) == before


def test_disk_full_into_an_existing_folder(tmp_path, model, capsys, monkeypatch):
    out = tmp_path / "out"
    assert compile_cli(capsys, model, "-o", out, "--name", "old")[0] == 0
    (out / "notes.md").write_text("the user's own file\n")
    before = listing(tmp_path)
    monkeypatch.setattr(os, "write", _DiskFull(4000))
    code, err = compile_cli(capsys, model, "-o", out, "--name", "new")
    monkeypatch.undo()
    assert_refused(code, err, "No space left on device", str(out))
    assert listing(tmp_path) == before


def test_failed_move_puts_the_old_files_back(tmp_path, model, capsys, monkeypatch):
    """A rename that fails half way (after the model's .c moved in, before its .h): the old files return."""
    out = tmp_path / "out"
    assert compile_cli(capsys, model, "-o", out)[0] == 0
    (out / "fc.c").write_text("/* an older fc.c */\n")
    (out / "fc.h").write_text("/* an older fc.h */\n")
    before = listing(tmp_path)
    real_replace, calls = os.replace, []

    def failing_replace(src, dst):
        calls.append(dst)
        if str(dst).endswith("fc.h") and Path(src).parent.name.startswith(".mr-"):
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(src))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    code, err = compile_cli(capsys, model, "-o", out)
    monkeypatch.undo()
    assert_refused(code, err, "cannot write the output: Input/output error", str(out / "fc.h"))
    assert any(str(d).endswith("fc.c") for d in calls)  # the failure came after a move had been made
    assert listing(tmp_path) == before
    assert (out / "fc.c").read_text() == "/* an older fc.c */\n"


def _run_in_read_only(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """The CLI in a process that sees `folder` read-only: a read-only bind mount in a private mount
    namespace as root (root ignores permission bits), permission bits otherwise."""
    command = [sys.executable, "-m", "micro_relay", *args]
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=120)
        finally:
            folder.chmod(0o755)
    if not shutil.which("unshare"):
        pytest.skip("unshare (util-linux) is needed to mount a read-only folder as root")
    quoted = shlex.quote(str(folder))
    script = (f"mount --bind {quoted} {quoted} && mount -o remount,ro,bind {quoted} || exit 99; "
              f"exec {shlex.join(command)}")
    result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    if result.returncode == 99:
        pytest.skip(f"cannot make a read-only bind mount here: {result.stderr.strip()}")
    return result


def test_read_only_parent_folder(tmp_path, model):
    parent = tmp_path / "readonly"
    parent.mkdir()
    before = listing(tmp_path)
    result = _run_in_read_only(parent, "compile", str(model), "-o", str(parent / "out"))
    assert_refused(result.returncode, result.stderr, "cannot write the output:", str(parent))
    assert listing(tmp_path) == before


def test_read_only_existing_output_folder(tmp_path, model, capsys):
    out = tmp_path / "out"
    assert compile_cli(capsys, model, "-o", out, "--name", "old")[0] == 0
    before = listing(tmp_path)
    result = _run_in_read_only(out, "compile", str(model), "-o", str(out), "--name", "new")
    assert_refused(result.returncode, result.stderr, "cannot write the output:", str(out))
    assert listing(tmp_path) == before


def test_recompile_replaces_only_its_files_and_keeps_unchanged_timestamps(tmp_path, model, capsys):
    out = tmp_path / "out"
    assert compile_cli(capsys, model, "-o", out)[0] == 0
    (out / "notes.md").write_text("the user's own file\n")
    (out / "fc.plan.json").write_text("{}\n")  # stale: the compile must rewrite it
    for path in out.rglob("*"):
        os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    assert compile_cli(capsys, model, "-o", out)[0] == 0
    times = {p.relative_to(out).as_posix(): p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert times.pop("fc.plan.json") != 1_000_000_000_000_000_000
    assert (out / "fc.plan.json").read_text() != "{}\n"
    assert set(times.values()) == {1_000_000_000_000_000_000}, times  # fc.c, fc.h, runtime, notes.md untouched
    assert {"fc.c", "fc.h", "notes.md", "micro_relay/crt.h"} <= set(times)
    assert_no_staging_left(tmp_path)


def test_new_folder_gets_ordinary_permissions(tmp_path, model, capsys):
    out = tmp_path / "a" / "b" / "out"
    umask = os.umask(0o022)
    try:
        assert compile_cli(capsys, model, "-o", out)[0] == 0
    finally:
        os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o755
    assert (out / "fc.c").stat().st_mode & 0o777 == 0o644
    assert_no_staging_left(tmp_path)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_fifo_or_device_as_model_is_refused(tmp_path, kind):
    """In a real process with a timeout: opening a FIFO for reading would block forever."""
    if kind == "fifo":
        model = tmp_path / "pipe.tflite"
        os.mkfifo(model)
    else:
        model = Path("/dev/zero")
    before = listing(tmp_path)
    result = subprocess.run([sys.executable, "-m", "micro_relay", "compile", str(model), "-o", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=120)
    expected = "(a FIFO)" if kind == "fifo" else "(a character device)"
    assert_refused(result.returncode, result.stderr, "model path is not a regular file", expected, str(model))
    assert listing(tmp_path) == before
