"""Simulated matches: the rules engine's match simulator, run on a fixture's kick-off rosters, and
its record put through the same post-game sequence as a result a player enters.

* :func:`simulate_match` simulates one fixture (idempotent: a match no longer scheduled is left
  alone). Everything it writes is one transaction, with a number of queries that does not grow
  with the rosters (the post-game sequence writes in bulk; so do the policy's advancements).
* Simulating a round or the rest of a season (the master's :class:`SimulationJob`) is the league
  app's: ``league.services.simulations`` calls :func:`simulate_match` for each fixture.

Post-game choices, by a stated policy (docs/simulation.md, "Simulated seasons"):

* **Ronin upkeep** (always, because a simulated result runs the whole sequence at once): pay each
  ronin, in roster order, while the treasury after this game's revenue covers its fee; release the
  others. The sequence itself forces a release when the treasury cannot pay.
* **Advancements** (policy ``auto``; ``pending`` leaves every roll to the players): see
  :func:`choose_advancement`.

Determinism: the match's stored seed drives everything. The simulator plays with
``random.Random(f"{seed}:simulation")``; downtime and advancement dice come from the same seed as
for any match (matches.services). A job derives each match's seed from its own seed and the match
id, and each generated round's schedule seed from its seed and the round.
"""

from __future__ import annotations

import random
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Prefetch, prefetch_related_objects

from common import invalidation
from matches import services
from matches.models import Match, MatchTeam, SimulationJob, SimulationRun
from matches.snapshots import RosterRow
from rules.catalog import catalog_data
from rules.engine import league as rules_league
from rules.engine import postgame
from rules.engine import simulator as engine
from rules.engine.dice import ELEMENTS, Element
from rules.engine.house_rules import HouseRules
from rules.engine.records import MatchRecord, SideSnapshot
from rules.models import Challenge, Keyword
from teams.models import Advancement, AdvancementRoll, Ninja

if TYPE_CHECKING:
    from django.contrib.auth.models import User

Progress = Callable[[int, int], None]

AUTO = SimulationJob.Policy.AUTO
PENDING = SimulationJob.Policy.PENDING
POLICIES = (AUTO, PENDING)

#: Doubles results, best first (the rulebook allows one of them per doubles roll).
ATTRIBUTE_PREFERENCE = ("attack", "defense", "movement")

#: Keywords the policy takes, best first (only those the roll offers; the model's element
#: Masteries come right after Close Combat Master). Ranged models put Ranged Master and Accurate
#: first. Unique keywords (Resilient, Hero, Ronin) can never be gained.
KEYWORD_PREFERENCE = (
    "Close Combat Master",
    "<Mastery>",
    "Dauntless",
    "Guard",
    "Combined Attack",
    "Tora's Claws",
    "Backstab",
    "Emptiness",
    "Tough",
    "Focus",
    "Dirty Fighter",
    "Sensei",
    "Precision Strike",
    "Gale of Blows",
    "Sprint",
    "Nimble",
    "Kitsune's Bite",
    "Engulf",
    "Blood Lust",
    "Fortune",
    "Regeneration",
    "Ika's Tentacles",
    "Tidal Wave",
    "Vigilance",
    "Sneaky",
)
RANGED_PREFERENCE = ("Ranged Master", "Accurate")


# --- converting at the edge ----------------------------------------------------------------------


@lru_cache(maxsize=1)
def _catalog_profiles() -> dict[str, Mapping[str, Any]]:
    """Catalog entries by slug (profiles and ronin), for what the kick-off snapshot does not hold
    (the ranged profile). In memory: no query."""
    data = catalog_data()
    entries = {p["slug"]: p for clan in data["clans"] for p in clan["profiles"]}
    entries.update({r["slug"]: r for r in data["ronin"]})
    return entries


