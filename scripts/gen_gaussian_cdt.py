#!/usr/bin/env python3
"""Generate runtime/include/ringfuse/runtime/gaussian_cdt.h.

The table drives ``sampleGaussian`` in prng.h, an inversion (CDT) sampler: a
uniform 64-bit word ``u`` maps to ``-bound + #{k : u >= T_k}``, so the table
must hold, for k = 0 .. 2*bound - 1,

    T_k = round(2^64 * CDF(-bound + k)),

where CDF is the cumulative distribution of the discrete Gaussian
P(x) proportional to exp(-x^2 / (2 sigma^2)) restricted to [-bound, bound] and
normalised to sum 1 over that range.

Everything is computed in ``decimal`` at ``--digits`` significant digits (a
double carries 53 bits, so floats would get the low bits of every 64-bit
threshold wrong) and converted to an exact ``Fraction`` for the one rounding
step; the script then checks that no threshold sits close enough to a rounding
tie for the remaining error to matter, and that the table is exactly
symmetric.

Example (the committed table):

    python3 scripts/gen_gaussian_cdt.py --sigma 3.19 --bound 19 --digits 100 \
        --output runtime/include/ringfuse/runtime/gaussian_cdt.h
"""

from __future__ import annotations

import argparse
import decimal
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

TWO_64 = 1 << 64


def gaussian_weights(sigma: Decimal, bound: int) -> list[Decimal]:
    """Unnormalised exp(-x^2 / (2 sigma^2)) for x = -bound .. bound."""
    two_sigma_squared = 2 * sigma * sigma
    return [(-Decimal(x * x) / two_sigma_squared).exp() for x in range(-bound, bound + 1)]


def cdf_values(weights: list[Decimal]) -> list[Decimal]:
    """CDF(-bound + k) for k = 0 .. len(weights) - 2 (the last one is 1)."""
    total = sum(weights)
    cumulative = Decimal(0)
    values = []
    for weight in weights[:-1]:
        cumulative += weight
        values.append(cumulative / total)
    return values


def round_to_threshold(cdf: Decimal, digits: int) -> int:
    """round(2^64 * cdf), refusing values too close to a tie to decide."""
    scaled = Fraction(cdf) * TWO_64
    floor = scaled.numerator // scaled.denominator
    fraction_part = scaled - floor
    # The CDF is accurate to a few units in its last (digits-th) decimal place;
    # times 2^64 ~ 1.8e19 that is an absolute error below 10^-(digits - 22).
    # Rounding is therefore exact unless the fractional part lies within that
    # of 1/2; the tolerance keeps a 1000x safety factor.
    tolerance = Fraction(1, 10 ** (digits - 25))
    if abs(fraction_part - Fraction(1, 2)) < tolerance:
        raise SystemExit(f"threshold {scaled} is too close to a rounding tie; raise --digits")
    return floor + 1 if fraction_part > Fraction(1, 2) else floor


def exact_probabilities(weights: list[Decimal]) -> list[Fraction]:
    total = sum(weights)
    return [Fraction(w / total) for w in weights]


def quantised_probabilities(thresholds: list[int]) -> list[Fraction]:
    edges = [0] + thresholds + [TWO_64]
    return [Fraction(hi - lo, TWO_64) for lo, hi in zip(edges, edges[1:])]


