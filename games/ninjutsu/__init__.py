"""Ninjutsu: Battle of the Ninjas (../shared/seeds/ninjutsu-battle-of-the-ninjas-rulebook.txt)."""
