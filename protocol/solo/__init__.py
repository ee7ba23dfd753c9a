# Verifiable solo runs (issue 19, SPEC Part M "Verifiable solo runs"): challenges signed by an
# organiser (challenge.py) and runs played from them, revealed step by step and verified by
# replay (run.py).
