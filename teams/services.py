"""Writes for teams: creation, recruitment, release, readiness, and the treasury ledger.

Check, then do: every service validates first and writes inside one transaction, locking the
team row before it spends koban so two concurrent spends cannot overdraw.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from common import text
from common.bulk import update_rows
from games import registry as games
from rules.engine import recruitment
from rules.engine.league import STARTING_KOBAN
from rules.engine.recruitment import ChosenAbility, RecruitCheck, RecruitTeam
from rules.models import Profile, SpecialAbility
from teams.models import Ninja, Team, TreasuryEntry

if TYPE_CHECKING:
    from django.contrib.auth.models import User


# --- the stored team rating ----------------------------------------------------------------------


def team_ratings_refresh(*, team_ids: Iterable[int], locked_ratings: Mapping[int, int] | None = None) -> dict[int, int]:
    """Store each team's rating as its roster gives it now (``Team.rating``, the read model).

    Every service that changes what the rating counts (recruitment, release, the post-game
    sequence, advancement rolls and choices, voiding) calls this inside its own transaction, after
    its writes. It locks the team rows (in id order) first, so two transactions refreshing the
    same team run one after the other and the second sees the first's roster. Two queries for any
    number of teams (the lock and the grouped roster read), plus one update when a rating changed.
    ``locked_ratings``: the stored ratings as the caller read them under its own lock of the rows in
    this transaction (the post-game sequence), so not locked again.
    """
    ids = sorted(set(team_ids))
    if not ids:
        return {}
    from teams.selectors import fresh_ratings

    # No savepoint of its own inside a caller's transaction (one query less each way): nothing here
    # raises but the database, and a database error aborts the caller's transaction anyway.
    with transaction.atomic(savepoint=False):
        if locked_ratings is not None:
            stored = {pk: locked_ratings[pk] for pk in ids}
        else:
            stored = dict(
                Team.objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk", "rating")
            )
        ratings = fresh_ratings(stored)
        update_rows(Team, [Team(pk=pk, rating=r) for pk, r in ratings.items() if stored[pk] != r], ["rating"])
    return ratings


# --- the ledger ----------------------------------------------------------------------------------


def treasury_post(
    *, team: Team, amount: int, reason: str, match=None, note: str = "", actor: User | None = None
) -> TreasuryEntry:
    """Post one ledger row. Locks the team row; refuses to take the balance below zero.

    Must be called inside a transaction (it opens one if needed).
    """
    return treasury_post_many(posts=[(team, amount, reason, note)], match=match, actor=actor)[0]


def treasury_post_many(
    *,
    posts: Sequence[tuple[Team, int, str, str]],
    match=None,
    actor: User | None = None,
    locked_balances: Mapping[int, int] | None = None,
) -> list[TreasuryEntry]:
    """Post ledger rows ``(team, amount, reason, note)`` in this order, in bulk: every team row is
    locked (in id order), each row's balance follows the one before it, and nothing is written if
    any balance would go below zero. Keeps ``Team.treasury`` (and ``team.treasury`` of the objects
    passed) in step. ``locked_balances``: the teams' treasuries as the caller read them under its
    own lock of their rows in this transaction (the post-game sequence), so not locked again."""
    if not posts:
        return []
    # A caller that holds the locks is in its own transaction and does not catch the refusal
    # below (raised before any write): no savepoint of its own then.
    with transaction.atomic(savepoint=locked_balances is None):
        team_ids = sorted({team.pk for team, *_ in posts})
        if locked_balances is not None:
            balances = {pk: locked_balances[pk] for pk in team_ids}
        else:
            balances = dict(
                Team.objects.select_for_update().filter(pk__in=team_ids).order_by("pk").values_list("pk", "treasury")
            )
        entries = []
        for team, amount, reason, note in posts:
            balance = balances[team.pk] + amount
            if balance < 0:
                raise ValidationError(
                    f"Not enough koban: the treasury holds {balances[team.pk]} and this needs {-amount}.",
                    code="insufficient_koban",
                )
            balances[team.pk] = balance
            entries.append(
                TreasuryEntry(
                    team_id=team.pk,
                    amount=amount,
                    reason=reason,
                    match=match,
                    note=note[:200],
                    balance_after=balance,
                    created_by=actor if getattr(actor, "pk", None) else None,
                )
            )
        TreasuryEntry.objects.bulk_create(entries)
        for team, *_ in posts:
            team.treasury = balances[team.pk]
        update_rows(Team, [Team(pk=pk, treasury=balances[pk]) for pk in team_ids], ["treasury"])
    return entries


def treasury_correct(*, team: Team, amount: int, note: str, actor: User | None) -> TreasuryEntry:
    """A master's correction: a new ledger row, never an edit of history."""
    if amount == 0:
        raise ValidationError("A correction must change the balance.")
    note = text.clean_single_line(note, field="note", max_length=200)
    if not note:
        raise ValidationError("Say why the treasury is corrected.")
    return treasury_post(team=team, amount=amount, reason=TreasuryEntry.Reason.CORRECTION, note=note, actor=actor)


