"""Strength ratings for teams and players (issue 16, part 4), as pure Python: no Django, no database.

* :mod:`ratings.glicko2` -- Glicko-2 for one-on-one games (standard library only);
* :mod:`ratings.multiplayer` -- openskill's Plackett-Luce model for tables of 3 to 5.

Not a Django app yet: the league will convert its confirmed results to these types at the edge.
Parameters and the rating period are explained in docs/ratings.md.
"""
