// Status and StatusOr: the codes must equal NRT_STATUS numerically (the api layer casts), the
// names must be NRT's, and the helper macros must return early exactly when they should.
#include "common/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/status_or.h"

namespace trnsim {
namespace {

struct CodeRow {
  StatusCode code;
  uint32_t nrt_value;
  const char* nrt_name;
};

// Transcribed from AWS's nrt_status.h, independently of status.h.
const CodeRow kNrtStatus[] = {
    {StatusCode::kOk, 0, "NRT_SUCCESS"},
    {StatusCode::kFailure, 1, "NRT_FAILURE"},
    {StatusCode::kInvalid, 2, "NRT_INVALID"},
    {StatusCode::kInvalidHandle, 3, "NRT_INVALID_HANDLE"},
    {StatusCode::kResource, 4, "NRT_RESOURCE"},
    {StatusCode::kTimeout, 5, "NRT_TIMEOUT"},
    {StatusCode::kHwError, 6, "NRT_HW_ERROR"},
    {StatusCode::kQueueFull, 7, "NRT_QUEUE_FULL"},
    {StatusCode::kLoadNotEnoughNc, 9, "NRT_LOAD_NOT_ENOUGH_NC"},
    {StatusCode::kUnsupportedNeffVersion, 10, "NRT_UNSUPPORTED_NEFF_VERSION"},
    {StatusCode::kFailHostMemAlloc, 11, "NRT_FAIL_HOST_MEM_ALLOC"},
    {StatusCode::kUninitialized, 13, "NRT_UNINITIALIZED"},
    {StatusCode::kClosed, 14, "NRT_CLOSED"},
    {StatusCode::kQueueEmpty, 15, "NRT_QUEUE_EMPTY"},
    {StatusCode::kExecUnitUnrecoverable, 101, "NRT_EXEC_UNIT_UNRECOVERABLE"},
    {StatusCode::kExecBadInput, 1002, "NRT_EXEC_BAD_INPUT"},
    {StatusCode::kExecCompletedWithNumErr, 1003, "NRT_EXEC_COMPLETED_WITH_NUM_ERR"},
    {StatusCode::kExecCompletedWithErr, 1004, "NRT_EXEC_COMPLETED_WITH_ERR"},
    {StatusCode::kExecNcBusy, 1005, "NRT_EXEC_NC_BUSY"},
    {StatusCode::kExecOob, 1006, "NRT_EXEC_OOB"},
    {StatusCode::kCollPending, 1100, "NRT_COLL_PENDING"},
    {StatusCode::kExecHwErrCollectives, 1200, "NRT_EXEC_HW_ERR_COLLECTIVES"},
    {StatusCode::kExecHwErrHbmUe, 1201, "NRT_EXEC_HW_ERR_HBM_UE"},
    {StatusCode::kExecHwErrNcUe, 1202, "NRT_EXEC_HW_ERR_NC_UE"},
    {StatusCode::kExecHwErrDmaAbort, 1203, "NRT_EXEC_HW_ERR_DMA_ABORT"},
    {StatusCode::kExecSwNqOverflow, 1204, "NRT_EXEC_SW_NQ_OVERFLOW"},
    {StatusCode::kExecHwErrRepairableHbmUe, 1205, "NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE"},
    {StatusCode::kNetworkProxyFailure, 1206, "NRT_NETWORK_PROXY_FAILURE"},
};

TEST(StatusCodeTest, ValuesEqualNrtStatus) {
  for (const CodeRow& row : kNrtStatus) {
    EXPECT_EQ(static_cast<uint32_t>(row.code), row.nrt_value) << row.nrt_name;
  }
}

TEST(StatusCodeTest, NamesAreNrtNames) {
  for (const CodeRow& row : kNrtStatus) {
    EXPECT_STREQ(StatusCodeName(row.code), row.nrt_name) << row.nrt_value;
  }
}

TEST(StatusCodeTest, EveryNrtValueIsKnown) {
  for (const CodeRow& row : kNrtStatus) {
    EXPECT_TRUE(IsKnownStatusCode(row.nrt_value)) << row.nrt_name;
  }
}

TEST(StatusCodeTest, GapsAndOutOfRangeValuesAreUnknown) {
  // The holes in NRT_STATUS's numbering, its neighbours, and extremes.
  for (uint32_t value :
       {8u, 12u, 16u, 100u, 102u, 1000u, 1001u, 1007u, 1099u, 1101u, 1199u, 1207u, 0xFFFFFFFFu}) {
    EXPECT_FALSE(IsKnownStatusCode(value)) << value;
    EXPECT_STREQ(StatusCodeName(static_cast<StatusCode>(value)), "NRT_UNKNOWN_STATUS") << value;
  }
}

TEST(StatusTest, DefaultIsOk) {
  Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kOk);
  EXPECT_EQ(status.message(), "");
  EXPECT_TRUE(Status::Ok().ok());
}

TEST(StatusTest, CarriesCodeAndMessage) {
  Status status(StatusCode::kExecOob, "index 9 of 8");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kExecOob);
  EXPECT_EQ(status.message(), "index 9 of 8");
}

