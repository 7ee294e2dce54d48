"""Reads for matches in a fixed number of queries."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet, prefetch_related_objects

from matches.models import DiceRoll, DowntimeResult, Match, MatchNinja, MatchTeam, UpkeepDecision
from teams.models import AdvancementRoll, Team, TreasuryEntry, XpEvent


def match_for_page(pk: int, *, ninjas: bool = True) -> Match:
    """The match with what its page shows: its sides (teams, owners, clans) and, unless
    ``ninjas=False``, each side's models' records (:func:`side_ninjas` loads them later)."""
    sides = MatchTeam.objects.select_related("team", "team__owner", "team__clan").order_by("slot")
    if ninjas:
        sides = sides.prefetch_related(side_ninjas_prefetch())
    return (
        Match.objects.select_related("league", "season", "challenge", "submitted_by", "counter_by", "confirmed_by")
        .prefetch_related(Prefetch("sides", queryset=sides), "challenge__xp_awards")
        .get(pk=pk)
    )


#: Columns of the match that its page reads only in some states: the records entered (shown while
#: a result waits or is disputed, and in a settled dispute's details) and the saved draft.
RECORD_FIELDS = ("result_draft", "submitted_record", "counter_record")
#: The people of the result, joined by :func:`match_page_people`.
PEOPLE = ("submitted_by", "counter_by", "confirmed_by")


def match_page_head(pk: int) -> Match:
    """The match as its page first needs it, for every state: the header (its league, season and
    challenge joined) and the reader's rights, without the record columns, the people of the
    result or the sides (:func:`match_page_sides`, :func:`match_page_people` add them where shown).
    A played match's page reads only this and its sides' lines: the played block is a fragment."""
    return Match.objects.select_related("league", "season", "challenge").defer(*RECORD_FIELDS).get(pk=pk)


def match_page_sides(match: Match, *, teams: bool) -> list[MatchTeam]:
    """The match's sides in slot order (one query): with their teams, owners and clans joined and
    their kick-off snapshots when ``teams`` (the rights to enter, confirm or counter a result and
    the record's layout read them), else only the sides' own lines (a played match's header)."""
    sides = MatchTeam.objects.order_by("slot")
    sides = sides.select_related("team", "team__owner", "team__clan") if teams else sides.defer("roster_snapshot")
    prefetch_related_objects([match], Prefetch("sides", queryset=sides))
    return list(match.sides.all())


def match_page_people(match: Match) -> None:
    """Add the record columns and the people of the result (submitter, counter-submitter,
    confirmer) to a :func:`match_page_head` match, in one query."""
    full = Match.objects.select_related(*PEOPLE).only("pk", *RECORD_FIELDS, *PEOPLE).get(pk=match.pk)
    for name in (*RECORD_FIELDS, *PEOPLE):
        setattr(match, name, getattr(full, name))


def match_played_block(match: Match) -> None:
    """Add what a played match's block shows to a page's match (read only when the block's
    fragment is built): the sides' teams, their models' records and the confirmer."""
    sides = list(match.sides.all())
    prefetch_related_objects(sides, "team")
    side_ninjas(match)
    if match.confirmed_by_id and "confirmed_by" not in match._state.fields_cache:
        match_page_people(match)


def side_ninjas_prefetch() -> Prefetch:
    return Prefetch("ninjas", queryset=MatchNinja.objects.order_by("id"))


def side_ninjas(match: Match) -> None:
    """Load the models' records of the sides :func:`match_for_page` loaded without them (one query)."""
    prefetch_related_objects(list(match.sides.all()), side_ninjas_prefetch())


def sequence_outcomes(match: Match) -> dict:
    """Everything the post-game sequence wrote for this match, grouped for the match page."""
    return {
        "treasury": list(TreasuryEntry.objects.filter(match=match).select_related("team").order_by("id")),
        "upkeep": list(UpkeepDecision.objects.filter(match=match).select_related("ninja", "ninja__team")),
        "downtime": list(
            DowntimeResult.objects.filter(match=match).select_related("ninja", "ninja__team", "spared_by")
        ),
        "xp": list(XpEvent.objects.filter(match=match).select_related("ninja", "ninja__team").order_by("id")),
        "rolls": list(
            AdvancementRoll.objects.filter(match=match)
            .select_related("ninja", "ninja__team", "advancement", "advancement__keyword")
            .order_by("id")
        ),
        "dice": list(DiceRoll.objects.filter(match=match).select_related("ninja").order_by("id")),
    }


#: What a line of the scroll's game records reads (matches/includes/_team_game_records.html and
#: the API's GameRecordSerializer): the side's score, outcome and koban, the match's date, round,
#: kind and challenge, each opponent's name at the match and score, the All-Stars' names. The
#: rest of a match and its sides (their records' JSON, the kick-off snapshots, every column of
#: each team) was most of the scroll's cold render (issue 29, part 2). A field left out here and
#: read by a line would cost a query a line: test_every_kind_of_game_record_reads_only_what_the_
#: fetch_read (tests/matches/test_game_records_fetch.py) fails on it.
GAME_RECORD_FIELDS = (
    "team_id",
    "slot",
    "points",
    "outcome",
    "koban_earned",
    "match__date",
    "match__round_number",
    "match__friendly",
    "match__simulated",
    "match__challenge__name",
    "match__challenge__slug",
)


def team_game_records(team: Team) -> QuerySet:
    """The team's played matches (newest first) with opponents and All-Stars, fixed query count."""
    return (
        MatchTeam.objects.filter(team=team, match__status=Match.Status.CONFIRMED)
        .select_related("match", "match__challenge")
        .only(*GAME_RECORD_FIELDS)
        .prefetch_related(
            Prefetch(
                "match__sides",
                queryset=MatchTeam.objects.select_related("team")
                .only("match_id", "team_id", "slot", "points", "team_name", "team__name")
                .order_by("slot"),
            ),
            Prefetch(
                "ninjas",
                queryset=MatchNinja.objects.filter(all_star_awards__gt=0).only("side_id", "name"),
                to_attr="all_stars",
            ),
        )
        .order_by("-match__date", "-match_id")
    )


def game_record_line(side) -> dict:
    """One line of the scroll's game records: the opponents and the score with this team first."""
    others = [s for s in side.match.sides.all() if s.team_id != side.team_id]
    return {
        "side": side,
        "match": side.match,
        "opponents": others,  # their sides: the name each had at the match
        "score": "–".join(str(p if p is not None else 0) for p in [side.points, *[o.points for o in others]]),
        "all_stars": side.all_stars,
    }


# --- a submitted result, as the match page shows it -----------------------------------------------

#: The per-model cells of a submitted record, in the order the page shows them.
RECORD_COUNTS = (("injuries", "Injuries inflicted"), ("chunin_stuns", "Stuns on a chunin"), ("reveals", "Reveals"))


def _cell(value, other, *, compare: bool) -> dict:
    return {"value": value, "differs": compare and value != other}


def record_view(match: Match, data: dict | None, *, other: dict | None = None) -> list[dict]:
    """A stored submission (``Match.submitted_record`` or ``counter_record``) laid out per side and
    per model with the kick-off names, the challenge's feat names and the upkeep choices; with
    ``other`` (the other record of a dispute) every cell says whether it differs. No queries beyond
    the match page's prefetches (sides with their roster snapshots, the challenge's awards)."""
    if not data:
        return []
    compare = other is not None
    awards = {a.key: a.feat for a in match.challenge.xp_awards.all()} if match.challenge_id else {}
    upkeep = data.get("upkeep") or {}
    faces = data.get("downtime_faces") or {}
    other_teams = {t["team_id"]: t for t in (other or {}).get("teams", [])}
    other_upkeep = (other or {}).get("upkeep") or {}
    other_faces = (other or {}).get("downtime_faces") or {}
    teams = {t["team_id"]: t for t in data.get("teams", [])}
    out = []
    for side in match.sides.all():
        team = teams.get(side.team_id)
        if team is None:
            continue
        roster = {row["id"]: row for row in side.roster_snapshot or []}
        theirs = other_teams.get(side.team_id, {})
        their_ninjas = {n["ninja_id"]: n for n in theirs.get("ninjas", [])}
        ninjas = []
        for n in team["ninjas"]:
            row = roster.get(n["ninja_id"], {})
            o = their_ninjas.get(n["ninja_id"], {})
            feats = {awards.get(k, k): v for k, v in (n.get("challenge_feats") or {}).items() if v}
            other_feats = {awards.get(k, k): v for k, v in (o.get("challenge_feats") or {}).items() if v}
            key = str(n["ninja_id"])
            ninjas.append(
                {
                    "name": row.get("name", f"#{n['ninja_id']}"),
                    "profile": row.get("profile", ""),
                    "played": _cell(n.get("played", True), o.get("played", True), compare=compare),
                    "counts": [
                        {"label": label, **_cell(n.get(field, 0), o.get(field, 0), compare=compare)}
                        for field, label in RECORD_COUNTS
                    ],
                    "feats": _cell(sorted(feats.items()), sorted(other_feats.items()), compare=compare),
                    "healing_house": _cell(
                        n.get("in_healing_house", False), o.get("in_healing_house", False), compare=compare
                    ),
                    "all_star": _cell(bool(n.get("all_star_awards")), bool(o.get("all_star_awards")), compare=compare),
                    "die": _cell(faces.get(key, ""), other_faces.get(key, ""), compare=compare and bool(faces)),
                }
            )
        ronin = [
            {
                "name": row["name"],
                "upkeep": row.get("upkeep", 0),
                **_cell(upkeep.get(str(row["id"]), "pay"), other_upkeep.get(str(row["id"]), "pay"), compare=compare),
            }
            for row in side.roster_snapshot or []
            if row.get("is_ronin")
        ]
        out.append(
            {
                "side": side,
                "points": _cell(team["points"], theirs.get("points"), compare=compare),
                "ninjas": ninjas,
                "ronin": ronin,
                "entered_dice": bool(faces),
            }
        )
    return out


def record_differences(sections: list[dict]) -> int:
    """How many cells of a record view differ from the other record."""
    total = 0
    for section in sections:
        total += section["points"]["differs"] + sum(r["differs"] for r in section["ronin"])
        for n in section["ninjas"]:
            cells = [n["played"], n["feats"], n["healing_house"], n["all_star"], n["die"], *n["counts"]]
            total += sum(c["differs"] for c in cells)
    return total
