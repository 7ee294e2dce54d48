from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    """``?page=`` and ``?page_size=`` (at most 200 rows a page)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_paginated_response_schema(self, schema):
        # OpenAPI 3.1 (JSON Schema): a null link is the type "null", not 3.0's "nullable".
        link = {"type": ["string", "null"], "format": "uri"}
        return {
            "type": "object",
            "required": ["count", "results"],
            "properties": {
                "count": {"type": "integer", "example": 123},
                "next": link,
                "previous": link,
                "results": schema,
            },
        }
