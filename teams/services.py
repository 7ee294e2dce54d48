"""Writes for teams: creation, recruitment, release, readiness, and the treasury ledger.

Check, then do: every service validates first and writes inside one transaction, locking the
team row before it spends koban so two concurrent spends cannot overdraw.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from rules.models import Profile, SpecialAbility
from teams.models import Ninja, Team, TreasuryEntry

DEFAULT_STARTING_KOBAN = 100


# --- the ledger ----------------------------------------------------------------------------------


def treasury_post(*, team: Team, amount: int, reason: str, match=None, note: str = "", actor=None) -> TreasuryEntry:
    """Post one ledger row. Locks the team row; refuses to take the balance below zero.

    Must be called inside a transaction (it opens one if needed).
    """
    with transaction.atomic():
        locked = Team.objects.select_for_update().only("id", "treasury").get(pk=team.pk)
        balance = locked.treasury + amount
        if balance < 0:
            raise ValidationError(
                f"Not enough koban: the treasury holds {locked.treasury} and this needs {-amount}.",
                code="insufficient_koban",
            )
        entry = TreasuryEntry.objects.create(
            team_id=team.pk,
            amount=amount,
            reason=reason,
            match=match,
            note=note[:200],
            balance_after=balance,
            created_by=actor if getattr(actor, "pk", None) else None,
        )
        Team.objects.filter(pk=team.pk).update(treasury=balance)
        team.treasury = balance
        return entry


def treasury_correct(*, team: Team, amount: int, note: str, actor) -> TreasuryEntry:
    """A master's correction: a new ledger row, never an edit of history."""
    if amount == 0:
        raise ValidationError("A correction must change the balance.")
    if not note.strip():
        raise ValidationError("Say why the treasury is corrected.")
    return treasury_post(team=team, amount=amount, reason=TreasuryEntry.Reason.CORRECTION, note=note, actor=actor)


# --- teams ---------------------------------------------------------------------------------------


def team_create(*, owner, name: str, clan, league=None) -> Team:
    name = name.strip()
    if not name:
        raise ValidationError({"name": "Give your team a name."})
    if league is not None and Team.objects.filter(league=league, name__iexact=name).exists():
        raise ValidationError({"name": "A team with this name is already in this league."})
    starting = league.starting_koban if league is not None else DEFAULT_STARTING_KOBAN
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
    return team


def recruit_errors(*, team: Team, profile: Profile, chosen_abilities: Iterable[SpecialAbility]) -> list[str]:
    """Every reason this recruitment is not allowed (empty when it is)."""
    errors: list[str] = []
    chosen = list(chosen_abilities)
    if profile.kind != Profile.Kind.RONIN and profile.clan_id != team.clan_id:
        errors.append(f"{profile} is not of clan {team.clan}; a team recruits only its own clan's ninja, plus ronin.")
    active = team.ninjas.filter(status=Ninja.Status.ACTIVE)
    if profile.is_hero:
        if active.filter(profile=profile).exists():
            errors.append(f"{profile.name} is already on the team; a hero or ronin can be recruited only once.")
    elif profile.allowance_max is not None:
        have = active.filter(profile=profile).count()
        if have >= profile.allowance_max:
            errors.append(
                f"The allowance for {profile.name} is {profile.allowance_display}: the team already has {have}."
            )
    if profile.choose_abilities:
        valid = [a for a in chosen if a.profile_id == profile.pk]
        if len(valid) != len(chosen) or len(chosen) != profile.choose_abilities:
            errors.append(
                f"Choose {profile.choose_abilities} special abilit{'y' if profile.choose_abilities == 1 else 'ies'} "
                f"for the {profile.name}."
            )
    elif chosen:
        errors.append(f"The {profile.name} has all its abilities; nothing to choose.")
    if profile.koban > team.treasury:
        errors.append(
            f"Not enough koban: the {profile.name} costs {profile.koban} and the treasury holds {team.treasury}."
        )
    return errors


def default_ninja_name(*, team: Team, profile: Profile) -> str:
    if profile.is_hero:
        base = profile.name
        if not team.ninjas.filter(status=Ninja.Status.ACTIVE, name=base).exists():
            return base
    base = profile.name
    taken = set(team.ninjas.filter(status=Ninja.Status.ACTIVE).values_list("name", flat=True))
    n = team.ninjas.filter(profile=profile).count() + 1
    while f"{base} {n}" in taken:
        n += 1
    return f"{base} {n}"


def team_recruit(
    *, team: Team, profile: Profile, name: str = "", chosen_abilities: Iterable[SpecialAbility] = (), actor=None
) -> Ninja:
    """Recruit one model, paying its koban from the treasury. All or nothing."""
    chosen = list(chosen_abilities)
    with transaction.atomic():
        locked = Team.objects.select_for_update().get(pk=team.pk)
        errors = recruit_errors(team=locked, profile=profile, chosen_abilities=chosen)
        if errors:
            raise ValidationError(errors)
        name = (name or "").strip() or default_ninja_name(team=locked, profile=profile)
        if locked.ninjas.filter(status=Ninja.Status.ACTIVE, name=name).exists():
            raise ValidationError({"name": f"A ninja called {name!r} is already on the team."})
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
    team.treasury = locked.treasury
    return ninja


def ninja_rename(*, ninja: Ninja, name: str) -> Ninja:
    name = name.strip()
    if not name:
        raise ValidationError({"name": "A ninja needs a name."})
    if ninja.team.ninjas.filter(status=Ninja.Status.ACTIVE, name=name).exclude(pk=ninja.pk).exists():
        raise ValidationError({"name": f"A ninja called {name!r} is already on the team."})
    ninja.name = name
    ninja.save(update_fields=["name"])
    return ninja


def ninja_release(*, ninja: Ninja, reason: str = "Released by the player") -> Ninja:
    """Release (fire) a model. Nothing is refunded; its history stays."""
    with transaction.atomic():
        locked = Ninja.objects.select_for_update().get(pk=ninja.pk)
        if locked.status != Ninja.Status.ACTIVE:
            raise ValidationError(f"{locked.name} has already left the team.")
        locked.status = Ninja.Status.RELEASED
        locked.released_at = timezone.now()
        locked.release_reason = reason[:200]
        locked.save(update_fields=["status", "released_at", "release_reason"])
    return locked


def roster_problems(*, team: Team) -> list[str]:
    """Allowance minimums (and maximums) the roster does not meet; empty when legal."""
    counts = Counter(team.ninjas.filter(status=Ninja.Status.ACTIVE).values_list("profile_id", flat=True))
    problems = []
    for profile in Profile.objects.filter(clan=team.clan).exclude(kind=Profile.Kind.HERO).order_by("order"):
        have = counts.get(profile.pk, 0)
        lo, hi = profile.allowance_min or 0, profile.allowance_max
        if have < lo:
            need = "exactly" if lo == hi else "at least"
            problems.append(f"{profile.name}: the team needs {need} {lo} and has {have}.")
        elif hi is not None and have > hi:
            problems.append(f"{profile.name}: the team may have at most {hi} and has {have}.")
    return problems


def team_mark_ready(*, team: Team) -> Team:
    problems = roster_problems(team=team)
    if problems:
        raise ValidationError(problems)
    team.status = Team.Status.READY
    team.save(update_fields=["status"])
    return team
