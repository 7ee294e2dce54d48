"""{% pk_url %} gives what reverse() gives, for the URL names the tables and the scroll use."""

import pytest
from django.template import Context, Template
from django.urls import reverse

from league.templatetags.fast_urls import pk_url


@pytest.mark.parametrize("name", ["teams:detail", "matches:detail", "matches:presheet"])
@pytest.mark.parametrize("pk", [1, 7, 123456])
def test_pk_url_is_reverse(name, pk):
    assert pk_url(name, pk) == reverse(name, args=[pk])


def test_the_tag_in_a_template():
    html = Template('{% load fast_urls %}<a href="{% pk_url "teams:detail" pk %}">').render(Context({"pk": 42}))
    assert html == f'<a href="{reverse("teams:detail", args=[42])}">'


@pytest.mark.parametrize("name", ["teams:ninja_rename", "teams:ninja_release"])
@pytest.mark.parametrize("keys", [(1, 2), (7, 7), (123456, 9)])
def test_pk_url_of_two_keys_is_reverse(name, keys):
    assert pk_url(name, *keys) == reverse(name, args=list(keys))


def test_the_tag_with_two_keys_in_a_template():
    source = '{% load fast_urls %}{% pk_url "teams:ninja_rename" team ninja %}'
    assert Template(source).render(Context({"team": 3, "ninja": 41})) == reverse("teams:ninja_rename", args=[3, 41])


def test_a_url_name_and_keys_that_do_not_match_are_refused():
    from django.urls import NoReverseMatch

    with pytest.raises(NoReverseMatch):
        pk_url("teams:detail", 1, 2)  # one key in its URL
    with pytest.raises(ValueError):
        pk_url("teams:detail")