# --- teams ---------------------------------------------------------------------------------------


def _team_name_taken(name: str, league, *, exclude: Team | None = None) -> None:
    """Refuse a name a team of ``league`` already has (retired teams free their names)."""
    if league is None:
        return
    same = Team.objects.filter(league=league, name_key=text.name_key(name)).exclude(status=Team.Status.RETIRED)
    if exclude is not None:
        same = same.exclude(pk=exclude.pk)
    existing = same.values_list("name", flat=True).first()
    if existing is not None:
        raise ValidationError({"name": text.same_name_message(name, existing, thing="team", where=f" in {league}")})


def team_create(*, owner, name: str, clan, league=None) -> Team:
    """An All-Stars team of ``clan`` with its starting koban; founded in ``league``, it applies to it."""
    name = text.clean_name(name, max_length=Team._meta.get_field("name").max_length, what="your team a name")
    if league is not None and not games.game_of(league.game).team_scrolls:
        raise ValidationError(
            {"league": f"{league} plays {league.get_game_display()}: join it as a player, with no team to build."}
        )
    _team_name_taken(name, league)
    if league is not None and not league.several_teams_per_owner:
        # founding a team in a league is applying to it: not while another team of the player is
        # accepted there, unless the house rules allow several (as league.services.team_apply)
        other = (
            Team.objects.filter(
                league=league,
                owner_id=owner.pk,
                entry_status=Team.EntryStatus.ACCEPTED,
            )
            .exclude(status=Team.Status.RETIRED)
            .values_list("name", flat=True)
            .first()
        )
        if other is not None:
            raise ValidationError(
                {
                    "league": f"{other} already plays for you in {league}, and its house rules allow one team "
                    "per player in a season (the master may allow several)."
                }
            )
    starting = league.starting_koban if league is not None else STARTING_KOBAN
    try:
        with transaction.atomic():
            team = Team.objects.create(
                owner=owner,
                name=name,
                clan=clan,
                league=league,
                entry_status=Team.EntryStatus.PENDING if league is not None else Team.EntryStatus.NONE,
            )
            treasury_post(
                team=team, amount=starting, reason=TreasuryEntry.Reason.STARTING, note="Starting koban", actor=owner
            )
    except IntegrityError:
        _team_name_taken(name, league)  # the same name applied to the league at the same moment
        raise
    return team


def recruit_team(team: Team) -> RecruitTeam:
    """The team as the recruitment rules see it: clan, treasury, active models per profile."""
    counts = Counter(team.ninjas.filter(status=Ninja.Status.ACTIVE).values_list("profile_id", flat=True))
    return RecruitTeam(clan_key=team.clan_id, clan_name=team.clan.name, treasury=team.treasury, counts=counts)


def recruit_check(
    *, team: Team, profile: Profile, chosen_abilities: Iterable[SpecialAbility] | None = None
) -> RecruitCheck:
    """Whether ``team`` may recruit ``profile`` now (rules.engine.recruitment.recruit_check);
    ``chosen_abilities=None`` leaves the ability choice out."""
    chosen = None
    if chosen_abilities is not None:
        chosen = [ChosenAbility(name=a.name, profile_key=a.profile_id) for a in chosen_abilities]
    return recruitment.recruit_check(recruit_team(team), profile.recruit_profile(), chosen_abilities=chosen)


def default_ninja_name(*, team: Team, profile: Profile) -> str:
    taken = set(team.ninjas.filter(status=Ninja.Status.ACTIVE).values_list("name_key", flat=True))
    base = profile.name
    if profile.is_hero and text.name_key(base) not in taken:
        return base
    n = team.ninjas.filter(profile=profile).count() + 1
    while text.name_key(f"{base} {n}") in taken:
        n += 1
    return f"{base} {n}"


def _ninja_name_taken(team: Team, name: str, *, exclude=None) -> None:
    same = team.ninjas.filter(status=Ninja.Status.ACTIVE, name_key=text.name_key(name))
    if exclude is not None:
        same = same.exclude(pk=exclude.pk)
    existing = same.values_list("name", flat=True).first()
    if existing is not None:
        raise ValidationError({"name": text.same_name_message(name, existing, thing="ninja", where=" on the team")})


