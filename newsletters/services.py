"""Writes for newsletters: request a build, build (the task's service), edit, publish, email.

Idempotent by construction:

- one newsletter per league and period (unique constraint; ``get_or_create`` then a row lock), so
  asking twice, a retried task or the weekly schedule all land on the same row;
- a build rewrites a draft and never touches a published newsletter (checked under the row lock
  just before writing);
- each email is a NewsletterDelivery row per player (unique per newsletter and player), locked
  while it is sent and marked sent afterwards, so a retry or a second publish never emails a
  player twice. One player's failure is recorded on that row and retried by its own task; the
  others do not wait for it.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

import cmarkgfm
import nh3
from celery import current_app
from cmarkgfm.cmark import Options as CmarkOptions
from django.core.exceptions import ValidationError
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from common import invalidation, text
from common.site import absolute_url, site_url
from games.registry import game_of
from league.models import League, Season
from matches.models import Match
from newsletters import content, hooks, selectors
from newsletters.models import EDITORIAL_MAX_LENGTH, Newsletter, NewsletterDelivery
from newsletters.periods import Period, last_complete_week
from newsletters.permissions import require_master
from outbox import jobs
from outbox.dispatch import dispatch_now

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]

# --- the editorial: Markdown, then sanitized -------------------------------------------------------

EDITORIAL_TAGS = {
    "p",
    "br",
    "hr",
    "strong",
    "em",
    "b",
    "i",
    "u",
    "s",
    "del",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "a",
    "img",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "sup",
    "sub",
    "abbr",
}
EDITORIAL_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "abbr": {"title"},
    "th": {"align"},
    "td": {"align"},
    "ol": {"start"},
}


#: GitHub-flavoured Markdown: tables, ~~strikethrough~~ and bare links, on top of CommonMark.
MARKDOWN_EXTENSIONS = ("table", "strikethrough", "autolink")
#: Elements nested deeper than this lose their tags (the text stays). The sanitiser's HTML parser
#: costs time in proportion to the depth at every tag, so 20,000 ">" (one blockquote inside the
#: next) took it 1.4 s; no editorial needs more than a few levels.
MAX_NESTING = 32
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)[^<>]*?(/?)>")
_VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "source", "track", "wbr"})


def cap_nesting(html: str, limit: int = MAX_NESTING) -> str:
    """Drop the tags of elements nested more than ``limit`` deep, in one pass (linear). The result
    still goes through the sanitiser, so unbalanced raw HTML can only lose tags, never gain any."""
    depth, out, pos = 0, [], 0
    for tag in _TAG.finditer(html):
        closing, name, self_closing = tag.group(1), tag.group(2).lower(), tag.group(3)
        if name in _VOID or self_closing:
            continue
        if closing:
            keep = depth <= limit
            depth = max(0, depth - 1)
        else:
            depth += 1
            keep = depth <= limit
        if not keep:
            out.append(html[pos : tag.start()])
            pos = tag.end()
    out.append(html[pos:])
    return "".join(out)


def render_markdown(text: str) -> str:
    """The master's Markdown as HTML safe to show on the site and in email.

    Rendered by cmark-gfm (CommonMark's reference parser in C, with GitHub's extensions), whose
    cost is linear in the input: the worst inputs known at the editorial's length limit render in
    milliseconds (tests/newsletters/test_editorial_limits.py; benchmarks/markdown_worst.py).
    Raw HTML is passed to nh3, which keeps a small set of tags and removes scripts, styles and
    event handlers with their content; elements nested more than MAX_NESTING deep lose their tags
    first. Call it outside any transaction: it holds no lock.
    """
    html = cmarkgfm.markdown_to_html_with_extensions(
        text or "", options=CmarkOptions.CMARK_OPT_UNSAFE, extensions=MARKDOWN_EXTENSIONS
    )
    return nh3.clean(
        cap_nesting(html),
        tags=EDITORIAL_TAGS,
        attributes=EDITORIAL_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
        clean_content_tags={"script", "style"},
    ).strip()


#: What the generated sections (newsletters/includes/_sections.html) and their charts
#: (newsletters/charts.py) are made of: the sections' HTML keeps these and nothing else.
SECTION_TAGS = EDITORIAL_TAGS | {
    "article",
    "section",
    "div",
    "span",
    "small",
    "figure",
    "svg",
    "title",
    "rect",
    "line",
    "polyline",
    "circle",
    "text",
}
SECTION_ATTRIBUTES = {
    **EDITORIAL_ATTRIBUTES,
    "*": {"class", "style", "role", "aria-label", "scope", "title"},
    "svg": {"xmlns", "width", "height", "viewBox"},
    "rect": {"x", "y", "width", "height", "fill"},
    "line": {"x1", "y1", "x2", "y2", "stroke"},
    "polyline": {"fill", "stroke", "stroke-width", "stroke-dasharray", "points"},
    "circle": {"cx", "cy", "r", "fill"},
    "text": {"x", "y", "fill", "font-size", "font-weight", "text-anchor", "transform"},
}


def sanitize_sections(html: str) -> str:
    """The generated sections' HTML through the same sanitiser as the editorial (nh3), with the
    tags the sections and their charts use: scripts, event handlers and any other tag go. The
    build stores what this returns, and so does an import (api/backup.py), whatever its document
    says; the sanitiser's output is its own fixed point, so a newsletter exported and imported
    again keeps its bytes."""
    return nh3.clean(
        cap_nesting(html or ""),
        tags=SECTION_TAGS,
        attributes=SECTION_ATTRIBUTES,
        generic_attribute_prefixes={"data-"},
        url_schemes={"http", "https", "mailto"},
        link_rel=None,
        clean_content_tags={"script", "style"},
    )


def validate_editorial(editorial: str) -> str:
    editorial = editorial or ""
    if len(editorial) > EDITORIAL_MAX_LENGTH:
        raise ValidationError(
            {"editorial": f"Keep the editorial under {EDITORIAL_MAX_LENGTH:,} characters (it has {len(editorial):,})."}
        )
    return editorial


# --- requesting and building -----------------------------------------------------------------------


def default_title(league: League, period: Period) -> str:
    return f"{league.name} newsletter — {period.label}"


def _validate_period(league: League, period: Period) -> Season | None:
    season = selectors.period_season(league, period)
    if period.is_round and season is None:
        raise ValidationError(f"{league.name} has no season {period.season_number}.")
    return season


#: The tasks these services queue, by their Celery names: the tasks call the services, so the services
#: name the tasks instead of importing them (NewslettersConfig.ready() imports newsletters.tasks, so
#: they are registered in every process).
BUILD_TASK = "newsletters.tasks.newsletter_build_task"
DELIVER_TASK = "newsletters.tasks.newsletter_deliver_task"


def _send(task_name: str, *, args: list, task_id: str | None = None, description: str = "") -> None:
    """Send a task (called after commit). With a broker, through the project's outbox, so a broker
    outage stores the task to be sent again later; without one (eager), it runs here, and a
    failure is already recorded on the newsletter or delivery row by its service."""
    task = current_app.tasks[task_name]
    if task.app.conf.task_always_eager:
        task.apply_async(args=args, task_id=task_id)
    else:
        dispatch_now(task, args=args, task_id=task_id, description=description)


def _dispatch_build(newsletter_id: int, task_id: str) -> None:
    _send(BUILD_TASK, args=[newsletter_id], task_id=task_id, description=f"Build newsletter {newsletter_id}")


def newsletter_request(*, league: League, period: Period, actor: User | None = None) -> Newsletter:
    """Find or create the league's newsletter for ``period`` and queue a (re)build after commit.

    A published newsletter is returned as it is: nothing is queued. ``actor`` None is the
    weekly schedule; otherwise only the league's master may ask.
    """
    if actor is not None:
        require_master(actor, league)
    season = _validate_period(league, period)
    with transaction.atomic():
        newsletter, _ = Newsletter.objects.get_or_create(
            league=league,
            period_key=period.key,
            defaults={
                "season": season,
                "kind": period.kind,
                "round_number": period.round_number,
                "iso_year": period.iso_year,
                "iso_week": period.iso_week,
                "sort_key": period.sort_key,
                "title": default_title(league, period),
            },
        )
        newsletter = Newsletter.objects.select_for_update().get(pk=newsletter.pk)
        if newsletter.is_published:
            return newsletter
        newsletter.build_task_id = uuid.uuid4().hex
        newsletter.build_status = Newsletter.BuildStatus.PENDING
        newsletter.build_progress = 0
        newsletter.build_step = "Waiting for a worker"
        newsletter.build_error = ""
        newsletter.queued_at, newsletter.restarts, newsletter.restart_note = timezone.now(), 0, ""
        newsletter.save(
            update_fields=[
                "build_task_id",
                "build_status",
                "build_progress",
                "build_step",
                "build_error",
                "queued_at",
                "restarts",
                "restart_note",
                "updated_at",
            ]
        )
        # robust: a failed eager build (recorded on the row by the task) does not break the request.
        newsletter_id, task_id = newsletter.pk, newsletter.build_task_id
        transaction.on_commit(lambda: _dispatch_build(newsletter_id, task_id), robust=True)
    return newsletter


def _progress_store(newsletter_id: int, percent: int, step: str, status: str = Newsletter.BuildStatus.RUNNING) -> None:
    with invalidation.changing(("newsletter", newsletter_id)):  # its league's pages (common/invalidation.py)
        Newsletter.objects.filter(pk=newsletter_id, status=Newsletter.Status.DRAFT).update(
            build_status=status, build_progress=percent, build_step=step[:100], heartbeat_at=timezone.now()
        )


def compose_sections(newsletter: Newsletter, *, step: Callable[[str], None] = lambda _: None) -> dict:
    """Read the period's facts and write every generated section (JSON-ready)."""
    league, season = newsletter.league, newsletter.season
    period = Period.from_key(newsletter.period_key)

    step("Reading the period's results")
    matches = selectors.period_matches(league, period, season)
    match_ids = [m.pk for m in matches]
    start, end = selectors.period_window(period, season)

    game = game_of(league)
    players = not game.team_scrolls
    if players:
        step("Writing the game reports")
        reports = [content.game_report(m, league.game) for m in matches]
    else:
        step("Writing the challenge reports")
        reports = [content.challenge_report(m) for m in matches]

    step("Working out the league table")
    sides = selectors.season_sides_through(season, period) if season else []
    games = selectors.group_by_match(sides)
    rows = selectors.table_through(season, sides, selectors.byes_through(season, period)) if season else []
    previous = selectors.previous_newsletter(newsletter)
    previous_table = None
    if previous is not None and previous.sections.get("table"):
        previous_table = {**previous.sections["table"], "title": previous.title}
    through = period.label if period.is_round else f"the end of week {period.iso_week}"
    table = content.table_section(rows, previous_table, through=through)

    step("Counting facts and stats")
    if players:
        # A players' game has no XP, injuries, treasuries, ronin or clans: its own statistics
        # (its Game's ``statistics``, through the protocol) over the season up to the period, and
        # the season's biggest win.
        played = [game_sides[0].match for game_sides in games.values()] if season else matches
        records = [
            r
            for m in played
            if (r := content.applied_record(m.submitted_record, m.counter_record, m.settlement)) is not None
        ]
        statistics = game.statistics(league=league, season=season, records=records) if game.statistics else None
        records_so_far = content.season_records(games)
        biggest = records_so_far["biggest_win"]
        stats = {
            "game": content.game_stats_section(statistics),
            # a margin of ninjas left (Ninjutsu, when recorded) or of treasure (Kage Masters); no
            # upset: a players' game has no team rating at kick-off
            "records": {"biggest_win": biggest if biggest and biggest["margin"] > 0 else None, "biggest_upset": None},
        }
    else:
        team_ids = sorted({r.team.pk for r in rows} | {s.team_id for m in matches for s in m.sides.all()})
        ups, taken = content.level_up_rows(selectors.level_ups(match_ids))
        stats = {
            "top_xp": content.top_xp_section(selectors.xp_earners(match_ids)),
            "level_ups": ups,
            "advancements": taken,
            "injuries": content.injuries_section(matches),
            "casualties": content.casualties_section(matches),
            "treasuries": content.treasuries_section(selectors.treasuries_at(team_ids, end, match_ids)),
            "ronin": content.ronin_section(
                selectors.ronin_hired(team_ids, start, end),
                matches,
                selectors.ronin_released_off_table(team_ids, start, end),
            ),
            "clan_records": content.clan_records(games),
            "records": content.season_records(games),
        }

    step("Drawing the charts")
    charts = content.chart_section(games, season, rows) if season else []

    return {
        "version": 1,
        "game": league.game,
        "players": players,
        "period": {"key": period.key, "kind": period.kind, "label": period.label},
        "season": {"id": season.pk, "number": season.number, "name": season.name} if season else None,
        "matches": len(matches),
        "reports": reports,
        "table": table,
        "stats": stats,
        "charts": charts,
        "previous": {"id": previous.pk, "title": previous.title, "key": previous.period_key} if previous else None,
        "built_at": timezone.now().isoformat(),
    }


