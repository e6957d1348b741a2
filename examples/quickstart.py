"""Quickstart: write a BFV circuit in Python, compile it (for the GPU when one is
usable, else the CPU) and run it on encrypted inputs.

    python examples/quickstart.py      (after `make build`; or `make demo`)
"""

import sys
import time

import numpy as np

import ringfuse as rf

T = 65537


@rf.circuit(plaintext_modulus=T)
def f(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain) -> rf.Encrypted:
    return x * y + w * x  # all arithmetic is mod t = 65537


def main() -> int:
    start = time.perf_counter()
    try:
        # Parameters are chosen for 128-bit security and the circuit's depth;
        # the compiled program is cached, so the second run compiles instantly.
        prog = rf.compile(f, target="auto")
    except rf.CompilerError as error:
        print(f"compiling {f.name} failed:\n{error}", file=sys.stderr)
        return 1
    where = "the GPU" if prog.device == "cuda" else "the CPU"
    print(f"compiled {f.name} for {where} in {time.perf_counter() - start:.2f} s")

    keys = prog.keygen()  # secret, public and relinearization keys
    n = prog.params.slot_count
    rng = np.random.default_rng()
    a, b, c = (rng.integers(0, T, n) for _ in range(3))
    out = prog(keys.encrypt(a), keys.encrypt(b), w=c)  # computes on ciphertexts only

    correct = bool((keys.decrypt(out) == (a * b + c * a) % T).all())
    print(
        f"x*y + w*x on {n} encrypted slots: {'correct' if correct else 'WRONG'} "
        f"(N={prog.params.poly_modulus_degree}, log Q={prog.params.log_q})"
    )
    return 0 if correct else 1


if __name__ == "__main__":
    sys.exit(main())
