"""BFV parameter sets: `rf.Params`.

Primes are generated deterministically from the requested sizes (NTT-friendly,
p = 1 mod 2N), and every set is checked against the 128-bit bounds of the 2024
Security Guidelines for Implementing Homomorphic Encryption.
"""

from __future__ import annotations

import functools

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ._native import runtime
from .values import as_int

if TYPE_CHECKING:
    from .keys import KeySet


# The runtime's bounds (params.h): N up to 2^17, t below 2^62, primes of at
# most 61 bits; dnum is at most |Q|, which the runtime checks (the bound here
# only keeps it within a machine word).
MAX_POLY_MODULUS_DEGREE = 1 << 17
MAX_PLAINTEXT_MODULUS = (1 << 62) - 1
MAX_PRIME_BITS = 61


def _check_bits(name: str, bits: Sequence[int]) -> list[int]:
    if isinstance(bits, (str, bytes)) or not isinstance(bits, Iterable):
        raise TypeError(f"{name} must be a list of prime sizes in bits, e.g. [60, 60]")
    return [as_int(f"{name} entry", b, 1, MAX_PRIME_BITS) for b in bits]


class Params:
    """A BFV parameter set (N, t, Q, P).

    >>> params = rf.Params(poly_modulus_degree=16384, plaintext_modulus=65537,
    ...                    coeff_modulus_bits=[60] * 5, special_modulus_bits=[60])
    >>> params.slot_count
    16384
    >>> keys = params.keygen(rotations=[1, -1])

    `coeff_modulus_bits` gives one prime of Q per entry; `special_modulus_bits`
    the primes of P for hybrid key switching (default: one prime as wide as the
    widest of Q); `dnum` the number of key-switching digits (default
    ceil(|Q| / |P|)). Sets beyond the 128-bit bound are refused unless
    `allow_insecure=True` (for tests with small N only).
    """

    def __init__(
        self,
        poly_modulus_degree: int,
        plaintext_modulus: int,
        coeff_modulus_bits: Sequence[int],
        special_modulus_bits: Sequence[int] | None = None,
        dnum: int | None = None,
        allow_insecure: bool = False,
    ) -> None:
        n = as_int("poly_modulus_degree", poly_modulus_degree, 2, MAX_POLY_MODULUS_DEGREE)
        t = as_int("plaintext_modulus", plaintext_modulus, 2, MAX_PLAINTEXT_MODULUS)
        q_bits = _check_bits("coeff_modulus_bits", coeff_modulus_bits)
        if special_modulus_bits is None:
            special_modulus_bits = [max(q_bits)] if q_bits else []
        p_bits = _check_bits("special_modulus_bits", special_modulus_bits)
        digits = 0 if dnum is None else as_int("dnum", dnum, 1, 1 << 32)
        if not isinstance(allow_insecure, bool):
            raise TypeError("allow_insecure must be True or False")
        self._context: Any = runtime().Context.create(
            n, t, q_bits, p_bits, digits, allow_insecure
        )

    @classmethod
    def _wrap(cls, context: Any) -> Params:
        params = cls.__new__(cls)
        params._context = context
        return params

    @property
    def poly_modulus_degree(self) -> int:
        return int(self._context.degree)

    @property
    def plaintext_modulus(self) -> int:
        return int(self._context.plaintext_modulus)

    @property
    def coeff_modulus(self) -> tuple[int, ...]:
        """The primes of Q."""
        return tuple(self._context.coeff_modulus)

    @property
    def special_modulus(self) -> tuple[int, ...]:
        """The primes of P (hybrid key switching)."""
        return tuple(self._context.special_modulus)

    @property
    def dnum(self) -> int:
        return int(self._context.dnum)

    @property
    def batching(self) -> bool:
        """Whether t allows slots (t prime, t = 1 mod 2N)."""
        return bool(self._context.batching)

    @property
    def slot_count(self) -> int:
        """N slots (two rows of N/2) with batching, else 0."""
        return self.poly_modulus_degree if self.batching else 0

    @property
    def log_q(self) -> int:
        return int(self._context.log_q)

    @property
    def insecure(self) -> bool:
        return bool(self._context.insecure)

    def keygen(
        self,
        *,
        rotations: Iterable[int] = (),
        swap_rows: bool = False,
        galois_elements: Iterable[int] = (),
        seed: bytes | None = None,
        device: str = "cpu",
    ) -> KeySet:
        """Secret, public and relinearization keys, and Galois keys for the
        given row rotations (and the row swap, and any Galois elements named
        directly, as a compiled program lists them). `seed` (32 bytes) makes
        keys and encryptions reproducible, for tests; by default the OS seeds a
        ChaCha20 generator. `device="cuda"` makes the keys on the GPU, and the
        key set then encodes, encrypts and decrypts there (the same words as
        on the CPU for the same seed).

        >>> keys = params.keygen(seed=bytes(32), device="cuda")
        """
        from .keys import KeySet

        return KeySet.generate(
            self, rotations=rotations, swap_rows=swap_rows, galois_elements=galois_elements,
            seed=seed, device=device,
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        with open(path, "wb") as file:
            file.write(self._context.serialize())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Params:
        """Reads a parameter set saved by `save`; the security check runs again."""
        data = runtime().read_object_file(os.fspath(path), None)
        return cls._wrap(runtime().Context.deserialize(data))

    def __reduce__(self) -> tuple[Any, ...]:
        # As saved; unpickling checks it (security included) as `load` does.
        return _unpickle_params, (self._context.serialize(),)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Params) and self._context.fingerprint == other._context.fingerprint

    def __hash__(self) -> int:
        return hash(self._context.fingerprint)

    def __repr__(self) -> str:
        return f"<rf.Params {self._context.describe()}>"


@functools.lru_cache(maxsize=16)
def _unpickle_params(data: bytes) -> Params:
    # Cached: every pickled ciphertext carries its parameters, and building
    # their context (primes checked, NTT tables) costs more than the
    # ciphertext itself. Params are immutable, so one object serves all.
    return Params._wrap(runtime().Context.deserialize(data))