def newsletter_build(*, newsletter_id: int, progress: Progress | None = None) -> Newsletter | None:
    """Build (or rebuild) a draft's generated sections; never overwrites a published newsletter.

    The reads run outside any lock; the write happens under the row lock, after checking again
    that the newsletter is still a draft. Reports progress to the row (for the page) and to
    ``progress`` (the task's state).
    """
    newsletter = Newsletter.objects.select_related("league", "season").filter(pk=newsletter_id).first()
    if newsletter is None or newsletter.is_published:
        return newsletter
    jobs.heartbeat(Newsletter, newsletter_id, force=True)
    steps = [
        "Reading the period's results",
        "Writing the challenge reports",
        "Working out the league table",
        "Counting facts and stats",
        "Drawing the charts",
        "Laying out the newsletter",
    ]
    total = len(steps) + 1
    done = 0

    def step(label: str) -> None:
        nonlocal done
        done += 1
        _progress_store(newsletter_id, int(100 * done / total), label)
        if progress is not None:
            progress(done, total, label)

    sections = compose_sections(newsletter, step=step)
    step("Laying out the newsletter")
    context = {"newsletter": newsletter, "league": newsletter.league, "sections": sections}
    html = sanitize_sections(render_to_string("newsletters/includes/_sections.html", context))
    text = render_to_string("newsletters/email/sections.txt", context)
    with transaction.atomic():
        locked = Newsletter.objects.select_for_update().get(pk=newsletter_id)
        if locked.is_published:
            return locked
        locked.sections = sections
        locked.period_label = sections["period"]["label"][:150]
        locked.content_html = html
        locked.content_text = text
        locked.build_status = Newsletter.BuildStatus.DONE
        locked.build_progress = 100
        locked.build_step = f"Written: {len(sections['reports'])} {'game' if sections.get('players') else 'challenge'} report{'s' if len(sections['reports']) != 1 else ''}"
        locked.build_error = ""
        locked.built_at = timezone.now()
        locked.builds = locked.builds + 1
        locked.save(
            update_fields=[
                "sections",
                "period_label",
                "content_html",
                "content_text",
                "build_status",
                "build_progress",
                "build_step",
                "build_error",
                "built_at",
                "builds",
                "updated_at",
            ]
        )
    if progress is not None:
        progress(total, total, "Done")
    return locked


