# The wire format: canonical msgpack (canonical.py), signed envelopes and their kinds
# (envelope.py), the hash chain they form (chain.py), the transcript file (transcript.py) and
# the printable form of peer-supplied text (text.py). Nothing here knows a game or a deal.
