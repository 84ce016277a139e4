// simulator/isa/dtype: every spelling of every dtype, and the round trips between them.
#include "simulator/isa/dtype.h"

#include <gtest/gtest.h>

namespace trnsim::isa {
namespace {

constexpr Dtype kAll[] = {Dtype::kUint64,   Dtype::kInt8,     Dtype::kUint8,    Dtype::kInt16,
                          Dtype::kUint16,   Dtype::kBfloat16, Dtype::kFloat16,  Dtype::kInt32,
                          Dtype::kUint32,   Dtype::kFloat32,  Dtype::kFloat32r, Dtype::kInt64,
                          Dtype::kFloat8E3, Dtype::kFloat8E4, Dtype::kFloat8E5};

TEST(DtypeTest, EverySpellingRoundTrips) {
  for (Dtype d : kAll) {
    EXPECT_EQ(DtypeFromNeffName(DtypeNeffName(d)), d) << DtypeNeffName(d);
    EXPECT_EQ(DtypeFromShortName(DtypeShortName(d)), d) << DtypeShortName(d);
    EXPECT_EQ(DtypeFromNumpyName(DtypeNumpyName(d)), d) << DtypeNumpyName(d);
  }
  EXPECT_EQ(DtypeNumpyName(Dtype::kUnknown), "");
  EXPECT_EQ(DtypeFromNumpyName("complex64"), std::nullopt);
}

TEST(DtypeTest, NumpyNamesFollowMlDtypes) {
  EXPECT_EQ(DtypeNumpyName(Dtype::kBfloat16), "bfloat16");
  EXPECT_EQ(DtypeNumpyName(Dtype::kFloat8E3), "float8_e3m4");
  EXPECT_EQ(DtypeNumpyName(Dtype::kFloat8E4), "float8_e4m3");  // IEEE-style, not e4m3fn
  EXPECT_EQ(DtypeNumpyName(Dtype::kFloat8E5), "float8_e5m2");
  EXPECT_EQ(DtypeNumpyName(Dtype::kFloat32r), "float32r");
}

TEST(DtypeTest, NpyDescrOnlyForTypesNumpyHas) {
  for (Dtype d : kAll) {
    std::optional<std::string_view> descr = DtypeNpyDescr(d);
    const bool numpy_lacks = d == Dtype::kBfloat16 || d == Dtype::kFloat8E3 ||
                             d == Dtype::kFloat8E4 || d == Dtype::kFloat8E5;
    EXPECT_EQ(descr.has_value(), !numpy_lacks) << DtypeNumpyName(d);
    if (!descr) continue;
    // The item size in the descr is the dtype's.
    EXPECT_EQ(descr->substr(2), std::to_string(DtypeSize(d))) << *descr;
    // fp32r is stored as float32, and reads back as it.
    EXPECT_EQ(DtypeFromNpyDescr(*descr), d == Dtype::kFloat32r ? Dtype::kFloat32 : d);
  }
  EXPECT_EQ(DtypeFromNpyDescr("|V2"), std::nullopt);
}

}  // namespace
}  // namespace trnsim::isa