def sim_ninja(row: RosterRow) -> engine.SimNinja:
    """One kick-off roster snapshot row as the simulator's model (current attributes, gained
    keywords and affinities, chosen abilities, availability)."""
    entry = _catalog_profiles().get(row.get("profile_slug", ""), {})
    return engine.SimNinja(
        ninja_id=row["id"],
        name=row["name"],
        kind=row["kind"],
        movement=row["movement"],
        attack=row["attack"],
        defense=row["defense"],
        affinities=tuple(row["affinities"]),
        keywords=frozenset(row["keywords"]),
        abilities=frozenset(row["abilities"]),
        ranged=entry.get("ranged"),
        ranged_attack_bonus=entry.get("ranged_attack_bonus") or 0,
        ranged_text=entry.get("ranged_text") or "",
        available=row["available"],
        starts_in_healing_house=row["starts_in_healing_house"],
    )


def sim_teams(sides: Sequence[MatchTeam]) -> list[engine.SimTeam]:
    return [
        engine.SimTeam(side.team_id, tuple(sim_ninja(row) for row in side.roster_snapshot or []), name=side.team.name)
        for side in sides
    ]


def sim_challenge(challenge: Challenge) -> engine.SimChallenge:
    known = engine.CHALLENGES.get(challenge.slug)
    if known is not None:
        return known
    return engine.SimChallenge.from_catalog(
        {
            "slug": challenge.slug,
            "name": challenge.name,
            "ninjas_allowed": challenge.ninjas_allowed,
            "rounds": challenge.rounds,
            "xp_awards": [{"key": a.key} for a in challenge.xp_awards.all()],
        }
    )


def underdog_for(sides: Sequence[MatchTeam]) -> list[rules_league.UnderdogBonus]:
    """The bonuses recorded at kick-off, one per side in slot order."""
    return services.kicked_off_bonuses(sides)


def derived_seed(seed: int, what: str) -> int:
    """A seed for one part of a job (a match, a round's schedule) from the job's seed."""
    return random.Random(f"{seed}:{what}").getrandbits(62)


# --- the post-game policy ------------------------------------------------------------------------


def upkeep_policy(*, sides: Sequence[MatchTeam], record: MatchRecord, rules: HouseRules) -> dict[int, str]:
    """Pay each ronin (roster order) while the treasury after this game's revenue covers its fee;
    release the rest. Returns {ninja id: "pay" | "release"}. The revenue is the post-game
    sequence's own (rules.engine.postgame.side_revenue)."""
    revenue_rules = rules.postgame()
    decisions: dict[int, str] = {}
    for side in sides:
        roster = tuple(services.roster_entry(row) for row in side.roster_snapshot or [])
        ronin = [entry for entry in roster if entry.is_ronin]
        if not ronin:
            continue
        snapshot = SideSnapshot(team_id=side.team_id, name="", roster=roster, bonus_koban=side.bonus_koban)
        outcome = record.outcome_for(side.team_id)
        earned = postgame.side_revenue(snapshot, record.team(side.team_id), outcome, rules=revenue_rules)
        balance = side.team.treasury + earned.total
        for entry in ronin:
            if balance >= entry.upkeep:
                decisions[entry.ninja_id] = "pay"
                balance -= entry.upkeep
            else:
                decisions[entry.ninja_id] = "release"
    return decisions


def choose_advancement(
    options: Sequence[rules_league.AdvancementOption],
    *,
    affinities: Iterable[str],
    ranged: bool = False,
) -> rules_league.AdvancementOption:
    """The policy's pick among an advancement roll's options:

    1. a doubles attribute: +1 Attack, else +1 Defense, else +1 Movement;
    2. an additional affinity (Earth doubles): the first missing element in die order
       (Spirit, Void, Earth, Air, Water, Fire);
    3. a keyword, by :data:`KEYWORD_PREFERENCE` (ranged models: Ranged Master and Accurate first;
       ``<Mastery>`` stands for the Mastery of each of the model's affinities, in order);
    4. otherwise the first option offered.
    """
    if not options:
        raise ValueError("an advancement roll always offers something")
    attributes = {o.attribute: o for o in options if o.kind == "attribute"}
    for attribute in ATTRIBUTE_PREFERENCE:
        if attribute in attributes:
            return attributes[attribute]
    new_affinities = {o.affinity: o for o in options if o.kind == "affinity"}
    for element in ELEMENTS:
        if element in new_affinities:
            return new_affinities[element]
    keywords = {o.keyword: o for o in options if o.kind == "keyword"}
    preference: list[str] = list(RANGED_PREFERENCE) if ranged else []
    for name in KEYWORD_PREFERENCE:
        if name == "<Mastery>":
            preference.extend(f"{Element(a).value} Mastery" for a in affinities)
        else:
            preference.append(name)
    for name in preference:
        if name in keywords:
            return keywords[name]
    return options[0]


