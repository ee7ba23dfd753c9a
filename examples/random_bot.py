#!/usr/bin/env python3
# A minimal external bot for Versus P2P (SPEC Part 7): it plays a uniformly random legal action,
# of any two-player game of the platform (the hello's `game` names it; the bot reads nothing
# but the `legal` inputs of each decision). Standard library only. It reads one JSON object per
# line on stdin and answers on stdout; anything for humans goes to stderr. Try it against the
# built-in bots:
#   .venv/bin/python -m versus.cli.bots "cmd:python3 examples/random_bot.py" greedy --games 2
#   .venv/bin/python -m versus.cli.bots "cmd:python3 examples/random_bot.py" greedy --game grid
#   versus tournament random "cmd:python3 examples/random_bot.py" --game grid --games 2
#   versus bot-check --game vanquishers "cmd:python3 examples/random_bot.py"
# or from Python: make_bot("cmd:python3 examples/random_bot.py", game="grid")
# (cli/bots/registry.py).
import json
import random
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # the driver waits for the whole line


def main():
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            if message["protocol"] != 1:
                print(f"unsupported protocol {message['protocol']}", file=sys.stderr)
                return 1
            send({"type": "ready", "name": "example-random"})
        elif kind == "decide":
            send({"type": "action", "action": rng.choice(message["legal"])})
        elif kind == "result":
            outcome = "a draw" if message["winner"] is None else (
                "won" if message["winner"] == message["seat"] else "lost")
            print(f"example-random {outcome} ({message['outcome']})", file=sys.stderr)
        elif kind == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
