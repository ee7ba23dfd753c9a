# How hidden cards are dealt: committed decklists (dealers.py) and the mental-poker shared pool
# (pool.py; pool_sides.py adapts it to the referee's live and audit sides).
