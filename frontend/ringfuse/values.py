"""Checks user values (slots, coefficients) before they reach the runtime.

Values are residues mod t: out-of-range values, wrong lengths and non-integer
dtypes are errors, never silently reduced or truncated.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def integer_or_none(value: object) -> int | None:
    """An int or a numpy integer as a Python int; None for anything else (a
    bool included: True as a count or modulus is a mistake)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return None
    return int(value)


def as_int(name: str, value: object, minimum: int, maximum: int) -> int:
    """`value` as a Python int in [minimum, maximum]: an int or a numpy integer
    (not a bool); a TypeError or ValueError naming `name` otherwise, so that
    no value reaches the runtime's fixed-width arguments unchecked.

    >>> as_int("dnum", np.int64(3), 1, 2**32)
    3
    """
    number = integer_or_none(value)
    if number is None:
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not minimum <= number <= maximum:
        raise ValueError(f"{name} must be in [{minimum}, {maximum}], got {number}")
    return number


def as_residues(values: Any, modulus: int, capacity: int, what: str) -> npt.NDArray[np.uint64]:
    """`values` (a 1-D integer array-like, or an int) as uint64 residues in [0, modulus).

    >>> as_residues([1, 2, 3], 65537, 8, "slots")
    array([1, 2, 3], dtype=uint64)
    """
    if isinstance(values, bool) or isinstance(values, np.bool_):
        raise TypeError(f"{what} must be integers, got a bool")
    if isinstance(values, (int, np.integer)):
        values = [int(values)] * capacity
    array = np.asarray(values)
    if array.size == 0:
        raise ValueError(f"no {what} given")
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        if array.dtype == object and all(isinstance(v, int) for v in array.ravel()):
            raise ValueError(f"{what} must be in [0, {modulus}); some do not fit 64 bits")
        raise TypeError(
            f"{what} must be integers (an int, a list of ints or an integer numpy "
            f"array), got dtype {array.dtype}"
        )
    if array.ndim != 1:
        raise ValueError(f"{what} must be a 1-D array, got shape {array.shape}")
    if array.size > capacity:
        raise ValueError(f"{array.size} {what} do not fit: there are {capacity}")
    low, high = int(array.min()), int(array.max())
    if low < 0 or high >= modulus:
        bad = low if low < 0 else high
        raise ValueError(
            f"{what} must be in [0, {modulus}) (the plaintext modulus); found {bad}. "
            f"Reduce them first, e.g. np.mod(values, {modulus})"
        )
    # In [0, modulus): a 64-bit array's bits are its uint64 residues, no copy
    # needed (a batch of rows is megabytes).
    if array.dtype.itemsize == 8:
        return np.ascontiguousarray(array).view(np.uint64)
    return array.astype(np.uint64)
