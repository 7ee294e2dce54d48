"""The site's Celery app for a worker started by the failure tests, with two test-only knobs.

    celery -A tests.trust.worker_app worker -P solo -c 1 -Q <queue>

* TRUST_VISIBILITY_TIMEOUT (seconds): how long Redis keeps an unacknowledged task before handing
  it to another worker (production: one hour). Short here, so a task whose worker was killed is
  redelivered within seconds.
* TRUST_PAUSE_FILE: at the task's first progress report with ``done >= 1`` (something made),
  write the reported progress to this file and sleep, so the test can kill the worker in the
  middle of the task.
* TRUST_RESUME_FILE (with TRUST_PAUSE_FILE): pause only until this file exists, then go on with
  the task, so the test can do something to the broker while the task is under way.

Nothing here is imported by the site; production behaviour is untouched.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from celery.app.task import Task

from league.celery import app

if os.environ.get("TRUST_VISIBILITY_TIMEOUT"):
    app.conf.broker_transport_options = {
        **(app.conf.broker_transport_options or {}),
        "visibility_timeout": float(os.environ["TRUST_VISIBILITY_TIMEOUT"]),
        "unacked_restore_interval": 1,
        "unacked_restore_throttle": 1,
    }

if os.environ.get("TRUST_PAUSE_FILE"):
    _update_state = Task.update_state

    def _update_state_then_pause(self, task_id=None, state=None, meta=None, **kwargs):
        _update_state(self, task_id=task_id, state=state, meta=meta, **kwargs)
        if state == "PROGRESS" and isinstance(meta, dict) and meta.get("done", 0) >= 1:
            Path(os.environ["TRUST_PAUSE_FILE"]).write_text(json.dumps({"task": self.name, "meta": meta}))
            resume = os.environ.get("TRUST_RESUME_FILE")
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline and not (resume and Path(resume).exists()):
                time.sleep(0.1)  # the test kills the worker here, or lets it go on

    Task.update_state = _update_state_then_pause

__all__ = ["app"]