def _auto_advance(match: Match, known: Mapping[int, Ninja] | None = None) -> list[dict[str, Any]]:
    """Take the pending advancement rolls (dice rolled) this simulated match earned by the policy,
    in bulk: a fixed number of queries however many rolls there are. Returns what was chosen.

    Only this match's rolls: a roll earned in a match the players played, or left to them by a
    "pending" simulation, stays theirs to choose (issue 13).

    ``known``: the models as kick-off loaded them in this transaction (profile, its keywords and
    the advancements taken, prefetched: :func:`teams.selectors.roster_prefetch`); the post-game
    sequence changes none of those, so they are not read again."""
    rolls = [
        r
        for r in AdvancementRoll.objects.filter(
            match=match,
            status=AdvancementRoll.Status.PENDING,
            ninja__status=Ninja.Status.ACTIVE,
        ).order_by("ninja_id", "id")
        if r.faces
    ]
    if not rolls:
        return []
    wanted = {r.ninja_id for r in rolls}
    if known is not None and wanted <= known.keys():
        ninjas = {pk: known[pk] for pk in wanted}
    else:
        ninjas = (
            Ninja.objects.filter(pk__in=wanted)
            .select_related("profile")
            .prefetch_related(
                "profile__keywords", Prefetch("advancements", queryset=Advancement.objects.select_related("keyword"))
            )
            .in_bulk()
        )
    keyword_rows = {k.name: k for k in Keyword.objects.only("id", "name", "category")}
    categories = {name: k.category for name, k in keyword_rows.items()}
    state: dict[int, tuple[list[str], set[str]]] = {}
    for nid, ninja in ninjas.items():
        advs = list(ninja.advancements.all())
        affinities = list(ninja.profile.affinities) + [a.affinity for a in advs if a.kind == Advancement.Kind.AFFINITY]
        keywords = {k.name for k in ninja.profile.keywords.all()} | {
            a.keyword.name for a in advs if a.kind == Advancement.Kind.KEYWORD and a.keyword_id
        }
        state[nid] = (affinities, keywords)
    made: list[Advancement] = []
    chosen: list[dict[str, Any]] = []
    for roll in rolls:
        affinities, keywords = state[roll.ninja_id]
        options = rules_league.advancement_options(
            roll.faces,
            affinities=affinities,
            current_keywords=keywords,
            keyword_categories=categories,
        )
        ranged = bool(_catalog_profiles().get(ninjas[roll.ninja_id].profile.slug, {}).get("ranged"))
        option = choose_advancement(options, affinities=affinities, ranged=ranged)
        if option.kind == "keyword":
            made.append(
                Advancement(
                    ninja_id=roll.ninja_id,
                    kind=Advancement.Kind.KEYWORD,
                    keyword=keyword_rows[option.keyword],
                    roll=roll,
                )
            )
            keywords.add(option.keyword)
        elif option.kind == "attribute":
            made.append(Advancement(ninja_id=roll.ninja_id, kind=option.attribute, roll=roll))
        else:
            made.append(
                Advancement(
                    ninja_id=roll.ninja_id, kind=Advancement.Kind.AFFINITY, affinity=option.affinity.value, roll=roll
                )
            )
            affinities.append(option.affinity.value)
        roll.status = AdvancementRoll.Status.CHOSEN
        chosen.append(
            {"ninja": roll.ninja_id, "roll": roll.pk, "faces": roll.faces, "choice": services.option_key(option)}
        )
    Advancement.objects.bulk_create(made)
    # One value for every roll: a plain UPDATE, not bulk_update's CASE over the rows.
    AdvancementRoll.objects.filter(pk__in=[r.pk for r in rolls]).update(status=AdvancementRoll.Status.CHOSEN)
    return chosen


