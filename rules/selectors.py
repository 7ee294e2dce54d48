"""Reads of the rules catalog, shaped for the public rules reference and other apps.

Every selector fetches its rows with a fixed number of queries (prefetches instead of per-row
lookups), so a page that renders the whole catalog stays bounded however the catalog grows.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from rules.models import (
    AdvancementRow,
    Challenge,
    ChallengeXpAward,
    Clan,
    DowntimeRow,
    Keyword,
    Profile,
    RandomChallengeColumn,
    RandomChallengeRow,
    RevenueRow,
    SentryProfile,
    SpecialAbility,
    StatusEffect,
    XpLevel,
)


def catalog_counts() -> dict[str, int]:
    return {
        "clans": Clan.objects.count(),
        "clan_profiles": Profile.objects.exclude(kind=Profile.Kind.RONIN).count(),
        "ronin": Profile.objects.filter(kind=Profile.Kind.RONIN).count(),
        "keywords": Keyword.objects.count(),
        "challenges": Challenge.objects.count(),
        "status_effects": StatusEffect.objects.count(),
    }


def _profile_prefetches() -> list[Prefetch]:
    # Keywords alphabetically, as the rulebook (nearly always) prints them; abilities in book order.
    return [
        Prefetch("keywords", queryset=Keyword.objects.order_by("name")),
        Prefetch("abilities", queryset=SpecialAbility.objects.order_by("order", "id")),
    ]


def profiles_for_display() -> QuerySet[Profile]:
    """Profiles with their clan, keywords and abilities loaded (3 queries however many rows)."""
    return Profile.objects.select_related("clan").prefetch_related(*_profile_prefetches())


def clans() -> QuerySet[Clan]:
    return Clan.objects.order_by("order", "name")


def clans_with_profiles() -> QuerySet[Clan]:
    """Clans in book order, each with `profiles` (types then heroes) ready to render."""
    # No select_related("clan"): the prefetch sets each profile's clan to its parent already.
    profiles = Profile.objects.prefetch_related(*_profile_prefetches()).order_by("order", "name")
    return Clan.objects.order_by("order", "name").prefetch_related(Prefetch("profiles", queryset=profiles))


def ronin_profiles() -> QuerySet[Profile]:
    return profiles_for_display().filter(kind=Profile.Kind.RONIN).order_by("order", "name")


@dataclass(frozen=True)
class KeywordGroup:
    category: str
    label: str
    keywords: list[Keyword]

    @property
    def anchor(self) -> str:
        return f"keywords-{self.category.lower()}"


def keywords_by_category() -> list[KeywordGroup]:
    """All keywords, grouped in the rulebook's order: General, Air, Earth, Fire, Spirit, Water, Void,
    Unique (one query)."""
    grouped: dict[str, list[Keyword]] = {value: [] for value in Keyword.Category.values}
    for keyword in Keyword.objects.order_by("order", "name"):
        grouped.setdefault(keyword.category, []).append(keyword)
    labels = dict(Keyword.Category.choices)
    return [
        KeywordGroup(category=category, label=labels.get(category, category), keywords=keywords)
        for category, keywords in grouped.items()
        if keywords
    ]


def challenges_with_awards() -> QuerySet[Challenge]:
    return Challenge.objects.order_by("order", "name").prefetch_related(
        Prefetch("xp_awards", queryset=ChallengeXpAward.objects.order_by("order", "id"))
    )


def status_effects() -> QuerySet[StatusEffect]:
    return StatusEffect.objects.order_by("order", "name")


def sentry_profiles() -> QuerySet[SentryProfile]:
    return SentryProfile.objects.order_by("name")


@dataclass(frozen=True)
class RandomChallengeCell:
    text: str
    challenge_slug: str | None  # set when the cell names a challenge, for a link


@dataclass(frozen=True)
class RandomChallengeLine:
    face: str
    cells: list[RandomChallengeCell]  # column 1, column 2


@dataclass(frozen=True)
class RandomChallengeTable:
    columns: dict[int, list[str]]  # column number -> first-die faces that select it
    rows: list[RandomChallengeLine]


@dataclass(frozen=True)
class LeagueTables:
    xp_levels: list[XpLevel]
    advancement: list[AdvancementRow]
    downtime: list[DowntimeRow]
    revenue: list[RevenueRow]
    random_challenge: RandomChallengeTable


def random_challenge_table() -> RandomChallengeTable:
    """The random challenge generator (3 queries): which column each first-die face selects, and per
    second-die face the challenge in each column, linked to the challenge when it names one."""
    columns: dict[int, list[str]] = {}
    for col in RandomChallengeColumn.objects.order_by("column", "id"):
        columns.setdefault(col.column, []).append(col.face)
    slugs = dict(Challenge.objects.values_list("name", "slug"))
    rows = [
        RandomChallengeLine(
            face=row.face,
            cells=[
                RandomChallengeCell(text=text, challenge_slug=slugs.get(text)) for text in (row.column_1, row.column_2)
            ],
        )
        for row in RandomChallengeRow.objects.order_by("order", "id")
    ]
    return RandomChallengeTable(columns=columns, rows=rows)


def league_tables() -> LeagueTables:
    """The league tables (XP levels, advancement, downtime, revenue, random challenge): 7 queries."""
    return LeagueTables(
        xp_levels=list(XpLevel.objects.order_by("level")),
        advancement=list(AdvancementRow.objects.order_by("order", "id")),
        downtime=list(DowntimeRow.objects.order_by("order", "id")),
        revenue=list(RevenueRow.objects.order_by("order", "id")),
        random_challenge=random_challenge_table(),
    )
