"""Newsletter pages: the league's archive, one newsletter, the master's draft tools, build progress.

Pages show only what the newsletter stores (rendered at build time, frozen at publication), so
they run a fixed number of queries whatever the number of matches reported. Who may do what is
decided in newsletters.permissions; views validate a form and call one service.
"""

from __future__ import annotations

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from newsletters import selectors, services
from newsletters.forms import ActionForm, BuildForm, EditorialForm, PublishForm
from newsletters.models import Newsletter, NewsletterDelivery
from newsletters.periods import Period
from newsletters.permissions import can_manage, can_read, require_master
from outbox import jobs
from outbox.progress import progress_of
from outbox.views import job_status


def _build_form(league, data=None) -> BuildForm:
    return BuildForm(
        data,
        choices=selectors.period_choices(league),
        action=reverse("newsletters:build", kwargs={"league_slug": league.slug}),
    )


def _master_newsletter(request: HttpRequest, league_slug: str, key: str) -> Newsletter:
    newsletter = selectors.newsletter_for_page(league_slug, key)
    require_master(request.user, newsletter.league)
    return newsletter


def newsletter_list(request: HttpRequest, league_slug: str) -> HttpResponse:
    league = selectors.league_by_slug(league_slug)
    is_master = can_manage(request.user, league)
    context = {
        "league": league,
        "published": list(selectors.published(league)),
        "is_master": is_master,
        "drafts": list(selectors.drafts(league)) if is_master else [],
        "build_form": _build_form(league) if is_master else None,
    }
    return render(request, "newsletters/newsletter_list.html", context)


