"""``{% pk_url "teams:detail" team.pk %}``: a URL with one primary key, reversed once per URL name.

``reverse()`` resolves the URL pattern on every call; a table of 64 teams with a link per row (and
a pre-match sheet link per fixture) called it hundreds of times a request. Here each URL name is
reversed once per process with a placeholder key, and each row only puts its key in place of the
placeholder. Only for URL names whose one argument is an integer key (``<int:pk>``).
"""

from __future__ import annotations

from functools import lru_cache

from django import template
from django.urls import get_script_prefix, reverse

register = template.Library()

_PLACEHOLDER = 987654321987


@lru_cache(maxsize=64)
def _pattern(name: str, script_prefix: str) -> tuple[str, str]:
    url = reverse(name, args=[_PLACEHOLDER])
    before, _, after = url.partition(str(_PLACEHOLDER))
    return before, after


def pk_url(name: str, pk: int) -> str:
    """The URL of ``name`` for this key (what ``reverse(name, args=[pk])`` gives)."""
    before, after = _pattern(name, get_script_prefix())
    return f"{before}{int(pk)}{after}"


register.simple_tag(pk_url, name="pk_url")
