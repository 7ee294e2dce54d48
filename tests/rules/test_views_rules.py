"""The public rules reference and the catalog admin, through the test client and the real URLconf."""

from __future__ import annotations

import re

import pytest
from django.contrib import admin
from django.urls import reverse
from django.utils.html import escape, strip_tags
from django.utils.text import slugify

from rules.models import Challenge, Clan, Keyword, Profile
from tests.rules.rulebook import CLAN_ELEMENTS

pytestmark = pytest.mark.usefixtures("catalog")

# The whole catalog on one page: a fixed number of queries however many rows (measured: 19).
INDEX_MAX_QUERIES = 20
SUBPAGE_MAX_QUERIES = 8


def profile_line(html: str, slug: str) -> str:
    """The visible text of a profile's one-line summary, as a player reads it."""
    match = re.search(rf'id="profile-{re.escape(slug)}">\s*<p class="profile-line[^"]*">(.*?)</p>', html, re.S)
    assert match, f"no profile line for {slug}"
    text = strip_tags(match.group(1))
    assert "\n" not in text
    return text.replace("&#x27;", "'").replace("&amp;", "&")


# --------------------------------------------------------------------------- home and index


def test_home_links_to_the_rules(client):
    response = client.get("/")
    assert response.status_code == 200
    assert 'href="/rules/"' in response.content.decode()


def test_index_shows_the_whole_catalog(client, django_assert_max_num_queries):
    with django_assert_max_num_queries(INDEX_MAX_QUERIES):
        response = client.get("/rules/")
    assert response.status_code == 200
    html = response.content.decode()

    clans = list(Clan.objects.all())
    ronin = list(Profile.objects.filter(kind=Profile.Kind.RONIN))
    keywords = list(Keyword.objects.all())
    challenges = list(Challenge.objects.all())
    assert (len(clans), len(ronin), len(keywords), len(challenges)) == (6, 18, 50, 8)

    for clan in clans:
        assert escape(clan.name) in html, clan.name
        assert f'id="clan-{clan.slug}"' in html
    for p in ronin:
        assert escape(p.name) in html, p.name
        assert f"KB {p.koban}/{p.upkeep}" in profile_line(html, p.slug)
    for kw in keywords:
        assert escape(kw.name) in html, kw.name
    for ch in challenges:
        assert escape(ch.name) in html, ch.name
        assert f'id="challenge-{ch.slug}"' in html
    # Every clan profile too, each on its own line.
    for p in Profile.objects.exclude(kind=Profile.Kind.RONIN):
        assert f"MV {p.movement} / AT {p.attack} / DF {p.defense} / KB {p.koban}" in profile_line(html, p.slug)

    assert "MV 5 / AT 3 / DF 4 / KB 21" in html  # Ika chunin


def test_index_lists_clans_with_their_elements(client):
    html = client.get(reverse("rules:index")).content.decode()
    for name, element in CLAN_ELEMENTS:
        assert re.search(rf'#clan-{name.lower()}">{name}</a></th><td><span class="badge[^"]*">{element}</span>', html)


def test_profile_lines_read_as_in_the_book(client):
    html = client.get(reverse("rules:index")).content.decode()
    assert profile_line(html, "tora-chunin") == (
        "Chunin — MV 5 / AT 4 / DF 3 / KB 20 · Fire · Allowance 1 · Close Combat Master, Fire Mastery"
    )
    assert profile_line(html, "ika-chunin") == (
        "Chunin — MV 5 / AT 3 / DF 4 / KB 21 · Water · Allowance 1 · Close Combat Master, Water Mastery"
    )
    assert profile_line(html, "kitsune-kaiken") == "Kaiken — MV 6 / AT 2 / DF 3 / KB 10 · Spirit · Allowance 1-3"
    assert profile_line(html, "tora-yajiri") == (
        "Yajiri — MV 5 / AT 2 / DF 1 / KB 8 · Fire · Allowance 0-2 · Ranged 5: +2 Attack."
    )
    assert profile_line(html, "tora-byakko") == (
        "Byakko (Hero) — MV 5 / AT 4 / DF 3 / KB 24 · Fire, Earth · Close Combat Master, Hero, "
        "Precision Strike, Regeneration, Resilient, Tora's Claws"
    )
    assert profile_line(html, "moon-princess").startswith(
        "Moon Princess — MV 7 / AT 2 / DF 2 / KB 18/6 · Spirit, Void, Earth, Air, Water, Fire · Emptiness"
    )


