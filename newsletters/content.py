"""The newsletter's generated sections, written as short prose from recorded facts.

Functions here take rows already loaded by newsletters.selectors (prefetched: they run no
queries) and return plain JSON-ready dicts, which the build stores and the templates render.
What counts as notable (docs/rulings.md, "Newsletters"):

- an **upset**: the winner went in with a lower kick-off rating than the highest-rated opponent;
  the gap is the difference of kick-off ratings;
- a **shutout**: the winner scored and no opponent did;
- a **Brawl won outright**: in the Brawl, a team that scores nine points wins immediately;
- a **ronin lost to upkeep**: released because the treasury could not cover its fee (or released
  by its player instead of paying).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from games import registry
from league.selectors import TableRow, side_points
from matches.models import Match, MatchTeam
from newsletters.charts import Series, line_chart
from rules.engine import league as rules_league
from rules.engine.challenges import BRAWL_WINNING_SCORE

BRAWL_SLUG = "brawl"
NUMBER_WORDS = {
    0: "no",
    1: "one",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
}


# --- small prose helpers -------------------------------------------------------------------------


def join_names(names: Iterable[str]) -> str:
    names = [n for n in names if n]
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def count(n: int, singular: str, plural: str | None = None) -> str:
    word = NUMBER_WORDS.get(n, str(n))
    return f"{word} {singular if n == 1 else (plural or singular + 's')}"


def score_line(points: Sequence[int]) -> str:
    return "–".join(str(p) for p in points)


def level_name(rank: int) -> str:
    return next((lvl.name for lvl in rules_league.XP_LEVELS if lvl.rank == rank), f"level {rank}")


# --- challenge reports ---------------------------------------------------------------------------


def side_fact(side: MatchTeam) -> dict:
    return {
        "team_id": side.team_id,
        "team": side.team.name,
        "clan": side.team.clan.name if side.team.clan_id else "",  # a player's entry has none
        "owner": side.team.owner.username,
        "points": side.points or 0,
        "outcome": side.outcome,
        "rating": side.rating,
    }


def upset_gap(sides: Sequence[MatchTeam]) -> tuple[MatchTeam, MatchTeam, int] | None:
    """(winner, favourite, gap) when the winner had a lower kick-off rating than its highest-rated
    opponent; None otherwise (a draw, or ratings missing)."""
    winners = [s for s in sides if s.outcome == MatchTeam.Outcome.WIN]
    if len(winners) != 1 or winners[0].rating is None:
        return None
    winner = winners[0]
    rated = [s for s in sides if s is not winner and s.rating is not None]
    if not rated:
        return None
    favourite = max(rated, key=lambda s: (s.rating, -s.slot))
    gap = favourite.rating - winner.rating
    return (winner, favourite, gap) if gap > 0 else None


def _result_sentence(match: Match, sides: Sequence[MatchTeam]) -> tuple[str, str]:
    """(headline, opening sentence) for a result."""
    challenge = f"the {match.challenge.name}" if match.challenge_id else "their game"
    ordered = sorted(sides, key=lambda s: (-(s.points or 0), s.slot))
    top = ordered[0]
    winners = [s for s in sides if s.outcome == MatchTeam.Outcome.WIN]
    friendly = " (a friendly)" if match.friendly else ""
    if len(sides) == 2:
        a, b = ordered
        if winners:
            headline = f"{a.team.name} beat {b.team.name} {a.points}–{b.points}"
            return (
                headline,
                f"{a.team.name} ({a.team.clan.name}) beat {b.team.name} ({b.team.clan.name}) {a.points}–{b.points} in {challenge}{friendly}.",
            )
        headline = f"{a.team.name} and {b.team.name} drew {a.points}–{b.points}"
        return (
            headline,
            f"{a.team.name} ({a.team.clan.name}) and {b.team.name} ({b.team.clan.name}) drew {a.points}–{b.points} in {challenge}{friendly}.",
        )
    others = join_names(f"{s.team.name} ({s.points})" for s in ordered[1:])
    if winners:
        headline = f"{top.team.name} win a {len(sides)}-way {match.challenge.name if match.challenge_id else 'game'}"
        return headline, f"{top.team.name} won {challenge}{friendly} with {top.points} points, ahead of {others}."
    level = [s for s in ordered if s.points == top.points]
    headline = f"{join_names(s.team.name for s in level)} share a {len(sides)}-way draw"
    rest = [s for s in ordered if s.points != top.points]
    tail = f"; {join_names(f'{s.team.name} ({s.points})' for s in rest)} trailed" if rest else ""
    return (
        headline,
        f"{join_names(s.team.name for s in level)} shared {challenge}{friendly} on {top.points} points{tail}.",
    )


def challenge_report(match: Match) -> dict:
    """One match's report: facts plus a few sentences of prose (match with sides, their MatchNinja
    rows, downtime results and upkeep decisions prefetched)."""
    sides = list(match.sides.all())
    team_of_ninja: dict[int, MatchTeam] = {}
    for side in sides:
        for mn in side.ninjas.all():
            team_of_ninja[mn.ninja_id] = side
    headline, opening = _result_sentence(match, sides)
    sentences = [opening]
    notables: list[dict] = []

    upset = upset_gap(sides)
    if upset:
        winner, favourite, gap = upset
        text = (
            f"An upset: {winner.team.name} went in rated {gap} below {favourite.team.name} "
            f"({winner.rating} against {favourite.rating}) and won."
        )
        sentences.append(text)
        notables.append(
            {"kind": "upset", "text": text, "gap": gap, "winner": winner.team.name, "favourite": favourite.team.name}
        )
    winners = [s for s in sides if s.outcome == MatchTeam.Outcome.WIN]
    if winners and (winners[0].points or 0) > 0 and all((s.points or 0) == 0 for s in sides if s is not winners[0]):
        losers = join_names(s.team.name for s in sides if s is not winners[0])
        text = f"A shutout: {losers} did not score."
        sentences.append(text)
        notables.append({"kind": "shutout", "text": text, "winner": winners[0].team.name})
    if (
        winners
        and match.challenge_id
        and match.challenge.slug == BRAWL_SLUG
        and (winners[0].points or 0) >= BRAWL_WINNING_SCORE
    ):
        text = f"{winners[0].team.name} reached nine points and won the Brawl outright."
        sentences.append(text)
        notables.append({"kind": "brawl_nine", "text": text, "winner": winners[0].team.name})

    all_stars = [(mn.name, side.team.name) for side in sides for mn in side.ninjas.all() if mn.all_star_awards]
    if all_stars:
        sentences.append("Ninja All-Stars: " + join_names(f"{n} ({t})" for n, t in all_stars) + ".")

    injuries = {side.team.name: sum(mn.injuries for mn in side.ninjas.all()) for side in sides}
    if any(injuries.values()):
        parts = []
        for side in sides:
            total = injuries[side.team.name]
            if not total:
                continue
            best = max(side.ninjas.all(), key=lambda mn: (mn.injuries, -mn.pk))
            lead = ""
            if best.injuries >= 2:
                lead = (
                    f", all by {best.name}" if best.injuries == total else f", {best.injuries} of them by {best.name}"
                )
            parts.append(f"{side.team.name} inflicted {count(total, 'injury', 'injuries')}{lead}")
        sentences.append(join_names(parts) + ".")

    casualties = []
    for result in match.downtime_results.all():
        side = team_of_ninja.get(result.ninja_id)
        team = side.team.name if side else ""
        if result.spared_by_id:
            casualties.append(f"{result.ninja.name} ({team}) was spared by {result.spared_by.name}'s Spirit")
        elif result.misses_games:
            casualties.append(f"{result.ninja.name} ({team}) misses the next {count(result.misses_games, 'game')}")
        elif result.starts_in_healing_house:
            casualties.append(f"{result.ninja.name} ({team}) starts the next game in the Healing House")
        elif result.xp_bonus:
            casualties.append(f"{result.ninja.name} ({team}) came back with {result.xp_bonus} XP")
        else:
            casualties.append(f"{result.ninja.name} ({team}) recovered")
    if casualties:
        sentences.append("From the Healing House: " + join_names(casualties) + ".")

    for decision in match.upkeep_decisions.all():
        if decision.paid:
            continue
        team = decision.ninja.team.name
        if decision.forced_release:
            text = (
                f"{team} could not cover the {decision.fee}-koban upkeep of {decision.ninja.name}, "
                f"and the ronin was released."
            )
        else:
            text = f"{team} released {decision.ninja.name} rather than pay {decision.fee} koban of upkeep."
        sentences.append(text)
        notables.append(
            {
                "kind": "ronin_released",
                "text": text,
                "forced": decision.forced_release,
                "ninja": decision.ninja.name,
                "team": team,
            }
        )

    ordered = sorted(sides, key=lambda s: s.slot)
    return {
        "match_id": match.pk,
        "headline": ("Upset! " if upset else "") + headline,
        "challenge": match.challenge.name if match.challenge_id else "",
        "friendly": match.friendly,
        "round_number": match.round_number,
        "stage": match.stage,
        "date": match.date.isoformat() if match.date else "",
        "teams": [side_fact(s) for s in ordered],
        "score": score_line([s.points or 0 for s in ordered]),
        "winner": winners[0].team.name if len(winners) == 1 else None,
        "all_stars": [{"ninja": n, "team": t} for n, t in all_stars],
        "injuries": injuries,
        "notables": notables,
        "text": " ".join(sentences),
    }


# --- game reports of the players' games (issue 17) -------------------------------------------------


def _players_fact(side: MatchTeam) -> dict:
    return {
        "team_id": side.team_id,
        "team": side.team.name,
        "owner": side.team.owner.username,
        "points": side.points or 0,
        "outcome": side.outcome,
    }


def game_report(match: Match, game: str) -> dict:
    """One players' game's report (the match with its sides, team and owner, prefetched): who
    won and how, from the record it was confirmed with; nothing of All-Stars (no clans, injuries,
    XP, ronin). A match without a readable record (a forfeit) says only its outcome."""
    sides = sorted(match.sides.all(), key=lambda s: s.slot)
    record = applied_record(match.submitted_record, match.counter_record, match.settlement)
    winners = [s for s in sides if s.outcome == MatchTeam.Outcome.WIN]
    report = registry.game_of(game).newsletter_report
    try:
        if report is None:
            raise LookupError(game)
        headline, text, facts = report(match, sides, record or {})
    except (LookupError, ValueError, TypeError):
        names = join_names(s.team.name for s in sides)
        if winners:
            headline = f"{join_names(s.team.name for s in winners)} win against {join_names(s.team.name for s in sides if s not in winners)}"
        else:
            headline = f"{names}: no winner"
        text, facts = headline + ".", {}
    return {
        "match_id": match.pk,
        "game": game,
        "headline": headline,
        "challenge": "",
        "friendly": match.friendly,
        "round_number": match.round_number,
        "stage": match.stage,
        "date": match.date.isoformat() if match.date else "",
        "teams": [_players_fact(s) for s in sides],
        "winner": winners[0].team.name if len(winners) == 1 else None,
        "simulated": match.simulated,
        "facts": facts,
        "notables": [],
        "text": text,
    }


def applied_record(submitted, counter=None, settlement: str = "") -> dict | None:
    """The record a confirmed players' game was applied from (a dispute settled with the second
    record counts that one); None when there is none."""
    record = counter if settlement == "second" and counter else submitted
    return record if isinstance(record, dict) else None


def game_stats_section(statistics) -> dict:
    """The facts of a players' game's statistics (its ``Game.statistics``, through the protocol)
    over the season so far: ``{"title", "facts": [{"key", "text"}]}``."""
    return {"facts": list(statistics.facts()) if statistics is not None else []}


# --- the table -----------------------------------------------------------------------------------


def table_section(rows: Sequence[TableRow], previous: dict | None, *, through: str) -> dict:
    """The table with movement against the previous newsletter's stored table ({"rows": [...]})."""
    before = {r["team_id"]: r["position"] for r in (previous or {}).get("rows", [])} if previous else None
    out = []
    for row in rows:
        data = row.as_dict()
        if before is None:
            data["movement"], data["arrow"], data["move_text"] = None, "", ""
        elif row.team.pk not in before:
            data["movement"], data["arrow"], data["move_text"] = None, "new", "new in the table"
        else:
            move = before[row.team.pk] - row.position
            data["movement"] = move
            data["arrow"] = "▲" if move > 0 else "▼" if move < 0 else "="
            data["move_text"] = f"up {move}" if move > 0 else f"down {-move}" if move < 0 else "no change"
        data["badge"] = data["arrow"] + (str(abs(data["movement"])) if data["movement"] else "")
        out.append(data)
    leader = out[0] if out and out[0]["played"] else None
    summary = ""
    if leader:
        summary = (
            f"{leader['team']} lead the table on {leader['points']} points after {count(leader['played'], 'game')}."
        )
        risers = [r for r in out if (r["movement"] or 0) > 0]
        if risers:
            best = max(risers, key=lambda r: (r["movement"], -r["position"]))
            summary += f" Biggest climber: {best['team']}, up {count(best['movement'], 'place')} to {ordinal(best['position'])}."
    return {
        "through": through,
        "rows": out,
        "compared_with": (previous or {}).get("title", "") if previous else "",
        "summary": summary,
    }


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# --- facts and stats -----------------------------------------------------------------------------


