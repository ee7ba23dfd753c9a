# The cryptographic building blocks: the ristretto255 group over libsodium (group.py), ElGamal
# (elgamal.py), zero-knowledge proofs (zkp.py), the verifiable shuffle (shuffle.py),
# commitments and coin flips (commitment.py) and player identities (identity.py).
