from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from common import invalidation
from common.fragments import fragment
from common.pagecache import depends
from games import registry as games
from matches import selectors, services
from matches.forms import (
    AdvancementChoiceForm,
    AdvancementFacesForm,
    ConfirmForm,
    ResultForm,
    UpkeepChoicesForm,
    VoidForm,
    draft_initial,
    submission_initial,
)
from matches.models import Match, MatchTeam
from rules.engine import challenges
from teams import selectors as team_selectors
from teams.models import AdvancementRoll
from teams.permissions import require_manage_team


def _get_match(pk: int) -> Match:
    try:
        return selectors.match_for_page(pk)
    except Match.DoesNotExist:
        raise Http404("No such match") from None


def not_yet_for_game(match: Match, *, entering: bool = False) -> str:
    """Why a match of a league of another game than All-Stars has no pre-match sheet or kick-off
    (nothing is frozen before a game of players), or, with ``entering``, no result entry yet (the
    games whose result form is still to come); empty for All-Stars. The match's league is loaded
    with it (selectors.match_for_page, match_page_head), so this costs no query."""
    if match.league_id is None:
        return ""
    game = games.game_of(match.league.game)
    if game.team_scrolls:
        return ""
    if services.game_result_enterable(match):
        if entering:
            return ""
        return f"{game.name} has no pre-match sheet or kick-off: enter the result when the game is over."
    return f"Entering results is not yet available for {game.name}: it comes with the game's result form."


def _errors(exc: ValidationError) -> list[str]:
    return exc.messages


