"""The one status view of long jobs, polled by their progress bars (outbox/progress.py)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, JsonResponse

from outbox import jobs, progress


def task_status(request: HttpRequest, task_id: str, kind: str) -> JsonResponse:
    """The progress of the job of kind ``kind`` (its label in outbox.jobs, given by the address)
    whose task is ``task_id``, in one query. 404 for an unknown task, or a job the user may not see."""
    job_kind = jobs.kind_labelled(kind)
    rows = job_kind.model.objects.select_related(*job_kind.related)
    row = rows.filter(**{job_kind.task_id_field: task_id}).first()
    if row is None:
        raise Http404("No such task")
    return job_status(request, job_kind, row)


def job_status(request: HttpRequest, kind: jobs.JobKind, row) -> JsonResponse:
    if kind.may_view is not None and not kind.may_view(request.user, row):
        raise Http404("No such task")
    return JsonResponse(progress.status_json(kind, row, app=kind.task().app))