TEST(StatusTest, OkCodeWithMessageIsStillOk) {
  Status status(StatusCode::kOk, "note");
  EXPECT_TRUE(status.ok());
}

TEST(StatusTest, Shorthands) {
  EXPECT_EQ(FailureError("x").code(), StatusCode::kFailure);
  EXPECT_EQ(InvalidError("x").code(), StatusCode::kInvalid);
  EXPECT_EQ(InvalidHandleError("x").code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(ResourceError("x").code(), StatusCode::kResource);
  EXPECT_EQ(TimeoutError("x").code(), StatusCode::kTimeout);
  EXPECT_EQ(InvalidError("the reason").message(), "the reason");
}

TEST(StatusTest, ToStringJoinsNameAndMessage) {
  EXPECT_EQ(InvalidError("offset 12 + size 8 is past the end").ToString(),
            "NRT_INVALID: offset 12 + size 8 is past the end");
  EXPECT_EQ(Status(StatusCode::kClosed, "").ToString(), "NRT_CLOSED");
  EXPECT_EQ(Status::Ok().ToString(), "NRT_SUCCESS");
  EXPECT_EQ(Status(static_cast<StatusCode>(8), "odd").ToString(), "NRT_UNKNOWN_STATUS: odd");
}

TEST(StatusOrTest, HoldsValue) {
  StatusOr<int> result(42);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result.status().ok());
  EXPECT_EQ(result.value(), 42);
  EXPECT_EQ(*result, 42);
  *result = 7;
  EXPECT_EQ(result.value(), 7);
}

TEST(StatusOrTest, HoldsError) {
  StatusOr<int> result(ResourceError("out of HBM"));
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kResource);
  EXPECT_EQ(result.status().message(), "out of HBM");
}

TEST(StatusOrTest, ArrowAndConstAccess) {
  const StatusOr<std::string> result(std::string("hbm"));
  EXPECT_EQ(result->size(), 3u);
  EXPECT_EQ(*result, "hbm");
  EXPECT_EQ(result.value(), "hbm");
}

TEST(StatusOrTest, MoveOnlyValueMovesOut) {
  StatusOr<std::unique_ptr<int>> result(std::make_unique<int>(5));
  ASSERT_TRUE(result.ok());
  std::unique_ptr<int> owned = std::move(result).value();
  ASSERT_NE(owned, nullptr);
  EXPECT_EQ(*owned, 5);
}

using StatusOrDeathTest = ::testing::Test;

TEST_F(StatusOrDeathTest, ValueOfErrorAborts) {
  StatusOr<int> result(InvalidError("bad"));
  EXPECT_DEATH((void)result.value(), "value\\(\\) of an error StatusOr: NRT_INVALID: bad");
}

