// rns-to-kernel lowers only what programs run: a DGT choice stops there.
// RUN: not ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-dgt.json kinds=ntt,dgt' --rns-to-kernel 2>&1 | FileCheck %s --check-prefix=LOWER
// LOWER: [[@LINE+3]]:8: error: 'rns.ntt' op has #rns.transform<dgt, word = 64, logN1 = 6, radix = 0, ot = 0>, but programs run 64-bit NTTs only (choose with kinds=ntt word-sizes=64)
#S = #rns.basis<S: [65537, 786433]>
func.func @dgt(%x: !rns.poly<8192, #S, coeff>) -> !rns.poly<8192, #S, eval> attributes {ringfuse.inputs = array<i64>, ringfuse.outputs = array<i64>} {
  %0 = rns.ntt %x : !rns.poly<8192, #S, coeff> -> !rns.poly<8192, #S, eval>
  return %0 : !rns.poly<8192, #S, eval>
}