def test_choose_one_abilities_are_marked(client):
    html = client.get(reverse("rules:clan", args=["tora"])).content.decode()
    block = html[html.index('id="profile-tora-chunin"') : html.index('id="profile-tora-kaiken"')]
    assert "choose 1" in block
    assert "Pounce:" in block and "Tiger Strike:" in block
    assert "+3 Attack until the end of the turn" in block
    byakko = html[html.index('id="profile-tora-byakko"') : html.index('id="profile-tora-ryu"')]
    assert "Special abilities, choose" not in byakko and "Special ability:" in byakko and "Vault:" in byakko


def test_profile_keywords_link_to_their_definitions(client):
    html = client.get(reverse("rules:index")).content.decode()
    assert 'href="#kw-close-combat-master"' in html
    assert 'id="kw-close-combat-master"' in html
    sub = client.get(reverse("rules:clan", args=["ika"])).content.decode()
    assert 'href="/rules/keywords/#kw-water-mastery"' in sub


# --------------------------------------------------------------------------- sub-pages


@pytest.mark.parametrize(
    "url_name, args, expected",
    [
        ("rules:clan", ["ika"], ["Clan Ika", "Akkorokamui", "MV 5 / AT 3 / DF 4 / KB 21", "Fisherman&#x27;s Spear"]),
        ("rules:clan", ["tanchyo"], ["Zenyo Ryu", "Ranged 6."]),
        ("rules:ronin", [], ["Moon Princess", "KB 18/6", "Howl &amp; Yip", "KB 13/3"]),
        ("rules:keywords", [], ["General", "Unique", 'id="kw-yamazarus-tail"', 'id="keywords-void"']),
        ("rules:challenges", [], ["Brawl", "Ninjas allowed 7", "6 rounds", "Capture the Medal", "Special rules"]),
        ("rules:status_effects", [], ["Moon Power", 'id="status-stun"', "Samurai Sentry", "MV 5 / AT 3 / DF 3"]),
        (
            "rules:tables",
            [],
            [
                "Legendary",
                "246+",
                "Gain an additional Affinity",
                "Team won the game",
                'href="/rules/challenges/#challenge-brawl"',
            ],
        ),
    ],
)
def test_subpages(client, django_assert_max_num_queries, url_name, args, expected):
    with django_assert_max_num_queries(SUBPAGE_MAX_QUERIES):
        response = client.get(reverse(url_name, args=args))
    assert response.status_code == 200
    html = response.content.decode()
    for text in expected:
        assert text in html, text


def test_every_clan_page(client, django_assert_max_num_queries):
    for clan in Clan.objects.all():
        with django_assert_max_num_queries(SUBPAGE_MAX_QUERIES):
            response = client.get(reverse("rules:clan", args=[clan.slug]))
        assert response.status_code == 200
        html = response.content.decode()
        for p in clan.profiles.all():
            assert f'id="profile-{p.slug}"' in html


def test_keywords_page_groups_all_fifty_in_book_order(client):
    html = client.get(reverse("rules:keywords")).content.decode()
    headings = re.findall(r'<section id="keywords-(\w+)"', html)
    assert headings == ["general", "air", "earth", "fire", "spirit", "water", "void", "unique"]
    for kw in Keyword.objects.all():
        assert f'id="kw-{slugify(kw.name)}"' in html, kw.name


def test_challenges_page_shows_xp_awards(client):
    html = client.get(reverse("rules:challenges")).content.decode()
    block = html[html.index('id="challenge-capture-the-medal"') :]
    assert "Ninjas allowed 7" in block and "9 rounds" in block
    assert block.count('<tr><th scope="row" class="fw-normal">') == 3  # three XP awards, each a row header
    assert "Setup" in block


