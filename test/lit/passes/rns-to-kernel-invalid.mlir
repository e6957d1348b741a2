// RUN: ringfuse-opt %s --rns-to-kernel --verify-diagnostics

// expected-error@+1 {{rns-to-kernel expects a function of rns polynomials (run poly-to-rns first)}}
func.func @f(%a: i64) -> i64 {
  return %a : i64
}
