// RUN: ringfuse-opt %s --split-input-file --verify-diagnostics

// A module's variant is typed: a string is refused, not read as a name.
// expected-error@+1 {{'builtin.module' op 'bfv.variant' is a #bfv.variant on a module}}
module attributes {bfv.variant = "chps"} {
}

// -----

// expected-error@+2 {{expected ::ringfuse::bfv::Variant to be one of: hps, lhps, chps, behz}}
// expected-error@+1 {{failed to parse BFV_VariantAttr parameter 'value'}}
module attributes {bfv.variant = #bfv.variant<fast>} {
}

// -----

func.func @f() attributes {bfv.variant = #bfv.variant<hps>} {
  return
}
// expected-error@-3 {{'func.func' op 'bfv.variant' is a #bfv.variant on a module}}

// -----

// expected-error@+1 {{'builtin.module' op 'bfv.variant_costs' is a dictionary of variants' costs (floats) on a module}}
module attributes {bfv.variant_costs = {bgv = 1.0 : f64}} {
}

// -----

// expected-error@+1 {{'builtin.module' op has the unknown bfv attribute 'bfv.varient'}}
module attributes {bfv.varient = #bfv.variant<hps>} {
}
