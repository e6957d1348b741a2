// RUN: ringfuse-opt %s --bfv-to-poly=sum-before-rounding | FileCheck %s
// RUN: ringfuse-opt %s --bfv-to-poly | FileCheck %s --check-prefix=EACH

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!ct3 = !bfv.ciphertext<#p, 3>

// Three products summed: their tensors add in R_QB and the sum is scaled by
// t/Q once per component (3 roundings, not 9).
// CHECK-LABEL: func.func @sum_of_products
// CHECK-NOT: poly.scale_round %{{.*}} by 97 / 49601
// CHECK: %[[S0:.*]] = poly.add %{{.*}}, %{{.*}} : !poly.poly<#[[QB:.*]]>
// CHECK-COUNT-3: poly.scale_round %{{.*}} by 97 / 49601 : !poly.poly<#[[QB]]> -> !poly.poly<#{{.*}}>
// CHECK-NOT: poly.scale_round %{{.*}} by 97 / 49601
// CHECK: poly.key_switch
// EACH-LABEL: func.func @sum_of_products
// EACH-COUNT-9: poly.scale_round %{{.*}} by 97 / 49601
func.func @sum_of_products(%a: !ct, %b: !ct, %c: !ct) -> !ct {
  %0 = bfv.mul %a, %b : !ct -> !ct3
  %1 = bfv.mul %b, %c : !ct -> !ct3
  %2 = bfv.add %0, %1 : !ct3
  %3 = bfv.mul %a, %c : !ct -> !ct3
  %4 = bfv.sub %2, %3 : !ct3
  %5 = bfv.relinearize %4 : !ct3 -> !ct
  return %5 : !ct
}
