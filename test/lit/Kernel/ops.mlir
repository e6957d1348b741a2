// RUN: ringfuse-opt %s | ringfuse-opt | FileCheck %s

#Q = #rns.basis<Q: [97, 193]>
#D = #rns.basis<D: [193]>
// CHECK-LABEL: func.func @program
// CHECK-SAME: attributes {kernel.slots = 1 : i64}
func.func @program(%x: !kernel.buffer<16, #Q>) -> !kernel.buffer<16, #Q> attributes {kernel.slots = 1} {
  // CHECK: kernel.alloc {slot = 0 : i64} : !kernel.buffer<16, #Q>
  %out = kernel.alloc {slot = 0} : !kernel.buffer<16, #Q>
  // CHECK: kernel.constant dense<1> : tensor<32xi64> : !kernel.buffer<16, #Q>
  %c = kernel.constant dense<1> : tensor<32xi64> : !kernel.buffer<16, #Q>
  // CHECK: kernel.launch "ntt_forward" outs(%{{.*}} : !kernel.buffer<16, #Q>)
  kernel.launch "ntt_forward" outs(%x : !kernel.buffer<16, #Q>)
  // CHECK: kernel.view %{{.*}} limbs 1 to 2 : !kernel.buffer<16, #Q> -> !kernel.buffer<16, #D>
  %v = kernel.view %x limbs 1 to 2 : !kernel.buffer<16, #Q> -> !kernel.buffer<16, #D>
  // CHECK: kernel.elementwise ins(%{{.*}}, %{{.*}} : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) outs(%{{.*}} : !kernel.buffer<16, #Q>)
  kernel.elementwise ins(%x, %c : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) outs(%out : !kernel.buffer<16, #Q>) {
  ^bb0(%a: i64, %b: i64):
    // CHECK: kernel.mulconst %{{.*}} by [3, 4]
    %0 = kernel.mulmod %a, %b
    %1 = kernel.mulconst %0 by [3, 4]
    %2 = kernel.negmod %1
    %3 = kernel.addmod %2, %a
    %4 = kernel.submod %3, %b
    kernel.yield %4
  }
  // CHECK: kernel.launch "scale_round" ins(%{{.*}} : !kernel.buffer<16, #Q>) outs(%{{.*}} : !kernel.buffer<16, #D>) {divisor = #R, numerator = 5 : i64}
  kernel.launch "scale_round" ins(%out : !kernel.buffer<16, #Q>) outs(%v : !kernel.buffer<16, #D>) {divisor = #rns.basis<R: [97]>, numerator = 5}
  return %out : !kernel.buffer<16, #Q>
}
