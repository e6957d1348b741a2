// Cost tables and options rns-choose-transform refuses, each reported at the
// first transform (the first place a table is needed).
// RUN: not ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-malformed.json' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-missing-field.json' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-no-date.json' 2>&1 | FileCheck %s --check-prefix=NODATE
// RUN: not ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-unsupported-shape.json' 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/transform-costs-word32.json' 2>&1 | FileCheck %s --check-prefix=WORD32
// RUN: not ringfuse-opt %s --rns-choose-transform='cost-table=%S/Inputs/does-not-exist.json' 2>&1 | FileCheck %s --check-prefix=UNREADABLE
// RUN: not ringfuse-opt %s --rns-choose-transform='kinds=fft' 2>&1 | FileCheck %s --check-prefix=KIND
// The DGT needs N >= 4, and it is the only kind allowed here:
// RUN: not ringfuse-opt %s --split-input-file --rns-choose-transform='kinds=dgt' 2>&1 | FileCheck %s --check-prefix=NONE

// MALFORMED: [[@LINE+10]]:8: error: rns-choose-transform: cost table {{.*}}transform-costs-malformed.json: malformed JSON:
// MISSING: [[@LINE+9]]:8: error: rns-choose-transform: cost table {{.*}}: entry 0: 'median_us' must be a positive number
// NODATE: [[@LINE+8]]:8: error: rns-choose-transform: cost table {{.*}}: missing string field 'date'
// SHAPE: [[@LINE+7]]:8: error: rns-choose-transform: cost table {{.*}}: entry 0: unsupported NTT shape: logN1 must be 0 or in [4, 8]
// UNREADABLE: [[@LINE+6]]:8: error: rns-choose-transform: cost table {{.*}}does-not-exist.json: cannot read it: No such file or directory
// WORD32: [[@LINE+5]]:8: error: rns-choose-transform: cost table {{.*}}transform-costs-word32.json: entry 1: 'word' must be 64 where given (programs run 64-bit words only)
#Q = #rns.basis<Q: [193, 257]>
func.func @f(%x: !rns.poly<2, #Q, coeff>) -> !rns.poly<2, #Q, eval> {
  // KIND: [[@LINE+2]]:8: error: rns-choose-transform: unknown transform kind 'fft' (expected ntt or dgt)
  // NONE: [[@LINE+1]]:8: error: 'rns.ntt' op no allowed transform runs '!rns.poly<2, #rns.basis<Q: [193, 257]>, coeff>' (check the kinds option)
  %0 = rns.ntt %x : !rns.poly<2, #Q, coeff> -> !rns.poly<2, #Q, eval>
  return %0 : !rns.poly<2, #Q, eval>
}
