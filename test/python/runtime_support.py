"""Small parameter sets and helpers shared by the runtime tests."""

from __future__ import annotations

import ringfuse as rf

SEED = bytes(range(32))


def toy_params(n: int = 64, t: int = 65537, bits: tuple[int, ...] = (30, 30)) -> rf.Params:
    """An insecure, fast parameter set (tests only)."""
    return rf.Params(
        poly_modulus_degree=n,
        plaintext_modulus=t,
        coeff_modulus_bits=list(bits),
        special_modulus_bits=[max(bits)],
        allow_insecure=True,
    )
