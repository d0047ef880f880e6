"""Writing a file so that readers see the old bytes or the new ones, never half of either; and writing a pinned file
once, so that two writers can never replace each other's."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from upath import UPath

from edgar_eval.adapters.parquet_store import SHARED_FILE_MODE, is_local


def replace_file(target: Path | UPath, data: bytes) -> bool:
    """Write `data` to `target` through a uniquely named temporary file and an atomic rename, so that two processes
    writing one file cannot collide and a failed write leaves nothing behind; unchanged bytes are left untouched.
    On an object store (a UPath) the bytes are put as one whole object. True when the file was written."""
    if target.is_file() and target.read_bytes() == data:
        return False
    if not is_local(target):
        target.write_bytes(data)
        return True
    tmp = _written_beside(target, data)
    try:
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return True


def _written_beside(target: Path, data: bytes) -> Path:
    """`data`, complete, in a uniquely named temporary file in the target's folder (so a rename or link is atomic)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(tmp, SHARED_FILE_MODE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


class PinnedElsewhere(FileExistsError):
    """A pinned file already holds other bytes: the pin is never replaced."""


def create_file(target: Path | UPath, data: bytes) -> bool:
    """Write `data` to `target` only if no file is there: complete bytes through a temporary file, then a hard link
    that fails when the name exists, so of two processes pinning one name exactly one wins and the other is told.
    True when the file was created; False when it already holds these bytes; PinnedElsewhere when it holds others.
    On an object store (a UPath) the check and the put are two steps: two writers racing there are not excluded."""
    if not is_local(target):
        if target.is_file():
            if target.read_bytes() == data:
                return False
            raise PinnedElsewhere(f"{target} is pinned with other content")
        target.write_bytes(data)
        return True
    tmp = _written_beside(target, data)
    try:
        try:
            os.link(tmp, target)
        except FileExistsError:
            if target.read_bytes() == data:
                return False
            raise PinnedElsewhere(f"{target} is pinned with other content") from None
    finally:
        tmp.unlink(missing_ok=True)
    return True
