"""History, leaderboards, balance statistics and ratings (issue 16, parts 1-4).

The top of the import direction: stats reads league, matches, teams and rules; none of them
imports stats (tests/stats/test_import_direction.py).
"""
