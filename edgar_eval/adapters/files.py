"""Writing a file so that readers see the old bytes or the new ones, never half of either."""

from __future__ import annotations

import os
from pathlib import Path


def replace_file(target: Path, data: bytes) -> bool:
    """Write `data` to `target` through a temporary file and an atomic rename; unchanged bytes are left
    untouched. True when the file was written."""
    if target.is_file() and target.read_bytes() == data:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return True
