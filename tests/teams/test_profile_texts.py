"""What the team scroll, the pre-match sheet and the advancement choice show of a model's profile
(issue 27, finding 9): each model's ranged attack as the rulebook writes it (the yajiri's
"Ranged 5: +2 Attack."), and each keyword's rule text where an advancement is chosen, with the
pages' query counts unchanged whatever the roster or the options."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from matches import services as match_services
from rules.models import Challenge, Keyword, Profile
from teams.models import AdvancementRoll
from tests.factories import UserFactory, make_team, recruit

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]

YAJIRI = "Ranged 5: +2 Attack."


def count(client, url) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries.captured_queries), response.content.decode()


def tora(yajiri: int, name: str):
    """A legal Tora roster (a chunin, two kaiken) with ``yajiri`` yajiri."""
    team = make_team("tora", name=name)
    recruit(team, "tora-chunin")
    recruit(team, "tora-kaiken", 2)
    if yajiri:
        recruit(team, "tora-yajiri", yajiri)
    return team


def test_the_rulebook_writes_the_yajiri_s_ranged_attack_so():
    assert Profile.objects.get(slug="tora-yajiri").ranged_text == YAJIRI


def test_the_scroll_shows_each_model_s_ranged_attack_with_the_same_queries(client):
    none, two = tora(0, "No Bows"), tora(2, "Two Bows")
    client.force_login(UserFactory())  # a reader with the same rights on both
    client.get(reverse("home"))  # warm (session)
    without, html_without = count(client, reverse("teams:detail", args=[none.pk]))
    with_, html = count(client, reverse("teams:detail", args=[two.pk]))
    roster = html[html.index('data-testid="scroll-roster"') :].split("</table>")[0]
    assert roster.count(escape(YAJIRI)) == 2 and YAJIRI not in html_without
    assert without == with_


def test_the_pre_match_sheet_shows_each_model_s_ranged_attack_before_and_after_kick_off(client):
    brawl = Challenge.objects.get(slug="brawl")
    plain = match_services.match_create(teams=[tora(0, "No Bows"), tora(0, "Nor Here")], challenge=brawl)
    match = match_services.match_create(teams=[tora(2, "Two Bows"), tora(1, "One Bow")], challenge=brawl)
    client.force_login(UserFactory())  # a reader with the same rights on both
    client.get(reverse("home"))  # warm (session)
    without, html_without = count(client, reverse("matches:presheet", args=[plain.pk]))
    live, html = count(client, reverse("matches:presheet", args=[match.pk]))
    assert html.count(escape(YAJIRI)) == 3 and YAJIRI not in html_without
    assert without == live
    match_services.match_kick_off(match=match)  # the sheet then reads the kick-off snapshot
    _, html = count(client, reverse("matches:presheet", args=[match.pk]))
    assert html.count(escape(YAJIRI)) == 3


def test_the_advancement_choice_shows_each_offered_keyword_s_text_with_the_same_queries(client):
    team = tora(0, "Risers")
    chunin = team.ninjas.get(profile__slug="tora-chunin")
    kaiken = team.ninjas.filter(profile__slug="tora-kaiken").first()
    few = AdvancementRoll.objects.create(ninja=chunin, level=2, faces=["Fire", "Water"])
    many = AdvancementRoll.objects.create(ninja=kaiken, level=2, faces=["Spirit", "Spirit"])  # doubles
    client.force_login(team.owner)
    counts = {}
    for roll in (few, many):
        counts[roll.pk], html = count(client, reverse("matches:advancement_choose", args=[roll.pk]))
        offered = [o.keyword for o in match_services.advancement_options_for(roll) if o.kind == "keyword"]
        assert offered
        texts = dict(Keyword.objects.filter(name__in=offered).values_list("name", "text"))
        for name in offered:
            assert escape(texts[name]) in html, name
    assert len(match_services.advancement_options_for(many)) > len(match_services.advancement_options_for(few))
    assert counts[few.pk] == counts[many.pk], counts
