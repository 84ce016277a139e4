/*
 * The tiny check harness shared by the plain-C conformance tests. Each test file is one
 * translation unit, so the counters are file-static. EXPECT_* evaluate each argument once;
 * main() ends with C_CHECK_SUMMARY(), printing "N passed, M failed" and returning 0 or 1.
 */
#ifndef TRNSIM_TESTS_API_C_CHECK_H_
#define TRNSIM_TESTS_API_C_CHECK_H_

#include <stdbool.h>
#include <stdio.h>

static int passed, failed;

static void check(bool ok, const char *what, long long got, long long want, int line) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    printf("FAIL line %d: %s: got %lld, want %lld\n", line, what, got, want);
  }
}

#define EXPECT_EQ(got, want)                                                   \
  do {                                                                         \
    long long got_value_ = (long long)(got);                                   \
    long long want_value_ = (long long)(want);                                 \
    check(got_value_ == want_value_, #got, got_value_, want_value_, __LINE__); \
  } while (0)
#define EXPECT_TRUE(cond) check((cond), #cond, 0, 1, __LINE__)

#define C_CHECK_SUMMARY()                                  \
  do {                                                     \
    printf("%d passed, %d failed\n", passed, failed);      \
    return failed == 0 ? 0 : 1;                            \
  } while (0)

#endif /* TRNSIM_TESTS_API_C_CHECK_H_ */
