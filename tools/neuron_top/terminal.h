// The ncurses side of neuron-top: takes over the terminal (raw keys, no echo, hidden cursor,
// colours when the terminal has them), draws a Screen (screen.h) and reads one key at a time,
// translated to ui_state.h's keys. The terminal is restored, and ncurses' screen freed, when the
// Terminal is destroyed.
//
// Errors: Open() fails (NRT_FAILURE, one line) when stdin/stdout is not a terminal ncurses can
// drive (e.g. TERM unset or unknown).
//
// Thread safety: one Terminal per process, used by one thread.
#pragma once

#include <chrono>
#include <memory>

#include "common/status_or.h"
#include "tools/neuron_top/screen.h"

struct screen;  // ncurses' SCREEN, kept out of this header (its macros clash with C++ names)

namespace trnsim::neuron_top {

class Terminal {
 public:
  static StatusOr<std::unique_ptr<Terminal>> Open();
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  int Width() const;
  int Height() const;
  void Draw(const Screen& screen);
  // The next key within `wait` (kNoKey if none; kResized after a resize).
  int ReadKey(std::chrono::milliseconds wait);

  static constexpr int kNoKey = -1;
  static constexpr int kResized = -2;

 private:
  explicit Terminal(::screen* screen) : screen_(screen) {}
  ::screen* screen_;
};

}  // namespace trnsim::neuron_top
