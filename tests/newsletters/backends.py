"""Email backends for the tests: Django's locmem backend, failing for chosen addresses (what
leaves the project is the only thing faked)."""

from __future__ import annotations

import smtplib
from collections import Counter

from django.core.mail.backends.locmem import EmailBackend


class FailingForSomeBackend(EmailBackend):
    """Refuses every message to an address in ``always_fail``; refuses the first ``flaky[address]``
    attempts to an address in ``flaky``, then delivers."""

    always_fail: set[str] = set()
    flaky: dict[str, int] = {}
    attempts: Counter = Counter()

    @classmethod
    def reset(cls, *, always_fail=(), flaky=None) -> None:
        cls.always_fail = set(always_fail)
        cls.flaky = dict(flaky or {})
        cls.attempts = Counter()

    def send_messages(self, messages):
        for message in messages:
            for address in message.to:
                FailingForSomeBackend.attempts[address] += 1
                if address in self.always_fail:
                    raise smtplib.SMTPRecipientsRefused({address: (550, b"No such mailbox")})
                if FailingForSomeBackend.attempts[address] <= self.flaky.get(address, 0):
                    raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
        return super().send_messages(messages)