def team_recruit(
    *,
    team: Team,
    profile: Profile,
    name: str = "",
    chosen_abilities: Iterable[SpecialAbility] = (),
    actor: User | None = None,
) -> Ninja:
    """Recruit one model, paying its koban from the treasury. All or nothing."""
    chosen = list(chosen_abilities)
    with transaction.atomic():
        locked = Team.objects.select_for_update(of=("self",)).select_related("clan").get(pk=team.pk)
        if locked.status == Team.Status.RETIRED:
            raise ValidationError(f"{locked.name} is retired: it recruits no one.")
        check = recruit_check(team=locked, profile=profile, chosen_abilities=chosen)
        if check.problems:
            raise ValidationError(list(check.problems))
        if text.normalize_name(name):
            name = text.clean_name(name, max_length=Ninja._meta.get_field("name").max_length)
        else:
            name = default_ninja_name(team=locked, profile=profile)
        _ninja_name_taken(locked, name)
        ninja = Ninja.objects.create(team=locked, profile=profile, name=name)
        if chosen:
            ninja.chosen_abilities.set(chosen)
        treasury_post(
            team=locked,
            amount=-profile.koban,
            reason=TreasuryEntry.Reason.RECRUIT,
            note=f"Recruited {name}",
            actor=actor,
        )
        rating = team_ratings_refresh(team_ids=[locked.pk])[locked.pk]
    team.treasury, team.rating = locked.treasury, rating
    return ninja


def ninja_rename(*, ninja: Ninja, name: str) -> Ninja:
    name = text.clean_name(name, max_length=Ninja._meta.get_field("name").max_length, what="the ninja a name")
    with transaction.atomic():
        team = Team.objects.select_for_update().get(pk=ninja.team_id)  # one rename of the roster at a time
        _ninja_name_taken(team, name, exclude=ninja)
        ninja.name = name
        ninja.save(update_fields=["name"])
    return ninja


def ninja_release(*, ninja: Ninja, reason: str = "Released by the player") -> Ninja:
    """Release (fire) a model. Nothing is refunded; its history stays."""
    with transaction.atomic():
        # The team first, then the model: the order the post-game sequence locks them in.
        list(Team.objects.select_for_update().filter(pk=ninja.team_id).values_list("pk", flat=True))
        locked = Ninja.objects.select_for_update().get(pk=ninja.pk)
        if locked.status != Ninja.Status.ACTIVE:
            raise ValidationError(f"{locked.name} has already left the team.")
        locked.status = Ninja.Status.RELEASED
        locked.released_at = timezone.now()
        locked.release_reason = reason[:200]
        locked.save(update_fields=["status", "released_at", "release_reason"])
        team_ratings_refresh(team_ids=[locked.team_id])
        # A ready team whose roster this release makes illegal is building again (issue 14).
        team = Team.objects.select_related("clan").get(pk=locked.team_id)
        if team.status == Team.Status.READY and roster_problems(team=team):
            team.status = Team.Status.BUILDING
            team.save(update_fields=["status"])
    return locked


def roster_problems(*, team: Team) -> list[str]:
    """Allowance minimums (and maximums) the roster does not meet; empty when legal."""
    profiles = Profile.objects.filter(clan=team.clan).select_related("clan").order_by("order")
    return recruitment.roster_problems(recruit_team(team), [p.recruit_profile() for p in profiles])


def loaded_roster_problems(teams: Sequence[Team]) -> dict[int, list[str]]:
    """:func:`roster_problems` of teams whose active models are prefetched as ``team.roster``
    (``teams.selectors.roster_prefetch``): one query for their clans' profiles, whatever the count."""
    by_clan: dict[int, list] = {}
    for profile in (
        Profile.objects.filter(clan_id__in={t.clan_id for t in teams}).select_related("clan").order_by("order")
    ):
        by_clan.setdefault(profile.clan_id, []).append(profile.recruit_profile())
    problems = {}
    for team in teams:
        counts = Counter(n.profile_id for n in team.roster)
        recruiting = RecruitTeam(clan_key=team.clan_id, clan_name=team.clan.name, treasury=team.treasury, counts=counts)
        problems[team.pk] = recruitment.roster_problems(recruiting, by_clan.get(team.clan_id, []))
    return problems


def team_mark_ready(*, team: Team) -> Team:
    if team.status == Team.Status.RETIRED:
        raise ValidationError("A retired team does not play any more.")
    problems = roster_problems(team=team)
    if problems:
        raise ValidationError(problems)
    team.status = Team.Status.READY
    team.save(update_fields=["status"])
    return team


def _refuse_if_retired(team: Team) -> None:
    if team.status == Team.Status.RETIRED:
        raise ValidationError(f"{team.name} is retired: its scroll is history now.")


# --- a team over its life (issue 14, part 4; docs/leagues.md, "A team's life") -------------------