def top_xp_section(earners: Sequence[dict], limit: int = 5) -> dict:
    top = list(earners[:limit])
    text = ""
    if top:
        best = [e for e in top if e["xp"] == top[0]["xp"]]
        text = (
            f"Top XP earner{'s' if len(best) > 1 else ''}: "
            + join_names(f"{e['ninja']} ({e['team']})" for e in best)
            + f" with {top[0]['xp']} XP."
        )
    return {"rows": top, "text": text}


def level_up_rows(rolls) -> tuple[list[dict], list[dict]]:
    """(level-ups, advancements taken) from the period's advancement rolls."""
    ups, taken = [], []
    for roll in rolls:
        name, team = roll.ninja.name, roll.ninja.team.name
        ups.append(
            {
                "ninja": name,
                "team": team,
                "level": level_name(roll.level),
                "text": f"{name} ({team}) reached {level_name(roll.level)}",
            }
        )
        adv = getattr(roll, "advancement", None) if roll.status == roll.Status.CHOSEN else None
        if adv is not None:
            taken.append({"ninja": name, "team": team, "advancement": str(adv), "text": f"{name} ({team}) took {adv}"})
    return ups, taken


def injuries_section(matches: Sequence[Match], limit: int = 3) -> dict:
    by_ninja: dict[tuple[int, str, str], int] = defaultdict(int)
    by_team: dict[str, int] = defaultdict(int)
    for match in matches:
        for side in match.sides.all():
            for mn in side.ninjas.all():
                if mn.injuries:
                    by_ninja[(mn.ninja_id, mn.name, side.team.name)] += mn.injuries
                    by_team[side.team.name] += mn.injuries
    ninjas = sorted(
        ({"ninja": n, "team": t, "injuries": v} for (_, n, t), v in by_ninja.items()),
        key=lambda r: (-r["injuries"], r["ninja"]),
    )[:limit]
    teams = sorted(({"team": t, "injuries": v} for t, v in by_team.items()), key=lambda r: (-r["injuries"], r["team"]))
    text = ""
    if ninjas:
        text = f"Most injuries inflicted: {ninjas[0]['ninja']} ({ninjas[0]['team']}) with {ninjas[0]['injuries']}."
        if teams:
            text += f" The most dangerous team was {teams[0]['team']}, with {count(teams[0]['injuries'], 'injury', 'injuries')}."
    return {"ninjas": ninjas, "teams": teams, "text": text}


