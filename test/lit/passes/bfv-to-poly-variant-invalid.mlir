// RUN: ringfuse-opt %s --bfv-to-poly=variant=fast --verify-diagnostics

// expected-error@+1 {{bfv-to-poly: unknown variant 'fast' (hps, lhps, chps, behz or auto)}}
module {
}
