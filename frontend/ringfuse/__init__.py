"""ringfuse: an MLIR compiler for BFV homomorphic-encryption circuits.

>>> import ringfuse as rf
>>> @rf.circuit(plaintext_modulus=65537)
... def f(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
...     return x * y + w * x
>>> print(rf.trace(f).mlir)
>>> prog = rf.compile(f)
>>> keys = prog.keygen()
>>> out = prog(keys.encrypt(a), keys.encrypt(b), w=c)

Parameters may also be lists (`xs: rf.Encrypted[4]`) and plaintext matrices
(`w: rf.PlainMatrix[rows, cols]`, used as `w @ x`).
"""

from .batch import CiphertextBatch
from .circuit import Circuit, Encrypted, Plain, PlainMatrix, Trace, TraceError, circuit, trace
from .compile import compile
from .driver import CompilerError
from .errors import OutOfDeviceMemory
from .keys import EvaluationKeys, KeySet, load_evaluation_keys
from .objects import (
    Ciphertext,
    ExposedSecretKey,
    GaloisKeys,
    GpuCiphertext,
    Plaintext,
    PublicKey,
    RelinKey,
    SecretKey,
)
from .params import Params
from .plain_matrix import encode_matrix_inputs as encode_matrix
from .program import Program

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # `from ringfuse import _runtime` gets the runtime _native chose (an installed wheel's CUDA
    # build, say), never a second copy: the bundled CPU extension shares the submodule's name.
    if name == "_runtime":
        from ._native import runtime

        return runtime()
    raise AttributeError(f"module 'ringfuse' has no attribute {name!r}")


__all__ = [
    "Ciphertext",
    "CiphertextBatch",
    "Circuit",
    "CompilerError",
    "Encrypted",
    "EvaluationKeys",
    "ExposedSecretKey",
    "GaloisKeys",
    "GpuCiphertext",
    "KeySet",
    "OutOfDeviceMemory",
    "Params",
    "Plain",
    "PlainMatrix",
    "Plaintext",
    "Program",
    "PublicKey",
    "RelinKey",
    "SecretKey",
    "Trace",
    "TraceError",
    "__version__",
    "circuit",
    "compile",
    "encode_matrix",
    "load_evaluation_keys",
    "trace",
]
