"""Plain substitution of a prompt's ``{argument}`` placeholders (docs/prompts.md).

Staff write prompt text in the admin: it must never reach Django's template language
(``{% include %}``, the template context) nor ``str.format`` (``{arg.__class__}``,
``{0}``). Only an exact ``{name}`` token of a declared argument is replaced, in one pass
over the text, so a value that itself holds ``{other}`` stays as the caller sent it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["fill"]


def fill(text: str, declared: Iterable[str], values: Mapping[str, str]) -> str:
    """Return ``text`` with each ``{name}`` of a ``declared`` argument replaced by its value
    in ``values``; every other brace, and a declared argument without a value, as written."""
    names = [name for name in declared if name in values]
    if not names:
        return text
    # Longest first: of two names where one starts the other, the token names the longer.
    alternatives = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    pattern = re.compile(r"\{(" + alternatives + r")\}")
    return pattern.sub(lambda match: values[match.group(1)], text)