def match_detail(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        match = selectors.match_page_head(pk)
    except Match.DoesNotExist:
        raise Http404("No such match") from None
    decided = match.status in (Match.Status.CONFIRMED, Match.Status.VOIDED)
    # A played match shows its sides' own lines and takes the rest from the played block's fragment;
    # the other states need the teams (the reader's rights) and, while a result waits or is
    # disputed, the records and who entered them (issue 15: the page reads what it shows).
    sides = selectors.match_page_sides(match, teams=not decided)
    scopes = match_scopes(match, sides)
    depends(request, *scopes)
    players = services.players_game(match)
    # The records and the people of the result where shown (a players' game shows its applied record).
    if match.status in (Match.Status.SUBMITTED, Match.Status.DISPUTED) or match.settlement or (players and decided):
        selectors.match_page_people(match)
    records = _game_records(match, sides) if players else _records(match)
    not_yet = not_yet_for_game(match, entering=True)
    played = None
    if decided and players:
        played = render_to_string("matches/includes/_game_played.html", {"match": match, "sides": sides, **records})
    elif decided:
        # A played match's sides, models and post-game sequence are the same for every reader: a
        # fragment under the versions of what it shows, so a member's read after the first runs none of its
        # queries (issue 15, part 3).
        played = fragment(
            f"match-played:{match.pk}",
            lambda: render_to_string(
                "matches/includes/_match_played.html", _played_context(match, sides, records), request=request
            ),
            scopes,
            request,
        )
    context = {
        "match": match,
        "sides": sides,
        "played": played,
        "not_yet": not_yet,
        "players_game": players,
        "can_enter": not not_yet
        and match.status == Match.Status.SCHEDULED
        and services.can_enter_result(request.user, match),
        "can_confirm": match.status == Match.Status.SUBMITTED
        and not match.upkeep_waits
        and services.can_confirm(request.user, match),
        # the upkeep of the reader's own ronin still undecided (confirming asks it; an accepted
        # result waiting for it offers it alone), and whose ronin the result waits for
        "my_ronin": _my_undecided_ronin(request.user, match) if not decided else [],
        "upkeep_waits_for": _upkeep_waits_for(match) if match.upkeep_waits else [],
        "upkeep_default": "paid" if services.house_rules_for(match).ronin_upkeep_default == "pay" else "released",
        "can_counter": services.can_counter_submit(request.user, match),
        "can_settle": services.can_settle(request.user, match),
        "can_void": match.is_decided and services.is_master_of(request.user, match),
        "can_manage_fixture": match.season_id is not None and services.is_master_of(request.user, match),
        # The player the dice named, while the choice is open (the sides' teams are loaded then).
        "chooser": match.chooser_side() if _challenge_open(match) else None,
        "can_choose_challenge": services.challenge_refusal(request.user, match) is None,
        **records,
    }
    return render(request, "matches/match_detail.html", context)


def _upkeep_waits_for(match: Match) -> list[str]:
    """The teams whose ronin's upkeep an accepted result waits for (their names)."""
    sides = list(match.sides.all())
    waiting = {row["id"] for row in services.upkeep_undecided(match, sides)}
    return sorted({side.team.name for nid, (side, _) in services.ronin_of(sides).items() if nid in waiting})


def match_scopes(match: Match, sides) -> list[str]:
    """What a match's pages show (common/invalidation.py): the match, its sides' teams and its
    league's name and rules."""
    scopes = [invalidation.match(match.pk), *(invalidation.team(side.team_id) for side in sides)]
    if match.league_id:
        scopes.append(invalidation.league_meta(match.league_id))
    return scopes


def _challenge_open(match: Match) -> bool:
    """No challenge yet, and the match may still get one: scheduled, not kicked off."""
    return not match.challenge_id and match.status == Match.Status.SCHEDULED and match.kicked_off_at is None


def _records(match: Match) -> dict:
    """The submitted record (and a dispute's second one) laid out for the page, when shown: while
    the result waits or is disputed, and in a settled dispute's details."""
    if match.status not in (Match.Status.SUBMITTED, Match.Status.DISPUTED) and not match.settlement:
        return {"first_record": [], "second_record": [], "differences": 0}
    disputed = match.counter_record is not None
    first = selectors.record_view(match, match.submitted_record, other=match.counter_record if disputed else None)
    second = selectors.record_view(match, match.counter_record, other=match.submitted_record) if disputed else []
    return {
        "first_record": first,
        "second_record": second,
        "differences": selectors.record_differences(first) if disputed else 0,
    }


def _game_records(match: Match, sides: list) -> dict:
    """A players' game's records as lines (its Game's ``result_summary``) and, for a game played
    at a table, as a table by place (``*_table``, its ``result_table``): while it waits or is disputed, both; once confirmed,
    the one applied (the second when a dispute was settled so). League points are the season's."""
    names = [side.name_at_match for side in sides]
    rules = services.house_rules_for(match)
    game = games.game_of(match.league.game)

    def view(record) -> tuple[list, list]:
        if not record:
            return [], []
        return game.result_summary(record, names, rules), game.result_table(record, names, rules)

    if match.status in (Match.Status.CONFIRMED, Match.Status.VOIDED):
        applied = match.counter_record if match.settlement == Match.Settlement.SECOND else match.submitted_record
        lines, table = view(applied)
        return {
            "first_record": [],
            "second_record": [],
            "differences": 0,
            "applied_record": lines,
            "applied_table": table,
        }
    (first, first_table), (second, second_table) = view(match.submitted_record), view(match.counter_record)
    return {
        "first_record": first,
        "second_record": second,
        "first_table": first_table,
        "second_table": second_table,
        "differences": sum(a != b for a, b in zip(first, second, strict=False)) + abs(len(first) - len(second)),
        "applied_record": [],
        "applied_table": [],
    }


def _played_context(match: Match, sides: list, records: dict) -> dict:
    """What the played block shows beyond the page's own reads (only when the fragment is built):
    the sides' teams, the models' records, the confirmer, the challenge's awards."""
    selectors.match_played_block(match)
    return {
        "match": match,
        "sides": sides,
        "outcomes": services_outcomes(match),
        "award_names": {a.key: a.feat for a in match.challenge.xp_awards.all()} if match.challenge_id else {},
        **records,
    }


def services_outcomes(match: Match) -> dict:
    if match.sequence_applied_at is None and match.status != Match.Status.VOIDED:
        return {}
    return selectors.sequence_outcomes(match)


def presheet(request: HttpRequest, pk: int) -> HttpResponse:
    """The pre-match sheet: ratings, available models, challenge, underdog bonuses, who starts in
    Stealth. Before kick-off the figures are live (the same functions kick-off stores them with);
    after it, the kick-off snapshot."""
    match = _get_match(pk)
    depends(request, *match_scopes(match, match.sides.all()))
    if not_yet := not_yet_for_game(match):
        messages.info(request, not_yet)
        return redirect(match)
    blockers, roster_blockers = [], []
    if match.kicked_off_at:
        sides = list(match.sides.all())
        rosters = [side.roster_snapshot or [] for side in sides]
        ratings = [side.rating for side in sides]
        bonuses = services.kicked_off_bonuses(sides)
    else:
        live = services.live_sides(match)
        sides = [side for side, _, _ in live]
        rosters = [services.roster_snapshot(team) for _, team, _ in live]
        ratings = [rating for _, _, rating in live]
        bonuses = services.live_underdog_bonuses(match, live)
        if match.status == Match.Status.SCHEDULED:
            blockers = services.kick_off_blockers(match)
            roster_blockers = services.kick_off_roster_problems(match)
    slug = match.challenge.slug if match.challenge_id else None
    chances = team_selectors.predicted_chances([side.team_id for side in sides])
    rows = [
        {
            "side": side,
            "roster": roster,
            "rating": rating,
            "chance": chance,
            "bonus": bonus,
            "available": [
                {**r, "starts_in_stealth": challenges.starts_in_stealth(slug, keywords=r["keywords"])}
                for r in roster
                if r["available"]
            ],
            "absent": [r for r in roster if not r["available"]],
        }
        for side, roster, rating, bonus, chance in zip(sides, rosters, ratings, bonuses, chances, strict=True)
    ]
    return render(
        request,
        "matches/presheet.html",
        {
            "match": match,
            "rows": rows,
            "setup_stealth": challenges.setup_stealth(slug).value,
            "blockers": blockers,
            "roster_blockers": roster_blockers,
            "can_enter": match.status == Match.Status.SCHEDULED and services.can_enter_result(request.user, match),
        },
    )


@login_required
@require_POST
def kick_off(request: HttpRequest, pk: int) -> HttpResponse:
    match = get_object_or_404(Match.objects.select_related("league"), pk=pk)
    if not services.can_enter_result(request.user, match):
        raise PermissionDenied("Only a player in this match or the league's master may kick it off.")
    if not_yet := not_yet_for_game(match):
        messages.info(request, not_yet)
        return redirect(match)
    try:
        services.match_kick_off(match=match)
    except ValidationError as exc:
        messages.error(request, " ".join(_errors(exc)))
    else:
        messages.success(request, "Kicked off: ratings, bonuses and rosters are recorded for this match.")
        if request.POST.get("next") == "result":  # the button on the result page (a name, never a URL)
            return redirect("matches:result", pk=pk)
    return redirect("matches:presheet", pk=pk)


@login_required
def result_entry(request: HttpRequest, pk: int) -> HttpResponse:
    """The result form. Before a result is in, for the players and the master; while one waits for
    confirmation, for the other side's player, starting from the waiting record: submitting the
    same record confirms it, a different one disputes it (the master settles)."""
    match = _get_match(pk)
    if not services.can_enter_result(request.user, match):
        raise PermissionDenied("Only a player in this match or the league's master may enter its result.")
    counter = services.can_counter_submit(request.user, match)
    if match.status != Match.Status.SCHEDULED and not counter:
        messages.info(request, f"This match is {match.get_status_display().lower()}.")
        return redirect(match)
    if services.game_result_enterable(match):
        return _game_result_entry(request, match, counter)
    if not_yet := not_yet_for_game(match):
        messages.info(request, not_yet)
        return redirect(match)
    if match.challenge_id is None:
        messages.error(request, "Choose the challenge before entering the result.")
        return redirect(match)
    if match.kicked_off_at is None:
        if request.method != "POST":
            # No GET writes: opening this page (or following a link to it) freezes nothing. The
            # page offers the kick-off as a button (docs/security.md, "Trust, round 2", 7).
            return render(
                request,
                "matches/result_form.html",
                {
                    "match": match,
                    "form": None,
                    "needs_kick_off": True,
                    "blockers": services.kick_off_blockers(match),
                    "roster_blockers": services.kick_off_roster_problems(match),
                },
            )
        # A posted draft or result is an explicit act: the match kicks off with it.
        try:
            services.match_kick_off(match=match)
        except ValidationError as exc:
            messages.error(request, " ".join(_errors(exc)))
            return redirect("matches:result", pk=pk)
        match = _get_match(pk)
    rejected = None
    if request.method == "POST":
        form = ResultForm.for_match(match, request.POST, user=request.user)
        if "save_draft" in request.POST and not counter:
            # Keep only the form's own fields, without NUL bytes (PostgreSQL's jsonb refuses them)
            # and cut short: a draft stores what was typed, not whatever was posted.
            draft = {k: v.replace("\x00", "")[:100] for k, v in request.POST.items() if k in form.fields}
            services.match_save_draft(match=match, data=draft, actor=request.user)
            messages.success(request, "Draft saved. You can finish the result later.")
            return redirect("matches:result", pk=pk)
        if form.is_valid():
            record, upkeep, faces = form.to_record()
            try:
                services.match_submit_result(
                    match=match, record=record, actor=request.user, upkeep=upkeep, downtime_faces=faces
                )
            except ValidationError as exc:
                for message in _errors(exc):
                    form.add_error(None, message)
            else:
                match.refresh_from_db()
                _say_submitted(request, match, counter, recorded="Result recorded and the post-game sequence applied.")
                return redirect(match)
    elif counter:
        form = ResultForm.for_match(match, user=request.user)
        form.initial = submission_initial(form, match.submitted_record)
    else:
        draft = match.result_draft or {}
        if "rejected_record" in draft:
            # A rejected result comes back with every field as it was submitted, and the reason.
            rejected = {"reason": draft.get("reason", "")}
            form = ResultForm.for_match(match, user=request.user)
            form.initial = submission_initial(form, draft["rejected_record"])
        else:
            # A draft comes back as typed, without errors: what is still missing is said when the
            # result is submitted, never next to "Draft saved".
            form = ResultForm.for_match(match, user=request.user)
            if draft:
                form.initial = draft_initial(form, draft)
    return render(
        request,
        "matches/result_form.html",
        {"match": match, "form": form, "counter": counter, "rejected": rejected},
    )


def _say_submitted(request: HttpRequest, match: Match, counter: bool, *, recorded: str) -> None:
    """What became of a result just entered: recorded (``recorded``), confirmed by the opponent's
    same record, disputed by a different one, or waiting for confirmation."""
    if match.status == Match.Status.CONFIRMED and counter:
        messages.success(request, "Your record matches the submitted one: the result is confirmed.")
    elif match.status == Match.Status.CONFIRMED:
        messages.success(request, recorded)
    elif match.status == Match.Status.DISPUTED:
        messages.warning(
            request,
            "Your record differs from the submitted one: the match is disputed until the ninja master settles it.",
        )
    else:
        messages.success(request, "Result submitted. An opponent or the ninja master must confirm it.")


def _game_result_entry(request: HttpRequest, match: Match, counter: bool) -> HttpResponse:
    """A players' game's result form (Ninjutsu, a Kage Masters table): no kick-off, no draft; while
    a result waits, another player's form starts from it (the same record confirms, a different one
    disputes). The form checks the record as the service does, under the season's time limit."""
    game = games.game_of(match.league.game)
    form = game.bound_result_form(
        match, request.POST if request.method == "POST" else None, rules=services.house_rules_for(match)
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.match_submit_game_result(match=match, record=form.record, actor=request.user)
        except ValidationError as exc:
            for message in _errors(exc):
                form.add_error(None, message)
        else:
            _say_submitted(request, match, counter, recorded="Result recorded.")
            return redirect(match)
    elif request.method != "POST" and counter:
        form.initial = game.result_form.initial_from(match.submitted_record or {})
    return render(request, "matches/game_result_form.html", {"match": match, "form": form, "counter": counter})


@login_required
@require_POST
def confirm(request: HttpRequest, pk: int) -> HttpResponse:
    # The sides with their teams: the rights read each side's owner (one query, whatever the table's size).
    sides = Prefetch("sides", queryset=MatchTeam.objects.select_related("team").order_by("slot"))
    match = get_object_or_404(Match.objects.select_related("league").prefetch_related(sides), pk=pk)
    if not services.can_enter_result(request.user, match):
        raise PermissionDenied("Only an opposing player or the league's master may confirm this result.")
    form = ConfirmForm(request.POST, ronin=_my_undecided_ronin(request.user, match))
    if not form.is_valid():
        messages.error(request, "Choose confirm or reject, and each of your ronin's upkeep.")
        return redirect(match)
    try:
        if form.cleaned_data["decision"] == "confirm":
            services.match_confirm(match=match, actor=request.user, upkeep=form.choices())
            players = services.players_game(match)
            messages.success(
                request, "Result confirmed." if players else "Result confirmed; the post-game sequence is applied."
            )
        else:
            services.match_reject(match=match, actor=request.user, reason=form.cleaned_data["reason"])
            messages.info(request, "Result rejected and sent back for correction.")
    except ValidationError as exc:
        messages.error(request, " ".join(_errors(exc)))
    return redirect(match)


def _my_undecided_ronin(user, match: Match) -> list[dict]:
    """The roster rows of the ronin still undecided whose upkeep ``user`` decides (an All-Stars
    match waiting for a result's acceptance or an owner's upkeep; the sides' teams loaded)."""
    if match.status != Match.Status.SUBMITTED or services.players_game(match):
        return []
    sides = list(match.sides.all())
    mine = services.upkeep_decidable(user, match, sides)
    return [row for row in services.upkeep_undecided(match, sides) if row["id"] in mine]


@login_required
@require_POST
def upkeep_decide(request: HttpRequest, pk: int) -> HttpResponse:
    """A ronin's owner (or the master) decides its upkeep while the accepted result waits for it."""
    sides = Prefetch("sides", queryset=MatchTeam.objects.select_related("team").order_by("slot"))
    match = get_object_or_404(Match.objects.select_related("league").prefetch_related(sides), pk=pk)
    ronin = _my_undecided_ronin(request.user, match) if match.upkeep_waits else []
    if not ronin:
        raise PermissionDenied("No ronin of yours waits for an upkeep decision in this match.")
    form = UpkeepChoicesForm(request.POST, ronin=ronin)
    if not form.is_valid():
        messages.error(request, "Choose to pay or release each of your ronin.")
        return redirect(match)
    try:
        match = services.match_decide_upkeep(match=match, actor=request.user, upkeep=form.choices())
    except ValidationError as exc:
        messages.error(request, " ".join(_errors(exc)))
        return redirect(match)
    if match.status == Match.Status.CONFIRMED:
        messages.success(request, "Upkeep decided; the post-game sequence is applied.")
    else:
        messages.success(request, "Upkeep decided; the result still waits for another team's ronin.")
    return redirect(match)


@login_required
def settle(request: HttpRequest, pk: int) -> HttpResponse:
    """The master settles a disputed result: picks one of the two records, or edits a record
    (starting from the first, or the second with ``?start=second``) and applies it."""
    match = _get_match(pk)
    if not services.is_master_of(request.user, match):
        raise PermissionDenied("Only the league's ninja master may settle a disputed result.")
    if match.status != Match.Status.DISPUTED:
        messages.info(request, f"This match is {match.get_status_display().lower()}: there is nothing to settle.")
        return redirect(match)
    start = "second" if request.GET.get("start") == "second" else "first"
    players = services.players_game(match)
    if request.method == "POST" and "pick" in request.POST:
        try:
            services.match_settle(match=match, actor=request.user, pick=request.POST["pick"][:10])
        except ValidationError as exc:
            messages.error(request, " ".join(_errors(exc)))
            return redirect("matches:settle", pk=pk)
        messages.success(
            request, "Dispute settled." if players else "Dispute settled: the post-game sequence is applied."
        )
        return redirect(match)
    if players:  # a players' game is settled by picking one of the two records
        return render(
            request, "matches/game_settle.html", {"match": match, **_game_records(match, list(match.sides.all()))}
        )
    form = ResultForm.for_match(match, request.POST if request.method == "POST" else None, user=request.user)
    if request.method == "POST" and form.is_valid():
        record, upkeep, faces = form.to_record()
        try:
            services.match_settle(match=match, actor=request.user, record=record, upkeep=upkeep, downtime_faces=faces)
        except ValidationError as exc:
            for message in _errors(exc):
                form.add_error(None, message)
        else:
            messages.success(request, "Dispute settled with your edited record: the post-game sequence is applied.")
            return redirect(match)
    elif request.method != "POST":
        form.initial = submission_initial(form, match.counter_record if start == "second" else match.submitted_record)
        # each ronin's upkeep as its own team decided it (the records hold their authors' own)
        form.initial.update({f"u{k}": v for k, v in (match.upkeep_choices or {}).items() if f"u{k}" in form.fields})
    first = selectors.record_view(match, match.submitted_record, other=match.counter_record)
    second = selectors.record_view(match, match.counter_record, other=match.submitted_record)
    return render(
        request,
        "matches/settle.html",
        {
            "match": match,
            "form": form,
            "start": start,
            "first_record": first,
            "second_record": second,
            "differences": selectors.record_differences(first),
        },
    )


@login_required
def void(request: HttpRequest, pk: int) -> HttpResponse:
    match = _get_match(pk)
    if not services.is_master_of(request.user, match):
        raise PermissionDenied("Only the league's ninja master may void a result.")
    refusal = services.void_refusal(match)
    form = VoidForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            services.match_void(match=match, actor=request.user, reason=form.cleaned_data["reason"])
        except ValidationError as exc:
            for message in _errors(exc):
                form.add_error(None, message)
        else:
            messages.success(request, "The result is voided; every effect has been reversed.")
            return redirect(match)
    return render(request, "matches/void_confirm.html", {"match": match, "form": form, "refusal": refusal})


@login_required
def advancement_choose(request: HttpRequest, roll_pk: int) -> HttpResponse:
    roll = get_object_or_404(
        AdvancementRoll.objects.select_related("ninja", "ninja__team", "ninja__team__league", "ninja__profile"),
        pk=roll_pk,
    )
    team = roll.ninja.team
    require_manage_team(request.user, team)
    if roll.status != AdvancementRoll.Status.PENDING:
        messages.info(request, "This advancement roll has already been used.")
        return redirect(team)
    if not roll.faces:
        form = AdvancementFacesForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            try:
                services.advancement_enter_faces(
                    roll=roll, faces=[form.cleaned_data["first"], form.cleaned_data["second"]], actor=request.user
                )
            except ValidationError as exc:
                for message in _errors(exc):
                    form.add_error(None, message)
            else:
                return redirect("matches:advancement_choose", roll_pk=roll.pk)
        return render(request, "matches/advancement_faces.html", {"roll": roll, "form": form})
    options, keyword_texts = services.advancement_offer(roll)
    choices = []
    for option in options:
        if option.kind == "keyword":
            label = f"Keyword: {option.keyword} ({option.category})"
        elif option.kind == "attribute":
            label = f"+1 {option.attribute.capitalize()}"
        else:
            label = f"Additional affinity: {option.affinity.value}"
        if option.doubles_only:
            label += " — doubles"
        if option.kind == "keyword":  # the keyword's rule text under its name (issue 27, finding 9)
            label = format_html(
                '{}<small class="d-block text-muted" data-testid="keyword-text">{}</small>',
                label,
                keyword_texts[option.keyword],
            )
        choices.append((services.option_key(option), label))
    form = AdvancementChoiceForm(request.POST if request.method == "POST" else None, options=choices)
    if request.method == "POST" and form.is_valid():
        try:
            adv = services.advancement_choose(roll=roll, choice=form.cleaned_data["choice"], actor=request.user)
        except ValidationError as exc:
            for message in _errors(exc):
                form.add_error(None, message)
        else:
            messages.success(request, f"{roll.ninja.name} takes: {adv}.")
            return redirect(team)
    return render(request, "matches/advancement_choose.html", {"roll": roll, "form": form})