def render_header(sigma: str, bound: int, digits: int, thresholds: list[int],
                  statistical_distance: Fraction, smallest_probability: Fraction,
                  largest_relative_error: Fraction) -> str:
    lines = [
        "//===- gaussian_cdt.h - discrete Gaussian inversion table -------*- C++ -*-===//",
        "//",
        "// GENERATED FILE, do not edit. Regenerate with:",
        "//   python3 scripts/gen_gaussian_cdt.py"
        f" --sigma {sigma} --bound {bound} --digits {digits}",
        "//       --output runtime/include/ringfuse/runtime/gaussian_cdt.h",
        "//",
        f"// Target distribution: P(x) proportional to exp(-x^2 / (2 * {sigma}^2)) for",
        f"// integers |x| <= {bound}, normalised to sum 1 over that range (the truncation",
        "// SEAL and the HE Standard use). T_k = round(2^64 * CDF(-bound + k)), computed",
        f"// in decimal arithmetic at {digits} significant digits, then rounded once.",
        "//",
        "// Quantisation: sampleGaussian returns x with probability",
        "// (T_{x+bound} - T_{x+bound-1}) / 2^64, with T_{-1} = 0, T_{2*bound} = 2^64,",
        "// so every probability is a multiple of 2^-64 and differs from the exact one",
        "// by at most 2^-64. For this table:",
    ] + [
        f"//   {label:<46} = {float(value):.3e}"
        for label, value in [
            ("statistical distance to the exact distribution", statistical_distance),
            (f"smallest probability (that of x = +-{bound})", smallest_probability),
            ("largest relative error of any probability", largest_relative_error),
        ]
    ] + [
        "// The table is exactly symmetric: T_k + T_{2*bound-1-k} = 2^64 for every k.",
        "//",
        "//===----------------------------------------------------------------------===//",
        "#ifndef RINGFUSE_RUNTIME_GAUSSIAN_CDT_H",
        "#define RINGFUSE_RUNTIME_GAUSSIAN_CDT_H",
        "",
        "#include \"ringfuse/runtime/config.h\"",
        "",
        "#include <cstdint>",
        "",
        "namespace ringfuse::runtime {",
        "",
        "/// The inversion table of sampleGaussian (prng.h).",
        "struct GaussianCdt {",
        "  /// The standard deviation the table was generated for.",
        f"  static constexpr double kSigma = {sigma};",
        "  /// Samples lie in [-kBound, kBound].",
        f"  static constexpr int kBound = {bound};",
        "  static constexpr int kThresholdCount = 2 * kBound;",
        "",
        "  /// T_k = round(2^64 * CDF(-kBound + k)), k = 0 .. kThresholdCount - 1.",
        "  uint64_t thresholds[kThresholdCount];",
        "};",
        "",
        "/// A constexpr function rather than a namespace-scope array because device",
        "/// code may not read host arrays; nvcc folds the literals into the kernel.",
        "RF_HOST_DEVICE constexpr GaussianCdt gaussianCdt() {",
        "  return GaussianCdt{{",
    ]
    for k, threshold in enumerate(thresholds):
        lines.append(f"      0x{threshold:016x}ULL, // T_{k:<2} = 2^64 * P(x <= {k - bound})")
    lines += [
        "  }};",
        "}",
        "",
        "} // namespace ringfuse::runtime",
        "",
        "#endif // RINGFUSE_RUNTIME_GAUSSIAN_CDT_H",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sigma", default="3.19", help="standard deviation (a decimal string)")
    parser.add_argument("--bound", type=int, default=19, help="truncation: |x| <= bound")
    parser.add_argument("--digits", type=int, default=100, help="decimal precision (>= 60)")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()
    if args.digits < 60:
        parser.error("--digits must be at least 60")
    if args.bound < 1:
        parser.error("--bound must be at least 1")

    decimal.getcontext().prec = args.digits
    sigma = Decimal(args.sigma)
    weights = gaussian_weights(sigma, args.bound)
    thresholds = [round_to_threshold(c, args.digits) for c in cdf_values(weights)]

    count = len(thresholds)
    assert count == 2 * args.bound
    assert all(0 < a < b < TWO_64 for a, b in zip(thresholds, thresholds[1:]))
    assert all(thresholds[k] + thresholds[count - 1 - k] == TWO_64 for k in range(count)), \
        "table is not symmetric"

    exact = exact_probabilities(weights)
    quantised = quantised_probabilities(thresholds)
    statistical_distance = sum(abs(q - p) for p, q in zip(exact, quantised)) / 2
    largest_relative_error = max(abs(q - p) / p for p, q in zip(exact, quantised))
    assert all(abs(q - p) <= Fraction(1, TWO_64) for p, q in zip(exact, quantised))

    args.output.write_text(render_header(args.sigma, args.bound, args.digits, thresholds,
                                         statistical_distance, min(exact),
                                         largest_relative_error))


if __name__ == "__main__":
    main()