def newsletter_build_failed(*, newsletter_id: int, error: str) -> None:
    Newsletter.objects.filter(pk=newsletter_id, status=Newsletter.Status.DRAFT).update(
        build_status=Newsletter.BuildStatus.FAILED, build_error=error[:300], build_step="Failed"
    )


# --- the weekly schedule ----------------------------------------------------------------------------


def period_due(league: League, *, now=None) -> Period | None:
    """The period the weekly schedule drafts for a league: the latest completed round of its
    current season; for a season without rounds, last week, if any result came in during it."""
    season = league.seasons.exclude(status=Season.Status.FINISHED).order_by("-number").first()
    if season is not None:
        number = selectors.latest_completed_round(season)
        if number is not None:
            return Period.round(season.number, number)
    week = last_complete_week(now)
    start, end = week.window()
    if Match.objects.filter(
        league=league, status=Match.Status.CONFIRMED, confirmed_at__gte=start, confirmed_at__lt=end
    ).exists():
        return week
    return None


def newsletters_draft_due(*, now=None) -> list[Newsletter]:
    """For every league with something to report, draft (or redraft) the newsletter of its due
    period; each league's build is its own task. A failure for one league does not stop the rest."""
    drafted = []
    for league in League.objects.order_by("id"):
        try:
            period = period_due(league, now=now)
            if period is not None:
                drafted.append(newsletter_request(league=league, period=period))
        except Exception:
            logger.exception("could not draft the newsletter of league %s", league.pk)
    return drafted


