"""smrlab's own output files (plan.json, report.html, plots, CSV tables) are never left partial.

A regular file (or a new one) is written under a temporary name in the same directory and
renamed over the target, so a reader, a crash or a signal never sees half a file. A symlink is
followed: its target is replaced and the link stays. Anything else that is not a directory (a
FIFO, /dev/null, a character device) cannot be renamed over without destroying it, so it is
written through. A directory is refused. The temporary name is unique per process, so two runs
never write into each other's files.
"""

import contextlib
import errno
import itertools
import os
import shutil
import stat
import tempfile
from pathlib import Path

_counter = itertools.count()


def target_of(path: Path) -> Path:
    """The file a write to `path` lands in: a symlink's final target, else the path itself."""
    path = Path(path)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def problem(path: Path) -> str:
    """Why `path` cannot be written as an output file ("" when it can), checked up front."""
    target = target_of(path)
    if target.is_dir():
        return f"{path} is a directory, not a file"
    if not target.parent.is_dir():
        return f"{path}: {target.parent} is not a directory"
    return ""


@contextlib.contextmanager
def replacing(path: Path):
    """Yields a temporary path to write completely; on success its content becomes `path` (see
    the module's rules), on any error or interruption it is removed and `path` is untouched."""
    target = target_of(path)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", str(path))
    try:
        through = not stat.S_ISREG(os.stat(target).st_mode)
    except FileNotFoundError:
        through = False
    if through:     # FIFO, device: the temporary goes elsewhere, never beside the device
        fd, name = tempfile.mkstemp(prefix="smrlab-", suffix=".tmp")
        os.close(fd)
        tmp = Path(name)
    else:
        tmp = target.with_name(f".{target.name}.smrlab-{os.getpid()}-{next(_counter)}.tmp")
    try:
        yield tmp
        if through:
            with open(tmp, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        else:
            os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def write_atomically(path: Path, data: str | bytes):
    with replacing(path) as tmp:
        if isinstance(data, str):
            tmp.write_text(data, encoding="utf-8")
        else:
            tmp.write_bytes(data)
