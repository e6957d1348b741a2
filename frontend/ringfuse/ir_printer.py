"""The IR printer: how traced operations are written as `bfv` MLIR text.

Only spelling lives here: the type names, one function per op (each returns
the right-hand side of one SSA assignment), the attribute of a constant, the
`#bfv.params` attribute and the module around a traced function's body. The
tracer (tracing.py) numbers the values and keeps the lines in order; the
proxies (traced_values.py) choose which op each Python operator becomes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .params import Params
    from .tracing import InputKind

CIPHERTEXT = "!bfv.ciphertext<#params, 2>"
CIPHERTEXT_3 = "!bfv.ciphertext<#params, 3>"
PLAINTEXT = "!bfv.plaintext<#params>"

_BARE_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")


# --------------------------------------------------------------------------
# Ops
# --------------------------------------------------------------------------


def add(lhs: str, rhs: str) -> str:
    """The sum of two ciphertexts."""
    return f"bfv.add {lhs}, {rhs} : {CIPHERTEXT}"


def sub(lhs: str, rhs: str) -> str:
    """The difference of two ciphertexts."""
    return f"bfv.sub {lhs}, {rhs} : {CIPHERTEXT}"


def mul(lhs: str, rhs: str) -> str:
    """The tensor product of two ciphertexts: a 3-component ciphertext."""
    return f"bfv.mul {lhs}, {rhs} : {CIPHERTEXT} -> {CIPHERTEXT_3}"


def relinearize(product: str) -> str:
    """A 3-component ciphertext back to 2 components."""
    return f"bfv.relinearize {product} : {CIPHERTEXT_3} -> {CIPHERTEXT}"


def plain_op(op_name: str, ciphertext: str, plaintext: str) -> str:
    """`bfv.add_plain`, `bfv.sub_plain` or `bfv.mul_plain`: a ciphertext and a plaintext."""
    return f"bfv.{op_name} {ciphertext}, {plaintext} : {CIPHERTEXT}, {PLAINTEXT}"


def unary_op(op_name: str, value: str) -> str:
    """`bfv.negate`, `bfv.swap_rows` or `bfv.sum_slots` of one ciphertext."""
    return f"bfv.{op_name} {value} : {CIPHERTEXT}"


def rotate(value: str, steps: int) -> str:
    """Each row of slots rotated left by `steps` (right if negative)."""
    return f"bfv.rotate {value} by {steps} : {CIPHERTEXT}"


def encode(residues: Sequence[int], is_scalar: bool) -> str:
    """A constant plaintext: one residue broadcast to every slot (`is_scalar`),
    or one residue per slot from slot 0 on."""
    if is_scalar:
        attribute = f"{residues[0]} : i64"
    else:
        values = ", ".join(map(str, residues))
        attribute = f"dense<[{values}]> : tensor<{len(residues)}xi64>"
    return f"bfv.encode {attribute} -> {PLAINTEXT}"


# --------------------------------------------------------------------------
# The module
# --------------------------------------------------------------------------


def module(
    name: str,
    inputs: Sequence[InputKind],
    body: Sequence[str],
    results: Sequence[str],
    params_attribute: str,
) -> str:
    """The whole module: `#params`, then one `func.func` named `name` whose
    arguments have the kinds `inputs`, whose body is the lines `body`
    (`%n = op`, in order) and which returns the SSA values `results`."""
    arguments = ", ".join(
        f"%arg{i}: {CIPHERTEXT if kind == 'encrypted' else PLAINTEXT}"
        for i, kind in enumerate(inputs)
    )
    result_types = ", ".join([CIPHERTEXT] * len(results))
    if len(results) > 1:
        result_types = f"({result_types})"
    returned = ", ".join(results)
    return "\n".join(
        [
            f"#params = {params_attribute}",
            "module {",
            f"  func.func @{symbol_name(name)}({arguments}) -> {result_types} {{",
            *(f"    {line}" for line in body),
            f"    return {returned} : {', '.join([CIPHERTEXT] * len(results))}",
            "  }",
            "}",
            "",
        ]
    )


def params_attribute(
    plaintext_modulus: int, poly_modulus_degree: int | None, params: Params | None
) -> str:
    """`#bfv.params<...>`: t, N if known, and the moduli of a whole parameter set if given."""
    degree = f", N = {poly_modulus_degree}" if poly_modulus_degree else ""
    chosen = "" if params is None else _chosen_moduli(params)
    return f"#bfv.params<t = {plaintext_modulus}{degree}{chosen}>"


def _chosen_moduli(params: Params) -> str:
    """`, Q = [...], P = [...], dnum = d` of a whole parameter set (P and dnum
    only if it has special primes: without them there is no key switching)."""
    text = f", Q = [{', '.join(map(str, params.coeff_modulus))}]"
    if params.special_modulus:
        text += f", P = [{', '.join(map(str, params.special_modulus))}], dnum = {params.dnum}"
    return text


def symbol_name(name: str) -> str:
    """A function name as an MLIR symbol: bare if it can be, else a quoted string."""
    if _BARE_SYMBOL.fullmatch(name):
        return name
    return '"' + "".join(_escape_string_char(char) for char in name) + '"'


def _escape_string_char(char: str) -> str:
    # MLIR string literals take `\XX` hex escapes for any byte.
    if char.isascii() and char.isprintable() and char not in '"\\':
        return char
    return "".join(f"\\{byte:02X}" for byte in char.encode("utf-8"))