def casualties_section(matches: Sequence[Match]) -> dict:
    rows, healing = [], 0
    for match in matches:
        team_of = {mn.ninja_id: side.team.name for side in match.sides.all() for mn in side.ninjas.all()}
        healing += sum(1 for side in match.sides.all() for mn in side.ninjas.all() if mn.in_healing_house)
        for result in match.downtime_results.all():
            if result.spared_by_id or not (result.misses_games or result.starts_in_healing_house):
                continue
            what = (
                f"misses the next {count(result.misses_games, 'game')}"
                if result.misses_games
                else "starts the next game in the Healing House"
            )
            rows.append(
                {
                    "ninja": result.ninja.name,
                    "team": team_of.get(result.ninja_id, ""),
                    "face": result.face,
                    "misses_games": result.misses_games,
                    "text": f"{result.ninja.name} ({team_of.get(result.ninja_id, '')}) {what}",
                }
            )
    text = f"{count(healing, 'model').capitalize()} ended a game in the Healing House." if healing else ""
    return {"healing_house": healing, "rows": rows, "text": text}


def treasuries_section(balances: Sequence[tuple], limit: int = 3) -> dict:
    rows = [{"team": team.name, "team_id": team.pk, "koban": koban} for team, koban in balances[:limit]]
    text = f"Richest treasury: {rows[0]['team']} with {rows[0]['koban']} koban." if rows else ""
    return {"rows": rows, "text": text}


