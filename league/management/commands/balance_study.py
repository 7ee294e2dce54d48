"""python manage.py balance_study: the balance study from one command (docs/simulation.md,
"Balance study"). Plays the plan (rules.engine.balance), prints the findings, writes the section of
docs/simulation.md and one SVG chart per challenge and level (``--docs``), and stores the study for
the site (``--save``)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from league import balance
from rules.engine.balance import StudyPlan, run_study


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x.strip())


def _names(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip())


class Command(BaseCommand):
    help = "Measure the stronger team's win rate by rating gap with and without each underdog bonus part."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--games", type=int, default=40, help="games a cell (default 40)")
        parser.add_argument("--gaps", default="0,5,10,20", help="rating gaps, comma-separated")
        parser.add_argument("--levels", default="cautious", help="policy levels, comma-separated")
        parser.add_argument("--challenges", default="", help="challenge slugs (default: all eight)")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--docs", action="store_true", help="write docs/simulation.md and docs/balance/*.svg")
        parser.add_argument("--docs-dir", default="", help="where docs/ is (default: the project's)")
        parser.add_argument("--save", action="store_true", help="store the study for the site's balance page")

    def handle(self, *args, **options) -> None:
        kw = dict(
            gaps=_ints(options["gaps"]), levels=_names(options["levels"]), games=options["games"], seed=options["seed"]
        )
        if options["challenges"]:
            kw["challenges"] = _names(options["challenges"])
        try:
            plan = StudyPlan(**kw)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        started = time.perf_counter()

        def progress(done: int, total: int) -> None:
            if done % 200 == 0 or done == total:
                self.stderr.write(f"{done}/{total} games ({time.perf_counter() - started:.0f} s)")
                sys.stderr.flush()

        cells = run_study(balance.profiles(), plan, progress=progress)
        for line in balance.summary(cells):
            self.stdout.write(line)
        if options["docs"]:
            docs = Path(options["docs_dir"] or Path(settings.BASE_DIR) / "docs")
            charts_dir = docs / "balance"
            charts_dir.mkdir(parents=True, exist_ok=True)
            names = []
            for challenge in plan.challenges:
                for level in plan.levels:
                    name = f"{challenge}-{level}.svg"
                    (charts_dir / name).write_text(balance.chart_svg(cells, challenge, level), encoding="utf-8")
                    names.append(name)
            balance.write_docs(docs / "simulation.md", balance.docs_section(cells, plan, "balance", names))
            self.stdout.write(f"wrote {docs / 'simulation.md'} and {len(names)} charts in {charts_dir}")
        if options["save"]:
            study = balance.balance_study_save(plan=plan, cells=cells)
            self.stdout.write(f"saved as {study}")
