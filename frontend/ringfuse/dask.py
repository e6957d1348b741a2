"""Programs on a Dask cluster: a pool of workers that each hold the program.

`ProgramPool(prog, keys.evaluation_keys(), workers=N)` starts a local cluster
(one worker process a GPU, pinned by CUDA_VISIBLE_DEVICES, for a CUDA program;
CPU workers otherwise), or uses a `distributed.Client` or a scheduler's
address. The program and the evaluation keys go to each worker once, as a
worker plugin: a worker that joins later, or replaces one that died, gets them
too. `pool.map(inputs)` sends the inputs a chunk at a time straight to a
worker (scattered: the scheduler sees only a key), runs each chunk as a task
there and yields the results in input order as they come, with a bounded
number in flight. A chunk lost with a worker that died is sent again, so
every input yields exactly one result; an input that fails for its own reason
yields an `ItemError` in its place and the others go on.

>>> with ProgramPool(prog, keys.evaluation_keys(), workers=2) as pool:
...     for out in pool.map([(x, y) for x, y in zip(xs, ys)], progress=True):
...         print(keys.decrypt(out)[:4])
"""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from distributed import Client, LocalCluster, Nanny, Scheduler, SpecCluster, WorkerPlugin
from distributed import as_completed

import numpy as np

from ._native import runtime
from .batch import CiphertextBatch
from .keys import EvaluationKeys
from .objects import Ciphertext
from .program import Program, _progress_bar

# In each worker process: the pools' programs, by pool, with their keys bound.
_PROGRAMS: dict[str, Program] = {}
# Times a chunk whose worker died is sent again before its inputs yield errors.
_RESENDS = 3


class ItemError(Exception):
    """The result of an input of `ProgramPool.map` that failed for its own
    reason (say, a ciphertext of other parameters): yielded in its place, so
    the other inputs' results still come."""

    def __init__(self, index: int, error: BaseException) -> None:
        super().__init__(f"input {index} failed: {type(error).__name__}: {error}")
        self.index = index
        self.error = error


class _HoldProgram(WorkerPlugin):
    """Sent once to each worker (and to every worker that joins later): the
    program, unpickled there (built, or found in the worker's cache), with the
    evaluation keys bound."""

    def __init__(self, pool: str, program: Program, keys: EvaluationKeys) -> None:
        self.name = f"ringfuse-pool-{pool}"
        self.pool = pool
        self.program = program
        self.keys = keys

    def setup(self, worker: Any) -> None:
        self.program.set_evaluation_keys(self.keys)
        _PROGRAMS[self.pool] = self.program

    def teardown(self, worker: Any) -> None:
        _PROGRAMS.pop(self.pool, None)


def _call(program: Program, arguments: Any) -> Any:
    """The program called with one input's `arguments` (a tuple of positional
    arguments, a dict of keyword arguments, or one argument)."""
    if isinstance(arguments, dict):
        return program(**arguments)
    if isinstance(arguments, tuple):
        return program(*arguments)
    return program(arguments)


def _as_batch_arguments(chunk: list[Any]) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """A chunk's inputs as one batched call's arguments: each position (or
    keyword) a CiphertextBatch of the inputs' ciphertexts, one value they all
    share, or a 2-D array of their plaintext rows; None where they do not fit
    one call (then the inputs run one by one)."""
    first = chunk[0]
    if isinstance(first, dict):
        if not all(isinstance(c, dict) and c.keys() == first.keys() for c in chunk):
            return None
        columns = {name: [c[name] for c in chunk] for name in first}
        batched = {name: _as_batch_column(values) for name, values in columns.items()}
        if any(value is None for value in batched.values()):
            return None
        return (), batched
    rows = [c if isinstance(c, tuple) else (c,) for c in chunk]
    if any(len(row) != len(rows[0]) for row in rows):
        return None
    positional = tuple(_as_batch_column(list(values)) for values in zip(*rows))
    if any(value is None for value in positional):
        return None
    return positional, {}


