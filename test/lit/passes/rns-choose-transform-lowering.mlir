// rns-to-kernel lowers the DGT where rns-choose-transform chose it
// (dgt_forward, in place), the NTT elsewhere (the table's inverse DGT loses
// to the NTT once programs' extra pass is counted).
// RUN: ringfuse-opt %s --split-input-file --rns-choose-transform='cost-table=%S/Inputs/transform-costs-dgt.json kinds=ntt,dgt' --rns-to-kernel | FileCheck %s
// A transform of other words than the program's (bfv.word_bits; 64 here)
// stops there:
// RUN: not ringfuse-opt %s --split-input-file --rns-to-kernel 2>&1 | FileCheck %s --check-prefix=WORD32
// CHECK-LABEL: func.func @dgt
// CHECK: kernel.launch "dgt_forward" outs(%[[X:.*]] : !kernel.buffer<8192, #S>) {transform = #rns.transform<dgt, word = 64, logN1 = 6, radix = 0, ot = 0>}
// CHECK: kernel.launch "ntt_inverse" outs(%[[X]] : !kernel.buffer<8192, #S>) {transform = #rns.transform<ntt, word = 64, logN1 = 6, radix = 8, ot = 2>}
#S = #rns.basis<S: [65537, 786433]>
func.func @dgt(%x: !rns.poly<8192, #S, coeff>) -> !rns.poly<8192, #S, coeff> attributes {ringfuse.inputs = array<i64>, ringfuse.outputs = array<i64>} {
  %0 = rns.ntt %x : !rns.poly<8192, #S, coeff> -> !rns.poly<8192, #S, eval>
  %1 = rns.intt %0 : !rns.poly<8192, #S, eval> -> !rns.poly<8192, #S, coeff>
  return %1 : !rns.poly<8192, #S, coeff>
}

// -----

#S = #rns.basis<S: [65537, 786433]>
func.func @word32(%x: !rns.poly<8192, #S, coeff>) -> !rns.poly<8192, #S, eval> attributes {ringfuse.inputs = array<i64>, ringfuse.outputs = array<i64>} {
  // WORD32: [[@LINE+1]]:8: error: 'rns.ntt' op has #rns.transform<ntt, word = 32, logN1 = 6, radix = 8, ot = 2>, but its program's words are 64 bits (bfv.word_bits; rns-choose-transform chooses them)
  %0 = rns.ntt %x {transform = #rns.transform<ntt, word = 32, logN1 = 6, radix = 8, ot = 2>} : !rns.poly<8192, #S, coeff> -> !rns.poly<8192, #S, eval>
  return %0 : !rns.poly<8192, #S, eval>
}
