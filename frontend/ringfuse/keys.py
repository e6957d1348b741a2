"""A client's key set: keys, encoding, encryption, decryption, noise.

>>> keys = params.keygen()
>>> ct = keys.encrypt([1, 2, 3])
>>> keys.decrypt(ct)[:3]
array([1, 2, 3])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from ._native import runtime
from .objects import Ciphertext, GaloisKeys, Plaintext, PublicKey, RelinKey, SecretKey
from .params import Params
from .values import as_residues


def _prng(seed: bytes | None) -> Any:
    if seed is None:
        return runtime().Prng()
    if not isinstance(seed, bytes) or len(seed) != 32:
        raise ValueError("seed must be 32 bytes")
    return runtime().Prng.from_seed(seed)


class KeySet:
    """The keys of one parameter set and what a client does with them.

    Encoding uses slots when the parameters allow batching, and the
    polynomial's coefficients otherwise.
    """

    def __init__(
        self,
        params: Params,
        secret_key: SecretKey,
        public_key: PublicKey | None = None,
        relin_key: RelinKey | None = None,
        galois_keys: GaloisKeys | None = None,
        *,
        seed: bytes | None = None,
    ) -> None:
        for key in (secret_key, public_key, relin_key, galois_keys):
            if key is not None and key.params != params:
                raise ValueError(f"{type(key).__name__} belongs to other parameters than {params!r}")
        self.params = params
        self.secret_key = secret_key
        self.public_key = public_key
        self.relin_key = relin_key
        self.galois_keys = galois_keys
        self._prng = _prng(seed)

    @classmethod
    def generate(
        cls,
        params: Params,
        *,
        rotations: Iterable[int] = (),
        swap_rows: bool = False,
        seed: bytes | None = None,
    ) -> KeySet:
        """All keys of `params`; see `Params.keygen`."""
        rt = runtime()
        prng = _prng(seed)
        n = params.poly_modulus_degree
        elements = []
        for step in rotations:
            if isinstance(step, bool) or not isinstance(step, int) or step == 0:
                raise ValueError(f"rotation steps must be nonzero ints, got {step!r}")
            elements.append(rt.galois_element_for_rotation(n, step))
        if swap_rows:
            elements.append(rt.galois_element_for_row_swap(n))
        if elements and not params.batching:
            raise ValueError("rotations act on slots, which these parameters do not have (no batching)")
        context = params._context
        secret = rt.generate_secret_key(context, prng)
        keys = cls(
            params,
            SecretKey(params, secret),
            PublicKey(params, rt.generate_public_key(secret, prng)),
            RelinKey(params, rt.generate_relin_key(secret, prng)),
            GaloisKeys(params, rt.generate_galois_keys(secret, elements, prng)) if elements else None,
        )
        keys._prng = prng
        return keys

    def encode(self, values: Any) -> Plaintext:
        """Slots (with batching) or coefficients, from an int (every slot) or a
        1-D integer array of at most N values in [0, t); the rest are zero."""
        t, n = self.params.plaintext_modulus, self.params.poly_modulus_degree
        rt, context = runtime(), self.params._context
        if self.params.batching:
            native = rt.encode_slots(context, as_residues(values, t, n, "slot values"))
        else:
            native = rt.encode_coefficients(context, as_residues(values, t, n, "coefficients"))
        return Plaintext(self.params, native)

    def decode(self, plaintext: Plaintext) -> npt.NDArray[np.int64]:
        """All N slots (or coefficients) of a plaintext."""
        self._check(plaintext, Plaintext)
        if self.params.batching:
            values = runtime().decode_slots(plaintext._native)
        else:
            values = plaintext._native.coefficients
        return np.asarray(values).astype(np.int64)

    def encrypt(self, values: Any, *, symmetric: bool = False) -> Ciphertext:
        """A fresh ciphertext of `values` (anything `encode` takes, or a
        Plaintext): with the public key, or the secret key if `symmetric`."""
        plaintext = values if isinstance(values, Plaintext) else self.encode(values)
        self._check(plaintext, Plaintext)
        rt = runtime()
        if symmetric:
            native = rt.encrypt_symmetric(self.secret_key._native, plaintext._native, self._prng)
        else:
            if self.public_key is None:
                raise ValueError("this key set has no public key; pass symmetric=True")
            native = rt.encrypt_public(self.public_key._native, plaintext._native, self._prng)
        return Ciphertext(self.params, native)

    def decrypt_plaintext(self, ciphertext: Ciphertext) -> Plaintext:
        self._check(ciphertext, Ciphertext)
        return Plaintext(self.params, runtime().decrypt(self.secret_key._native, ciphertext._native))

    def decrypt(self, ciphertext: Ciphertext) -> npt.NDArray[np.int64]:
        """The decoded values of a ciphertext (all N slots or coefficients)."""
        return self.decode(self.decrypt_plaintext(ciphertext))

    def noise_budget(self, ciphertext: Ciphertext) -> int:
        """Bits of noise budget left (SEAL's invariant noise budget); 0 means
        the ciphertext no longer decrypts reliably."""
        self._check(ciphertext, Ciphertext)
        return int(runtime().noise_budget(self.secret_key._native, ciphertext._native))

    def _check(self, value: object, expected: type) -> None:
        if not isinstance(value, expected):
            raise TypeError(f"expected an rf.{expected.__name__}, got {type(value).__name__}")
        params = getattr(value, "params")
        if params != self.params:
            raise ValueError(f"the {expected.__name__.lower()} belongs to {params!r}, not {self.params!r}")

    def __repr__(self) -> str:
        return f"<rf.KeySet {self.params!r}>"
