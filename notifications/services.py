"""Notifications: who is told what, in the site's list and by email.

Every write here runs inside the transaction of the event it tells about (the hooks of matches,
league and newsletters call it there): the notification rows are bulk-created with the event, and
the emails are queued through the outbox after the commit (``outbox.mail.send_mail_on_commit``), so
a rolled-back event tells nobody and a broker outage delays an email but never loses it.

The one who acted is never told of what he did himself (a player who confirms a result gets no
notification of it), except for an advancement roll to choose: that waits for him whoever confirmed.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from common.site import absolute_url
from league.dashboard import due_expression
from matches import hooks as match_hooks
from matches.models import Match, MatchTeam
from matches.services import ronin_of, upkeep_choices_of
from notifications.models import DeadlineReminder, Kind, Notification, Preference
from notifications.tokens import make_token
from outbox.mail import send_mail_on_commit
from teams.models import AdvancementRoll, level_name

TEXT_MAX = 300
#: At most this many fixtures are reminded of by one run of the periodic task (the next run does the rest).
DEADLINE_BATCH = 500


def unsubscribe_url(*, user_id: int, kind: str) -> str:
    return absolute_url(reverse("notifications:unsubscribe", kwargs={"token": make_token(user_id=user_id, kind=kind)}))


def unsubscribe_headers(*, user_id: int, kind: str) -> dict[str, str]:
    """RFC 2369 and RFC 8058 headers: a mail client may unsubscribe with one POST, no page."""
    return {
        "List-Unsubscribe": f"<{unsubscribe_url(user_id=user_id, kind=kind)}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }


# --- preferences ----------------------------------------------------------------------------------


def preferences_for(user_ids: Collection[int], kind: str) -> dict[int, tuple[bool, bool]]:
    """(email, site) for each user (no row: both on), in one query."""
    chosen = {
        user_id: (email, site)
        for user_id, email, site in Preference.objects.filter(user_id__in=list(user_ids), kind=kind).values_list(
            "user_id", "email", "site"
        )
    }
    return {user_id: chosen.get(user_id, (True, True)) for user_id in user_ids}


def user_preferences(user) -> dict[str, tuple[bool, bool]]:
    """(email, site) for every kind, for one user."""
    chosen = {kind: (email, site) for kind, email, site in user.notification_prefs.values_list("kind", "email", "site")}
    return {kind: chosen.get(kind, (True, True)) for kind in Kind.values}


def preferences_set(*, user, choices: Mapping[str, tuple[bool, bool]]) -> None:
    """Store the user's choice for each kind given (unknown kinds are ignored)."""
    with transaction.atomic():
        for kind, (email, site) in choices.items():
            if kind not in Kind.values:
                continue
            Preference.objects.update_or_create(
                user=user, kind=kind, defaults={"email": bool(email), "site": bool(site)}
            )


def unsubscribe(*, user_id: int, kind: str) -> None:
    """Turn off the emails of one kind (the site's list keeps its setting). Doing it twice is harmless."""
    if kind not in Kind.values:
        raise ValueError(f"unknown kind {kind!r}")
    with transaction.atomic():
        pref, created = Preference.objects.get_or_create(user_id=user_id, kind=kind, defaults={"email": False})
        if not created and pref.email:
            pref.email = False
            pref.save(update_fields=["email"])


# --- telling --------------------------------------------------------------------------------------


def notify(
    *,
    kind: str,
    messages: Iterable[tuple[int, str, str]],
    exclude: int | None = None,
    email: bool = True,
) -> list[Notification]:
    """Tell each (user id, text, url): a notification row for those who take them on the site and an
    email, after the commit, for those who take them by email. ``exclude``: the one who acted.
    ``email=False``: the site's list only (the kind has its own email, as a newsletter)."""
    messages = [(user_id, text[:TEXT_MAX], url) for user_id, text, url in messages if user_id and user_id != exclude]
    if not messages:
        return []
    prefs = preferences_for({user_id for user_id, _t, _u in messages}, kind)
    rows = Notification.objects.bulk_create(
        [
            Notification(user_id=user_id, kind=kind, text=text, url=url)
            for user_id, text, url in messages
            if prefs[user_id][1]
        ]
    )
    if email:
        wanted = {user_id for user_id, (by_email, _site) in prefs.items() if by_email}
        addresses = dict(get_user_model().objects.filter(pk__in=wanted).exclude(email="").values_list("pk", "email"))
        for user_id, text, url in messages:
            if user_id in addresses:
                _email(user_id=user_id, address=addresses[user_id], kind=kind, text=text, url=url)
    return rows


