// A module of 32-bit words (bfv.word_bits = 32) gets 32-bit transforms:
// the table's 32-bit entry where it has one, else the model's 32-bit shape.
// RUN: ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-word32.json' | FileCheck %s
// RUN: ringfuse-opt %s --rns-choose-transform | FileCheck %s --check-prefix=BUILTIN
// and rns-to-kernel lowers them for the program:
// RUN: ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-word32.json' --rns-to-kernel | FileCheck %s --check-prefix=KERNEL

#S = #rns.basis<S: [65537, 786433]>

module attributes {bfv.word_bits = 32 : i64} {
  // CHECK-LABEL: func.func @small_primes
  // CHECK: rns.ntt {{.*}}#rns.transform<ntt, word = 32, logN1 = 6, radix = 8, ot = 2>
  // CHECK: rns.intt {{.*}}#rns.transform<ntt, word = 32,
  // KERNEL-LABEL: func.func @small_primes
  // KERNEL: kernel.launch "ntt_forward" {{.*}}#rns.transform<ntt, word = 32, logN1 = 6, radix = 8, ot = 2>
  // KERNEL: kernel.launch "ntt_inverse" {{.*}}#rns.transform<ntt, word = 32,
  func.func @small_primes(%x: !rns.poly<8192, #S, coeff>) -> !rns.poly<8192, #S, coeff> attributes {ringfuse.inputs = array<i64>, ringfuse.outputs = array<i64>} {
    %0 = rns.ntt %x : !rns.poly<8192, #S, coeff> -> !rns.poly<8192, #S, eval>
    %1 = rns.intt %0 : !rns.poly<8192, #S, eval> -> !rns.poly<8192, #S, coeff>
    return %1 : !rns.poly<8192, #S, coeff>
  }

  // N = 16 is in no table: the model's 32-bit shape.
  // CHECK-LABEL: func.func @tiny
  // CHECK: rns.ntt {{.*}}#rns.transform<ntt, word = 32, logN1 = 0, radix = 4, ot = 2>
  func.func @tiny(%x: !rns.poly<16, #S, coeff>) -> !rns.poly<16, #S, eval> {
    %0 = rns.ntt %x : !rns.poly<16, #S, coeff> -> !rns.poly<16, #S, eval>
    return %0 : !rns.poly<16, #S, eval>
  }
}

// BUILTIN-COUNT-3: #rns.transform<ntt, word = 32,
