"""Batches: K ciphertexts of one parameter set, for K instances of a circuit.

A server answering many clients runs one compiled circuit on each client's
inputs: `keys.encrypt` of a 2-D array (one row per instance) makes a batch,
a program called with batches runs every instance and returns batches, and
`keys.decrypt` of a batch gives one row of slots per instance.

>>> bx = keys.encrypt(np.arange(12).reshape(3, 4))    # 3 instances
>>> out = prog(bx, keys.encrypt(ys), w=weights)       # an rf.CiphertextBatch
>>> keys.decrypt(out).shape
(3, 8192)

A CUDA key set's batches are made in GPU memory and stay there through the
programs they feed; only the decrypted slots come back.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any, overload

import numpy as np

from ._native import runtime
from .objects import Ciphertext
from .params import Params


class CiphertextBatch:
    """K ciphertexts of one parameter set (K >= 1), in order: instance k's
    value is `batch[k]`. The K ciphertexts lie side by side in one block of
    memory: host memory (pinned where a GPU is visible, so that the GPU
    streams it in chunks without staging), or GPU memory, where a batch that
    a CUDA key set encrypted or a GPU program computed stays for the next
    call (`on_gpu`; `to_host()` and `to_gpu()` copy). Saved as one file of
    ringfuse's versioned format.

    >>> batch = rf.CiphertextBatch.from_ciphertexts([keys.encrypt(a), keys.encrypt(b)])
    >>> batch.save("queries.rfbatch")
    >>> rf.CiphertextBatch.load("queries.rfbatch", params)[1]
    <rf.Ciphertext 2 components, ...>
    """

    def __init__(self, params: Params, native: Any) -> None:
        # The checked constructor is from_ciphertexts; this one trusts its caller.
        self.params = params
        self._native = native

    @classmethod
    def from_ciphertexts(cls, ciphertexts: Iterable[Ciphertext]) -> CiphertextBatch:
        """A batch (in host memory) of these ciphertexts, in order: at least
        one, all of one parameter set and component count."""
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
        native = runtime().CiphertextBatch.from_ciphertexts([c._native for c in items])
        return cls(items[0].params, native)

    @property
    def on_gpu(self) -> bool:
        """Whether the batch is in GPU memory."""
        return bool(self._native.placement == "device")

    @property
    def size(self) -> int:
        """Components of each ciphertext (2 after relinearization)."""
        return int(self._native.components)

    def to_gpu(self) -> CiphertextBatch:
        """The batch in GPU memory (itself if it is there)."""
        return self if self.on_gpu else CiphertextBatch(self.params, self._native.to("device"))

    def to_host(self) -> CiphertextBatch:
        """The batch in host memory (itself if it is there)."""
        if not self.on_gpu:
            return self
        return CiphertextBatch(self.params, self._native.to("host"))

    def __len__(self) -> int:
        return int(self._native.count)

    @overload
    def __getitem__(self, index: int) -> Ciphertext: ...
    @overload
    def __getitem__(self, index: slice) -> CiphertextBatch: ...

    def __getitem__(self, index: int | slice) -> Ciphertext | CiphertextBatch:
        """Instance k's ciphertext (a copy in host memory), or a slice's
        instances as a batch (a copy where this one is)."""
        count = len(self)
        if isinstance(index, slice):
            picked = range(count)[index]
            if len(picked) == 0:
                raise ValueError(f"a batch holds at least one ciphertext; {index} picks none")
            if picked.step == 1:
                return CiphertextBatch(self.params, self._native.slice(picked.start, len(picked)))
            stepped = CiphertextBatch.from_ciphertexts(self[k] for k in picked)
            return stepped.to_gpu() if self.on_gpu else stepped
        if not isinstance(index, (int, np.integer)):
            raise TypeError(f"a batch is indexed by an int or a slice, not {type(index).__name__}")
        position = int(index) + count if index < 0 else int(index)
        if not 0 <= position < count:
            raise IndexError(f"instance {index} of a batch of {count}")
        return Ciphertext(self.params, self._native.ciphertext(position))

    def __iter__(self) -> Iterator[Ciphertext]:
        host = self.to_host()
        return (host[k] for k in range(len(host)))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the batch in ringfuse's versioned binary format."""
        data = runtime().serialize_ciphertext_batch(self._native)
        with open(path, "wb") as file:
            file.write(data)

    @classmethod
    def load(cls, path: str | os.PathLike[str], params: Params) -> CiphertextBatch:
        """Reads a batch saved by `save` (into host memory); it must belong to
        `params`."""
        if not isinstance(params, Params):
            raise TypeError(f"params must be an rf.Params, got {type(params).__name__}")
        context = params._context
        data = runtime().read_object_file(os.fspath(path), context)
        return cls(params, runtime().deserialize_ciphertext_batch(context, data))

    def __reduce__(self) -> tuple[Any, ...]:
        # As saved: one file's bytes, checked again when unpickled; GPU memory
        # does not travel, so a batch there arrives in host memory.
        data = runtime().serialize_ciphertext_batch(self._native)
        return _unpickle_batch, (self.params, data)

    def __repr__(self) -> str:
        where = ", on the GPU" if self.on_gpu else ""
        return f"<rf.CiphertextBatch of {len(self)}{where}, {self.params!r}>"


def _unpickle_batch(params: Params, data: bytes) -> CiphertextBatch:
    return CiphertextBatch(params, runtime().deserialize_ciphertext_batch(params._context, data))