def _as_batch_column(values: list[Any]) -> Any:
    if all(type(v) is Ciphertext for v in values):
        if any(v.params != values[0].params or v.size != values[0].size for v in values):
            return None
        return CiphertextBatch.from_ciphertexts(values)
    if all(v is values[0] for v in values):
        return values[0]
    if all(isinstance(v, (int, np.integer)) and v == values[0] for v in values):
        return values[0]
    arrays = [np.asarray(v) for v in values]
    if all(a.ndim == 1 and a.shape == arrays[0].shape and np.issubdtype(a.dtype, np.integer)
           for a in arrays):
        return np.stack(arrays)
    return None


def _run(pool: str, chunk: list[Any]) -> list[Any]:
    """A chunk of inputs on a worker: one batched call where they fit one
    (every kernel over the chunk's instances on a GPU), else one call each;
    per input its result, or the exception it raised (only that input's)."""
    program = _PROGRAMS[pool]
    batched = _as_batch_arguments(chunk) if len(chunk) > 1 else None
    if batched is not None:
        try:
            outputs = program(*batched[0], **batched[1])
        except Exception:
            pass  # some input's own fault: find it below, one by one
        else:
            if isinstance(outputs, CiphertextBatch):
                return list(outputs)
            return [tuple(items) for items in zip(*outputs)]
    results: list[Any] = []
    for arguments in chunk:
        try:
            results.append(_call(program, arguments))
        except Exception as error:  # noqa: BLE001 - the input's own failure, reported for it
            results.append(error)
    return results


def _local_cluster(device: str, workers: int | None) -> Any:
    """A cluster on this machine: a worker process a GPU (CUDA_VISIBLE_DEVICES
    naming its one GPU, as dask-cuda does), or `workers` CPU workers (one a
    core by default), each of one thread and restarted by its nanny if it dies."""
    quiet = {"dashboard_address": ":0"}  # any free port: several pools may run
    if device == "cuda":
        count = runtime().cuda_device_count() if workers is None else workers
        if count < 1:
            raise RuntimeError("a pool of a CUDA program needs a CUDA device; none is visible")
        specs = {
            f"gpu-{gpu}": {
                "cls": Nanny,
                "options": {"nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": str(gpu)}},
            }
            for gpu in range(count)
        }
        return SpecCluster(workers=specs, scheduler={"cls": Scheduler, "options": quiet})
    count = (os.cpu_count() or 1) if workers is None else workers
    return LocalCluster(n_workers=count, threads_per_worker=1, processes=True, **quiet)


