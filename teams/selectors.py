"""Reads for teams: the team scroll, team lists with ratings, in a bounded number of queries."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Count, Prefetch, Q, QuerySet

from rules.engine import league as rules_league
from teams.models import Advancement, AdvancementRoll, Ninja, StrengthRating, Team, TreasuryEntry

ACTIVE = Ninja.Status.ACTIVE


def roster_prefetch(to_attr: str = "roster") -> Prefetch:
    """Active ninja with everything the scroll and the rating need (fixed number of queries).

    The profiles are prefetched, not joined: the models of one profile then share one profile
    object, whose keywords and abilities are read once (a 16-team round loads about 20 profiles
    instead of 190, and a tenth of the keyword and ability rows)."""
    return Prefetch(
        "ninjas",
        queryset=Ninja.objects.filter(status=ACTIVE)
        .prefetch_related(
            "profile",
            "profile__keywords",
            "profile__abilities",
            "chosen_abilities",
            Prefetch("advancements", queryset=Advancement.objects.select_related("keyword").order_by("id")),
            _pending_rolls_prefetch(),
        )
        .order_by("profile__order", "id"),
        to_attr=to_attr,
    )


def _pending_rolls_prefetch() -> Prefetch:
    return Prefetch(
        "advancement_rolls",
        queryset=AdvancementRoll.objects.filter(status=AdvancementRoll.Status.PENDING).order_by("id"),
        to_attr="pending_rolls",
    )


def rating_prefetch(to_attr: str = "roster") -> Prefetch:
    """Just what the team rating needs, in one query: active models with their profiles and the
    number of advancements each has earned (taken, or rolled and still to choose)."""
    pending = Q(advancement_rolls__status=AdvancementRoll.Status.PENDING)
    return Prefetch(
        "ninjas",
        queryset=Ninja.objects.filter(status=ACTIVE)
        .select_related("profile")
        .annotate(
            earned_advancements=Count("advancements", distinct=True)
            + Count("advancement_rolls", filter=pending, distinct=True)
        )
        .order_by("profile__order", "id"),
        to_attr=to_attr,
    )


def advancements_earned(ninja: Ninja) -> int:
    """Advancements the model has earned: those taken plus the rolls still to choose from (a
    voided roll is neither; a chosen one is its advancement). Uses the ``earned_advancements``
    annotation of :func:`rating_prefetch`, else the prefetched advancements and ``pending_rolls``."""
    annotated = getattr(ninja, "earned_advancements", None)
    if annotated is not None:
        return annotated
    pending = getattr(ninja, "pending_rolls", None)
    if pending is None:
        pending = ninja.advancement_rolls.filter(status=AdvancementRoll.Status.PENDING)
    return len(ninja.advancements.all()) + len(pending)


def ninja_snapshot(ninja: Ninja) -> rules_league.NinjaSnapshot:
    profile = ninja.profile
    return rules_league.NinjaSnapshot(
        koban_cost=profile.koban,
        is_hero=profile.kind == profile.Kind.HERO,
        is_ronin=profile.kind == profile.Kind.RONIN,
        advancements=advancements_earned(ninja),
        upkeep=profile.upkeep or 0,
        name=ninja.name,
    )


def team_snapshot(team: Team, roster: list[Ninja] | None = None) -> rules_league.TeamSnapshot:
    """Convert at the edge: the roster as the rules engine sees it."""
    if roster is None:
        roster = getattr(team, "roster", None)
    if roster is None:
        roster = list(
            Ninja.objects.filter(team=team, status=ACTIVE)
            .select_related("profile")
            .prefetch_related("advancements", _pending_rolls_prefetch())
        )
    return rules_league.TeamSnapshot(ninjas=tuple(ninja_snapshot(n) for n in roster), name=team.name)


def team_rating(team: Team) -> int:
    return rules_league.team_rating(team_snapshot(team))


def fresh_ratings(team_ids: Iterable[int]) -> dict[int, int]:
    """{team id: rating computed now from its roster} in one query (the active models with their
    profiles and advancements earned, :func:`rating_prefetch`'s annotation). What
    ``Team.rating`` stores; a team with no active model rates 0."""
    ids = sorted(set(team_ids))
    pending = Q(advancement_rolls__status=AdvancementRoll.Status.PENDING)
    ninjas = (
        Ninja.objects.filter(team_id__in=ids, status=ACTIVE)
        .select_related("profile")
        .annotate(
            earned_advancements=Count("advancements", distinct=True)
            + Count("advancement_rolls", filter=pending, distinct=True)
        )
        .order_by("team_id", "id")
    )
    rosters: dict[int, list[rules_league.NinjaSnapshot]] = {pk: [] for pk in ids}
    for ninja in ninjas:
        rosters[ninja.team_id].append(ninja_snapshot(ninja))
    return {pk: rules_league.team_rating(rules_league.TeamSnapshot(ninjas=tuple(r))) for pk, r in rosters.items()}


@dataclass
class NinjaLine:
    """One line of the team scroll: a ninja's current profile (base plus advancements)."""

    ninja: Ninja
    movement: int
    attack: int
    defense: int
    affinities: list[str]
    base_keywords: list[str]
    gained_keywords: list[str]
    abilities: list[str]
    level_name: str
    advancements: list[str]
    ranged: str = ""  # the profile's ranged attack as the rulebook writes it ("Ranged 5: +2 Attack."), or ""
    pending_rolls: list[AdvancementRoll] = field(default_factory=list)

    @property
    def availability(self) -> str:
        if self.ninja.misses_games:
            n = self.ninja.misses_games
            return f"Misses the next {n} game{'s' if n != 1 else ''}"
        if self.ninja.starts_in_healing_house:
            return "Starts the next game in the Healing House"
        return "Fit"


def ninja_line(ninja: Ninja) -> NinjaLine:
    profile = ninja.profile
    advs = list(ninja.advancements.all())
    mv = profile.movement + sum(1 for a in advs if a.kind == Advancement.Kind.MOVEMENT)
    at = profile.attack + sum(1 for a in advs if a.kind == Advancement.Kind.ATTACK)
    df = profile.defense + sum(1 for a in advs if a.kind == Advancement.Kind.DEFENSE)
    affinities = list(profile.affinities) + [a.affinity for a in advs if a.kind == Advancement.Kind.AFFINITY]
    if profile.choose_abilities:
        abilities = [a.name for a in ninja.chosen_abilities.all()]
    else:
        abilities = [a.name for a in profile.abilities.all()]
    return NinjaLine(
        ninja=ninja,
        movement=mv,
        attack=at,
        defense=df,
        affinities=affinities,
        base_keywords=[k.name for k in profile.keywords.all()],
        gained_keywords=[a.keyword.name for a in advs if a.kind == Advancement.Kind.KEYWORD and a.keyword_id],
        abilities=abilities,
        level_name=rules_league.xp_level(ninja.xp).name,
        advancements=[str(a) for a in advs],
        ranged=profile.ranged_text,
        pending_rolls=list(getattr(ninja, "pending_rolls", [])),
    )


def team_for_scroll(pk: int) -> Team:
    return Team.objects.select_related("clan", "owner", "league").prefetch_related(roster_prefetch()).get(pk=pk)


def recent_ledger(team: Team, limit: int = 8) -> list[TreasuryEntry]:
    """The team's last koban movements. A line links its match by key alone
    (teams/includes/_ledger_table.html): the match is not read (every column of it, its records'
    JSON included, was a third of the query's cost)."""
    return list(team.ledger.order_by("-id")[:limit])


def teams_with_ratings(queryset: QuerySet | None = None) -> QuerySet:
    qs = queryset if queryset is not None else Team.objects.all()
    return qs.select_related("clan", "owner", "league").prefetch_related(roster_prefetch())


def unchosen_advancement_rolls(team_ids) -> dict[int, list[AdvancementRoll]]:
    """Each team's advancement rolls still to choose (or, when players roll at the table, still to
    roll), of its active models, in one query: a team cannot kick off with one (issue 13)."""
    rolls: dict[int, list[AdvancementRoll]] = {}
    for roll in (
        AdvancementRoll.objects.filter(
            status=AdvancementRoll.Status.PENDING, ninja__team_id__in=list(team_ids), ninja__status=ACTIVE
        )
        .select_related("ninja")
        .order_by("ninja__team_id", "id")
    ):
        rolls.setdefault(roll.ninja.team_id, []).append(roll)
    return rolls


# --- strength ratings (computed by stats.ratings, read here by the scroll, table and pre-match sheet) ---


def strength_prefetch(to_attr: str = "strength") -> Prefetch:
    """The team's Glicko-2 strength rating, as a list of at most one row, in one query."""
    return Prefetch(
        "strength_ratings",
        queryset=StrengthRating.objects.filter(system=StrengthRating.System.GLICKO2),
        to_attr=to_attr,
    )


def strength_of(team: Team) -> StrengthRating | None:
    """The Glicko-2 rating prefetched by :func:`strength_prefetch` (None: not rated yet)."""
    rows = getattr(team, "strength", None)
    return rows[0] if rows else None


def strength_ratings(team_ids) -> dict[int, dict[str, StrengthRating]]:
    """{team id: {system: rating}} in one query."""
    out: dict[int, dict[str, StrengthRating]] = {}
    for row in StrengthRating.objects.filter(team_id__in=list(team_ids)):
        out.setdefault(row.team_id, {})[row.system] = row
    return out


def predicted_chances(team_ids) -> tuple[float, ...]:
    """Each side's predicted chance from the stored strength ratings (one query): of winning, by
    Glicko-2 for two teams; of finishing first, by Plackett-Luce for three or four. A team not
    rated yet counts at the models' defaults (docs/ratings.md)."""
    from ratings import glicko2, multiplayer

    team_ids = list(team_ids)
    stored = strength_ratings(team_ids)
    if len(team_ids) == 2:
        system = StrengthRating.System.GLICKO2
        sides = [
            glicko2.Rating(s.rating, s.deviation, s.volatility)
            if (s := stored.get(t, {}).get(system))
            else glicko2.Rating()
            for t in team_ids
        ]
        return glicko2.win_probabilities(*sides)
    system = StrengthRating.System.PLACKETT_LUCE
    return multiplayer.table_win_probabilities(
        [
            multiplayer.TableRating(s.rating, s.deviation)
            if (s := stored.get(t, {}).get(system))
            else multiplayer.TableRating()
            for t in team_ids
        ]
    )
