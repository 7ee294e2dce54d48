"""The REST API's endpoints. Reads use the selectors the pages use; writes call the services the
forms call, after the permission functions the pages ask (api.permissions)."""

from __future__ import annotations

from contextlib import contextmanager

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import transaction
from django.db.models import Max, Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema, extend_schema_view
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework import exceptions as drf_exceptions
from rest_framework import generics, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from api import permissions, queries, results
from api import serializers as s
from api.filters import MatchFilter, NewsletterFilter, NinjaFilter, ProfileFilter, SeasonFilter, TeamFilter
from api.pagination import PageQuery
from api.throttling import AnonThrottle, MemberThrottle, WriteThrottle
from games import registry as games_registry
from games.registry import game_of
from league import selectors as league_selectors
from league import services as league_services
from league.models import League, ScheduleRun, Season
from league.tasks import schedule_generate_task
from matches import selectors as match_selectors
from matches import services as match_services
from matches.models import REGULAR_STAGE, Match, MatchTeam
from newsletters.models import Newsletter
from outbox.dispatch import dispatch_on_commit
from rules import selectors as rules_selectors
from rules.engine import league as rules_league
from rules.models import AdvancementRow, Clan, DowntimeRow, Keyword, RevenueRow, XpLevel
from stats.selectors import leaderboards as leaderboard_selectors
from stats.selectors import ratings as rating_selectors
from stats.selectors.leaderboards import Scope
from teams import selectors as team_selectors
from teams.models import Advancement, Ninja, Team

WRITE_THROTTLES = [AnonThrottle, MemberThrottle, WriteThrottle]
SCROLL_GAMES = 20  # the scroll's latest games, as on the page (teams.views.SCROLL_GAMES); ?games=all for all


class ReadOnlyViewSet(viewsets.ReadOnlyModelViewSet):
    lookup_value_regex = r"[0-9]{1,18}"


class ListViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    pass


# --- the rules catalog ------------------------------------------------------------------------------


class ClanViewSet(ReadOnlyViewSet):
    queryset = Clan.objects.order_by("order", "name")
    serializer_class = s.ClanSerializer
    lookup_field = "slug"
    lookup_value_regex = r"[-\w]{1,100}"
    pagination_class = None


class ProfileViewSet(ReadOnlyViewSet):
    queryset = rules_selectors.profiles_for_display()
    serializer_class = s.ProfileSerializer
    lookup_field = "slug"
    lookup_value_regex = r"[-\w]{1,100}"
    filterset_class = ProfileFilter


class KeywordViewSet(ListViewSet):
    queryset = Keyword.objects.order_by("category", "order", "name")
    serializer_class = s.KeywordSerializer


class ChallengeViewSet(ReadOnlyViewSet):
    queryset = rules_selectors.challenges_with_awards()
    serializer_class = s.ChallengeSerializer
    lookup_field = "slug"
    lookup_value_regex = r"[-\w]{1,100}"
    pagination_class = None


class StatusEffectViewSet(ListViewSet):
    queryset = rules_selectors.status_effects()
    serializer_class = s.StatusEffectSerializer
    pagination_class = None


class RulesTablesView(APIView):
    """The league tables of the rulebook: XP levels, advancement, downtime and revenue."""

    @extend_schema(responses=s.RulesTablesSerializer)
    def get(self, request):
        data = {
            "xp_levels": XpLevel.objects.order_by("level"),
            "advancement": AdvancementRow.objects.order_by("order"),
            "downtime": DowntimeRow.objects.order_by("order"),
            "revenue": RevenueRow.objects.order_by("order"),
        }
        return Response(s.RulesTablesSerializer(data).data)


# --- leagues and seasons ----------------------------------------------------------------------------


class LeagueViewSet(ReadOnlyViewSet):
    lookup_field = "slug"
    lookup_value_regex = r"[-\w]{1,100}"

    def get_queryset(self):
        qs = league_selectors.leagues_for_list()
        if self.action == "retrieve":
            qs = qs.prefetch_related(
                Prefetch("seasons", queryset=Season.objects.order_by("number"), to_attr="all_seasons")
            )
        return qs

    def get_serializer_class(self):
        return s.LeagueDetailSerializer if self.action == "retrieve" else s.LeagueSerializer


