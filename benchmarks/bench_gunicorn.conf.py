"""gunicorn settings for the benchmarks: the web process's own (gunicorn.conf.py, with its
Server-header patch) without the access log, which would cost every request a line on stdout."""

from pathlib import Path

exec((Path(__file__).resolve().parents[1] / "gunicorn.conf.py").read_text())

accesslog = None
