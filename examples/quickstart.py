"""Quickstart: write a BFV circuit in Python, look at its IR, and check that the
compiler accepts it.

    python examples/quickstart.py      (after `make build`; or `make demo`)
"""

import sys

import ringfuse as rf


@rf.circuit(plaintext_modulus=65537)
def f(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain) -> rf.Encrypted:
    return x * y + w * x  # all arithmetic is mod t = 65537


def main() -> int:
    trace = rf.trace(f)
    print("Traced IR:")
    print(trace.mlir)
    try:
        verified = trace.verify()  # parsed and verified by ringfuse-opt
    except rf.CompilerError as error:
        print(f"ringfuse-opt did not accept it:\n{error}", file=sys.stderr)
        return 1
    print("Verified by ringfuse-opt:")
    print(verified)
    return 0


if __name__ == "__main__":
    sys.exit(main())