def ronin_section(hired: Sequence[dict], matches: Sequence[Match], released_off_table: Sequence) -> dict:
    lost = []
    for match in matches:
        for d in match.upkeep_decisions.all():
            if not d.paid:
                why = "could not pay the upkeep" if d.forced_release else "released instead of paying the upkeep"
                lost.append(
                    {
                        "ninja": d.ninja.name,
                        "team": d.ninja.team.name,
                        "why": why,
                        "text": f"{d.ninja.name} left {d.ninja.team.name} ({why})",
                    }
                )
    for ninja in released_off_table:
        lost.append(
            {
                "ninja": ninja.name,
                "team": ninja.team.name,
                "why": "released by the player",
                "text": f"{ninja.name} left {ninja.team.name} (released by the player)",
            }
        )
    hired_rows = [
        dict(h, text=f"{h['team']} hired {h['ninja']} for {h['koban']} koban ({h['upkeep']} upkeep a game)")
        for h in hired
    ]
    return {"hired": hired_rows, "lost": lost}


def clan_records(games: dict[int, list[MatchTeam]]) -> list[dict]:
    """Each pair of clans' record against each other over the season so far (points decide each
    pairing inside a 3-4 team game)."""
    pairs: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for game in games.values():
        for i, a in enumerate(game):
            for b in game[i + 1 :]:
                if a.team.clan_id is None or b.team.clan_id is None:
                    continue  # players' entries (games without team scrolls) have no clan
                ca, cb = a.team.clan.name, b.team.clan.name
                if ca == cb:
                    continue
                pa, pb = a.points or 0, b.points or 0
                if ca > cb:
                    ca, cb, pa, pb = cb, ca, pb, pa
                record = pairs[(ca, cb)]
                record[0 if pa > pb else 1 if pa == pb else 2] += 1
    rows = []
    for (ca, cb), (won, drawn, lost) in sorted(pairs.items()):
        drawn_text = f", {count(drawn, 'draw')}" if drawn else ""
        rows.append(
            {
                "clan": ca,
                "opponent": cb,
                "won": won,
                "drawn": drawn,
                "lost": lost,
                "text": f"{ca} {won}–{lost} {cb}{drawn_text}",
            }
        )
    return rows


