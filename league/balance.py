"""The balance study on the site and in the docs: runs rules.engine.balance, stores the result for the
master (``BalanceStudy``), draws the charts (SVG, hand-built: a few lines each, no plotting library)
and writes the findings into docs/simulation.md (docs/simulation.md, "Balance study").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from rules.engine.balance import VARIANTS, Cell, StudyPlan, flips, run_study

CATALOG_PATH = Path(settings.BASE_DIR) / "rules" / "data" / "catalog.json"
DOC_START, DOC_END = "<!-- balance-study:start -->", "<!-- balance-study:end -->"
#: The largest study the site runs (games per cell); the command has no limit.
MAX_SITE_GAMES = 200
COLOURS = {"none": "#1b4f72", "all": "#b03a2e", "rerolls": "#7d3c98", "moon": "#1e8449", "all-stars": "#7f8c8d"}


def profiles() -> dict[str, dict]:
    catalog = json.loads(CATALOG_PATH.read_text(encoding="utf-8"))
    return {p["slug"]: p for clan in catalog["clans"] for p in clan["profiles"]}


def cells_from(rows: Sequence[dict]) -> list[Cell]:
    keys = ("challenge", "gap", "variant", "level", "games", "wins", "draws", "losses")
    return [Cell(*(row[k] for k in keys)) for row in rows]


def summary(cells: Sequence[Cell]) -> list[str]:
    """The findings in sentences: where a bonus part flips the result, and the largest gap's rates."""
    lines = []
    found = flips(cells)
    if found:
        parts: dict[tuple[str, str], list[str]] = {}
        for challenge, gap, variant, level in found:
            parts.setdefault((variant, level), []).append(f"{challenge} (gap {gap})")
        for (variant, level), where in sorted(parts.items()):
            lines.append(
                f"The {variant} bonus turns the stronger team's wins into losses ({level} play): {', '.join(where)}."
            )
    else:
        lines.append("No bonus part turns the stronger team's wins into losses.")
    by = {(c.challenge, c.gap, c.variant, c.level): c for c in cells}
    for level in sorted({c.level for c in cells}):
        for challenge in sorted({c.challenge for c in cells}):
            gaps = sorted({c.gap for c in cells if c.challenge == challenge and c.level == level})
            if not gaps:
                continue
            gap = gaps[-1]
            rates = [
                f"{v} {by[(challenge, gap, v, level)].win_rate:.0%}"
                for v in VARIANTS
                if (challenge, gap, v, level) in by
            ]
            lines.append(f"{challenge}, gap {gap}, {level}: stronger team wins " + ", ".join(rates) + ".")
    return lines


