// rns-to-kernel lowers the DGT where rns-choose-transform chose it
// (dgt_forward, in place), the NTT elsewhere (the table's inverse DGT loses
// to the NTT once programs' extra pass is counted).
// RUN: ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-dgt.json kinds=ntt,dgt' --rns-to-kernel | FileCheck %s
// CHECK-LABEL: func.func @dgt
// CHECK: kernel.launch "dgt_forward" outs(%[[X:.*]] : !kernel.buffer<8192, #S>) {transform = #rns.transform<dgt, logN1 = 6, radix = 0, ot = 0>}
// CHECK: kernel.launch "ntt_inverse" outs(%[[X]] : !kernel.buffer<8192, #S>) {transform = #rns.transform<ntt, logN1 = 6, radix = 8, ot = 2>}
#S = #rns.basis<S: [65537, 786433]>
func.func @dgt(%x: !rns.poly<8192, #S, coeff>) -> !rns.poly<8192, #S, coeff> attributes {ringfuse.inputs = array<i64>, ringfuse.outputs = array<i64>} {
  %0 = rns.ntt %x : !rns.poly<8192, #S, coeff> -> !rns.poly<8192, #S, eval>
  %1 = rns.intt %0 : !rns.poly<8192, #S, eval> -> !rns.poly<8192, #S, coeff>
  return %1 : !rns.poly<8192, #S, coeff>
}
