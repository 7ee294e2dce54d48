"""Hostile values for the property tests, and one POST judged by what it answered and wrote."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.contrib.messages import constants as message_levels
from django.db import transaction
from django.test import Client
from hypothesis import strategies as st

from tests.trust.matrix import is_login_redirect
from tests.trust.world import watch_writes

HUGE = [
    str(2**15),
    str(2**31),
    str(2**63),
    str(-(2**63) - 1),
    "9" * 40,
    "-" + "9" * 40,
    "1e309",
    "-1",
    "-0",
    "0",
    "0x10",
    "1_000",
    " 7 ",
    "NaN",
    "inf",
    "3.5",
    "١٢",
    "Ⅻ",
]
NASTY = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\t\r\n",
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "' OR '1'='1",
    "%00",
    "../../etc/passwd",
    "\u202egnp.exe",
    "🥷" * 10,
    "ﷺ",
    "{{ 7|add:7 }}",
    "{% debug %}",
    "null",
    "None",
    "true",
    "[]",
    "{}",
    "\ud7ff",
    "\uffff",
    "a" * 70_000,
    "長" * 5_000,
    "on",
    "off",
]
# Strings a browser could send (surrogates cannot be encoded, so they never arrive).
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
scalar = st.one_of(
    st.sampled_from(HUGE + NASTY),
    st.integers().map(str),
    st.integers(min_value=-5, max_value=60).map(str),
    texts,
)


def hostile(*plausible) -> st.SearchStrategy:
    """A field's value: a hostile scalar, sometimes several values, or one of ``plausible``."""
    options = [scalar, st.lists(scalar, min_size=2, max_size=3)]
    if plausible:
        options.append(st.sampled_from([str(p) for p in plausible]))
        options.append(st.sampled_from([str(p) for p in plausible]))  # weigh plausible values up
    return st.one_of(*options)


def form_data(fields: dict[str, st.SearchStrategy]) -> st.SearchStrategy:
    """Any subset of the form's fields (missing fields), plus a few junk fields."""
    junk = st.dictionaries(
        st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12), scalar, max_size=2
    )
    return st.builds(lambda known, extra: {**extra, **known}, st.fixed_dictionaries({}, optional=fields), junk)


@dataclass
class Posted:
    status: int
    location: str
    levels: list[int]
    written: list[str] = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        """A redirect after success (a write is expected) rather than after an error message."""
        return (
            self.status in (301, 302)
            and not is_login_redirect(self)
            and not any(level >= message_levels.WARNING for level in self.levels)
        )

    @property
    def location_path(self) -> str:
        return self.location


def post(client: Client, url: str, data: dict, *, may_write: frozenset[str] = frozenset()) -> Posted:
    """POST (url-encoded, as a browser sends a form) inside a rolled-back transaction.

    A server error propagates (the client re-raises it). Unless the answer is a success redirect,
    the fingerprint must not change, except in the tables named by ``may_write``."""
    body = urlencode(data, doseq=True)
    with transaction.atomic():
        with watch_writes() as watched:
            resp = client.post(url, body, content_type="application/x-www-form-urlencoded")
        written = watched.changed
        transaction.set_rollback(True)
    storage = getattr(resp.wsgi_request, "_messages", None)
    levels = [m.level for m in getattr(storage, "_queued_messages", [])]
    posted = Posted(status=resp.status_code, location=resp.get("Location", ""), levels=levels)
    posted.written = [w for w in written if w.split(":")[0] not in may_write]
    return posted


def judge(posted: Posted, data: dict) -> None:
    """The answer is a form error (200), a 4xx, a redirect to log in or after an error message,
    with nothing written; or the input was valid and accepted."""
    assert posted.status in (200, 301, 302, 400, 403, 404, 405, 413, 429), f"answered {posted.status} to {data!r:.300}"
    if not posted.accepted:
        assert not posted.written, f"refused ({posted.status}) but wrote {posted.written} for {data!r:.300}"