def test_ronin_page_lists_all_eighteen(client):
    html = client.get(reverse("rules:ronin")).content.decode()
    assert len(re.findall(r'id="profile-[\w-]+"', html)) == 18


def test_bad_clan_slug_is_404(client):
    assert client.get("/rules/clans/no-such-clan/").status_code == 404
    assert client.get(reverse("rules:clan", args=["tengu"])).status_code == 404  # a ronin, not a clan


def test_pages_need_no_login(client):
    for name in ["index", "ronin", "keywords", "challenges", "status_effects", "tables"]:
        assert client.get(reverse(f"rules:{name}")).status_code == 200


# --------------------------------------------------------------------------- admin

RULES_MODELS = [model for model in admin.site._registry if model._meta.app_label == "rules"]


def test_every_catalog_model_is_registered():
    from django.apps import apps

    assert set(RULES_MODELS) == set(apps.get_app_config("rules").get_models())
    for model in RULES_MODELS:
        model_admin = admin.site._registry[model]
        assert model_admin.list_display != ("__str__",), model.__name__
        assert model_admin.search_fields, model.__name__
        assert model_admin.ordering, model.__name__


@pytest.mark.parametrize("model", RULES_MODELS, ids=lambda m: m.__name__)
def test_admin_changelist_and_search(admin_client, django_assert_max_num_queries, model):
    url = reverse(f"admin:rules_{model._meta.model_name}_changelist")
    with django_assert_max_num_queries(15):
        response = admin_client.get(url)
    assert response.status_code == 200
    assert admin_client.get(url, {"q": "a"}).status_code == 200
    obj = model.objects.first()
    change = admin_client.get(reverse(f"admin:rules_{model._meta.model_name}_change", args=[obj.pk]))
    assert change.status_code == 200


def test_admin_profile_search_and_filters(admin_client):
    url = reverse("admin:rules_profile_changelist")
    response = admin_client.get(url, {"q": "Moon Princess"})
    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == [Profile.objects.get(slug="moon-princess")]
    # Search by keyword spans the many-to-many without duplicating rows.
    response = admin_client.get(url, {"q": "Hero"})
    results = list(response.context["cl"].result_list)
    assert len(results) == len(set(results)) == 12
    assert admin_client.get(url, {"kind": "ronin"}).context["cl"].result_count == 18
    assert admin_client.get(url, {"kind": "types"}).context["cl"].result_count == 36
    tora = Clan.objects.get(slug="tora")
    assert admin_client.get(url, {"clan__id__exact": tora.pk}).context["cl"].result_count == 8


def test_admin_profile_change_page_has_abilities_inline_and_keyword_picker(admin_client):
    p = Profile.objects.get(slug="tora-chunin")
    response = admin_client.get(reverse("admin:rules_profile_change", args=[p.pk]))
    html = response.content.decode()
    assert "Tiger Strike" in html and "abilities-TOTAL_FORMS" in html
    assert "selectfilter" in html.lower() or "SelectFilter" in html  # filter_horizontal widget
    # The slug is the loader's natural key: shown, not editable.
    assert 'name="slug"' not in html


def test_admin_challenge_change_page_has_xp_awards_inline(admin_client):
    ch = Challenge.objects.get(slug="capture-the-medal")
    html = admin_client.get(reverse("admin:rules_challenge_change", args=[ch.pk])).content.decode()
    assert "xp_awards-TOTAL_FORMS" in html and "captures an enemy" in html.lower()


def test_admin_ninja_master_can_correct_a_keyword(admin_client):
    kw = Keyword.objects.get(name="Sprint")
    url = reverse("admin:rules_keyword_change", args=[kw.pk])
    response = admin_client.post(
        url, {"name": kw.name, "category": kw.category, "text": kw.text + " (corrected)", "order": kw.order}
    )
    assert response.status_code == 302
    kw.refresh_from_db()
    assert kw.text.endswith("(corrected)")


def test_admin_is_staff_only(client):
    response = client.get(reverse("admin:rules_profile_changelist"))
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