# --- editing and publishing -------------------------------------------------------------------------


def newsletter_update(*, newsletter: Newsletter, title: str, editorial: str, actor: User | None) -> Newsletter:
    """The master edits a draft's title and editorial (rendered and sanitized now, before the row
    is locked: the lock is held only to check and write)."""
    require_master(actor, newsletter.league)
    title = text.clean_name(title, field="title", max_length=150, what="the newsletter a title")
    editorial = validate_editorial(editorial)
    editorial_html = render_markdown(editorial)
    with transaction.atomic():
        locked = Newsletter.objects.select_for_update().get(pk=newsletter.pk)
        if locked.is_published:
            raise ValidationError("This newsletter is published: it stays as it was published.")
        locked.title = title
        locked.editorial = editorial
        locked.editorial_html = editorial_html
        locked.save(update_fields=["title", "editorial", "editorial_html", "updated_at"])
    return locked


def newsletter_publish(*, newsletter: Newsletter, actor: User | None, send_email: bool = True) -> Newsletter:
    """Publish a built draft: it is frozen from now on. Emails every player (one task each).

    The editorial is rendered afresh before the row lock is taken; under the lock, an editorial
    changed in the meantime (another tab saved it) stops the publication, so what is published is
    what was rendered."""
    require_master(actor, newsletter.league)
    editorial = Newsletter.objects.values_list("editorial", flat=True).get(pk=newsletter.pk)
    editorial_html = render_markdown(editorial)
    with transaction.atomic():
        locked = Newsletter.objects.select_for_update().select_related("league").get(pk=newsletter.pk)
        if locked.editorial != editorial:
            raise ValidationError("The editorial was changed while publishing: review the draft and publish again.")
        if locked.is_published:
            raise ValidationError("This newsletter is already published.")
        if locked.is_building:
            raise ValidationError("The draft is being written: publish it when the build has finished.")
        if not locked.is_built:
            raise ValidationError("The draft has not been written yet.")
        now = timezone.now()
        locked.status = Newsletter.Status.PUBLISHED
        locked.published_at = now
        locked.published_by = actor
        locked.editorial_html = editorial_html
        locked.permalink = absolute_url(locked.get_absolute_url())
        locked.save(
            update_fields=["status", "published_at", "published_by", "editorial_html", "permalink", "updated_at"]
        )
        hooks.published(locked)
        if send_email:
            newsletter_email_players(newsletter=locked)
    return locked