TEST_F(StatusOrDeathTest, ConstructingFromOkAborts) {
  EXPECT_DEATH(
      {
        StatusOr<int> result{Status::Ok()};
        (void)result;
      },
      "StatusOr constructed from an OK Status");
}

// --- Macros ----------------------------------------------------------------------------------

StatusOr<int> Half(int x, int* calls) {
  ++*calls;
  if (x % 2 != 0) return InvalidError(std::to_string(x) + " is odd");
  return x / 2;
}

Status Step(bool fail, int* calls) {
  ++*calls;
  return fail ? FailureError("step failed") : Status::Ok();
}

// Uses TRNSIM_ASSIGN_OR_RETURN twice in one function to check the hidden names do not clash.
StatusOr<int> Quarter(int x, int* calls, int* reached_end) {
  TRNSIM_ASSIGN_OR_RETURN(int half, Half(x, calls));
  TRNSIM_ASSIGN_OR_RETURN(int quarter, Half(half, calls));
  ++*reached_end;
  return quarter;
}

Status QuarterStatus(int x, int* out) {
  int calls = 0;
  TRNSIM_ASSIGN_OR_RETURN(*out, Half(x, &calls));  // assigns to an existing lvalue
  return Status::Ok();
}

Status TwoSteps(bool fail_first, bool fail_second, int* calls, int* reached_end) {
  TRNSIM_RETURN_IF_ERROR(Step(fail_first, calls));
  TRNSIM_RETURN_IF_ERROR(Step(fail_second, calls));
  ++*reached_end;
  return Status::Ok();
}

TEST(StatusMacroTest, AssignOrReturnPassesValuesThrough) {
  int calls = 0, reached_end = 0;
  StatusOr<int> result = Quarter(12, &calls, &reached_end);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, 3);
  EXPECT_EQ(calls, 2);  // each expression evaluated exactly once
  EXPECT_EQ(reached_end, 1);
}

TEST(StatusMacroTest, AssignOrReturnReturnsFirstError) {
  int calls = 0, reached_end = 0;
  StatusOr<int> result = Quarter(6, &calls, &reached_end);  // 6 -> 3 -> odd
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(result.status().message(), "3 is odd");
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(reached_end, 0);

  calls = 0;
  result = Quarter(5, &calls, &reached_end);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "5 is odd");
  EXPECT_EQ(calls, 1);  // the second expression never ran
  EXPECT_EQ(reached_end, 0);
}

TEST(StatusMacroTest, AssignOrReturnIntoStatusFunction) {
  int out = -1;
  EXPECT_TRUE(QuarterStatus(8, &out).ok());
  EXPECT_EQ(out, 4);
  out = -1;
  Status status = QuarterStatus(7, &out);
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_EQ(out, -1);
}

TEST(StatusMacroTest, ReturnIfError) {
  int calls = 0, reached_end = 0;
  EXPECT_TRUE(TwoSteps(false, false, &calls, &reached_end).ok());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(reached_end, 1);

  calls = 0;
  reached_end = 0;
  Status status = TwoSteps(true, false, &calls, &reached_end);
  EXPECT_EQ(status.code(), StatusCode::kFailure);
  EXPECT_EQ(status.message(), "step failed");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(reached_end, 0);

  calls = 0;
  status = TwoSteps(false, true, &calls, &reached_end);
  EXPECT_EQ(status.code(), StatusCode::kFailure);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(reached_end, 0);
}

TEST(StatusMacroTest, ReturnIfErrorInsideUnbracedIf) {
  // The macro is one statement, so it nests under an if/else without braces.
  auto fn = [](bool take, bool fail) -> Status {
    int calls = 0;
    if (take)
      TRNSIM_RETURN_IF_ERROR(Step(fail, &calls));
    else
      return TimeoutError("not taken");
    return Status::Ok();
  };
  EXPECT_TRUE(fn(true, false).ok());
  EXPECT_EQ(fn(true, true).code(), StatusCode::kFailure);
  EXPECT_EQ(fn(false, false).code(), StatusCode::kTimeout);
}

}  // namespace
}  // namespace trnsim
