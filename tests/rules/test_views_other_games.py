"""The rules pages of Ninjutsu and Kage Masters (issue 17, part 2: "the rules pages show the game's
components and its battle dice"): transcribed from the seeds, public, no database."""

import pytest
from django.urls import reverse

from games.kage_masters.engine import catalog as kage
from games.ninjutsu.engine import catalog as ninjutsu


def test_the_transcriptions_hold_what_the_books_list():
    """Checked word for word against the seeds by hand (they are not in the repository); these
    are the counts the pages show."""
    assert [name for name, _ in kage.KAGE_ABILITIES] == ["Poison", "Chain", "Fire", "Bribe", "Mimic"]
    assert kage.NO_LOCATION_ROUNDS == ((1, 4, 1), (2, 5, 2), (3, 6, 3))
    assert kage.COMPONENTS[:4] == (
        "5 Kage Master Dice",
        "5 Kage Master Cards",
        "18 Location Cards",
        "18 Tokens (9 Poison, 9 Fire)",
    )
    assert [name for name, _ in ninjutsu.ACTION_CARD_TEXT] == ["Jump", "Smoke", "Kidnap", "New weapon", "Joker"]
    assert ("Weapon cards, shuffled as a draw deck", "45 per colour", "NJ l.24") in ninjutsu.COMPONENTS


@pytest.mark.django_db
def test_the_ninjutsu_page(client, django_assert_max_num_queries):
    with django_assert_max_num_queries(0):
        page = client.get(reverse("rules:ninjutsu")).content.decode()
    assert "45 per colour" in page and "Dojo" in page
    assert '<td class="text-end">d12</td>' in page and "Soke" in page
    assert "You cannot kidnap the Soke" in page and "Joker" in page
    assert "The Soke attacked and lost the battle" in page  # how a league records the ending
    assert reverse("rules:ninjutsu_odds") in page


@pytest.mark.django_db
def test_the_kage_masters_page(client, django_assert_max_num_queries):
    with django_assert_max_num_queries(0):
        page = client.get(reverse("rules:kage_masters")).content.decode()
    assert "18 Location Cards" in page and "18 Tokens (9 Poison, 9 Fire)" in page
    assert "Assassin, Chain Specialist, Firebrand, Spy, Trickster" in page
    assert "Copy a targeted Kage Die" in page
    assert (
        '<th scope="row" class="fw-normal">Round 3</th><td class="text-end">6</td><td class="text-end">3 coins</td>'
        in page
    )
    assert "one point for each opponent beaten" in page
