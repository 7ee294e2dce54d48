"""{% pk_url %} gives what reverse() gives, for the URL names the tables use."""

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
