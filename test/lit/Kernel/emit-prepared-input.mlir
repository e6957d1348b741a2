// RUN: ringfuse-opt %s --bfv-prepare-plaintext-inputs --bfv-to-poly --poly-to-rns --cse --rns-assign-domains --cse --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp | FileCheck %s

// A prepared plaintext input (bfv-prepare-plaintext-inputs): kind 2
// (RF_VALUE_PREPARED_PLAINTEXT), one buffer over Q, and the Galois element
// the runtime rotates it by (3^29 mod 128 = 19, for the rotation by -3).
// CHECK: const RfValue inputs[] = {{[{][{]}}0, 2, {0, 1, 0}, 0}, {2, 1, {2, 0, 0}, 19}};
// CHECK: const RfValue outputs[] = {{[{][{]}}0, 2, {3, 4, 0}, 0}};
// The program multiplies it as it comes: no lift, no transform of it.
// CHECK-NOT: k->convert(
// CHECK-NOT: k->automorphism(
#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!pt = !bfv.plaintext<#p>
func.func @inputs(%x: !ct, %v: !pt) -> !ct {
  %r = bfv.rotate_plain %v by -3 : !pt
  %1 = bfv.mul_plain %x, %r : !ct, !pt
  return %1 : !ct
}
