"""Batches: K ciphertexts of one parameter set, for K instances of a circuit.

A server answering many clients runs one compiled circuit on each client's
inputs: `keys.encrypt` of a 2-D array (one row per instance) makes a batch,
a program called with batches runs every instance and returns batches, and
`keys.decrypt` of a batch gives one row of slots per instance.

>>> bx = keys.encrypt(np.arange(12).reshape(3, 4))    # 3 instances
>>> out = prog(bx, keys.encrypt(ys), w=weights)       # an rf.CiphertextBatch
>>> keys.decrypt(out).shape
(3, 8192)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any, overload

from ._native import runtime
from .objects import Ciphertext
from .params import Params


class CiphertextBatch:
    """K ciphertexts of one parameter set (K >= 1), in order: instance k's
    value is `batch[k]`. Saved as one file of ringfuse's versioned format.

    >>> batch = rf.CiphertextBatch.from_ciphertexts([keys.encrypt(a), keys.encrypt(b)])
    >>> batch.save("queries.rfbatch")
    >>> rf.CiphertextBatch.load("queries.rfbatch", params)[1]
    <rf.Ciphertext 2 components, ...>
    """

    def __init__(self, params: Params, ciphertexts: list[Ciphertext]) -> None:
        # The checked constructor is from_ciphertexts; this one trusts its caller.
        self.params = params
        self._ciphertexts = ciphertexts

    @classmethod
    def from_ciphertexts(cls, ciphertexts: Iterable[Ciphertext]) -> CiphertextBatch:
        """A batch of these ciphertexts, in order: at least one, all of one
        parameter set."""
        items = list(ciphertexts)
        if not items:
            raise ValueError("a batch holds at least one ciphertext, got none")
        for index, item in enumerate(items):
            if not isinstance(item, Ciphertext):
                raise TypeError(
                    f"a batch holds rf.Ciphertexts; item {index} is a {type(item).__name__}"
                )
            if item.params != items[0].params:
                raise ValueError(
                    f"a batch holds ciphertexts of one parameter set: item {index} belongs to "
                    f"{item.params!r}, item 0 to {items[0].params!r}"
                )
        return cls(items[0].params, items)

    def __len__(self) -> int:
        return len(self._ciphertexts)

    @overload
    def __getitem__(self, index: int) -> Ciphertext: ...
    @overload
    def __getitem__(self, index: slice) -> CiphertextBatch: ...

    def __getitem__(self, index: int | slice) -> Ciphertext | CiphertextBatch:
        if isinstance(index, slice):
            return CiphertextBatch.from_ciphertexts(self._ciphertexts[index])
        return self._ciphertexts[index]

    def __iter__(self) -> Iterator[Ciphertext]:
        return iter(self._ciphertexts)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the batch in ringfuse's versioned binary format."""
        data = runtime().serialize_ciphertext_batch([c._native for c in self._ciphertexts])
        with open(path, "wb") as file:
            file.write(data)

    @classmethod
    def load(cls, path: str | os.PathLike[str], params: Params) -> CiphertextBatch:
        """Reads a batch saved by `save`; it must belong to `params`."""
        if not isinstance(params, Params):
            raise TypeError(f"params must be an rf.Params, got {type(params).__name__}")
        context = params._context
        data = runtime().read_object_file(os.fspath(path), context)
        natives = runtime().deserialize_ciphertext_batch(context, data)
        return cls(params, [Ciphertext(params, native) for native in natives])

    def __reduce__(self) -> tuple[Any, ...]:
        # As saved: one file's bytes, checked again when unpickled.
        data = runtime().serialize_ciphertext_batch([c._native for c in self._ciphertexts])
        return _unpickle_batch, (self.params, data)

    def __repr__(self) -> str:
        return f"<rf.CiphertextBatch of {len(self)}, {self.params!r}>"


def _unpickle_batch(params: Params, data: bytes) -> CiphertextBatch:
    natives = runtime().deserialize_ciphertext_batch(params._context, data)
    return CiphertextBatch(params, [Ciphertext(params, native) for native in natives])
