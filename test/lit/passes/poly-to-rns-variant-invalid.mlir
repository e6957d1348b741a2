// RUN: ringfuse-opt %s --poly-to-rns=variant=behz --verify-diagnostics

// expected-error@+1 {{variant 'behz' is not implemented yet; use hps, lhps, chps or auto}}
module {
}