class SeatingQuery(queries.QueryForm):
    round = queries.WholeNumberField(
        min_value=1, max_value=10_000, help_text="The round (left out: the latest round drawn)"
    )


#: The most games and byes a page of ``seasons/{id}/fixtures/`` holds (whole rounds; a round with
#: more is a page of its own): a 32-team round robin's 496 games in two pages, a 256-team one's
#: 32,640 in 255 (one, every round, took 19 s and 12 MB).
API_FIXTURES_PAGE_SIZE = 256


class FixturesQuery(queries.QueryForm):
    page = queries.WholeNumberField(
        min_value=1,
        max_value=2**31 - 1,
        help_text=f"A page of whole rounds (from 1; at most {API_FIXTURES_PAGE_SIZE} games and byes a page, "
        "a round with more alone); a page past the last: 404. The next page's address is the "
        '`Link` header\'s `rel="next"`.',
    )


class SeasonViewSet(ReadOnlyViewSet):
    queryset = Season.objects.select_related("league").order_by("league__slug", "number")
    serializer_class = s.SeasonSerializer
    filterset_class = SeasonFilter

    #: the master's writes on a season
    MASTER_WRITES = ("schedule", "seating_apply")

    def get_permissions(self):
        if self.action in self.MASTER_WRITES:
            return [IsAuthenticated(), permissions.IsSeasonMaster()]
        return super().get_permissions()

    def get_throttles(self):
        return [t() for t in WRITE_THROTTLES] if self.action in self.MASTER_WRITES else super().get_throttles()

    @extend_schema(responses=s.TableSerializer, filters=False)
    @action(detail=True, filterset_class=None, pagination_class=None)
    def table(self, request, pk=None):
        """The league table (sorted with the season's tie-breakers); a finished season's archived table."""
        season = self.get_object()
        if season.is_finished:
            rows = (season.final_table or {}).get("rows", [])
        else:
            rows = [row.as_dict() for row in league_selectors.league_table(season)]
        data = {"season": season.pk, "archived": season.is_finished, "tie_breakers": season.tie_breaker_list}
        return Response(s.TableSerializer({**data, "rows": rows}).data)

    @extend_schema(
        responses=s.RoundSerializer(many=True),
        parameters=[
            *queries.openapi_parameters(FixturesQuery),
            OpenApiParameter(
                "Link",
                str,
                OpenApiParameter.HEADER,
                response=[200],
                description='The next and previous pages (RFC 8288: `<url>; rel="next"`, `<url>; rel="prev"`), '
                "when there are.",
            ),
        ],
        filters=False,
    )
    @action(detail=True, filterset_class=None, pagination_class=None)
    def fixtures(self, request, pk=None):
        """The season's fixtures by round (regular rounds, arranged games, playoff rounds), with byes,
        a page of whole rounds at a time (``page``, from 1; the pages the site's fixtures page cuts,
        larger)."""
        season = self.get_object()
        asked = queries.cleaned(FixturesQuery, request.query_params).get("page", 1)
        page = league_selectors.fixtures_page(season, asked, size=API_FIXTURES_PAGE_SIZE)
        if asked > page.count:
            raise Http404("There is no such page of this season's fixtures.")
        response = Response(s.RoundSerializer(page.rounds, many=True).data)
        links = [(n, rel) for n, rel in ((page.number + 1, "next"), (page.number - 1, "prev")) if 1 <= n <= page.count]
        if links:
            response["Link"] = ", ".join(
                f'<{request.build_absolute_uri(f"{request.path}?page={n}")}>; rel="{rel}"' for n, rel in links
            )
        return response

    @extend_schema(request=s.ScheduleInput, responses={202: s.ScheduleRunSerializer}, filters=False)
    @action(detail=True, methods=["post"], filterset_class=None, pagination_class=None)
    def schedule(self, request, pk=None):
        """Generate fixtures (the master): a round robin, the next weekly or swiss round, or the playoffs.
        The fixtures are made by a background task; ``status_url`` reports its progress."""
        season = self.get_object()
        form = s.ScheduleInput(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        with transaction.atomic():
            run = league_services.schedule_request(
                season=season,
                kind=data["kind"],
                round_number=data.get("round_number"),
                challenge=data.get("challenge"),
                actor=request.user,
            )
            if run.status == ScheduleRun.Status.PENDING:
                dispatch_on_commit(
                    schedule_generate_task, args=[run.pk], task_id=run.task_id, description=f"Generate fixtures: {run}"
                )
        return Response(
            s.ScheduleRunSerializer(run, context={"request": request}).data, status=status.HTTP_202_ACCEPTED
        )

    @extend_schema(
        responses=s.RoundSeatingSerializer, parameters=queries.openapi_parameters(SeatingQuery), filters=False
    )
    @action(detail=True, filterset_class=None, pagination_class=None)
    def seating(self, request, pk=None):
        """A round's tables as they are seated (``round``; left out: the latest round drawn), and why
        their seating cannot change (``refusal``, null when the master may move players): the body
        of a seating move starts from it. Public, as the fixtures."""
        season = self.get_object()
        query = queries.cleaned(SeatingQuery, request.query_params)
        number = query.get("round") or _latest_round(season)
        tables = league_services.round_tables(season, number)
        refusal = league_services.seating_refusal(season, number, tables)
        data = {"season": season.pk, "round_number": number, "refusal": refusal, "tables": _tables_as_seated(tables)}
        return Response(s.RoundSeatingSerializer(data).data)

    @extend_schema(request=s.SeatingInput, responses=s.SeatingPlanSerializer, filters=False)
    @seating.mapping.post
    def seating_apply(self, request, pk=None):
        """Move players between the tables of a round before it starts (the master; a game played at
        tables): ``seating`` seats every player of the round at one of its tables (the match's id).
        With ``dry_run`` the answer is what would change and the repeat meetings it would add, and
        nothing is written; else the tables are seated so (``league.services.tables_reseat``)."""
        season = self.get_object()
        body = s.SeatingInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        number, seating = data["round_number"], data["seating"]
        tables = league_services.round_tables(season, number)
        refusal = league_services.seating_refusal(season, number, tables)
        if refusal:
            raise ValidationError(refusal)
        players = sum(len(m.sides.all()) for m in tables)
        if len(seating) > players:
            raise drf_exceptions.ValidationError(
                {"seating": [f"Round {number} seats {players} players: seat each of them once."]}
            )
        with _fields_named():
            if data["dry_run"]:
                plan = league_services.seating_plan(season=season, round_number=number, seating=seating)
            else:
                plan = league_services.tables_reseat(
                    season=season, round_number=number, seating=seating, actor=request.user
                )
        answer = {
            "dry_run": data["dry_run"],
            "season": season.pk,
            "round_number": number,
            "tables": [
                _table(m, i, [_player(t) for t in seated]) for i, (m, seated) in enumerate(plan.tables, start=1)
            ],
            "changes": plan.changes,
            "added_repeats": plan.added_repeats,
            "repeats_before": plan.repeats_before,
            "repeats_after": plan.repeats_after,
        }
        return Response(s.SeatingPlanSerializer(answer).data)


def _latest_round(season: Season) -> int:
    """The season's latest regular round drawn (1 when none is)."""
    latest = Match.objects.filter(season=season, stage=REGULAR_STAGE).aggregate(n=Max("round_number"))["n"]
    return latest or 1


def _player(team: Team, dropped_out: str = "") -> dict:
    return {"team": team.pk, "name": team.name, "dropped_out": dropped_out}


def _table(match: Match, number: int, players: list[dict]) -> dict:
    return {"match": match.pk, "table": number, "status": match.status, "players": players}


def _tables_as_seated(tables) -> list[dict]:
    """The round's tables (``league.services.round_tables``) as RoundTableSerializer reads them."""
    return [
        _table(m, i, [_player(x.team, x.dropped_out) for x in m.sides.all()]) for i, m in enumerate(tables, start=1)
    ]


@contextmanager
def _fields_named():
    """A service's refusal that names a field of the body (``{"below_minimum": ...}``) is the API's
    entry for that field; any other stays ``{"detail": [...]}`` (api.errors)."""
    try:
        yield
    except ValidationError as exc:
        if not hasattr(exc, "error_dict"):
            raise
        raise drf_exceptions.ValidationError(
            {("detail" if name == NON_FIELD_ERRORS else name): messages for name, messages in exc.message_dict.items()}
        ) from None


# --- matches ----------------------------------------------------------------------------------------


def _plain(value):
    """Validated data as plain JSON values (the record stored, compared with the site's)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _match_response(pk: int, request) -> Response:
    match = match_selectors.match_for_page(pk)
    outcomes = None
    if match.sequence_applied_at is not None or match.status == Match.Status.VOIDED:
        outcomes = match_selectors.sequence_outcomes(match)
    return Response(s.MatchDetailSerializer(match, context={"request": request, "outcomes": outcomes}).data)


def _document_of_the_matchs_game(match: Match, document) -> None:
    """A result document of another game than the match's is refused as a whole (the schema offers
    each game's document; which one a match takes is its league's game): All-Stars' has no
    ``game``, a players' game's names it."""
    posted = document.get("game") if isinstance(document, dict) else None
    game = game_of(match.league) if match.league_id is not None else None
    if game is None or game.team_scrolls:
        if posted is not None:
            name = game.name if game is not None else "All-Stars"
            raise ValidationError(f'This match is of {name}: its result has "sides", and no "game".')
    elif posted != match.league.game:
        raise ValidationError(
            f'This match is of {game.name}: its record starts {{"game": "{match.league.game}", ...}}.'
        )


@extend_schema_view(
    list=extend_schema(
        description="Fixtures and results, newest first; filter by league, season, status, round, team."
    ),
)
class MatchViewSet(ReadOnlyViewSet):
    filterset_class = MatchFilter

    def get_queryset(self):
        if self.action == "list":
            return (
                Match.objects.select_related("league", "challenge")
                .prefetch_related(Prefetch("sides", queryset=MatchTeam.objects.select_related("team").order_by("slot")))
                .distinct()
            )
        # the permission functions read the league's master and each side's owner (a drop-out: the
        # season's league's table sizes too)
        related = ("league", "season", "challenge") + (("season__league",) if self.action == "dropout" else ())
        return Match.objects.select_related(*related).prefetch_related(
            Prefetch("sides", queryset=MatchTeam.objects.select_related("team").order_by("slot"))
        )

    def get_serializer_class(self):
        return s.MatchSerializer if self.action == "list" else s.MatchDetailSerializer

    def get_permissions(self):
        if self.action in ("draft", "result", "upkeep"):
            return [IsAuthenticated(), permissions.CanEnterResult()]
        if self.action in ("confirm", "reject"):
            return [IsAuthenticated(), permissions.CanConfirmResult()]
        if self.action == "settle":
            return [IsAuthenticated(), permissions.CanSettleResult()]
        if self.action == "dropout":
            return [IsAuthenticated(), permissions.CanManageFixture()]
        return super().get_permissions()

    def get_throttles(self):
        if self.action in ("draft", "result", "confirm", "reject", "settle", "upkeep", "dropout"):
            return [t() for t in WRITE_THROTTLES]
        return super().get_throttles()

    def retrieve(self, request, pk=None):
        """A match with its full record."""
        return _match_response(self.get_object().pk, request)

    def _open_for_result(self, match: Match | None = None, *, players: bool = False) -> Match:
        """The match, open for its result: scheduled; for a players' game (``players``), also
        waiting for confirmation when the caller may enter his own record (the site's flow)."""
        match = match or self.get_object()
        game = game_of(match.league) if match.league_id is not None else None  # loaded with the match
        if game is not None and not game.can_enter_results:
            raise ValidationError(f"Entering results is not yet available for {game.name}.")
        if game is not None and not game.team_scrolls:
            if not players:
                raise ValidationError(f"{game.name} has no draft: submit the result (matches/{{id}}/result/).")
            if match.status == Match.Status.SCHEDULED or match_services.can_counter_submit(self.request.user, match):
                return match
            raise ValidationError(f"This match is {match.get_status_display().lower()}.")
        if match.status != Match.Status.SCHEDULED:
            raise ValidationError(f"This match is {match.get_status_display().lower()}.")
        if match.challenge_id is None:
            raise ValidationError("Choose the challenge before entering the result.")
        return match

    def _kicked_off_form(self, match: Match, document: dict):
        """Kick the match off if need be (a posted draft or result is an explicit act, as on the
        page) and bind the result page's form to the document. Inside the caller's transaction."""
        if match.kicked_off_at is None:
            match_services.match_kick_off(match=match)
        match = match_selectors.match_for_page(match.pk)
        form = results.result_form(match, None, user=self.request.user)
        form = results.result_form(match, results.form_data(document, form), user=self.request.user)
        return match, form

    @extend_schema(request=s.DraftInput, responses=s.DraftSerializer, filters=False)
    @action(detail=True, methods=["post"], filterset_class=None)
    def draft(self, request, pk=None):
        """Save a result still being entered (any part may be missing); the result page shows it."""
        match = self._open_for_result()
        document = s.DraftInput(data=request.data)
        document.is_valid(raise_exception=True)
        with transaction.atomic():
            match, form = self._kicked_off_form(match, document.validated_data)
            saved = match_services.match_save_draft(match=match, data=dict(form.data.items()), actor=request.user)
        return Response(s.DraftSerializer({"match": saved.pk, "draft": saved.result_draft}).data)

    @extend_schema(
        request=PolymorphicProxySerializer(
            component_name="MatchResult",
            serializers=lambda: [s.ResultInput, *s.game_result_inputs()],
            resource_type_field_name=None,
        ),
        responses=s.MatchDetailSerializer,
        filters=False,
    )
    @action(detail=True, methods=["post"], filterset_class=None)
    def result(self, request, pk=None):
        """Submit the result. All-Stars: each side's points and each model's feats; it waits for an
        opponent (or the master) to confirm, unless the league needs no confirmation or the master
        submits it: then the post-game sequence runs at once. Ninjutsu and Kage Masters: the game's
        record (``{"game": "ninjutsu", ...}``, ``{"game": "kage_masters", "seats": [...]}``), checked
        as on the site; while a result waits, another player of the match may post his own record:
        the same confirms it, a different one disputes it (the master settles)."""
        match = self.get_object()
        _document_of_the_matchs_game(match, request.data)
        if match.league_id is not None and not game_of(match.league).team_scrolls:
            return self._game_result(request, match)
        match = self._open_for_result(match)
        document = s.ResultInput(data=request.data)
        document.is_valid(raise_exception=True)
        with transaction.atomic():
            match, form = self._kicked_off_form(match, document.validated_data)
            if not form.is_valid():
                raise ValidationError(results.form_errors(form))
            record, upkeep, faces = form.to_record()
            match_services.match_submit_result(
                match=match, record=record, actor=request.user, upkeep=upkeep, downtime_faces=faces
            )
        return _match_response(match.pk, request)

    def _game_result(self, request, match: Match) -> Response:
        """A players' game's record: the document's shape (its game's input serializer), then the
        same service and checks as the site's form (time limit, the match's sides)."""
        match = self._open_for_result(match, players=True)
        document_class = game_of(match.league).api_result_input
        if document_class is None:
            raise ValidationError(f"Entering results is not yet available for {match.league.get_game_display()}.")
        document = document_class(data=request.data)
        document.is_valid(raise_exception=True)
        record = _plain(document.validated_data)
        match_services.match_submit_game_result(match=match, record=record, actor=request.user)
        return _match_response(match.pk, request)

    @extend_schema(request=s.UpkeepDecisionInput, responses=s.MatchDetailSerializer, filters=False)
    @action(detail=True, methods=["post"], filterset_class=None)
    def confirm(self, request, pk=None):
        """Confirm a submitted result (an opponent or the master): the post-game sequence runs.
        ``upkeep``: the confirmer's choices for his own ronin (left out: paid); another team's
        ronin waits for its owner (``upkeep_waits``, then the ``upkeep`` endpoint)."""
        match_services.match_confirm(match=self.get_object(), actor=request.user, upkeep=_upkeep(request))
        return _match_response(int(pk), request)

    @extend_schema(request=s.UpkeepDecisionInput, responses=s.MatchDetailSerializer, filters=False)
    @action(detail=True, methods=["post"], filterset_class=None)
    def upkeep(self, request, pk=None):
        """Decide the upkeep of your own ronin while an accepted result waits for it
        (``upkeep_waits``; the master may decide any side's); the post-game sequence runs once no
        ronin waits."""
        match_services.match_decide_upkeep(match=self.get_object(), actor=request.user, upkeep=_upkeep(request))
        return _match_response(int(pk), request)

    @extend_schema(request=s.DecisionInput, responses=s.MatchDetailSerializer, filters=False)
    @action(detail=True, methods=["post"], filterset_class=None)
    def reject(self, request, pk=None):
        """Send a submitted result back for correction (an opponent or the master)."""
        match = self.get_object()
        decision = s.DecisionInput(data=request.data)
        decision.is_valid(raise_exception=True)
        match_services.match_reject(match=match, actor=request.user, reason=decision.validated_data["reason"])
        return _match_response(match.pk, request)

    @extend_schema(request=s.SettleInput, responses=s.MatchDetailSerializer, filters=False)
    @action(detail=True, methods=["post"], filterset_class=None)
    def settle(self, request, pk=None):
        """Settle a disputed result (the league's master): apply the first record or the second."""
        match = self.get_object()
        choice = s.SettleInput(data=request.data)
        choice.is_valid(raise_exception=True)
        match_services.match_settle(match=match, actor=request.user, pick=choice.validated_data["pick"])
        return _match_response(match.pk, request)

    @extend_schema(
        request=s.DropoutInput,
        responses=PolymorphicProxySerializer(
            component_name="DropoutAnswer",
            serializers=[s.DropoutPlanSerializer, s.MatchDetailSerializer],
            resource_type_field_name=None,
        ),
        filters=False,
    )
    @action(detail=True, methods=["post"], filterset_class=None)
    def dropout(self, request, pk=None):
        """A player dropped out of a table (the league's master; a game played at tables, before the
        table's result is entered): ``player`` (his entry's id), ``when`` (before or during the game)
        and, for a table left below the smallest table, ``below_minimum`` (replay or dissolve). With
        ``dry_run`` the answer is what it would do (``facts``, as the site lists them) and nothing is
        written; else it is recorded (``league.services.table_dropout``) and the answer is the match."""
        match = self.get_object()
        refusal = league_services.dropout_refusal(match)
        if refusal:
            raise ValidationError(refusal)
        body = s.DropoutInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        side = next((x for x in match.sides.all() if x.team_id == data["player"]), None)
        if side is None:
            raise drf_exceptions.ValidationError({"player": [f"Entry {data['player']} is not at this table."]})
        what = {"match": match, "team": side.team, "when": data["when"], "below_minimum": data.get("below_minimum", "")}
        with _fields_named():
            if data["dry_run"]:
                plan = league_services.dropout_plan(**what)
                present = [_player(t) for t in plan.present]
                return Response(s.DropoutPlanSerializer({**vars(plan), "present": present, "dry_run": True}).data)
            league_services.table_dropout(**what, actor=request.user)
        return _match_response(match.pk, request)


def _upkeep(request) -> dict[int, str]:
    """The request's ``upkeep`` list (UpkeepDecisionInput, checked) as {ninja id: choice}."""
    body = s.UpkeepDecisionInput(data=request.data)
    body.is_valid(raise_exception=True)
    return {u["ninja"]: u["decision"] for u in body.validated_data.get("upkeep", [])}


# --- teams and ninjas -------------------------------------------------------------------------------


def _with_rating(teams):
    for team in teams:
        team.rating = rules_league.team_rating(team_selectors.team_snapshot(team, team.roster))
    return teams


class ScrollQuery(queries.QueryForm):
    games = forms.ChoiceField(choices=[("all", "all")], help_text="Every game, not only the latest 20")


class TeamViewSet(ReadOnlyViewSet):
    filterset_class = TeamFilter

    def get_queryset(self):
        if self.action == "ledger":
            return Team.objects.all()
        return (
            Team.objects.select_related("clan", "owner", "league")
            .prefetch_related(team_selectors.rating_prefetch())
            .order_by("id")
        )

    def get_serializer_class(self):
        return s.TeamDetailSerializer if self.action == "retrieve" else s.TeamSerializer

    def list(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(s.TeamSerializer(_with_rating(page), many=True).data)

    @extend_schema(parameters=queries.openapi_parameters(ScrollQuery))
    def retrieve(self, request, pk=None):
        """The team scroll: roster with every advancement applied, and its games (newest first)."""
        query = queries.cleaned(ScrollQuery, request.query_params)
        try:
            team = team_selectors.team_for_scroll(int(self.kwargs["pk"]))
        except (Team.DoesNotExist, ValueError):
            raise Http404("No such team") from None
        games = match_selectors.team_game_records(team)
        if query.get("games") != "all":
            games = games[:SCROLL_GAMES]
        team.rating = rules_league.team_rating(team_selectors.team_snapshot(team))
        context = {
            "request": request,
            "lines": [team_selectors.ninja_line(n) for n in team.roster],
            "games": [match_selectors.game_record_line(side) for side in games],
        }
        return Response(s.TeamDetailSerializer(team, context=context).data)

    @extend_schema(
        responses=s.LedgerPageSerializer,
        filters=False,
        parameters=queries.openapi_parameters(PageQuery),
    )
    @action(detail=True, filterset_class=None)
    def ledger(self, request, pk=None):
        """The team's koban ledger, newest first. Public, as the team scroll and its ledger page on the
        site are: the treasury every reader sees, row by row (docs/api.md, "Who may read a ledger")."""
        team = self.get_object()
        page = self.paginate_queryset(team.ledger.select_related("match").order_by("-id"))
        return self.get_paginated_response(s.TreasuryEntrySerializer(page, many=True).data)


def _ninja_queryset():
    from teams.models import AdvancementRoll

    return (
        Ninja.objects.select_related("profile")
        .prefetch_related(
            "profile__keywords",
            "profile__abilities",
            "chosen_abilities",
            Prefetch("advancements", queryset=Advancement.objects.select_related("keyword").order_by("id")),
            Prefetch(
                "advancement_rolls",
                queryset=AdvancementRoll.objects.filter(status=AdvancementRoll.Status.PENDING).order_by("id"),
                to_attr="pending_rolls",
            ),
        )
        .order_by("id")
    )


class NinjaViewSet(ReadOnlyViewSet):
    """Ninjas (released ones too), each with its profile as advanced."""

    serializer_class = s.NinjaLineSerializer
    filterset_class = NinjaFilter
    queryset = _ninja_queryset()

    def list(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(
            s.NinjaLineSerializer([team_selectors.ninja_line(n) for n in page], many=True).data
        )

    def retrieve(self, request, pk=None):
        return Response(s.NinjaLineSerializer(team_selectors.ninja_line(self.get_object())).data)


# --- newsletters ------------------------------------------------------------------------------------


class NewsletterViewSet(ReadOnlyViewSet):
    """Published newsletters, newest first."""

    filterset_class = NewsletterFilter
    permission_classes = [permissions.CanReadNewsletter]

    def get_queryset(self):
        qs = Newsletter.objects.select_related("league")
        if self.action == "list":
            return (
                qs.filter(status=Newsletter.Status.PUBLISHED)
                .defer("sections", "content_html", "content_text", "editorial", "editorial_html")
                .order_by("-published_at", "-id")
            )
        return qs.defer("sections")

    def get_serializer_class(self):
        return s.NewsletterDetailSerializer if self.action == "retrieve" else s.NewsletterSerializer


# --- leaderboards and strength ratings (stats) ------------------------------------------------------


class LeaderboardList(generics.ListAPIView):
    """Leaderboards and records of a scope (all time, a league, a season): the boards the
    leaderboards pages show (stats.selectors.leaderboards, one query a board), each with its first
    ``limit`` rows ranked (ties share a place); ``board`` for one of them. Each row links to the
    ninja, team or match behind it, on the site and in the API."""

    serializer_class = s.BoardSerializer
    filter_backends: list = []

    @extend_schema(parameters=[s.LeaderboardQuery])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def _scope(self, query: dict) -> Scope:
        league = None
        if "league" in query:
            league = get_object_or_404(League, slug=query["league"])
        if query["scope"] == "season":
            season = get_object_or_404(Season.objects.select_related("league"), pk=query["season"])
            if league is not None and season.league_id != league.pk:
                raise ValidationError({"season": "This season is not one of the league's."})
            scope = Scope(league=season.league, season=season)
        elif league is not None:
            scope = Scope(league=league)
        else:
            return Scope(game=query.get("game") or games_registry.DEFAULT)
        if "game" in query and query["game"] != scope.league.game:
            raise drf_exceptions.ValidationError({"game": ["The league is of another game."]})
        return scope

    def list(self, request, *args, **kwargs):
        query = s.LeaderboardQuery(data=queries.single_values(request.query_params, s.LeaderboardQuery().fields))
        query.is_valid(raise_exception=True)
        data = query.validated_data
        scope = self._scope(data)
        keys = [data["board"]] if "board" in data else None
        boards = leaderboard_selectors.leaderboards(scope, data["limit"], keys)
        page = self.paginate_queryset(boards)
        context = {
            "request": request,
            "scope": {
                "kind": scope.kind,
                "title": scope.title,
                "league": scope.league.slug if scope.league else None,
                "season": scope.season.pk if scope.season else None,
            },
            "url": request.build_absolute_uri(scope.page_url()),
            "csv_url": request.build_absolute_uri(scope.csv_url()),
        }
        return self.get_paginated_response(s.BoardSerializer(page, many=True, context=context).data)


class RatingList(generics.ListAPIView):
    """Strength ratings (docs/ratings.md) of one game's teams or coaches in one system, best first, as
    the ratings pages list them (stats.selectors.ratings); ``game`` the game (default the league's,
    else the first); ``league`` for a league's teams, or the coaches with a team in it."""

    serializer_class = s.StrengthRatingSerializer
    filter_backends: list = []

    @extend_schema(parameters=[s.RatingsQuery])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def list(self, request, *args, **kwargs):
        query = s.RatingsQuery(data=queries.single_values(request.query_params, s.RatingsQuery().fields))
        query.is_valid(raise_exception=True)
        data = query.validated_data
        league = get_object_or_404(League, slug=data["league"]) if "league" in data else None
        game = data.get("game") or (league.game if league is not None else games_registry.DEFAULT)
        if league is not None and league.game != game:
            raise drf_exceptions.ValidationError(
                {"league": [f"This league is of {league.game_info.name}, not of the game asked."]}
            )
        systems = rating_selectors.systems_of(game)
        system = data.get("system") or systems[0]
        if system not in systems:
            raise drf_exceptions.ValidationError(
                {"system": [f"{games_registry.get(game).name} is rated by {', '.join(systems)} only."]}
            )
        rows = rating_selectors.strength_ratings(
            coaches=data["kind"] == "coach", system=system, game=game, league=league
        )
        page = self.paginate_queryset(rows)
        start = self.paginator.page.start_index()
        for i, row in enumerate(page):
            row.position = start + i
        return self.get_paginated_response(
            s.StrengthRatingSerializer(page, many=True, context={"request": request}).data
        )


class ClubRatingList(generics.ListAPIView):
    """The club board (stats.selectors.ratings.club_members / club_rows, as its page): every rated
    member, a rating a game side by side (each game's own system, the place among its rated members),
    never added across games; ``league`` for a league's members, ``order`` the order."""

    serializer_class = s.ClubRowSerializer
    filter_backends: list = []

    @extend_schema(parameters=[s.ClubQuery])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def list(self, request, *args, **kwargs):
        query = s.ClubQuery(data=queries.single_values(request.query_params, s.ClubQuery().fields))
        query.is_valid(raise_exception=True)
        data = query.validated_data
        league = get_object_or_404(League, slug=data["league"]) if "league" in data else None
        page = self.paginate_queryset(rating_selectors.club_members(league=league, order=data["order"]))
        rows = rating_selectors.club_rows(page)
        return self.get_paginated_response(s.ClubRowSerializer(rows, many=True, context={"request": request}).data)


# --- the documentation page -------------------------------------------------------------------------


class DocsView(SpectacularSwaggerSplitView):
    """Swagger UI over the schema, served from the site (drf-spectacular-sidecar), its start-up
    script a file of its own and its page without inline style (templates/drf_spectacular/), so the
    site's strict Content-Security-Policy holds here as everywhere."""
