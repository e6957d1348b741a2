"""A client's key set: keys, encoding, encryption, decryption, noise.

>>> keys = params.keygen()
>>> ct = keys.encrypt([1, 2, 3])
>>> keys.decrypt(ct)[:3]
array([1, 2, 3])
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from ._native import runtime
from .batch import CiphertextBatch
from .objects import Ciphertext, GaloisKeys, Plaintext, PublicKey, RelinKey, SecretKey
from .params import Params
from .values import as_residues, integer_or_none


def encode(params: Params, values: Any) -> Plaintext:
    """A plaintext of `params`: slots (with batching) or coefficients, from an
    int (every slot) or a 1-D integer array of at most N values in [0, t); the
    rest are zero. Needs no keys (a server encodes its plaintext inputs too).

    >>> encode(params, np.arange(8)).coefficients[:2]
    """
    t, n = params.plaintext_modulus, params.poly_modulus_degree
    rt, context = runtime(), params._context
    if params.batching:
        native = rt.encode_slots(context, as_residues(values, t, n, "slot values"))
    else:
        native = rt.encode_coefficients(context, as_residues(values, t, n, "coefficients"))
    return Plaintext(params, native)


def load_evaluation_keys(
    path: str | os.PathLike[str], params: Params
) -> tuple[RelinKey | None, GaloisKeys | None]:
    """The relinearization and Galois keys of a file written by
    `KeySet.save_evaluation_keys`; each is None if the file does not hold it.
    The file must belong to `params`.

    >>> relin, galois = rf.load_evaluation_keys("eval.rfkeys", prog.params)
    >>> prog.set_evaluation_keys(relin, galois)
    """
    if not isinstance(params, Params):
        raise TypeError(f"params must be an rf.Params, got {type(params).__name__}")
    data = runtime().read_object_file(os.fspath(path), params._context)
    relin, galois = runtime().deserialize_evaluation_keys(params._context, data)
    return (
        None if relin is None else RelinKey(params, relin),
        None if galois is None else GaloisKeys(params, galois),
    )


def _galois_elements(
    params: Params, rotations: Iterable[int], swap_rows: bool, galois_elements: Iterable[int]
) -> list[int]:
    """The distinct Galois elements of the requested rotations, row swap and
    explicit elements, ascending."""
    rt = runtime()
    n = params.poly_modulus_degree
    elements = set()
    row = n // 2
    for step in rotations:
        k = integer_or_none(step)
        if k is None or k == 0:
            raise ValueError(f"rotation steps must be nonzero ints, got {step!r}")
        if not -row < k < row:
            raise ValueError(f"rotation by {k} steps is out of range for rows of {row} slots")
        elements.add(rt.galois_element_for_rotation(n, k))
    if swap_rows:
        elements.add(rt.galois_element_for_row_swap(n))
    for element in galois_elements:
        # 1 is the identity, which needs no key.
        g = integer_or_none(element)
        if g is None or not (1 < g < 2 * n and g % 2 == 1):
            raise ValueError(
                f"Galois elements must be odd ints in (1, 2N) = (1, {2 * n}), got {element!r}"
            )
        elements.add(g)
    return sorted(elements)


DEVICES = ("cpu", "cuda")


def _check_device(device: object) -> str:
    """`device` if it is "cpu" or "cuda" (ValueError otherwise); "cuda" also
    needs the runtime's GPU client and a visible CUDA device (RuntimeError)."""
    if not isinstance(device, str) or device not in DEVICES:
        raise ValueError(f'device must be "cpu" or "cuda", got {device!r}')
    if device == "cuda" and not runtime().gpu_available():
        raise RuntimeError(
            "device='cuda' runs keys, encoding, encryption and decryption on the GPU, and "
            "this machine has no usable CUDA device (or the runtime was built without "
            "CUDA); use device='cpu'"
        )
    return device


class _Client:
    """The runtime's client functions for one device: the CPU reference or
    their GPU versions (same objects, same words for the same seed)."""

    def __init__(self, device: str) -> None:
        rt = runtime()
        prefix = "gpu_" if device == "cuda" else ""
        self.generate_secret_key = getattr(rt, prefix + "generate_secret_key")
        self.generate_public_key = getattr(rt, prefix + "generate_public_key")
        self.generate_relin_key = getattr(rt, prefix + "generate_relin_key")
        self.generate_galois_keys = getattr(rt, prefix + "generate_galois_keys")
        self.encode_slots = getattr(rt, prefix + "encode_slots")
        self.decode_slots = getattr(rt, prefix + "decode_slots")
        self.encrypt_public = getattr(rt, prefix + "encrypt_public")
        self.encrypt_symmetric = getattr(rt, prefix + "encrypt_symmetric")
        self.decrypt = getattr(rt, prefix + "decrypt")


