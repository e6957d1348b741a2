"""variant=auto's cost model (bfv-choose-variant) prices kernels that run side by side."""

from __future__ import annotations

import re

import pytest

from ringfuse import driver

pytestmark = pytest.mark.needs_compiler

PARAMS = (
    "#bfv.params<t = 65537, N = 16384, Q = [1152921504606748673, 1152921504606683137, "
    "1152921504606584833, 1152921504605962241], P = [1152921504604979201], dnum = 4>"
)
CT, CT3 = f"!bfv.ciphertext<{PARAMS}, 2>", f"!bfv.ciphertext<{PARAMS}, 3>"


def product(a: str, b: str, name: str) -> str:
    return (
        f"  %{name}3 = bfv.mul %{a}, %{b} : {CT} -> {CT3}\n"
        f"  %{name} = bfv.relinearize %{name}3 : {CT3} -> {CT}\n"
    )


def hps_cost(body: str, results: list[str]) -> float:
    module = (
        f"func.func @f(%x: {CT}, %y: {CT}, %z: {CT}, %w: {CT}) -> ({', '.join([CT] * len(results))}) {{\n"
        f"{body}  return {', '.join('%' + r for r in results)} : {', '.join([CT] * len(results))}\n}}\n"
    )
    output = driver.run_tool("ringfuse-opt", module, "--bfv-choose-variant=candidates=hps,chps")
    match = re.search(r"hps = ([0-9.e+]+) : f64", output)
    assert match, output
    return float(match.group(1))


def test_independent_products_overlap_and_dependent_ones_add_up() -> None:
    one = hps_cost(product("x", "y", "p"), ["p"])
    independent = hps_cost(product("x", "y", "p") + product("z", "w", "q"), ["p", "q"])
    chained = hps_cost(product("x", "y", "p") + product("p", "w", "q"), ["q"])
    # Two products one after another cost about twice one; side by side the
    # second one's launches hide behind the first's.
    assert chained == pytest.approx(2 * one, rel=0.05)
    assert one < independent < 0.9 * chained
