"""ringfuse: an MLIR compiler for BFV homomorphic-encryption circuits.

>>> import ringfuse as rf
>>> @rf.circuit(plaintext_modulus=65537)
... def f(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
...     return x * y + w * x
>>> print(rf.trace(f).mlir)
"""

from .circuit import Circuit, Encrypted, Plain, Trace, TraceError, circuit, trace
from .driver import CompilerError

__version__ = "0.1.0"

__all__ = [
    "Circuit",
    "CompilerError",
    "Encrypted",
    "Plain",
    "Trace",
    "TraceError",
    "__version__",
    "circuit",
    "trace",
]
