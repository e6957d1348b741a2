"""A two-layer network on an encrypted input: y = W2 (W1 x)^2 with plaintext
weights, the compiler's whole-circuit optimizations on (the default) and off.

    python examples/private_inference.py      (after `make build`)

`w @ x` with `w: rf.PlainMatrix[rows, cols]` is the matrix-vector product over
the slots; the program encodes the numpy weights it is called with. The
compiler turns each product's sum of rotations into baby steps and giant
steps and shares one decomposition among the rotations of one ciphertext.
"""

import sys
import time

import numpy as np

import ringfuse as rf

T = 65537
INPUTS, HIDDEN, OUTPUTS = 64, 32, 10


@rf.circuit(plaintext_modulus=T)
def network(w1: rf.PlainMatrix[HIDDEN, INPUTS], w2: rf.PlainMatrix[OUTPUTS, HIDDEN],
            x: rf.Encrypted) -> rf.Encrypted:
    h = w1 @ x
    return w2 @ (h * h)  # a square activation


def main() -> int:
    rng = np.random.default_rng()
    w1 = rng.integers(-8, 8, (HIDDEN, INPUTS))
    w2 = rng.integers(-8, 8, (OUTPUTS, HIDDEN))
    x = rng.integers(0, 16, INPUTS)
    h = w1 @ x
    expected = (w2 @ (h * h)) % T
    for optimize in (True, False):
        start = time.perf_counter()
        try:
            prog = rf.compile(network, target="auto", optimize=optimize)
        except rf.CompilerError as error:
            print(f"compiling {network.name} failed:\n{error}", file=sys.stderr)
            return 1
        compiled = time.perf_counter() - start
        keys = prog.keygen()  # with the Galois keys its rotations need
        encrypted = keys.encrypt(x)
        start = time.perf_counter()
        out = prog(w1=w1, w2=w2, x=encrypted)
        ran = time.perf_counter() - start
        got = keys.decrypt(out)[:OUTPUTS]
        print(f"optimize={optimize!s:5}: compiled in {compiled:.1f} s, ran on "
              f"{prog.device} in {ran * 1000:.0f} ms, {len(prog.galois_elements)} Galois keys "
              f"({prog.galois_key_bytes / 2**20:.1f} MiB), noise budget left "
              f"{keys.noise_budget(out)} bits, correct: {bool((got == expected).all())}")
        if not (got == expected).all():
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
