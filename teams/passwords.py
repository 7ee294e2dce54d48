"""A password validator for what Django's four let through (issue 11, finding 8).

Django's validators refuse short, common, all-digit passwords and ones like the username. They
accept 12 spaces, twenty times "a" or "abcabcabcabc": this one refuses a password that is blank,
made of few different characters, one short piece repeated, or a run of consecutive characters.
"""

from __future__ import annotations

from itertools import pairwise

from django.core.exceptions import ValidationError


class LowVarietyPasswordValidator:
    def __init__(self, min_distinct: int = 5):
        self.min_distinct = min_distinct

    def validate(self, password: str, user=None) -> None:
        if not password.strip():
            raise ValidationError("This password is only spaces.", code="password_blank")
        if len(set(password.casefold())) < self.min_distinct:
            raise ValidationError(
                "This password uses too few different characters (at least %(n)d).",
                code="password_low_variety",
                params={"n": self.min_distinct},
            )
        for period in range(1, len(password) // 2 + 1):
            if len(password) % period == 0 and password == password[:period] * (len(password) // period):
                raise ValidationError("This password is one short piece repeated.", code="password_repeated")
        steps = {ord(b) - ord(a) for a, b in pairwise(password)}
        if len(steps) == 1 and steps <= {1, -1}:
            raise ValidationError("This password is a run of consecutive characters.", code="password_sequence")

    def get_help_text(self) -> str:
        return (
            f"Your password must use at least {self.min_distinct} different characters and be neither "
            "a repeated piece nor a run like “abcdef”."
        )