def chart_svg(cells: Sequence[Cell], challenge: str, level: str) -> str:
    """The stronger team's win rate by rating gap, one line per bonus variant, 95% Wilson whiskers."""
    width, height, left, bottom, top, right = 420, 260, 48, 36, 28, 110
    rows = [c for c in cells if c.challenge == challenge and c.level == level]
    gaps = sorted({c.gap for c in rows}) or [0]
    span = max(gaps[-1] - gaps[0], 1)

    def x(gap: int) -> float:
        return left + (gap - gaps[0]) / span * (width - left - right)

    def y(rate: float) -> float:
        return height - bottom - rate * (height - bottom - top)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{challenge}: stronger team win rate by rating gap ({level})">',
        f'<text x="{left}" y="16" font-family="sans-serif" font-size="13">{challenge} ({level})</text>',
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        out.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>'
            f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" font-family="sans-serif" font-size="10" text-anchor="end">'
            f"{tick:.0%}</text>"
        )
    for gap in gaps:
        out.append(
            f'<text x="{x(gap):.1f}" y="{height - bottom + 14}" font-family="sans-serif" font-size="10" '
            f'text-anchor="middle">{gap}</text>'
        )
    out.append(
        f'<text x="{(left + width - right) / 2:.0f}" y="{height - 6}" font-family="sans-serif" font-size="10" '
        f'text-anchor="middle">rating gap</text>'
    )
    for i, variant in enumerate(v for v in VARIANTS if any(c.variant == v for c in rows)):
        points = sorted((c.gap, c) for c in rows if c.variant == variant)
        colour = COLOURS[variant]
        path = " ".join(f"{x(g):.1f},{y(c.win_rate):.1f}" for g, c in points)
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        for g, c in points:
            low, high = c.interval
            out.append(
                f'<line x1="{x(g):.1f}" x2="{x(g):.1f}" y1="{y(low):.1f}" y2="{y(high):.1f}" stroke="{colour}" '
                f'stroke-opacity="0.5"/><circle cx="{x(g):.1f}" cy="{y(c.win_rate):.1f}" r="2.5" fill="{colour}"/>'
            )
        ly = top + 14 * i
        out.append(
            f'<line x1="{width - right + 10}" x2="{width - right + 26}" y1="{ly}" y2="{ly}" stroke="{colour}" '
            f'stroke-width="2"/><text x="{width - right + 30}" y="{ly + 4}" font-family="sans-serif" '
            f'font-size="10">{variant}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def docs_section(cells: Sequence[Cell], plan: StudyPlan, chart_dir: str, charts: Sequence[str]) -> str:
    """The markdown between the markers in docs/simulation.md."""
    lines = [
        DOC_START,
        "",
        f"Plan: {len(plan.challenges)} challenges, gaps {', '.join(map(str, plan.gaps))}, "
        f"{plan.games} games a cell, levels {', '.join(plan.levels)}, seed {plan.seed} "
        f"(`python manage.py balance_study --games {plan.games} --gaps {','.join(map(str, plan.gaps))} "
        f"--levels {','.join(plan.levels)} --seed {plan.seed}`).",
        "",
        "**Findings.**",
        "",
        *[f"* {line}" for line in summary(cells)],
        "",
        "| challenge | level | gap | " + " | ".join(VARIANTS) + " |",
        "|---|---|---|" + "---|" * len(VARIANTS),
    ]
    by = {(c.challenge, c.gap, c.variant, c.level): c for c in cells}
    for challenge in plan.challenges:
        for level in plan.levels:
            for gap in plan.gaps:
                row = []
                for v in VARIANTS:
                    c = by.get((challenge, gap, v, level))
                    if c is None:
                        row.append("")
                    else:
                        low, high = c.interval
                        row.append(f"{c.win_rate:.0%} ({low:.0%}-{high:.0%})")
                lines.append(f"| {challenge} | {level} | {gap} | " + " | ".join(row) + " |")
    lines += ["", "The stronger team's win rate (95% Wilson interval) by bonus variant.", ""]
    lines += [f"![{Path(name).stem}]({chart_dir}/{name})" for name in charts]
    lines += ["", DOC_END]
    return "\n".join(lines)


def write_docs(doc: Path, section: str) -> None:
    text = doc.read_text(encoding="utf-8")
    if DOC_START in text and DOC_END in text:
        head, rest = text.split(DOC_START, 1)
        _, tail = rest.split(DOC_END, 1)
        text = head + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    doc.write_text(text, encoding="utf-8")


# -- the study on the site -------------------------------------------------------------


def can_request(user) -> bool:
    from league.models import League

    return bool(user.is_authenticated and League.objects.filter(master=user).exists())


def balance_study_request(*, actor, games: int, levels: Sequence[str]):
    """Record a study for the master (one unfinished at a time: asking again returns it)."""
    from matches.models import BalanceStudy

    if not can_request(actor):
        raise PermissionDenied("Only a league's ninja master may run the balance study.")
    if not 1 <= games <= MAX_SITE_GAMES:
        raise ValidationError(f"Games per cell must lie between 1 and {MAX_SITE_GAMES}.")
    # the site's plan apart from games and levels: StudyPlan's defaults unless settings.BALANCE_STUDY_PLAN
    # names other challenges or gaps (the tests use a small one)
    plan = StudyPlan(levels=tuple(levels), games=games, **getattr(settings, "BALANCE_STUDY_PLAN", {}))
    with transaction.atomic():
        running = BalanceStudy.objects.select_for_update().filter(status__in=["pending", "running"]).first()
        if running is not None:
            return running, False
        study = BalanceStudy.objects.create(requested_by=actor, **_plan_fields(plan))
    return study, True


def _plan_fields(plan: StudyPlan) -> dict:
    """A study's plan as the BalanceStudy fields that record it."""
    return {
        "games": plan.games,
        "challenges": list(plan.challenges),
        "gaps": list(plan.gaps),
        "levels": list(plan.levels),
        "seed": plan.seed,
        "total": plan.total,
    }


def balance_study_save(*, plan: StudyPlan, cells: Sequence[Cell]):
    """Record a study played outside the site (``manage.py balance_study --save``) as finished."""
    from matches.models import BalanceStudy

    return BalanceStudy.objects.create(
        **_plan_fields(plan),
        done=plan.total,
        status=BalanceStudy.Status.DONE,
        cells=[c.as_dict() for c in cells],
        summary="\n".join(summary(cells)),
        finished_at=timezone.now(),
    )


def balance_study_run(*, study_id: int, progress: Callable[..., None] | None = None):
    """Play the study's plan and store its cells and summary. A finished study returns at once."""
    from matches.models import BalanceStudy

    study = BalanceStudy.objects.get(pk=study_id)
    if study.status == BalanceStudy.Status.DONE:
        return study
    BalanceStudy.objects.filter(pk=study_id).update(status=BalanceStudy.Status.RUNNING, done=0)
    plan = StudyPlan(
        challenges=tuple(study.challenges),
        gaps=tuple(study.gaps),
        levels=tuple(study.levels),
        games=study.games,
        seed=study.seed,
    )
    step = max(1, plan.total // 50)

    def report(done: int, total: int) -> None:
        if progress is not None:
            progress(done, total)
        if done % step == 0 or done == total:
            BalanceStudy.objects.filter(pk=study_id).update(done=done)

    cells = run_study(profiles(), plan, progress=report)
    study.cells = [c.as_dict() for c in cells]
    study.summary = "\n".join(summary(cells))
    study.status = BalanceStudy.Status.DONE
    study.done = plan.total
    study.finished_at = timezone.now()
    study.save(update_fields=["cells", "summary", "status", "done", "finished_at"])
    return study


def balance_study_failed(*, study_id: int, error: str) -> None:
    from matches.models import BalanceStudy

    BalanceStudy.objects.filter(pk=study_id).update(status=BalanceStudy.Status.FAILED, error=error[:500])