def _is_rows(values: Any) -> bool:
    """Whether `encrypt` is given one row of values per instance (a 2-D array)."""
    if isinstance(values, (Plaintext, int, np.integer)):
        return False
    return isinstance(values, (list, tuple, np.ndarray)) and np.ndim(values) == 2


def _prng(seed: bytes | None) -> Any:
    if seed is None:
        return runtime().Prng()
    if not isinstance(seed, bytes) or len(seed) != 32:
        raise ValueError("seed must be 32 bytes")
    return runtime().Prng.from_seed(seed)


class EvaluationKeys:
    """The public part of a key set: what a server needs to run circuits
    (`prog.set_evaluation_keys(ek)`) and encrypt (`public_key`), and nothing
    secret. Pickles (with its parameter set) to send it to workers.

    >>> ek = keys.evaluation_keys()
    >>> prog.set_evaluation_keys(ek)
    """

    def __init__(
        self,
        params: Params,
        public_key: PublicKey | None = None,
        relin_key: RelinKey | None = None,
        galois_keys: GaloisKeys | None = None,
    ) -> None:
        for key, kind in ((public_key, PublicKey), (relin_key, RelinKey),
                          (galois_keys, GaloisKeys)):
            if key is None:
                continue
            if not isinstance(key, kind):
                raise TypeError(f"expected an rf.{kind.__name__}, got {type(key).__name__}")
            if key.params != params:
                raise ValueError(f"the {kind.__name__} belongs to other parameters than {params!r}")
        self.params = params
        self.public_key = public_key
        self.relin_key = relin_key
        self.galois_keys = galois_keys

    def __repr__(self) -> str:
        held = [name for name, key in (("public", self.public_key), ("relin", self.relin_key),
                                       ("galois", self.galois_keys)) if key is not None]
        return f"<rf.EvaluationKeys {', '.join(held) or 'none'}, {self.params!r}>"