def season_records(games: dict[int, list[MatchTeam]]) -> dict:
    """Biggest win (margin over the runner-up) and biggest upset (rating gap) of the season so far."""
    biggest_win, biggest_upset = None, None
    for game in games.values():
        ordered = sorted(game, key=lambda s: (-(s.points or 0), s.slot))
        if len(ordered) >= 2 and ordered[0].outcome == MatchTeam.Outcome.WIN:
            margin = (ordered[0].points or 0) - (ordered[1].points or 0)
            if biggest_win is None or margin > biggest_win["margin"]:
                w, r = ordered[0], ordered[1]
                biggest_win = {
                    "match_id": w.match_id,
                    "margin": margin,
                    "winner": w.team.name,
                    "loser": r.team.name,
                    "round_number": w.match.round_number,
                    "text": f"Biggest win: {w.team.name} beat {r.team.name} {w.points}–{r.points}"
                    + (f" in round {w.match.round_number}" if w.match.round_number else "")
                    + f", by {margin}.",
                }
        upset = upset_gap(game)
        if upset and (biggest_upset is None or upset[2] > biggest_upset["gap"]):
            w, f, gap = upset
            biggest_upset = {
                "match_id": w.match_id,
                "gap": gap,
                "winner": w.team.name,
                "favourite": f.team.name,
                "round_number": w.match.round_number,
                "text": f"Biggest upset: {w.team.name}, rated {gap} below {f.team.name}, beat them"
                + (f" in round {w.match.round_number}" if w.match.round_number else "")
                + ".",
            }
    return {"biggest_win": biggest_win, "biggest_upset": biggest_upset}


