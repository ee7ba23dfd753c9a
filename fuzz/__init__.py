# Fuzzing harnesses for every decoder of untrusted bytes (see README "Fuzzing").
#
# `fuzz/targets.py` defines each target once: a function of one byte string that feeds it to a
# decoder, swallows the documented error classes and checks round-trip invariants, and the seed
# inputs built from real objects. The test suite (tests/fuzz/) drives the targets with
# hypothesis; `fuzz/run.py` drives them for as long as a person likes, with atheris when it is
# installed and with a plain mutation loop otherwise.