class ProgramPool:
    """A program on a Dask cluster's workers (see the module's docstring).

    `evaluation_keys` default to the keys bound to `program`. `workers` sizes a
    local cluster (default: one worker a GPU for a CUDA program, one a core
    otherwise); `client` (a `distributed.Client`) or `address` (a scheduler's)
    uses a cluster that runs elsewhere, which the pool leaves running.
    """

    def __init__(
        self,
        program: Program,
        evaluation_keys: EvaluationKeys | None = None,
        *,
        workers: int | None = None,
        client: Client | None = None,
        address: str | None = None,
    ) -> None:
        if not isinstance(program, Program):
            raise TypeError(f"expected an rf.Program, got {type(program).__name__}")
        if workers is not None and (not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be a positive int, got {workers!r}")
        if sum(x is not None for x in (workers, client, address)) > 1:
            raise ValueError("give at most one of workers, client and address")
        if evaluation_keys is None:
            program._require_keys()
            evaluation_keys = EvaluationKeys(
                program.params, None, program._relin_key, program._galois_keys
            )
        if not isinstance(evaluation_keys, EvaluationKeys):
            raise TypeError(
                "evaluation_keys must be an rf.EvaluationKeys (keys.evaluation_keys()), got "
                f"{type(evaluation_keys).__name__}"
            )
        if evaluation_keys.params != program.params:
            raise ValueError("the evaluation keys belong to other parameters than the program")
        self.program = program
        self._cluster: Any = None
        self._owned = client is None
        if client is not None:
            self.client = client
        elif address is not None:
            self.client = Client(address)
        else:
            self._cluster = _local_cluster(program.device, workers)
            self.client = Client(self._cluster)
        # Straight between this process and the workers on a local cluster;
        # elsewhere as the client is set up (its workers may be out of reach).
        self._direct = True if self._cluster is not None else None
        self._pool = uuid.uuid4().hex
        self._plugin = _HoldProgram(self._pool, program, evaluation_keys)
        self.client.register_plugin(self._plugin)

    @property
    def workers(self) -> int:
        """The workers the cluster has now."""
        return len(self.client.scheduler_info(n_workers=-1)["workers"])

    def map(
        self,
        inputs: Iterable[Any],
        *,
        chunk: int = 16,
        in_flight: int | None = None,
        progress: bool = False,
    ) -> Iterator[Any]:
        """The program's result for each input (a tuple of positional
        arguments, a dict of keyword arguments, or one argument), in input
        order, as they come; an input that failed for its own reason yields an
        `ItemError`. Inputs go to the workers `chunk` at a time, each chunk one
        batched call where its inputs fit one (every kernel over the chunk's
        instances on a GPU); at most `in_flight` chunks (default: twice the
        workers) are on the cluster at once. `progress=True` shows a bar."""
        if not isinstance(chunk, int) or chunk < 1:
            raise ValueError(f"chunk must be a positive int, got {chunk!r}")
        limit = in_flight if in_flight is not None else 2 * max(1, self.workers)
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"in_flight must be a positive int, got {limit!r}")
        total = len(inputs) if hasattr(inputs, "__len__") else None  # type: ignore[arg-type]
        items = iter(inputs)
        # future -> its chunk's first input, the chunk, the attempts so far
        running: dict[Any, tuple[int, list[Any], int]] = {}
        finished: dict[int, Any] = {}
        completions = as_completed()
        submitted = yielded = 0

        def send(first: int, part: list[Any], attempt: int) -> None:
            # The inputs go straight to a worker (scatter), not inside the task
            # through the scheduler, which would unpickle and repickle them.
            data = self.client.scatter([part], direct=self._direct, hash=False)[0]
            future = self.client.submit(
                _run, self._pool, data, pure=False,
                key=f"ringfuse-{self._pool}-{first}-{attempt}",
            )
            running[future] = (first, part, attempt)
            completions.add(future)

        def submit() -> None:
            nonlocal submitted
            while len(running) < limit:
                part = list(itertools.islice(items, chunk))
                if not part:
                    return
                send(submitted, part, 0)
                submitted += len(part)

        with _progress_bar(progress, total, self.program.name) as bar:
            submit()
            while yielded < submitted:
                if yielded in finished:
                    result = finished.pop(yielded)
                    yield ItemError(yielded, result) if isinstance(result, Exception) else result
                    yielded += 1
                    continue
                future = next(completions)
                first, part, attempt = running.pop(future)
                results, failure = self._fetch(future)
                if results is None:
                    # _run returns the inputs' own errors: this is the cluster's
                    # (the worker holding the chunk, or its result, died).
                    if attempt < _RESENDS:
                        send(first, part, attempt + 1)
                        continue
                    results = [failure] * len(part)
                for offset, result in enumerate(results):
                    finished[first + offset] = result
                bar.update(len(results))
                submit()

    def _fetch(self, future: Any) -> tuple[list[Any] | None, BaseException]:
        """A finished chunk's results (None if they were lost) and, if lost, why."""
        failure: BaseException = RuntimeError(f"the chunk was lost {_RESENDS + 1} times")
        try:
            if future.status == "finished":
                # Straight from the worker; it may die before they come.
                return self.client.gather(future, direct=self._direct), failure
            if future.status == "error":
                failure = future.exception()
        except Exception as error:  # noqa: BLE001 - the result went with its worker
            failure = error
        finally:
            future.release()
        return None, failure

    def close(self) -> None:
        """Takes the program off the workers; closes a cluster the pool started."""
        try:
            self.client.unregister_worker_plugin(self._plugin.name)
        finally:
            if self._owned:
                self.client.close()
                if self._cluster is not None:
                    self._cluster.close()

    def __enter__(self) -> ProgramPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<rf.dask.ProgramPool {self.program.name} on {self.workers} workers>"
