"""A pool of program workers on Dask: a server answering many encrypted queries.

    python examples/pool.py                    # a local cluster (one worker a GPU, else a core)
    python examples/pool.py tcp://host:8786    # a running Dask scheduler's workers

The client keeps the secret key; the workers get the program and the
evaluation keys once each (pickled, with nothing secret), and every query is a
task: results come back in query order, even if a worker dies on the way.
"""

import sys
import time

import numpy as np

import ringfuse as rf
from ringfuse.dask import ItemError, ProgramPool

T = 65537


@rf.circuit(plaintext_modulus=T)
def score(query: rf.Encrypted, weights: rf.Plain) -> rf.Encrypted:
    return query * weights + query * query


def main() -> int:
    prog = rf.compile(score, target="auto")
    keys = prog.keygen()
    rng = np.random.default_rng()
    n = prog.params.slot_count
    weights = rng.integers(0, T, n)
    values = [rng.integers(0, 256, n) for _ in range(32)]
    queries = [(keys.encrypt(v), weights) for v in values]

    address = sys.argv[1] if len(sys.argv) > 1 else None
    start = time.perf_counter()
    # With no address, a local cluster: its worker processes import this file
    # again, which is why the work sits under `if __name__ == "__main__"`.
    with ProgramPool(prog, keys.evaluation_keys(), address=address) as pool:
        print(f"{pool} ready in {time.perf_counter() - start:.1f} s")
        correct = True
        for value, result in zip(values, pool.map(queries, progress=True)):
            if isinstance(result, ItemError):
                print(result, file=sys.stderr)
                correct = False
                continue
            expected = (value * weights + value * value) % T
            correct &= bool((keys.decrypt(result) == expected).all())
    print(f"{len(queries)} queries in {time.perf_counter() - start:.1f} s: "
          f"{'all correct' if correct else 'WRONG'}")
    return 0 if correct else 1


if __name__ == "__main__":
    sys.exit(main())
