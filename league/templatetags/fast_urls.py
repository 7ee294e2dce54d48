"""``{% pk_url "teams:detail" team.pk %}``: a URL of integer keys, reversed once per URL name.

``reverse()`` resolves the URL pattern on every call (50 µs for one key, 150 for two, on the
machine of issue 29); a table of 64 teams with a link per row (and a pre-match sheet link per
fixture), or a scroll's roster with three links a model for its owner, called it hundreds of times
a request. Here each URL name is reversed once per process with placeholder keys, and each row only
puts its keys in place of the placeholders: ``{% pk_url "teams:ninja_rename" team.pk ninja.pk %}``.
Only for URL names whose arguments are all integer keys (``<int:...>``), given in order.
"""

from __future__ import annotations

from functools import lru_cache

from django import template
from django.urls import get_script_prefix, reverse

register = template.Library()

#: One placeholder a key, each a number no real key reaches and none a part of another.
_PLACEHOLDERS = (987654321987, 987654321976, 987654321965)


@lru_cache(maxsize=64)
def _pattern(name: str, script_prefix: str, keys: int) -> tuple[str, ...]:
    """The URL of ``name`` cut where its ``keys`` keys stand: the text before, between and after them."""
    if not 1 <= keys <= len(_PLACEHOLDERS):
        raise ValueError(f"pk_url takes 1 to {len(_PLACEHOLDERS)} keys, not {keys}")
    rest = reverse(name, args=list(_PLACEHOLDERS[:keys]))
    parts = []
    for placeholder in _PLACEHOLDERS[:keys]:
        before, found, rest = rest.partition(str(placeholder))
        if not found:
            raise ValueError(f"{name}'s URL does not hold its keys in order")
        parts.append(before)
    parts.append(rest)
    return tuple(parts)


def pk_url(name: str, *pks: int) -> str:
    """The URL of ``name`` for these keys (what ``reverse(name, args=[*pks])`` gives)."""
    parts = _pattern(name, get_script_prefix(), len(pks))
    url = parts[0]
    for pk, after in zip(pks, parts[1:], strict=True):
        url += f"{int(pk)}{after}"
    return url


register.simple_tag(pk_url, name="pk_url")