# --- one match -----------------------------------------------------------------------------------


def _dice_summary(dice: Sequence[engine.DiceRecord]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for d in dice:
        entry = summary.setdefault(d.kind, {"rolls": 0, "dice": 0, "faces": Counter()})
        entry["rolls"] += 1
        entry["dice"] += len(d.faces)
        entry["faces"].update(d.faces)
    for entry in summary.values():
        entry["faces"] = dict(entry["faces"])
    return summary


def _pick_challenge(match: Match) -> Challenge:
    """A fixture whose challenge is still to be chosen: the chooser's pick is made at random
    (from the match's seed) among the eight challenges."""
    challenges = list(Challenge.objects.order_by("order", "id"))
    return random.Random(f"{match.seed}:challenge").choice(challenges)


def simulate_match(
    *,
    match: Match,
    seed: int | None = None,
    actor: User | None = None,
    policy: str = AUTO,
    job: SimulationJob | None = None,
    loaded: services.KickOffRosters | None = None,
    count: bool = True,
) -> SimulationRun | None:
    """Simulate a scheduled fixture and apply its post-game sequence; None when there is nothing
    to do (the match is already played, submitted or voided: simulating twice is a no-op).

    ``seed`` (optional) becomes the match's seed; without it the stored seed (or a new one) is
    used. ``policy``: "auto" takes the advancement rolls this match earned by
    :func:`choose_advancement` (never a roll left to the players from another match); "pending"
    leaves them to the players. A team with an unchosen roll cannot kick off
    (:class:`matches.services.KickOffBlocked`). Who may ask is checked by
    the caller (views: the league's master). ``loaded``: the kick-off rosters of this match and
    others, read at once under their locks, inside the caller's transaction, in which the match
    takes no savepoint of its own (:func:`simulate_batch`, which has checked that it can kick off).
    ``count=False``: the job's progress is counted by the caller.
    """
    if policy not in POLICIES:
        raise ValidationError(f"Unknown simulation policy {policy!r}.")
    started = time.perf_counter()
    with transaction.atomic(savepoint=loaded is None):
        preloaded = loaded is not None and match.pk in loaded.matches
        if preloaded:
            locked = loaded.matches[match.pk]  # locked, with its challenge's XP awards
        else:
            locked = (
                Match.objects.select_for_update(of=("self",))
                .select_related("league", "season", "challenge")
                .get(pk=match.pk)
            )
        if locked.status != Match.Status.SCHEDULED:
            return None
        if locked.challenge_id is not None and not preloaded:
            # read by the record's check and the sequence
            prefetch_related_objects([locked], "challenge__xp_awards")
        fields = []
        if seed is not None and locked.seed != seed:
            locked.seed = seed
            fields.append("seed")
        elif locked.seed is None:
            locked.seed = secrets.randbits(62)
            fields.append("seed")
        if locked.challenge_id is None:
            locked.challenge = _pick_challenge(locked)
            fields.append("challenge")
        # The match is locked here: kick-off and the result go on under this lock, with the sides
        # kick-off loaded (services.kick_off_locked, services.submit_locked), not read again.
        if locked.kicked_off_at is None:
            sides = services.kick_off_locked(locked, save=False, loaded=loaded)
            fields += services.KICK_OFF_MATCH_FIELDS
        else:
            sides = list(locked.sides.select_related("team").order_by("slot"))
        result = engine.simulate_match(
            sim_teams(sides),
            sim_challenge(locked.challenge),
            rng=random.Random(f"{locked.seed}:simulation"),
            underdog=underdog_for(sides),
        )
        record = result.record
        upkeep = upkeep_policy(sides=sides, record=record, rules=services.house_rules_for(locked))
        # The match's changes above are saved with the result, in one update.
        services.submit_locked(
            locked, record, actor=actor, upkeep=upkeep, simulated=True, sides=sides, also_save=fields
        )
        advancements: list[dict[str, Any]] = []
        if policy == AUTO:
            # The rosters kick-off loaded (none when the players kicked the match off earlier).
            known = {n.pk: n for side in sides for n in getattr(side.team, "roster", ())}
            advancements = _auto_advance(locked, known)
        run = SimulationRun.objects.create(
            match=locked,
            job=job,
            seed=locked.seed,
            policy=policy,
            rounds_played=result.rounds_played,
            ended_early=result.ended_early,
            log=list(result.log),
            dice=[[d.round, d.kind, d.model, list(d.faces)] for d in result.dice],
            dice_summary=_dice_summary(result.dice),
            decisions={"upkeep": {str(k): v for k, v in upkeep.items()}, "advancements": advancements},
            elapsed_ms=int((time.perf_counter() - started) * 1000),
            created_by=actor if getattr(actor, "pk", None) else None,
        )
        if job is not None and count:  # the job's progress moves with the match, in the same transaction
            with invalidation.changing():  # a job's progress: shown on no cached page
                SimulationJob.objects.filter(pk=job.pk).update(done=F("done") + 1)
    services.copy_columns(locked, match)
    return run


#: At most this many matches in one transaction (:func:`simulate_batch`; a round of 16 teams is 8).
BATCH_SIZE = 16


def independent_batches(matches: Sequence[Match]) -> list[list[Match]]:
    """The matches in their order, cut into runs in which no team plays twice (a round's fixtures),
    of at most :data:`BATCH_SIZE`: each run can be simulated in one transaction, every match seeing
    what it would have seen played one after the other. One query."""
    teams: dict[int, set[int]] = {m.pk: set() for m in matches}
    for match_id, team_id in MatchTeam.objects.filter(match_id__in=list(teams)).values_list("match_id", "team_id"):
        teams[match_id].add(team_id)
    batches: list[list[Match]] = []
    current: list[Match] = []
    busy: set[int] = set()
    for match in matches:
        if current and (busy & teams[match.pk] or len(current) >= BATCH_SIZE):
            batches.append(current)
            current, busy = [], set()
        current.append(match)
        busy |= teams[match.pk]
    if current:
        batches.append(current)
    return batches


def simulate_batch(
    matches: Sequence[Match],
    *,
    seeds: Mapping[int, int],
    actor: User | None = None,
    policy: str = AUTO,
    job: SimulationJob | None = None,
) -> tuple[list[SimulationRun], services.KickOffBlocked | None]:
    """Simulate matches in which no team plays twice (:func:`independent_batches`) in one
    transaction, each as :func:`simulate_match` would (``seeds``: by match id): the kick-off
    rosters are read once for all of them under their locks, the league table's rows and the
    teams' ratings are refreshed once before the commit (:func:`services.results_written_once`),
    and the job's progress moves once. No team plays twice, so what stops a match kicking off (an
    illegal roster, a roll left to its player) is known from the rosters read: the batch plays the
    matches before the first such one and returns the runs played and that refusal (None when
    there was none), for the caller to raise once it has counted the runs."""
    runs: list[SimulationRun] = []
    blocked: services.KickOffBlocked | None = None
    with transaction.atomic(), services.results_written_once():
        loaded = services.kick_off_rosters_locked(matches)
        for match in matches:
            locked = loaded.matches[match.pk]
            if locked.status == Match.Status.SCHEDULED and locked.kicked_off_at is None:
                problems = services.kick_off_problems(loaded.sides[match.pk], loaded.problems)
                if problems:
                    blocked = services.KickOffBlocked(problems)
                    break
            run = simulate_match(
                match=match, seed=seeds[match.pk], actor=actor, policy=policy, job=job, loaded=loaded, count=False
            )
            if run is not None:
                runs.append(run)
        if job is not None and runs:
            with invalidation.changing():  # a job's progress: shown on no cached page
                SimulationJob.objects.filter(pk=job.pk).update(done=F("done") + len(runs))
    return runs, blocked