def _email(*, user_id: int, address: str, kind: str, text: str, url: str) -> None:
    unsubscribe_link = unsubscribe_url(user_id=user_id, kind=kind)
    body = (
        f"{text}\n\n"
        + (f"{absolute_url(url)}\n\n" if url else "")
        + f"Your notifications: {absolute_url(reverse('notifications:list'))}\n"
        + f"Stop emails like this one ({Kind(kind).label.lower()}): {unsubscribe_link}\n"
        + f"Choose what you are told: {absolute_url(reverse('notifications:settings'))}\n"
    )
    send_mail_on_commit(
        subject=f"Moonlight League: {text}",
        body=body,
        to=[address],
        headers=unsubscribe_headers(user_id=user_id, kind=kind),
        description=f"Notification mail ({kind}) to user {user_id}",
    )


def _sides(matches: Sequence[Match]) -> dict[int, list[MatchTeam]]:
    sides: dict[int, list[MatchTeam]] = defaultdict(list)
    for side in (
        MatchTeam.objects.filter(match__in=[m.pk for m in matches]).select_related("team").order_by("match_id", "slot")
    ):
        sides[side.match_id].append(side)
    return sides


def _pairing(sides: Sequence[MatchTeam]) -> str:
    """ "A v B" for a match of two; a table of more: "a table of A, B, C and D"."""
    names = [side.team.name for side in sides]
    if len(names) <= 2:
        return " v ".join(names)
    return "a table of " + ", ".join(names[:-1]) + " and " + names[-1]


def _score(sides: Sequence[MatchTeam]) -> str:
    return " – ".join(f"{side.team.name} {side.points}" for side in sides)


def fixtures_created(matches: Sequence[Match]) -> list[Notification]:
    """A new round's fixtures (or one arranged fixture): each side's owner is told of his fixture."""
    sides = _sides(matches)
    messages = []
    for match in matches:
        where = f"round {match.round_number}" if match.round_number else "a new fixture"
        pairing = _pairing(sides[match.pk])
        messages.extend(
            (side.team.owner_id, f"Fixture, {where}: {pairing}", match.get_absolute_url()) for side in sides[match.pk]
        )
        # The random challenge generator named a player to choose the challenge (issue 27, finding 5).
        slot = None if match.challenge_id else Match.CHOOSER_SLOTS.get(match.challenge_chooser)
        chooser = next((side for side in sides[match.pk] if side.slot == slot), None)
        if chooser is not None:
            messages.append(
                (
                    chooser.team.owner_id,
                    f"The dice named you to choose the challenge of {pairing} ({where})",
                    reverse("league:fixture_challenge", kwargs={"pk": match.pk}),
                )
            )
    return notify(kind=Kind.FIXTURE, messages=messages)


def result_event(event: str, match: Match, actor, extra: Mapping) -> list[Notification]:
    """A step of a result's life (matches/hooks.py): who is told, and what."""
    if match.simulated:
        # A simulation's games tell nobody, but the rolls they leave wait for a choice: told when
        # the match's transaction commits, only those still pending then (the "auto" policy takes
        # them in that transaction: nobody is asked to choose a roll already chosen).
        if event == match_hooks.CONFIRMED:
            transaction.on_commit(lambda: _advancements(match), robust=True)
        return []
    sides = _sides([match])[match.pk]
    actor_id = getattr(actor, "pk", None)
    pairing = _pairing(sides)
    url = match.get_absolute_url()
    if event == match_hooks.SUBMITTED:
        submitter_teams = {s.team_id for s in sides if s.team.owner_id == match.submitted_by_id}
        messages = [
            (s.team.owner_id, f"A result waits for your confirmation: {pairing}", url)
            for s in sides
            if s.team_id not in submitter_teams
        ]
        return notify(kind=Kind.TO_CONFIRM, messages=_unique(messages), exclude=actor_id)
    if event == match_hooks.UPKEEP:
        # an accepted result waits for the owners of the ronin nobody has decided yet
        decided = upkeep_choices_of(match)
        owners = {side.team.owner_id for nid, (side, _) in ronin_of(sides).items() if nid not in decided}
        messages = [(owner, f"Decide your ronin's upkeep: {pairing}", url) for owner in sorted(owners)]
        return notify(kind=Kind.TO_CONFIRM, messages=_unique(messages), exclude=actor_id)
    if event == match_hooks.CONFIRMED:
        told = notify(
            kind=Kind.RESULT,
            messages=_unique((s.team.owner_id, f"Result confirmed: {_score(sides)}", url) for s in sides),
            exclude=actor_id,
        )
        return told + _advancements(match)
    if event == match_hooks.REJECTED:
        reason = extra.get("reason") or ""
        text = f"Your result was sent back: {pairing}" + (f" ({reason})" if reason else "")
        return notify(kind=Kind.RESULT, messages=[(extra.get("submitted_by_id"), text, url)], exclude=actor_id)
    if event == match_hooks.DISPUTED:
        master_id = match.league.master_id if match.league_id else None
        messages = [
            (match.submitted_by_id, f"Your result is disputed: {pairing}", url),
            (master_id, f"A result is disputed and waits for you to settle it: {pairing}", url),
        ]
        return notify(kind=Kind.RESULT, messages=_unique(messages), exclude=actor_id)
    return []


