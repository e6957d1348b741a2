//===- ntt_shape_test.cpp - the decompositions fused NTTs run ----------===//
#include "ringfuse/runtime/ntt_shape.h"

#include <gtest/gtest.h>

namespace ringfuse::runtime {
namespace {

void expectShape(const NttShape &actual, const NttShape &expected) {
  EXPECT_EQ(actual.logN1, expected.logN1);
  EXPECT_EQ(actual.radix, expected.radix);
  EXPECT_EQ(actual.otStages, expected.otStages);
}

TEST(FusedNttShape, CutsRowsToTwoToTheEight) {
  // The chooser's rows of 2^10 at logN 15 and 16 become rows of 2^8, with
  // the radix and OT stages kept.
  expectShape(fusedNttShape(15, {5, 4, 1}), {7, 4, 1});
  expectShape(fusedNttShape(16, {6, 4, 1}), {8, 4, 1});
  expectShape(fusedNttShape(16, {6, 4, 0}), {8, 4, 0});
}

TEST(FusedNttShape, KeepsShortRowsAndOneStepShapes) {
  expectShape(fusedNttShape(14, {6, 4, 0}), {6, 4, 0});
  expectShape(fusedNttShape(13, {5, 4, 0}), {5, 4, 0});
  expectShape(fusedNttShape(14, {7, 4, 0}), {7, 4, 0});
  expectShape(fusedNttShape(10, {0, 4, 0}), {0, 4, 0});
}

TEST(FusedNttShape, StopsWhereTheColumnStepDoes) {
  // At logN 17 rows of 2^8 need a column step of 2^9 words, 2048 threads at
  // radix 4: the column step goes as far as 2^8 (rows of 2^9).
  ASSERT_FALSE(isSupportedFusedNttShape(17, {9, 4, 0}));
  expectShape(fusedNttShape(17, {7, 4, 0}), {8, 4, 0});
  for (unsigned logN = 11; logN <= 17; ++logN)
    for (unsigned logN1 = 4; logN1 < logN; ++logN1)
      for (unsigned ot = 0; ot <= kNttMaxOtStages; ++ot) {
        const NttShape chosen{logN1, 4, ot};
        if (isSupportedFusedNttShape(logN, chosen))
          EXPECT_TRUE(
              isSupportedFusedNttShape(logN, fusedNttShape(logN, chosen)))
              << logN << " " << logN1 << " " << ot;
      }
}

} // namespace
} // namespace ringfuse::runtime
