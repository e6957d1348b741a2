// RUN: ringfuse-opt %s --canonicalize --split-input-file | FileCheck %s

#q = #poly.ring<N = 16, moduli = [193, 257, 449]>
#q2 = #poly.ring<N = 16, moduli = [193, 257]>
#q1 = #poly.ring<N = 16, moduli = [193]>

// Leveled HPS: the scale-up by Q / Q_2 = 449, then the next product's
// rounding back to Q_2, is nothing at all.
// CHECK-LABEL: func.func @same_level
// CHECK-SAME: (%[[X:.*]]: !poly.poly<#{{.*}}>)
// CHECK-NEXT: return %[[X]]
func.func @same_level(%x: !poly.poly<#q2>) -> !poly.poly<#q2> {
  %up = poly.scale_round %x by 449 / 1 : !poly.poly<#q2> -> !poly.poly<#q>
  %down = poly.scale_round %up by 1 / 449 : !poly.poly<#q> -> !poly.poly<#q2>
  return %down : !poly.poly<#q2>
}

// To a lower level: one rounding from Q_2 to Q_1, by 1 / 257.
// CHECK-LABEL: func.func @lower_level
// CHECK-NEXT: %[[D:.*]] = poly.scale_round %{{.*}} by 1 / 257 : !poly.poly<#[[Q2:.*]]> -> !poly.poly<#[[Q1:.*]]>
// CHECK-NEXT: return %[[D]]
func.func @lower_level(%x: !poly.poly<#q2>) -> !poly.poly<#q1> {
  %up = poly.scale_round %x by 449 / 1 : !poly.poly<#q2> -> !poly.poly<#q>
  %down = poly.scale_round %up by 1 / 115393 : !poly.poly<#q> -> !poly.poly<#q1>
  return %down : !poly.poly<#q1>
}

// -----

// 449 x does not fit 193 * 257 * 97 (< 449 * 193 * 257): the inner scale
// wraps, so the two roundings do not compose.
#q2 = #poly.ring<N = 16, moduli = [193, 257]>
#small = #poly.ring<N = 16, moduli = [193, 257, 97]>
// CHECK-LABEL: func.func @inexact
// CHECK: poly.scale_round %{{.*}} by 449 / 1
// CHECK: poly.scale_round %{{.*}} by 1 / 97
func.func @inexact(%x: !poly.poly<#q2>) -> !poly.poly<#q2> {
  %up = poly.scale_round %x by 449 / 1 : !poly.poly<#q2> -> !poly.poly<#small>
  %down = poly.scale_round %up by 1 / 97 : !poly.poly<#small> -> !poly.poly<#q2>
  return %down : !poly.poly<#q2>
}

// A ratio of one within a ring is the identity.
// CHECK-LABEL: func.func @identity
// CHECK-NEXT: return %arg0
func.func @identity(%x: !poly.poly<#q2>) -> !poly.poly<#q2> {
  %y = poly.scale_round %x by 3 / 3 : !poly.poly<#q2> -> !poly.poly<#q2>
  return %y : !poly.poly<#q2>
}
