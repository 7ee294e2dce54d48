"""The balance study's page: the latest finished study's findings for everyone, a button for a
league's master to run a new one (a Celery task), and its progress."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from matches import balance
from matches.models import BalanceStudy
from matches.tasks import balance_study_task
from outbox.dispatch import dispatch_on_commit
from rules.engine.balance import VARIANTS
from rules.engine.simulation import LEVELS


class BalanceStudyForm(forms.Form):
    games = forms.IntegerField(min_value=1, max_value=balance.MAX_SITE_GAMES, initial=40, label="Games a cell")
    levels = forms.MultipleChoiceField(
        choices=[(name, name) for name in LEVELS], initial=["cautious"], widget=forms.CheckboxSelectMultiple
    )


def balance_study(request: HttpRequest) -> HttpResponse:
    latest = BalanceStudy.objects.filter(status=BalanceStudy.Status.DONE).first()
    current = BalanceStudy.objects.exclude(status=BalanceStudy.Status.DONE).first()
    rows = []
    if latest is not None:
        by = {(c["challenge"], c["level"], c["gap"], c["variant"]): c for c in latest.cells}
        keys = sorted({(c["challenge"], c["level"], c["gap"]) for c in latest.cells})
        rows = [(key, [by.get((*key, v)) for v in VARIANTS]) for key in keys]
    return render(
        request,
        "matches/balance_study.html",
        {
            "latest": latest,
            "current": current,
            "rows": rows,
            "variants": VARIANTS,
            "findings": latest.summary.splitlines() if latest else [],
            "can_request": balance.can_request(request.user),
            "form": BalanceStudyForm(),
        },
    )


@login_required
@require_POST
def balance_study_start(request: HttpRequest) -> HttpResponse:
    form = BalanceStudyForm(request.POST)
    if not form.is_valid():
        messages.error(request, "That study request was not understood.")
        return redirect("matches:balance_study")
    try:
        with transaction.atomic():
            study, created = balance.balance_study_request(
                actor=request.user, games=form.cleaned_data["games"], levels=form.cleaned_data["levels"]
            )
            if created:
                dispatch_on_commit(balance_study_task, args=[study.pk], task_id=study.task_id, description=str(study))
    except PermissionDenied:
        raise
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("matches:balance_study")
    if not created:
        messages.info(request, "A balance study is already under way.")
    return redirect("matches:balance_study")


def balance_study_status(request: HttpRequest, pk: int) -> JsonResponse:
    """Progress of a study, polled by the progress bar (the row is kept in step as it runs)."""
    study = get_object_or_404(BalanceStudy, pk=pk)
    state = {"done": "SUCCESS", "failed": "FAILURE", "running": "PROGRESS"}.get(study.status, "PENDING")
    percent = 100 if state == "SUCCESS" else (min(100, int(100 * study.done / study.total)) if study.total else 0)
    return JsonResponse(
        {
            "task_id": study.task_id,
            "state": state,
            "done": study.done,
            "total": study.total,
            "percent": percent,
            "ready": state in ("SUCCESS", "FAILURE"),
            "error": study.error,
            "note": "",
            "next_url": reverse("matches:balance_study"),
        }
    )
