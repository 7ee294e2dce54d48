"""The balance study (issue 18): the pure experiment (rules.engine.balance), the command that writes
docs/simulation.md and its charts, and the site page where a league's master runs it as a task and
everyone reads the findings."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils.html import escape

from league import balance
from matches.models import BalanceStudy
from rules.engine.balance import LADDER, Cell, StudyPlan, bonus_part, build_teams, flips, run_study
from rules.engine.league import underdog_bonuses
from tests.factories import LeagueFactory, UserFactory

# -- the experiment (pure) ----------------------------------------------------------------


def test_the_stronger_team_has_gap_advancements_and_the_bonus_parts_separate():
    profiles = balance.profiles()
    strong, weak = build_teams(profiles, 10)
    extra = sum(
        (s.attack - w.attack) + (s.defense - w.defense) + len(s.keywords - w.keywords)
        for s, w in zip(strong.roster, weak.roster)
    )
    assert extra == 10 and len(LADDER) == 20
    bonus = underdog_bonuses([10, 0])[1]
    assert (bonus.reroll_tokens, bonus.moon_power_tokens, bonus.extra_all_star_awards) == (10, 1, 2)
    assert bonus_part(bonus, "none") is None and bonus_part(bonus, "all") == bonus
    assert (bonus_part(bonus, "rerolls").reroll_tokens, bonus_part(bonus, "rerolls").moon_power_tokens) == (10, 0)
    assert (bonus_part(bonus, "moon").reroll_tokens, bonus_part(bonus, "moon").moon_power_tokens) == (0, 1)
    assert bonus_part(bonus, "all-stars").extra_all_star_awards == 2
    with pytest.raises(ValueError):
        StudyPlan(challenges=("chess",))


def test_the_study_is_reproducible_and_all_stars_never_change_a_game():
    plan = StudyPlan(challenges=("brawl",), gaps=(10,), games=4, seed=3)
    seen = []
    cells = run_study(balance.profiles(), plan, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (plan.total, plan.total) == (20, 20)
    assert [c.as_dict() for c in cells] == [c.as_dict() for c in run_study(balance.profiles(), plan)]
    by = {c.variant: c for c in cells}
    none, stars = by["none"], by["all-stars"]
    assert (none.wins, none.draws, none.losses) == (stars.wins, stars.draws, stars.losses)
    assert all(c.wins + c.draws + c.losses == 4 for c in cells)


def test_flips_are_found_where_a_bonus_turns_wins_into_losses():
    cells = [
        Cell("brawl", 10, "none", "cautious", 10, 8, 0, 2),
        Cell("brawl", 10, "rerolls", "cautious", 10, 3, 1, 6),
        Cell("brawl", 10, "moon", "cautious", 10, 7, 0, 3),
    ]
    assert flips(cells) == [("brawl", 10, "rerolls", "cautious")]
    low, high = cells[0].interval
    assert low < 0.8 < high


# -- the command ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_command_writes_the_docs_section_and_charts_and_saves_the_study(tmp_path, catalog):
    (tmp_path / "simulation.md").write_text("# Simulation\n\ntext before\n", encoding="utf-8")
    call_command(
        "balance_study", games=2, gaps="0,10", challenges="brawl", docs=True, docs_dir=str(tmp_path), save=True
    )
    doc = (tmp_path / "simulation.md").read_text(encoding="utf-8")
    assert "text before" in doc and balance.DOC_START in doc and "| brawl | cautious | 10 |" in doc
    svg = (tmp_path / "balance" / "brawl-cautious.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and svg.count("<polyline") == 5
    # run again: the section is replaced, not added
    call_command("balance_study", games=2, gaps="0,10", challenges="brawl", docs=True, docs_dir=str(tmp_path))
    assert (tmp_path / "simulation.md").read_text(encoding="utf-8").count(balance.DOC_START) == 1
    study = BalanceStudy.objects.get()
    assert study.status == "done" and len(study.cells) == 10 and study.summary


# -- the site ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_master_runs_the_study_and_everyone_reads_the_findings(
    client, catalog, eager, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    url = reverse("simulation:balance_study")
    assert "No study has been run" in client.get(url).content.decode()
    start = reverse("simulation:balance_study_start")
    assert client.post(start, {"games": 1, "levels": ["cautious"]}).status_code == 302  # log in first
    client.force_login(UserFactory())
    assert client.post(start, {"games": 1, "levels": ["cautious"]}).status_code == 403
    assert not BalanceStudy.objects.exists()
    master = LeagueFactory().master
    client.force_login(master)
    assert "Run the study" in client.get(url).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(start, {"games": 1, "levels": ["cautious"]})
    assert response.status_code == 302
    study = BalanceStudy.objects.get()
    assert (study.status, study.done, study.total, len(study.cells)) == ("done", 10, 10, 10)
    assert study.requested_by == master and study.challenges == ["brawl"]
    status = client.get(reverse("simulation:balance_study_status", kwargs={"pk": study.pk})).json()
    assert status["state"] == "SUCCESS" and status["percent"] == 100
    client.logout()
    with django_assert_max_num_queries(4):
        page = client.get(url).content.decode()
    assert "Findings" in page and "brawl" in page and "rerolls" in page
    assert all(escape(line) in page for line in study.summary.splitlines())


@pytest.mark.django_db
def test_the_study_form_limits_its_size(client, catalog):
    client.force_login(LeagueFactory().master)
    for bad in (
        {"games": 0, "levels": ["cautious"]},
        {"games": 10_000, "levels": ["cautious"]},
        {"games": 5, "levels": ["x"]},
    ):
        client.post(reverse("simulation:balance_study_start"), bad)
    assert not BalanceStudy.objects.exists()