@login_required
@require_POST
def newsletter_build(request: HttpRequest, league_slug: str) -> HttpResponse:
    league = selectors.league_by_slug(league_slug)
    require_master(request.user, league)
    form = _build_form(league, request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a period for the newsletter.")
        return redirect("newsletters:list", league_slug=league.slug)
    try:
        newsletter = services.newsletter_request(league=league, period=form.cleaned_data["period"], actor=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("newsletters:list", league_slug=league.slug)
    if newsletter.is_published:
        messages.info(request, "This period's newsletter is already published; it stays as it was published.")
    return redirect(newsletter)


# The sections are stored with inline styles (they are also the email's HTML): this page alone
# allows style attributes. Still no inline script (docs/security.md, "Trust, round 2", 9).
@csp_update({"style-src-attr": [UNSAFE_INLINE]})
def newsletter_detail(request: HttpRequest, league_slug: str, key: str) -> HttpResponse:
    newsletter = selectors.newsletter_for_reading(league_slug, key)
    if not can_read(request.user, newsletter):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise PermissionDenied("Only the league's ninja master may read a draft.")
    league = newsletter.league
    is_master = can_manage(request.user, league)
    older, newer = selectors.neighbours(newsletter)
    context = {
        "newsletter": newsletter,
        "league": league,
        "is_master": is_master,
        "build": progress_of(jobs.kind_of(Newsletter), newsletter)
        if is_master and (newsletter.is_building or newsletter.build_status == Newsletter.BuildStatus.FAILED)
        else None,
        "older": older,
        "newer": newer,
        "deliveries": selectors.delivery_summary(newsletter) if is_master and newsletter.is_published else None,
        "rebuild_form": ActionForm(
            label="Rebuild the draft",
            action=reverse("newsletters:rebuild", kwargs={"league_slug": league.slug, "key": newsletter.period_key}),
        )
        if is_master and not newsletter.is_published
        else None,
    }
    return render(request, "newsletters/newsletter_detail.html", context)


@login_required
def newsletter_edit(request: HttpRequest, league_slug: str, key: str) -> HttpResponse:
    newsletter = _master_newsletter(request, league_slug, key)
    if newsletter.is_published:
        messages.info(request, "A published newsletter stays as it was published.")
        return redirect(newsletter)
    form = EditorialForm(request.POST if request.method == "POST" else None, instance=newsletter)
    preview = None
    if request.method == "POST" and form.is_valid():
        if "preview" in request.POST:
            preview = services.render_markdown(form.cleaned_data["editorial"])
        else:
            try:
                services.newsletter_update(
                    newsletter=newsletter,
                    title=form.cleaned_data["title"],
                    editorial=form.cleaned_data["editorial"],
                    actor=request.user,
                )
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                messages.success(request, "Draft saved. Review it below, then publish.")
                return redirect(newsletter)
    return render(
        request,
        "newsletters/newsletter_edit.html",
        {"newsletter": newsletter, "league": newsletter.league, "form": form, "preview": preview},
    )


@login_required
@require_POST
def newsletter_rebuild(request: HttpRequest, league_slug: str, key: str) -> HttpResponse:
    newsletter = _master_newsletter(request, league_slug, key)
    if newsletter.is_published:
        messages.info(request, "A published newsletter is never rebuilt.")
        return redirect(newsletter)
    try:
        services.newsletter_request(
            league=newsletter.league, period=Period.from_key(newsletter.period_key), actor=request.user
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    return redirect(newsletter)


@login_required
def newsletter_publish(request: HttpRequest, league_slug: str, key: str) -> HttpResponse:
    newsletter = _master_newsletter(request, league_slug, key)
    if newsletter.is_published:
        messages.info(request, "This newsletter is already published.")
        return redirect(newsletter)
    recipients = selectors.recipients(newsletter.league)
    form = PublishForm(request.POST if request.method == "POST" else None, recipients=len(recipients))
    if request.method == "POST" and form.is_valid():
        try:
            services.newsletter_publish(
                newsletter=newsletter,
                actor=request.user,
                send_email=form.cleaned_data["send_email"],
            )
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
            return redirect(newsletter)
        messages.success(
            request, "Published." + (" The players are being emailed." if form.cleaned_data["send_email"] else "")
        )
        return redirect(newsletter)
    return render(
        request,
        "newsletters/newsletter_publish.html",
        {"newsletter": newsletter, "league": newsletter.league, "form": form, "recipients": recipients},
    )


@login_required
def newsletter_deliveries(request: HttpRequest, league_slug: str, key: str) -> HttpResponse:
    """The master sees the emails of a published newsletter that are not sent (waiting or failed,
    with the error) and, after confirming, sends them again."""
    newsletter = _master_newsletter(request, league_slug, key)
    if not newsletter.is_published:
        messages.info(request, "A draft is emailed when it is published.")
        return redirect(newsletter)
    summary = selectors.delivery_summary(newsletter)
    unsent = summary[NewsletterDelivery.Status.PENDING] + summary[NewsletterDelivery.Status.FAILED]
    form = ActionForm(
        request.POST if request.method == "POST" else None,
        label=f"Send {unsent} email{'s' if unsent != 1 else ''} again",
        action="",
        css_class="btn-primary",
    )
    if request.method == "POST" and form.is_valid():
        try:
            resent = services.newsletter_resend_deliveries(newsletter=newsletter, actor=request.user)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            if resent:
                messages.success(
                    request, f"{len(resent)} email{'s are' if len(resent) != 1 else ' is'} being sent again."
                )
            else:
                messages.info(request, "Every email is sent (or being sent): nothing to send again.")
        return redirect("newsletters:deliveries", league_slug=league_slug, key=key)
    return render(
        request,
        "newsletters/newsletter_deliveries.html",
        {
            "newsletter": newsletter,
            "league": newsletter.league,
            "summary": summary,
            "unsent_count": unsent,
            "unsent": selectors.unsent_deliveries(newsletter) if unsent else [],
            "form": form if unsent else None,
        },
    )


@login_required
def newsletter_status(request: HttpRequest, league_slug: str, key: str) -> JsonResponse:
    """The build's progress by the newsletter's address (the master's): the one status view's answer."""
    newsletter = _master_newsletter(request, league_slug, key)
    return job_status(request, jobs.kind_of(Newsletter), newsletter)
