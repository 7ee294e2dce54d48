from rest_framework.pagination import PageNumberPagination

from api import queries

MAX_PAGE_SIZE = 200


class PageQuery(queries.QueryForm):
    """``?page=`` and ``?page_size=``, declared once: this form validates them and gives their schema.
    A page past the last is a 404 (there is no such page); a page or a size that is not a whole
    number in its range, or is empty, is a 400 (DRF's own pagination read ``page_size=null`` or
    ``page_size=100000`` as "the default" or "the most", and ``page=last`` as the last page)."""

    page = queries.WholeNumberField(min_value=1, max_value=2**31 - 1, help_text="A page number (from 1).")
    page_size = queries.WholeNumberField(
        min_value=1, max_value=MAX_PAGE_SIZE, help_text=f"Rows a page: from 1 to {MAX_PAGE_SIZE} (50 if left out)."
    )


class Pagination(PageNumberPagination):
    """``?page=`` and ``?page_size=`` (at most 200 rows a page)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    last_page_strings = ()

    def paginate_queryset(self, queryset, request, view=None):
        self._query = queries.cleaned(PageQuery, request.query_params)
        return super().paginate_queryset(queryset, request, view)

    def get_page_size(self, request):
        return self._query.get("page_size", self.page_size)

    def get_page_number(self, request, paginator):
        return self._query.get("page", 1)

    def get_schema_operation_parameters(self, view):
        return queries.parameters(PageQuery)

    def get_paginated_response_schema(self, schema):
        # OpenAPI 3.1 (JSON Schema): a null link is the type "null", not 3.0's "nullable".
        link = {"type": ["string", "null"], "format": "uri"}
        return {
            "type": "object",
            "required": ["count", "next", "previous", "results"],
            "properties": {
                "count": {"type": "integer", "minimum": 0, "example": 123},
                "next": link,
                "previous": link,
                "results": schema,
            },
        }
