// RUN: ringfuse-opt %s --ringfuse-pipeline | FileCheck %s
// A declaration beside the circuit is left alone; the circuit is lowered.

#p = #bfv.params<t = 65537>
// CHECK: func.func private @helper(!bfv.ciphertext<#params, 2>) -> !bfv.ciphertext<#params, 2>
func.func private @helper(!bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2>
// CHECK: func.func @circuit(%{{.*}}: !kernel.buffer<
func.func @circuit(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.add %x, %x : !bfv.ciphertext<#p, 2>
  return %0 : !bfv.ciphertext<#p, 2>
}