# --- email ------------------------------------------------------------------------------------------


def _dispatch_delivery(delivery_id: int) -> None:
    _send(DELIVER_TASK, args=[delivery_id], description=f"Email newsletter delivery {delivery_id}")


def newsletter_email_players(*, newsletter: Newsletter) -> list[NewsletterDelivery]:
    """Record one delivery per player (skipping those already recorded) and queue each unsent
    one as its own task after commit."""
    if not newsletter.is_published:
        raise ValidationError("Only a published newsletter is emailed.")
    with transaction.atomic():
        existing = set(NewsletterDelivery.objects.filter(newsletter=newsletter).values_list("user_id", flat=True))
        players = [user for user in selectors.recipients(newsletter.league) if user.pk not in existing]
        refused = hooks.mail_refused([user.pk for user in players])  # who turned newsletter emails off
        new = [
            NewsletterDelivery(
                newsletter=newsletter,
                user=user,
                email=user.email or "",
                status=NewsletterDelivery.Status.PENDING
                if user.email and user.pk not in refused
                else NewsletterDelivery.Status.SKIPPED,
            )
            for user in players
        ]
        NewsletterDelivery.objects.bulk_create(new, ignore_conflicts=True)
        deliveries = list(
            NewsletterDelivery.objects.filter(
                newsletter=newsletter, status__in=[NewsletterDelivery.Status.PENDING, NewsletterDelivery.Status.FAILED]
            ).order_by("id")
        )
        for delivery in deliveries:
            # robust: a broker hiccup (or an eager failure) for one player does not stop the others.
            transaction.on_commit(lambda pk=delivery.pk: _dispatch_delivery(pk), robust=True)
    return deliveries


