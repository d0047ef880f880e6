"""Names that become one folder or file name under a root the run owns (a corpus's data and reports, a versioned file
of reviews or rules): one plain name, so that no name can reach outside its folder or mean another folder there."""

from __future__ import annotations

import re

# Letters, digits, '-', '_' and '.', a dot never first: no separator, no "..", no hidden name, nothing a shell or an
# object store reads another way.
_PLAIN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
MAX_NAME = 128
PLAIN_NAME_RULE = "letters, digits, '-', '_' and '.', a dot not first"


def plain_name_problem(name: str) -> str | None:
    """Why `name` is not one plain folder name, or None when it is."""
    if not name:
        return "is empty"
    if len(name) > MAX_NAME:
        return f"is {len(name)} characters long (at most {MAX_NAME})"
    if not _PLAIN.fullmatch(name):
        return f"is not a plain folder name ({PLAIN_NAME_RULE})"
    return None


def check_plain_name(name: str, what: str) -> str:
    """`name` itself, or a ValueError naming `what` (the setting or flag it came from) and why it is refused."""
    problem = plain_name_problem(name)
    if problem:
        raise ValueError(f"{what} {name!r} {problem}")
    return name
