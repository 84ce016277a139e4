// Simulated time: picoseconds, and clocks that convert cycles to picoseconds exactly.
//
// DESIGN.md decision 4: simulated time is explicit and deterministic. Every timestamp in the
// chip model is a `TimePs` (picoseconds since the emulated instance started); every span is a
// `DurationPs`. Both are plain unsigned 64-bit integers (2^64 ps is about 213 days of simulated
// time), so arithmetic is exact and identical on every host. Nothing here reads a host clock.
//
// A `Clock` is one engine's clock domain, given by its frequency in Hz. Cycle k of a clock
// (its k-th rising edge, edge 0 at time 0) happens at
//
//     EdgePs(k) = ceil(k * 10^12 / hz)
//
// computed in 128-bit integer arithmetic. Because every edge is computed from its absolute
// index, never by adding a rounded period to the previous edge, there is no drift: edge 10^12
// of a 0.96 GHz clock is exactly where the rational period puts it, rounded up to the next
// whole picosecond. Rounding rule: *ceil* — an event that completes on a clock edge is never
// observed before the exact (rational) edge time. Each rounded edge is less than 1 ps late and
// the error does not accumulate.
//
// Thread safety: all types here are immutable values; use them from any thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace trnsim::simulator {

using TimePs = uint64_t;      // an instant: picoseconds since the start of simulation
using DurationPs = uint64_t;  // a span of simulated time, in picoseconds

inline constexpr TimePs kTimeZeroPs = 0;
inline constexpr TimePs kTimeNeverPs = ~uint64_t{0};  // "no event" / unbounded horizon
inline constexpr uint64_t kPsPerSecond = 1'000'000'000'000ull;

// Durations in convenient units (exact; callers keep values in range).
constexpr DurationPs NanosecondsToPs(uint64_t ns) { return ns * 1'000ull; }
constexpr DurationPs MicrosecondsToPs(uint64_t us) { return us * 1'000'000ull; }

// One clock domain. Valid frequencies: 1 Hz .. 1 THz (a period of at least 1 ps).
class Clock {
 public:
  // Aborts on a frequency out of range: clocks come from spec tables, so that is a bug.
  static constexpr Clock FromHz(uint64_t hz) { return Clock(hz); }
  static constexpr Clock FromMhz(uint64_t mhz) { return Clock(mhz * 1'000'000ull); }

  constexpr uint64_t hz() const { return hz_; }

  // Time of edge `cycle` (edge 0 at t = 0): ceil(cycle * 10^12 / hz). Aborts if the result does
  // not fit in 64 bits.
  constexpr TimePs EdgePs(uint64_t cycle) const {
    const unsigned __int128 num = static_cast<unsigned __int128>(cycle) * kPsPerSecond;
    return Narrow((num + hz_ - 1) / hz_);
  }

  // Duration of `cycles` cycles started on edge 0: the same as EdgePs(cycles). For a span that
  // starts on a later edge k, prefer EdgePs(k + cycles) - EdgePs(k) (or EdgeAfterPs) — exact
  // spans between rounded edges differ from CyclesToPs by at most 1 ps.
  constexpr DurationPs CyclesToPs(uint64_t cycles) const { return EdgePs(cycles); }

  // Index of the first edge at or after `now_ps`: the smallest k with EdgePs(k) >= now_ps.
  // EdgePs(k) >= now  <=>  k * 10^12 > (now - 1) * hz  <=>  k = floor((now - 1) * hz / 10^12) + 1.
  constexpr uint64_t CycleAtOrAfter(TimePs now_ps) const {
    if (now_ps == 0) return 0;
    const unsigned __int128 num = static_cast<unsigned __int128>(now_ps - 1) * hz_;
    return Narrow(num / kPsPerSecond + 1);
  }

  // Whole cycles completed by `now_ps`: the number of edges k >= 1 with EdgePs(k) <= now_ps.
  constexpr uint64_t CyclesElapsed(TimePs now_ps) const {
    const unsigned __int128 num = static_cast<unsigned __int128>(now_ps) * hz_;
    return Narrow(num / kPsPerSecond);
  }

  // Aligns an event to this clock: the first edge at or after `now_ps` (now_ps itself if it
  // is an edge).
  constexpr TimePs NextEdgePs(TimePs now_ps) const { return EdgePs(CycleAtOrAfter(now_ps)); }

  // When work of `cycles` cycles, issued at `now_ps`, completes: it starts on the next edge
  // and ends `cycles` edges later. Exact, drift-free: the end is an absolute edge time.
  constexpr TimePs EdgeAfterPs(TimePs now_ps, uint64_t cycles) const {
    return EdgePs(CycleAtOrAfter(now_ps) + cycles);
  }

  friend constexpr bool operator==(const Clock&, const Clock&) = default;

 private:
  constexpr explicit Clock(uint64_t hz) : hz_(hz) {
    if (hz == 0 || hz > kPsPerSecond) Fail("Clock: frequency out of range (1 Hz .. 1 THz)");
  }
  static constexpr uint64_t Narrow(unsigned __int128 v) {
    if (v > ~uint64_t{0}) Fail("Clock: simulated time overflows 64-bit picoseconds");
    return static_cast<uint64_t>(v);
  }
  [[noreturn]] static void Fail(const char* what) {
    std::fprintf(stderr, "trnsim: %s\n", what);
    std::abort();
  }

  uint64_t hz_;
};

}  // namespace trnsim::simulator
