"""Issue 13, part 4: the result form on a phone. Each model's fields in a fieldset named after it; a
model not on the board collapses (the script, driven by ``data-played``); Brawl's "Injures an enemy
model" follows the Injuries entered unless corrected; no Champion field for a chunin; a draft comes
back as typed, never with errors next to "Draft saved". The steppers, the collapse and the sticky bar
are checked in a real browser at a phone's size (tests/e2e/test_walkthrough.py)."""

import re

from django.urls import reverse

from matches import services
from matches.models import Match, MatchNinja
from rules.models import Challenge
from tests.factories import PASSWORD
from tests.matches.test_views_matches import form_data


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)


def kaiken(team):
    return team.ninjas.filter(profile__slug=f"{team.clan.slug}-kaiken").order_by("id")[0]


def test_each_model_is_a_fieldset_named_after_it(client, brawl_match, two_teams, django_assert_max_num_queries):
    home, _away = two_teams
    match = services.match_kick_off(match=brawl_match)
    login(client, home.owner)
    with django_assert_max_num_queries(16):
        page = client.get(reverse("matches:result", args=[match.pk])).content.decode()
    rows = [row for side in match.sides.all() for row in side.roster_snapshot]
    legends = re.findall(r'<fieldset class="card card-body p-2 mb-2 model">\s*<legend[^>]*data-model="([^"]+)"', page)
    assert legends == [row["name"] for row in rows]
    # Inside its fieldset: the model's own fields (a screen reader names the group, then the field).
    blocks = [b[: b.index("</fieldset>")] for b in page.split('<fieldset class="card card-body p-2 mb-2 model">')[1:]]
    for row, block in zip(rows, blocks, strict=True):
        assert f'data-model="{row["name"]}"' in block
        if row["available"]:
            assert f'name="n{row["id"]}_injuries"' in block and 'data-played="1"' in block
    assert 'src="/static/js/result-form.js"' in page and "result-bar" in page


def test_brawl_injures_an_enemy_model_follows_the_injuries_unless_corrected(client, brawl_match, two_teams):
    home, away = two_teams
    match = services.match_kick_off(match=brawl_match)
    k, other = kaiken(home), kaiken(away)
    chunin = home.ninjas.get(profile__slug="tora-chunin")
    login(client, home.owner)
    url = reverse("matches:result", args=[match.pk])
    page = client.get(url).content.decode()
    # Blank for a non-chunin, following its Injuries field; a chunin's counts only Injuries on a chunin.
    assert re.search(rf'name="n{k.pk}_feat_injure_enemy"[^>]*data-follows="id_n{k.pk}_injuries"', page)
    assert f'data-follows="id_n{chunin.pk}_injuries"' not in page
    data = form_data(match, injuries={k.pk: 3, other.pk: 2, chunin.pk: 4})
    data[f"n{k.pk}_feat_injure_enemy"] = ""  # left blank: the same as the Injuries
    data[f"n{other.pk}_feat_injure_enemy"] = "1"  # corrected by the player
    data[f"n{chunin.pk}_feat_injure_enemy"] = ""  # a chunin: blank is zero
    data["submit_result"] = "1"
    assert client.post(url, data).status_code == 302
    match.refresh_from_db()
    feats = {
        t["team_id"]: {n["ninja_id"]: n["challenge_feats"] for n in t["ninjas"]}
        for t in match.submitted_record["teams"]
    }
    assert feats[home.pk][k.pk] == {"injure_enemy": 3}
    assert feats[away.pk][other.pk] == {"injure_enemy": 1}
    assert feats[home.pk][chunin.pk] == {}


def test_a_chunin_is_never_offered_as_champion(client, league, two_teams):
    home, away = two_teams
    match = services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="champion"), league=league)
    match = services.match_kick_off(match=match)
    login(client, home.owner)
    page = client.get(reverse("matches:result", args=[match.pk])).content.decode()
    for team in (home, away):
        chunin = team.ninjas.get(profile__slug=f"{team.clan.slug}-chunin")
        assert f'name="n{chunin.pk}_feat_chosen_champion"' not in page
        assert f'name="n{kaiken(team).pk}_feat_chosen_champion"' in page
    # Posted anyway (a forged form): refused with the reason, nothing written.
    chunin = away.ninjas.get(profile__slug="ika-chunin")
    data = {**form_data(match), f"n{chunin.pk}_feat_chosen_champion": "2", "submit_result": "1"}
    page = client.post(reverse("matches:result", args=[match.pk]), data).content.decode()
    assert "is a chunin: a Champion must be a non-chunin model." in page
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED and not MatchNinja.objects.filter(side__match=match).exists()


def test_draft_saved_is_never_next_to_an_error(client, brawl_match, two_teams):
    home, _away = two_teams
    match = services.match_kick_off(match=brawl_match)
    k = kaiken(home)
    login(client, home.owner)
    url = reverse("matches:result", args=[match.pk])
    # Half a result: one side's points missing, no All-Star, a model taken off the board, a typo.
    data = {"s1_points": "2", f"n{k.pk}_injuries": "x", "save_draft": "1"}
    for side in match.sides.all():
        for row in side.roster_snapshot:
            if row["id"] != k.pk and row["available"]:
                data[f"n{row['id']}_played"] = "on"
    page = client.post(url, data, follow=True).content.decode()
    assert "Draft saved" in page
    assert "alert-danger" not in page and "invalid-feedback" not in page and "is-invalid" not in page
    assert 'name="s1_points" value="2"' in page
    played = re.search(rf'<input type="checkbox" name="n{k.pk}_played"[^>]*>', page).group(0)
    assert "checked" not in played  # unticked in the draft, unticked again
    # Submitting it says what is missing.
    del data["save_draft"]
    page = client.post(url, {**data, "submit_result": "1"}).content.decode()
    assert "Enter the points scored by" in page and "Draft saved" not in page