def team_rename(*, team: Team, name: str) -> Team:
    """Rename a team, with the rules of creation (normalised, unique by key in its league). Matches
    already played keep the name they saw (their stored tables and newsletters)."""
    name = text.clean_name(name, max_length=Team._meta.get_field("name").max_length, what="your team a name")
    try:
        with transaction.atomic():
            locked = Team.objects.select_for_update(of=("self",)).select_related("league").get(pk=team.pk)
            _refuse_if_retired(locked)
            if name == locked.name:  # the same name again: nothing to write (nor to invalidate)
                return team
            _team_name_taken(name, locked.league, exclude=locked)
            locked.name = name
            locked.save(update_fields=["name"])
    except IntegrityError:
        _team_name_taken(name, team.league, exclude=team)  # the same name taken at the same moment
        raise
    team.name, team.name_key = locked.name, locked.name_key
    return team


def team_dress(*, team: Team, colour_primary: str, colour_secondary: str, motto: str) -> Team:
    """Set a team's two colours (``#rrggbb``, or blank) and its motto (one line of plain text)."""
    from teams.models import HEX_COLOUR, MOTTO_MAX_LENGTH

    errors: dict[str, list[str]] = {}
    colours = {}
    for field, value in (("colour_primary", colour_primary), ("colour_secondary", colour_secondary)):
        value = (value or "").strip().lower()
        if value:
            try:
                HEX_COLOUR(value)
            except ValidationError as exc:
                errors[field] = exc.messages
        colours[field] = value
    try:
        motto = text.clean_single_line(motto or "", field="motto")
    except ValidationError as exc:
        errors.update(exc.message_dict)
    else:
        if len(motto) > MOTTO_MAX_LENGTH:
            errors["motto"] = [f"Keep the motto to {MOTTO_MAX_LENGTH} characters (it has {len(motto)})."]
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        locked = Team.objects.select_for_update().get(pk=team.pk)
        _refuse_if_retired(locked)
        wanted = {**colours, "motto": motto}
        changed = [field for field, value in wanted.items() if getattr(locked, field) != value]
        for field in changed:
            setattr(locked, field, wanted[field])
        if changed:  # an edit that changes nothing writes nothing (and makes no cached page stale)
            locked.save(update_fields=changed)
    team.colour_primary, team.colour_secondary, team.motto = locked.colour_primary, locked.colour_secondary, motto
    return team


def team_update(*, team: Team, name: str, colour_primary: str, colour_secondary: str, motto: str) -> Team:
    """The owner's edit page: rename (when the name changed) and dress the team, all or nothing."""
    with transaction.atomic():
        if name != team.name:
            team_rename(team=team, name=name)
        team_dress(team=team, colour_primary=colour_primary, colour_secondary=colour_secondary, motto=motto)
    return team


def retire_blockers(*, team: Team) -> list[str]:
    """Why the team cannot retire now (empty when it can): it is entered in a season that has not
    finished and has a fixture (or a bye) in it. Two queries."""
    from teams.permissions import RUNNING_SEASON_STATUSES

    seasons = list(
        team.season_entries.filter(season__status__in=RUNNING_SEASON_STATUSES).values_list(
            "season_id", "season__name", "season__league__name"
        )
    )
    if not seasons:
        return []
    ids = [pk for pk, *_ in seasons]
    busy = set(
        team.match_sides.filter(match__season_id__in=ids)
        .exclude(match__status="voided")
        .values_list("match__season_id", flat=True)
    ) | set(team.byes.filter(season_id__in=ids).values_list("season_id", flat=True))
    return [
        f"{team.name} plays in {season} of {league}, which has not finished: it can retire once the season "
        "ends (or the master forfeits its fixtures and finishes the season)."
        for pk, season, league in seasons
        if pk in busy
    ]


def team_retire(*, team: Team) -> Team:
    """Retire a team: it is entered in no future season, applies nowhere, and its name is free in its
    league again; its scroll, matches and ledger stay as history.

    Refused while it has a fixture in a season that has not finished (``retire_blockers``); an entry
    in such a season without any fixture yet is removed, and a pending application is withdrawn.
    """
    from teams.permissions import RUNNING_SEASON_STATUSES

    with transaction.atomic():
        locked = Team.objects.select_for_update().get(pk=team.pk)
        _refuse_if_retired(locked)
        problems = retire_blockers(team=locked)
        if problems:
            raise ValidationError(problems)
        locked.season_entries.filter(season__status__in=RUNNING_SEASON_STATUSES).delete()
        fields = ["status", "retired_at"]
        if locked.entry_status == Team.EntryStatus.PENDING:
            locked.league, locked.entry_status = None, Team.EntryStatus.NONE
            fields += ["league", "entry_status"]
        locked.status = Team.Status.RETIRED
        locked.retired_at = timezone.now()
        locked.save(update_fields=fields)
    team.status, team.retired_at = locked.status, locked.retired_at
    team.league_id, team.entry_status = locked.league_id, locked.entry_status
    return team
