// RUN: ringfuse-opt %s --poly-to-rns=variant=fast --verify-diagnostics

// expected-error@+1 {{poly-to-rns: unknown variant 'fast' (hps, lhps, chps, behz or auto)}}
module {
}