def newsletter_resend_deliveries(*, newsletter: Newsletter, actor: User | None) -> list[NewsletterDelivery]:
    """The master sends again every email of a published newsletter not sent yet: failed ones
    (their retries ran out) and waiting ones (e.g. their task was lost). Each is its own task,
    after commit. A delivery being sent right now (its row locked by a worker) is left to that
    worker, and one sent meanwhile is never sent twice (``delivery_send`` checks under its lock)."""
    require_master(actor, newsletter.league)
    if not newsletter.is_published:
        raise ValidationError("Only a published newsletter is emailed.")
    with transaction.atomic():
        deliveries = list(
            NewsletterDelivery.objects.select_for_update(skip_locked=True)
            .filter(newsletter=newsletter, status__in=selectors.UNSENT)
            .order_by("id")
        )
        NewsletterDelivery.objects.filter(
            pk__in=[d.pk for d in deliveries], status=NewsletterDelivery.Status.FAILED
        ).update(status=NewsletterDelivery.Status.PENDING)
        for delivery in deliveries:
            transaction.on_commit(lambda pk=delivery.pk: _dispatch_delivery(pk), robust=True)
    return deliveries


def absolutize_links(html: str, base: str) -> str:
    """Site-relative links made absolute for an email."""
    return html.replace('href="/', f'href="{base}/').replace("href='/", f"href='{base}/")


def newsletter_email(newsletter: Newsletter, to: str, *, user_id: int | None = None) -> EmailMultiAlternatives:
    """The email of a published newsletter: plain text and HTML, both from the stored content."""
    base = site_url()  # SITE_URL now, whatever host the newsletter was published from
    context = {
        "newsletter": newsletter,
        "league": newsletter.league,
        "permalink": absolute_url(newsletter.get_absolute_url()),
        "list_url": absolute_url(reverse("newsletters:list", kwargs={"league_slug": newsletter.league.slug})),
        "content_html": absolutize_links(newsletter.content_html, base),
        "editorial_html": absolutize_links(newsletter.editorial_html, base),
        "sections": newsletter.sections,
    }
    subject = f"[{newsletter.league.name}] {newsletter.title}"
    text = render_to_string("newsletters/email/newsletter.txt", context)
    html = render_to_string("newsletters/email/newsletter.html", context)
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        to=[to],
        headers={"List-Id": f"<{newsletter.league.slug}.newsletters.moonlight-league>", **hooks.mail_headers(user_id)},
    )
    message.attach_alternative(html, "text/html")
    return message


def delivery_send(*, delivery_id: int) -> NewsletterDelivery | None:
    """Send one player's email unless it was already sent. The delivery row is locked while
    sending; a failure is recorded (attempts, error) and then raised for the task to retry."""
    failure: Exception | None = None
    with transaction.atomic():
        delivery = (
            NewsletterDelivery.objects.select_for_update(of=("self",))
            .select_related("newsletter", "newsletter__league")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or delivery.status in (NewsletterDelivery.Status.SENT, NewsletterDelivery.Status.SKIPPED):
            return delivery
        delivery.attempts += 1
        try:
            newsletter_email(delivery.newsletter, delivery.email, user_id=delivery.user_id).send(fail_silently=False)
        except Exception as exc:
            delivery.status = NewsletterDelivery.Status.FAILED
            delivery.last_error = f"{type(exc).__name__}: {exc}"[:300]
            failure = exc
        else:
            delivery.status = NewsletterDelivery.Status.SENT
            delivery.sent_at = timezone.now()
            delivery.last_error = ""
        delivery.save(update_fields=["status", "attempts", "last_error", "sent_at"])
    if failure is not None:
        raise failure
    return delivery
