"""Reads for the statistics pages: plain functions returning rows (dataclasses or dicts), each
in a fixed number of queries whatever the number of matches, so the API can reuse them."""