# --- charts --------------------------------------------------------------------------------------

#: Teams drawn in the season charts (the leaders of the table).
MAX_CHART_TEAMS = 8


def chart_section(games: dict[int, list[MatchTeam]], season, table_rows: Sequence[TableRow]) -> list[dict]:
    """League points over the season (after each round, or each game when the season has no
    rounds) and each team's rating at kick-off, game by game."""
    if not games:
        return []
    names = {r.team.pk: r.team.name for r in table_rows}
    order = [r.team.pk for r in table_rows]
    by_round = all(game[0].match.round_number for game in games.values())

    def value(side) -> int:
        return side_points(
            season,
            side.outcome,
            forfeited=getattr(side.match, "status", "") == Match.Status.FORFEITED,
            league_points=getattr(side, "league_points", None),
        )

    points: dict[int, list[tuple[int, int]]] = defaultdict(list)
    ratings: dict[int, list[tuple[int, int]]] = defaultdict(list)
    totals: dict[int, int] = defaultdict(int)
    played: dict[int, int] = defaultdict(int)
    if by_round:
        rounds = sorted({game[0].match.round_number for game in games.values()})
        per_round: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        for game in games.values():
            for side in game:
                per_round[game[0].match.round_number][side.team_id] += value(side)
        for rnd in rounds:
            for team_id in order:
                totals[team_id] += per_round[rnd].get(team_id, 0)
                points[team_id].append((rnd, totals[team_id]))
    for game in games.values():
        for side in game:
            played[side.team_id] += 1
            if not by_round:
                totals[side.team_id] += value(side)
                points[side.team_id].append((played[side.team_id], totals[side.team_id]))
            if side.rating is not None:
                ratings[side.team_id].append((played[side.team_id], side.rating))
    charts = []
    x_label = "Round" if by_round else "Games played"
    # A line per team stays readable (and the email small) only for the leaders: the top teams of the table.
    shown = order[:MAX_CHART_TEAMS]
    note = f" (top {len(shown)} of {len(order)} {season.league.game_info.entrants})" if len(order) > len(shown) else ""
    pts_series = [Series(names.get(t, str(t)), tuple(points[t])) for t in shown if points.get(t)]
    title = "League points over the season" + note
    svg = line_chart(pts_series, title=title, x_label=x_label, y_label="Points")
    if svg:
        charts.append(
            {
                "title": title,
                "x_label": x_label,
                "svg": svg,
                "series": [{"name": s.name, "points": [list(p) for p in s.points]} for s in pts_series],
            }
        )
    rating_series = [Series(names.get(t, str(t)), tuple(ratings[t])) for t in shown if ratings.get(t)]
    title = "Team rating at kick-off" + note
    svg = line_chart(rating_series, title=title, x_label="Game", y_label="Rating", zero_based=False)
    if svg:
        charts.append(
            {
                "title": title,
                "x_label": "Game",
                "svg": svg,
                "series": [{"name": s.name, "points": [list(p) for p in s.points]} for s in rating_series],
            }
        )
    return charts
