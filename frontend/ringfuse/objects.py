"""The runtime's objects for Python: ciphertexts, plaintexts and keys.

Each can be saved to a file and loaded back for the same parameter set; a file
of another kind, of other parameters, truncated or corrupted is an error. They
pickle through the same format (with their parameter set), so they travel to
other processes and machines; a secret key only when asked for
(`SecretKey.exposed()`).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from ._native import runtime
from .params import Params

_T = TypeVar("_T", bound="_RuntimeObject")

# The most components a ciphertext has (the runtime's kMaxCiphertextComponents).
MAX_CIPHERTEXT_COMPONENTS = 16


class _RuntimeObject:
    """A runtime object tied to one parameter set, saved in ringfuse's format."""

    _native_name: ClassVar[str]

    def __init__(self, params: Params, native: Any) -> None:
        self.params = params
        self._native = native

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the object in ringfuse's versioned binary format."""
        with open(path, "wb") as file:
            file.write(self._native.serialize())

    @classmethod
    def load(cls: type[_T], path: str | os.PathLike[str], params: Params) -> _T:
        """Reads an object saved by `save`; it must belong to `params`.

        >>> ct = rf.Ciphertext.load("x.rfct", params)
        """
        if not isinstance(params, Params):
            raise TypeError(f"params must be an rf.Params, got {type(params).__name__}")
        data = runtime().read_object_file(os.fspath(path), params._context)
        native_class = getattr(runtime(), cls._native_name)
        return cls(params, native_class.deserialize(params._context, data))

    def __reduce__(self) -> tuple[Any, ...]:
        # The saved file's bytes, checked again as a loaded file's are.
        return _unpickle_object, (type(self), self.params, self._native.serialize())


class Ciphertext(_RuntimeObject):
    """A BFV ciphertext (2 components, or 3 after a multiplication)."""

    _native_name = "Ciphertext"

    @property
    def size(self) -> int:
        return int(self._native.size)

    def residues(self) -> npt.NDArray[np.uint64]:
        """The components as an array of shape (size, |Q|, N), coefficient form."""
        q = len(self.params.coeff_modulus)
        n = self.params.poly_modulus_degree
        return np.asarray(self._native.data).reshape(self.size, q, n)

    @classmethod
    def from_residues(cls, params: Params, residues: npt.ArrayLike) -> Ciphertext:
        """The inverse of `residues` (each residue below its prime; 2 to 16
        components, as the file format stores)."""
        array = np.asarray(residues)
        q, n = len(params.coeff_modulus), params.poly_modulus_degree
        if array.ndim != 3 or array.shape[1:] != (q, n) or not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"expected an integer array of shape (size, {q}, {n}), got {array.dtype}{array.shape}")
        if not 2 <= array.shape[0] <= MAX_CIPHERTEXT_COMPONENTS:
            raise ValueError(
                f"a ciphertext has 2 to {MAX_CIPHERTEXT_COMPONENTS} components, got {array.shape[0]}"
            )
        native = runtime().ciphertext_from_data(params._context, array.shape[0], array.astype(np.uint64).ravel())
        return cls(params, native)

    def to_gpu(self) -> GpuCiphertext:
        """A copy in GPU memory, which GPU programs take without a host round trip."""
        return GpuCiphertext(self.params, runtime().upload_ciphertext(self._native))

    def __repr__(self) -> str:
        return f"<rf.Ciphertext {self.size} components, {self.params!r}>"


class GpuCiphertext:
    """A ciphertext in GPU memory: what `Program.run_on_gpu` returns, or
    `Ciphertext.to_gpu()` makes. GPU programs take it as an input directly;
    `to_host()` copies it back.

    >>> out = prog.run_on_gpu(x.to_gpu(), y.to_gpu())
    >>> keys.decrypt(out.to_host())
    """

    def __init__(self, params: Params, native: Any) -> None:
        self.params = params
        self._native = native

    @property
    def size(self) -> int:
        return int(self._native.size)

    def to_host(self) -> Ciphertext:
        return Ciphertext(self.params, runtime().download_ciphertext(self._native))

    def __reduce__(self) -> tuple[Any, ...]:
        # GPU memory does not travel: it pickles as its host copy, an rf.Ciphertext.
        return self.to_host().__reduce__()

    def __repr__(self) -> str:
        return f"<rf.GpuCiphertext {self.size} components, {self.params!r}>"


class Plaintext(_RuntimeObject):
    """An encoded plaintext: a polynomial of R_t."""

    _native_name = "Plaintext"

    @property
    def coefficients(self) -> npt.NDArray[np.uint64]:
        return np.asarray(self._native.coefficients)

    def __repr__(self) -> str:
        return f"<rf.Plaintext {self.params!r}>"


class SecretKey(_RuntimeObject):
    """The secret key s (ternary). Keep it on the client."""

    _native_name = "SecretKey"

    def coefficients(self) -> list[int]:
        """s as signed coefficients in {-1, 0, 1}."""
        return list(self._native.coefficients)

    def exposed(self) -> ExposedSecretKey:
        """The key wrapped to be pickled, which it is only when asked for this
        way: `pickle.dumps(keys.secret_key.exposed())` unpickles to the rf.SecretKey."""
        return ExposedSecretKey(self)

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError(
            "an rf.SecretKey is not pickled by accident: a server needs only "
            "keys.evaluation_keys(); to send the secret key on purpose, pickle "
            "keys.secret_key.exposed()"
        )


class ExposedSecretKey:
    """A secret key the caller asked to pickle (`SecretKey.exposed()`)."""

    def __init__(self, key: SecretKey) -> None:
        if not isinstance(key, SecretKey):
            raise TypeError(f"expected an rf.SecretKey, got {type(key).__name__}")
        self.key = key

    def __reduce__(self) -> tuple[Any, ...]:
        return _unpickle_object, (SecretKey, self.key.params, self.key._native.serialize())


def _unpickle_object(cls: type[_T], params: Params, data: bytes) -> _T:
    native_class = getattr(runtime(), cls._native_name)
    return cls(params, native_class.deserialize(params._context, data))


class PublicKey(_RuntimeObject):
    """The public encryption key."""

    _native_name = "PublicKey"


class RelinKey(_RuntimeObject):
    """The relinearization key (hybrid key switching from s^2 to s)."""

    _native_name = "RelinKey"


class GaloisKeys(_RuntimeObject):
    """Key-switching keys for slot rotations and the row swap."""

    _native_name = "GaloisKeys"

    @property
    def elements(self) -> tuple[int, ...]:
        """The Galois elements g (X -> X^g) that have keys."""
        return tuple(self._native.elements)
