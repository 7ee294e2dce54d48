"""The balance study's page: the latest finished study's findings for everyone, a button for a
league's master to run a new one (a Celery task), and its progress."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from league import balance
from league.tasks import balance_study_task
from matches.models import BalanceStudy
from outbox.dispatch import dispatch_on_commit
from outbox.progress import (
    CELERY_WORDS,
    DELAYED,
    DONE,
    FAILED,
    PENDING,
    RUNNING,
    Progress,
    RowProgress,
    progress_of,
    status_json,
)
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
        "league/balance_study.html",
        {
            "latest": latest,
            "current": current,
            "progress": study_progress(current) if current is not None else None,
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
        return redirect("simulation:balance_study")
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
        return redirect("simulation:balance_study")
    if not created:
        messages.info(request, "A balance study is already under way.")
    return redirect("simulation:balance_study")


def _study_progress(study: BalanceStudy) -> RowProgress:
    phase = {"done": DONE, "failed": FAILED, "running": RUNNING}.get(study.status, PENDING)
    return RowProgress(
        phase=phase, done=study.done, total=study.total, error=study.error, next_url=reverse("simulation:balance_study")
    )


def _study_message(p: Progress) -> str:
    if p.phase == FAILED:
        return f"The study stopped: {p.error}"
    if p.phase == DONE:
        return f"{p.done} games played."
    if p.delayed:
        return f"{DELAYED} The study is delayed, not lost: it starts as soon as the task runner is back."
    if p.phase == RUNNING and p.total:
        return f"{p.done} of {p.total} games…"
    return "Waiting for a worker…"


@dataclass(frozen=True)
class _StudyKind:
    """The balance study's progress bar (outbox/progress.py; a study is not a recoverable job)."""

    progress: Callable = _study_progress
    describe: Callable = _study_message
    state_words: Mapping[str, str] = field(default_factory=lambda: CELERY_WORDS)

    def task_id(self, study) -> str:
        return study.task_id


STUDY = _StudyKind()


def study_progress(study: BalanceStudy) -> Progress:
    return progress_of(STUDY, study)


def balance_study_status(request: HttpRequest, pk: int) -> JsonResponse:
    """Progress of a study, polled by the progress bar: the one progress stack's answer."""
    study = get_object_or_404(BalanceStudy, pk=pk)
    return JsonResponse(status_json(STUDY, study, app=balance_study_task.app))