class KeySet:
    """The keys of one parameter set and what a client does with them.

    Encoding uses slots when the parameters allow batching, and the
    polynomial's coefficients otherwise. With `device="cuda"`, key generation,
    slot encoding and decoding, encryption and decryption run on the GPU; for
    the same seed the keys and ciphertexts are the CPU's, word for word.
    """

    def __init__(
        self,
        params: Params,
        secret_key: SecretKey,
        public_key: PublicKey | None = None,
        relin_key: RelinKey | None = None,
        galois_keys: GaloisKeys | None = None,
        *,
        seed: bytes | None = None,
        device: str = "cpu",
    ) -> None:
        self.device = _check_device(device)
        self._client = _Client(self.device)
        for key in (secret_key, public_key, relin_key, galois_keys):
            if key is not None and key.params != params:
                raise ValueError(f"{type(key).__name__} belongs to other parameters than {params!r}")
        self.params = params
        self.secret_key = secret_key
        self.public_key = public_key
        self.relin_key = relin_key
        self.galois_keys = galois_keys
        self._prng = _prng(seed)

    @classmethod
    def generate(
        cls,
        params: Params,
        *,
        rotations: Iterable[int] = (),
        swap_rows: bool = False,
        galois_elements: Iterable[int] = (),
        seed: bytes | None = None,
        device: str = "cpu",
    ) -> KeySet:
        """All keys of `params`; see `Params.keygen`. `galois_elements` asks for
        Galois keys by element g (X -> X^g), as `Program.galois_elements` lists them.
        `device` ("cpu" or "cuda") is where the keys are made and where the key
        set encrypts and decrypts.

        >>> KeySet.generate(params, galois_elements=prog.galois_elements, seed=SEED)
        """
        rt = _Client(_check_device(device))
        prng = _prng(seed)
        elements = _galois_elements(params, rotations, swap_rows, galois_elements)
        if elements and not params.batching:
            raise ValueError("rotations act on slots, which these parameters do not have (no batching)")
        context = params._context
        secret = rt.generate_secret_key(context, prng)
        keys = cls(
            params,
            SecretKey(params, secret),
            PublicKey(params, rt.generate_public_key(secret, prng)),
            RelinKey(params, rt.generate_relin_key(secret, prng)),
            GaloisKeys(params, rt.generate_galois_keys(secret, elements, prng)) if elements else None,
            device=device,
        )
        keys._prng = prng
        return keys

    def encode(self, values: Any) -> Plaintext:
        """Slots (with batching) or coefficients, from an int (every slot) or a
        1-D integer array of at most N values in [0, t); the rest are zero."""
        if self.device == "cuda" and self.params.batching:
            t, n = self.params.plaintext_modulus, self.params.poly_modulus_degree
            residues = as_residues(values, t, n, "slot values")
            return Plaintext(self.params, self._client.encode_slots(self.params._context, residues))
        return encode(self.params, values)

    def decode(self, plaintext: Plaintext) -> npt.NDArray[np.int64]:
        """All N slots (or coefficients) of a plaintext."""
        self._check(plaintext, Plaintext)
        if self.params.batching:
            values = self._client.decode_slots(plaintext._native)
        else:
            values = plaintext._native.coefficients
        return np.asarray(values).astype(np.int64)

    def encrypt(self, values: Any, *, symmetric: bool = False) -> Ciphertext | CiphertextBatch:
        """A fresh ciphertext of `values` (anything `encode` takes, or a
        Plaintext): with the public key, or the secret key if `symmetric`.
        A 2-D integer array of shape (K, n) gives an rf.CiphertextBatch of K
        ciphertexts, row k encrypted as instance k (in GPU memory for a key
        set on the GPU, where it stays for the programs it feeds).

        >>> batch = keys.encrypt(np.array([[1, 2], [3, 4]]))   # 2 instances
        """
        if _is_rows(values):
            rows = np.asarray(values)
            if rows.shape[0] == 0:
                raise ValueError("a batch holds at least one instance; got a (0, n) array")
            if self.device == "cuda" and self.params.batching:
                return self._encrypt_rows_on_gpu(rows, symmetric)
            plaintexts = [self.encode(row)._native for row in rows]
            if self.device == "cpu":
                # On all cores; the ciphertexts of encrypting the rows in turn.
                key = self._encryption_key(symmetric)
                encrypt = (runtime().encrypt_symmetric_batch if symmetric
                           else runtime().encrypt_public_batch)
                return CiphertextBatch(self.params, encrypt(key, plaintexts, self._prng, 0))
            return CiphertextBatch.from_ciphertexts(
                Ciphertext(self.params, self._encrypt_native(p, symmetric)) for p in plaintexts
            ).to_gpu()
        plaintext = values if isinstance(values, Plaintext) else self.encode(values)
        self._check(plaintext, Plaintext)
        return Ciphertext(self.params, self._encrypt_native(plaintext._native, symmetric))

    def _encrypt_rows_on_gpu(self, rows: np.ndarray, symmetric: bool) -> CiphertextBatch:
        """Rows of slot values encoded and encrypted on the GPU, chunks of rows
        a launch, into a batch that stays in GPU memory; the ciphertexts of
        encrypting the rows one after another."""
        t, n = self.params.plaintext_modulus, self.params.poly_modulus_degree
        if rows.shape[1] > n:
            raise ValueError(f"{rows.shape[1]} slot values a row do not fit: there are {n}")

        def residues() -> np.ndarray:
            return as_residues(rows.reshape(-1), t, rows.size, "slot values").reshape(rows.shape)

        key = self._encryption_key(symmetric)
        encrypt = (runtime().gpu_encrypt_symmetric_slots_batch if symmetric
                   else runtime().gpu_encrypt_public_slots_batch)
        if rows.dtype.kind not in "iu" or rows.dtype.itemsize != 8:
            return CiphertextBatch(self.params, encrypt(key, residues(), self._prng, "device"))
        # 64-bit integers go as they are: the runtime checks every value
        # below t on all cores (a negative one reads as 2^64 or more), where
        # a pass in numpy took longer than the GPU's work.
        try:
            native = encrypt(key, np.ascontiguousarray(rows).view(np.uint64), self._prng, "device")
        except ValueError:
            residues()  # raises what is wrong, as for a single encryption
            raise
        return CiphertextBatch(self.params, native)

    def _encryption_key(self, symmetric: bool) -> Any:
        if symmetric:
            return self.secret_key._native
        if self.public_key is None:
            raise ValueError("this key set has no public key; pass symmetric=True")
        return self.public_key._native

    def _encrypt_native(self, plaintext: Any, symmetric: bool) -> Any:
        encrypt = self._client.encrypt_symmetric if symmetric else self._client.encrypt_public
        return encrypt(self._encryption_key(symmetric), plaintext, self._prng)

    def decrypt_plaintext(self, ciphertext: Ciphertext, scaling: str = "hps") -> Plaintext:
        """The plaintext of a ciphertext: round(t/Q (c0 + c1 s)) by HPS's
        exact scale-and-round (`scaling="hps"`, on this key set's device), or
        by BEHZ's gamma-corrected fast conversion (`scaling="behz"`, on the
        CPU); both give the same plaintext while the noise budget is positive."""
        self._check(ciphertext, Ciphertext)
        if scaling == "hps":
            native = self._client.decrypt(self.secret_key._native, ciphertext._native)
        elif scaling == "behz":
            native = runtime().decrypt_behz(self.secret_key._native, ciphertext._native)
        else:
            raise ValueError(f"unknown decryption scaling {scaling!r}; supported: 'hps', 'behz'")
        return Plaintext(self.params, native)

    def decrypt(
        self, ciphertext: Ciphertext | CiphertextBatch, scaling: str = "hps"
    ) -> npt.NDArray[np.int64]:
        """The decoded values of a ciphertext (all N slots or coefficients);
        of an rf.CiphertextBatch, an array of shape (K, N), row k instance
        k's. `scaling` as for `decrypt_plaintext`."""
        if isinstance(ciphertext, CiphertextBatch):
            self._check(ciphertext, CiphertextBatch)
            if self.device == "cpu" and scaling == "hps":
                natives = runtime().decrypt_batch(self.secret_key._native, ciphertext._native, 0)
                return np.stack([self.decode(Plaintext(self.params, n)) for n in natives])
            if (self.device == "cuda" and scaling == "hps" and self.params.batching
                    and ciphertext.size == 2):
                slots = runtime().gpu_decrypt_slots_batch(
                    self.secret_key._native, ciphertext._native)
                return slots.view(np.int64)  # slots below t: the same bits
            return np.stack([self.decrypt(item, scaling) for item in ciphertext])
        return self.decode(self.decrypt_plaintext(ciphertext, scaling))

    def noise_budget(self, ciphertext: Ciphertext) -> int:
        """Bits of noise budget left (SEAL's invariant noise budget); 0 means
        the ciphertext no longer decrypts reliably."""
        self._check(ciphertext, Ciphertext)
        return int(runtime().noise_budget(self.secret_key._native, ciphertext._native))

    def evaluation_keys(self) -> EvaluationKeys:
        """The public, relinearization and Galois keys, without the secret key:
        what to send (or pickle) to a server."""
        return EvaluationKeys(self.params, self.public_key, self.relin_key, self.galois_keys)

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError(
            "an rf.KeySet holds the secret key and is not pickled: send "
            "keys.evaluation_keys() to servers; to send the secret key on "
            "purpose, pickle keys.secret_key.exposed()"
        )

    def save_evaluation_keys(self, path: str | os.PathLike[str]) -> None:
        """Writes what a server needs to run circuits, and nothing secret: the
        relinearization key and the Galois keys (those this key set has), in
        one file for `rf.load_evaluation_keys` or a `ringfusec` executable's `--keys`.

        >>> keys.save_evaluation_keys("eval.rfkeys")
        """
        relin = None if self.relin_key is None else self.relin_key._native
        galois = None if self.galois_keys is None else self.galois_keys._native
        data = runtime().serialize_evaluation_keys(self.params._context, relin, galois)
        with open(path, "wb") as file:
            file.write(data)

    def _check(self, value: object, expected: type) -> None:
        if not isinstance(value, expected):
            raise TypeError(f"expected an rf.{expected.__name__}, got {type(value).__name__}")
        params = getattr(value, "params")
        if params != self.params:
            raise ValueError(f"the {expected.__name__.lower()} belongs to {params!r}, not {self.params!r}")

    def __repr__(self) -> str:
        device = "" if self.device == "cpu" else f" on {self.device}"
        return f"<rf.KeySet {self.params!r}{device}>"