def _unique(messages: Iterable[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """One message per user (a player with both teams of a match is told once)."""
    seen: dict[int, tuple[int, str, str]] = {}
    for message in messages:
        seen.setdefault(message[0], message)
    return list(seen.values())


def _advancements(match: Match) -> list[Notification]:
    rolls = AdvancementRoll.objects.filter(match=match, status=AdvancementRoll.Status.PENDING).values_list(
        "pk", "ninja__name", "level", "ninja__team__owner_id"
    )
    messages = [
        (
            owner_id,
            f"{name} became {level_name(level)}: choose an advancement",
            reverse("matches:advancement_choose", kwargs={"roll_pk": pk}),
        )
        for pk, name, level, owner_id in rolls
    ]
    return notify(kind=Kind.ADVANCEMENT, messages=messages)


def application_decided(team, league, accepted: bool) -> list[Notification]:
    if accepted:
        text, url = f"{team.name} was accepted into {league.name}", league.get_absolute_url()
    else:
        text, url = f"{team.name}'s application to {league.name} was refused", team.get_absolute_url()
    return notify(kind=Kind.APPLICATION, messages=[(team.owner_id, text, url)], exclude=league.master_id)


def newsletter_published(newsletter) -> list[Notification]:
    """Every player of the league is told on the site (the email is the newsletter itself, sent by
    the newsletters app to those who take newsletters by email)."""
    from newsletters.selectors import recipients

    text = f"Newsletter published: {newsletter.title}"
    messages = [(user.pk, text, newsletter.get_absolute_url()) for user in recipients(newsletter.league)]
    return notify(kind=Kind.NEWSLETTER, messages=messages, exclude=newsletter.published_by_id, email=False)


def newsletter_mail_refused(user_ids: Collection[int]) -> set[int]:
    return {user_id for user_id, (email, _site) in preferences_for(set(user_ids), Kind.NEWSLETTER).items() if not email}


def newsletter_mail_headers(user_id: int) -> dict[str, str]:
    return unsubscribe_headers(user_id=user_id, kind=Kind.NEWSLETTER)


# --- deadlines (the periodic task) ----------------------------------------------------------------


def fixtures_near_deadline(*, today: dt.date | None = None, days: int | None = None):
    """Unplayed fixtures whose deadline (their own, else their round's) is within ``days`` from
    today and whose players were not reminded yet."""
    today = today or timezone.localdate()
    days = settings.NOTIFICATIONS_DEADLINE_DAYS if days is None else days
    return (
        Match.objects.filter(status=Match.Status.SCHEDULED, season__isnull=False, deadline_reminder__isnull=True)
        .annotate(due=due_expression())
        .filter(due__gte=today, due__lte=today + dt.timedelta(days=days))
        .order_by(F("due").asc(), "pk")
    )


def deadline_reminders_send(*, today: dt.date | None = None) -> int:
    """Remind the players of each fixture near its deadline, once per fixture (a reminder row,
    unique per fixture, is written with the notifications: a second run, or two at once, tell
    nobody twice). Returns the number of fixtures reminded of."""
    reminded = 0
    candidates = list(fixtures_near_deadline(today=today).values_list("pk", "due")[:DEADLINE_BATCH])
    for match_id, due in candidates:
        with transaction.atomic():
            _reminder, created = DeadlineReminder.objects.get_or_create(match_id=match_id)
            if not created:
                continue
            match = Match.objects.get(pk=match_id)
            sides = _sides([match])[match_id]
            text = f"Deadline {due:%d %b %Y}: {_pairing(sides)} is not played yet"
            notify(
                kind=Kind.DEADLINE,
                messages=_unique((s.team.owner_id, text, match.get_absolute_url()) for s in sides),
            )
            reminded += 1
    return reminded


# --- reading them ---------------------------------------------------------------------------------


def notification_read(*, user, notification_id: int) -> Notification | None:
    """Mark one of the user's notifications read (another user's: None, nothing written)."""
    notification = Notification.objects.filter(pk=notification_id, user=user).first()
    if notification is not None and notification.read_at is None:
        notification.read_at = timezone.now()
        notification.save(update_fields=["read_at"])
    return notification


def notifications_read_all(*, user) -> int:
    return Notification.objects.filter(user=user, read_at__isnull=True).update(read_at=timezone.now())


def unread_count(user) -> int:
    """One query (a partial index serves it)."""
    return Notification.objects.filter(user=user, read_at__isnull=True).count()
