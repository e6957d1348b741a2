// Each run pins what rns-choose-transform picks for one cost table.
// RUN: ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-radix8.json' | FileCheck %s --check-prefix=RADIX8
// RUN: ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-ot.json' | FileCheck %s --check-prefix=OT
// RUN: ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-dgt.json kinds=ntt,dgt' | FileCheck %s --check-prefix=DGT
// RUN: ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-dgt.json' | FileCheck %s --check-prefix=NODGT
// The compiled-in table (bench/data/transform-costs.json) always yields a
// shape the verifiers accept:
// RUN: ringfuse-opt %s --rns-choose-transform | FileCheck %s --check-prefix=BUILTIN

#S = #rns.basis<S: [65537, 786433]>

// Two limbs of N = 2^13 below 2^30: every table has this degree's forward
// transform, so the choice is the table's cheapest (scaled to 2 limbs).
// RADIX8-LABEL: func.func @small_primes
// RADIX8: rns.ntt {{.*}}#rns.transform<ntt, logN1 = 6, radix = 8, ot = 0>
// OT-LABEL: func.func @small_primes
// OT: rns.ntt {{.*}}#rns.transform<ntt, logN1 = 6, radix = 8, ot = 2>
// The forward DGT, measured on 1 limb at 3 us, costs 6 us for 2, and 2.06
// more for programs' pass to the NTT's order (2 x 16 N bytes at 4.25 TB/s
// and a 2 us launch): 8.06, cheaper than the NTT's 9, but only chosen when
// the target runs it. The inverse, 2 x 4 us, would be cheaper than the NTT's
// 9 without that pass, and is not with it.
// DGT-LABEL: func.func @small_primes
// DGT: rns.ntt {{.*}}#rns.transform<dgt, logN1 = 6, radix = 0, ot = 0>
// DGT: rns.intt {{.*}}#rns.transform<ntt, logN1 = 6, radix = 8, ot = 2>
// NODGT-LABEL: func.func @small_primes
// NODGT: rns.ntt {{.*}}#rns.transform<ntt, logN1 = 6, radix = 8, ot = 2>
// No table has the inverse: the model's choice.
// RADIX8: rns.intt {{.*}}#rns.transform<ntt, logN1 = 4, radix = 4, ot = 2>
func.func @small_primes(%x: !rns.poly<8192, #S, coeff>) -> !rns.poly<8192, #S, coeff> {
  %0 = rns.ntt %x : !rns.poly<8192, #S, coeff> -> !rns.poly<8192, #S, eval>
  %1 = rns.intt %0 : !rns.poly<8192, #S, eval> -> !rns.poly<8192, #S, coeff>
  return %1 : !rns.poly<8192, #S, coeff>
}

// N = 16 is in no table: the model.
// RADIX8-LABEL: func.func @tiny
// RADIX8: rns.ntt {{.*}}#rns.transform<ntt, logN1 = 0, radix = 4, ot = 2>
func.func @tiny(%x: !rns.poly<16, #S, coeff>) -> !rns.poly<16, #S, eval> {
  %0 = rns.ntt %x : !rns.poly<16, #S, coeff> -> !rns.poly<16, #S, eval>
  return %0 : !rns.poly<16, #S, eval>
}


// BUILTIN-COUNT-3: #rns.transform<ntt,
