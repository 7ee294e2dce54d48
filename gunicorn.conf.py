"""gunicorn settings of the web process (the Procfile: ``gunicorn league.wsgi --config gunicorn.conf.py``).

PORT and WEB_CONCURRENCY come from the environment, as the Procfile's command line did before.
gunicorn names itself in a ``Server:`` header of every answer and has no setting to stop it; the
name helps nobody but someone looking for a version to attack, so the response class is told to
leave the header out (issue 11, finding 9). The patch runs in the master, before the workers fork.
"""

import os

from gunicorn.http import wsgi

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
accesslog = "-"
timeout = 30

_default_headers = wsgi.Response.default_headers


def _default_headers_without_server(self):
    return [line for line in _default_headers(self) if not line.lower().startswith("server:")]


wsgi.Response.default_headers = _default_headers_without_server
