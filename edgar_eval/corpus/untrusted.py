"""Filing text is untrusted input: before it goes into a prompt, whatever could open or close a tag, pose as a chat
turn or carry the request's nonce becomes a visible placeholder.

One neutraliser for every prompt that quotes filings (the answerer's passages, the proposer's excerpts); each
prompt may add the markers of its own protocol (the answerer's citation syntax and refusal phrase).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable, Sequence

REMOVED = "[removed]"
REMOVED_MARKUP = "[removed markup]"
REMOVED_ROLE = "[removed role marker]"
# Anything a tokenizer or a reader could take for a tag: <x ...>, </x>, <|special|>, <!...>. A bare `<` followed
# by a space or a digit ("less than 5") is left alone.
_MARKUP = re.compile(r"</?\s*[A-Za-z|!][^<>\n]{0,200}>")
_ROLE_MARKERS = re.compile(
    r"(?im)^[ \t]*(?:#{1,6}[ \t]*(?:system|user|assistant|human|instruction|response|input)\b[ \t]*:?"
    r"|(?:system|user|assistant|human)[ \t]*:)"
    r"|\[/?INST\]|<</?SYS>>"
)
_KEEP_CONTROLS = {"\n", "\t"}
_MAX_ROUNDS = 8


def neutralise_untrusted(
    text: str, nonces: Iterable[str] = (), markers: Sequence[tuple[re.Pattern[str], str]] = ()
) -> str:
    """`text` with the given nonces, markup, chat role markers and any protocol `markers` (pattern, placeholder)
    replaced, to a fixed point: a replacement must not join the pieces of a new marker."""
    text = unicodedata.normalize("NFKC", text)  # a fullwidth ＜／passages＞ becomes what it imitates, then goes
    # Zero-width and other format characters would split a marker past the patterns below; they carry no content.
    text = "".join(
        ch for ch in text if ch in _KEEP_CONTROLS or unicodedata.category(ch) not in ("Cf", "Cc", "Cs", "Co")
    )
    replacements = [(re.compile(re.escape(n), re.I), REMOVED) for n in nonces if n]
    replacements += [(_MARKUP, REMOVED_MARKUP), (_ROLE_MARKERS, REMOVED_ROLE), *markers]
    for _ in range(_MAX_ROUNDS):
        before = text
        for pattern, placeholder in replacements:
            text = pattern.sub(placeholder, text)
        if text == before:
            break
    return text
