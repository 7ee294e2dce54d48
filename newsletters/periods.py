"""The period a newsletter covers: a round of a season, or an ISO week.

A period is named by a key that is unique in the league and readable in a URL:
``season-2-round-3`` or ``2025-w07``.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils import timezone

ROUND_KEY = re.compile(r"^season-(?P<season>\d{1,4})-round-(?P<round>\d{1,4})$")
WEEK_KEY = re.compile(r"^(?P<year>\d{4})-w(?P<week>\d{1,2})$")


@dataclass(frozen=True)
class Period:
    kind: str  # "round" or "week"
    season_number: int | None = None
    round_number: int | None = None
    iso_year: int | None = None
    iso_week: int | None = None

    @classmethod
    def round(cls, season_number: int, round_number: int) -> Period:
        return cls(kind="round", season_number=season_number, round_number=round_number)

    @classmethod
    def week(cls, iso_year: int, iso_week: int) -> Period:
        dt.date.fromisocalendar(iso_year, iso_week, 1)  # raises ValueError for a week that does not exist
        return cls(kind="week", iso_year=iso_year, iso_week=iso_week)

    @classmethod
    def week_of(cls, moment: dt.datetime | dt.date) -> Period:
        day = timezone.localtime(moment).date() if isinstance(moment, dt.datetime) else moment
        year, week, _ = day.isocalendar()
        return cls.week(year, week)

    @classmethod
    def from_key(cls, key: str) -> Period:
        key = (key or "").strip().lower()
        if m := ROUND_KEY.match(key):
            season, rnd = int(m["season"]), int(m["round"])
            if season < 1 or rnd < 1:
                raise ValidationError(f"{key!r} is not a period.")
            return cls.round(season, rnd)
        if m := WEEK_KEY.match(key):
            try:
                return cls.week(int(m["year"]), int(m["week"]))
            except ValueError as exc:
                raise ValidationError(f"{key!r} is not a week.") from exc
        raise ValidationError(f"{key!r} is not a period (season-N-round-M or YYYY-wWW).")

    @property
    def is_round(self) -> bool:
        return self.kind == "round"

    @property
    def key(self) -> str:
        if self.is_round:
            return f"season-{self.season_number}-round-{self.round_number}"
        return f"{self.iso_year}-w{self.iso_week:02d}"

    @property
    def sort_key(self) -> int:
        if self.is_round:
            return self.season_number * 1000 + self.round_number
        return self.iso_year * 100 + self.iso_week

    @property
    def label(self) -> str:
        if self.is_round:
            return f"Season {self.season_number}, round {self.round_number}"
        start, end = self.dates
        return f"Week {self.iso_week} of {self.iso_year} ({start:%d %b} – {end:%d %b})"

    @property
    def dates(self) -> tuple[dt.date, dt.date]:
        """First and last day of a week period."""
        start = dt.date.fromisocalendar(self.iso_year, self.iso_week, 1)
        return start, start + dt.timedelta(days=6)

    def window(self) -> tuple[dt.datetime, dt.datetime]:
        """[start, end) of a week period as aware datetimes (Monday 00:00 to the next Monday 00:00,
        in the project's time zone)."""
        start, _ = self.dates
        tz = timezone.get_current_timezone()
        begin = timezone.make_aware(dt.datetime.combine(start, dt.time.min), tz)
        finish = timezone.make_aware(dt.datetime.combine(start + dt.timedelta(days=7), dt.time.min), tz)
        return begin, finish


def last_complete_week(now: dt.datetime | None = None) -> Period:
    """The ISO week before the one ``now`` falls in."""
    now = now or timezone.now()
    return Period.week_of(timezone.localtime(now) - dt.timedelta(days=7))
