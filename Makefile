# Two commands: `make run` and `make test`. Both create .venv and install on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000
# The demo users' password, set by `make seed` (and so `make run`) every time (README, "Set-up").
DEMO_PASSWORD ?= moonlight-demo
# pytest-xdist workers for `make test` (each with its own test database and Redis database).
TEST_WORKERS ?= 2

.PHONY: install run test lint migrate seed worker beat clean

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 is required"'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(PY) manage.py migrate --noinput

seed: migrate
	$(PY) manage.py seed_demo --password $(DEMO_PASSWORD)

run: seed
	$(PY) manage.py runserver $(HOST):$(PORT)

# The whole suite on TEST_WORKERS workers, slow tests first (tests/budget.py), and its wall time
# (the install included) at the end.
test:
	@started=$$(date +%s); status=0; \
	$(MAKE) --no-print-directory install && $(PY) -m pytest -n $(TEST_WORKERS) --dist load || status=$$?; \
	echo "make test: wall time $$(( $$(date +%s) - started )) s (install and $(TEST_WORKERS) pytest workers; exit $$status)"; \
	exit $$status

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

worker: install
	$(VENV)/bin/celery -A league worker --loglevel=INFO

beat: install
	$(VENV)/bin/celery -A league beat --loglevel=INFO

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache
