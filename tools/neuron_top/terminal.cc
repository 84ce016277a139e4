#include "tools/neuron_top/terminal.h"

#include <unistd.h>

#include <algorithm>

#include "tools/neuron_top/ui_state.h"

// Last, and as functions: ncurses' macros (erase, move, timeout...) would clash with C++ names.
#define NCURSES_NOMACROS
#include <curses.h>

namespace trnsim::neuron_top {
namespace {

enum Pair : short { kPairTitle = 1, kPairTab, kPairError };

int Attribute(Style style) {
  const bool colour = has_colors();
  switch (style) {
    case Style::kTitle:
      return colour ? COLOR_PAIR(kPairTitle) | A_BOLD : A_REVERSE;
    case Style::kHeader:
      return A_BOLD;
    case Style::kBar:
      return A_REVERSE;
    case Style::kSelectedTab:
      return colour ? COLOR_PAIR(kPairTab) | A_BOLD : A_BOLD;
    case Style::kSelectedRow:
      return A_REVERSE;
    case Style::kError:
      return colour ? COLOR_PAIR(kPairError) | A_BOLD : A_BOLD;
    case Style::kNormal:
      break;
  }
  return A_NORMAL;
}

}  // namespace

StatusOr<std::unique_ptr<Terminal>> Terminal::Open() {
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    return FailureError("needs a terminal: stdin or stdout is not one");
  }
  // newterm, unlike initscr, returns an error instead of exiting on an unknown TERM.
  SCREEN* screen = newterm(nullptr, stdout, stdin);
  if (screen == nullptr) {
    return FailureError("cannot drive this terminal (TERM unset or unknown?)");
  }
  cbreak();
  noecho();
  keypad(stdscr, TRUE);
  curs_set(0);
  if (has_colors()) {
    start_color();
    use_default_colors();
    init_pair(kPairTitle, COLOR_BLACK, COLOR_CYAN);
    init_pair(kPairTab, COLOR_GREEN, -1);
    init_pair(kPairError, COLOR_RED, -1);
  }
  return std::unique_ptr<Terminal>(new Terminal(screen));
}

Terminal::~Terminal() {
  endwin();
  delscreen(screen_);
}

int Terminal::Width() const { return getmaxx(stdscr); }
int Terminal::Height() const { return getmaxy(stdscr); }

void Terminal::Draw(const Screen& screen) {
  erase();
  const int width = Width(), height = Height();
  for (int row = 0; row < height && row < static_cast<int>(screen.lines.size()); ++row) {
    int column = 0;
    for (const Span& span : screen.lines[row].spans) {
      const int room = width - column;
      if (room <= 0) break;
      const int n = std::min(room, static_cast<int>(span.text.size()));
      const int attribute = Attribute(span.style);
      attron(attribute);
      // The bottom-right cell makes addnstr return ERR after writing it; nothing to do then.
      (void)mvaddnstr(row, column, span.text.c_str(), n);
      attroff(attribute);
      column += n;
    }
  }
  refresh();
}

int Terminal::ReadKey(std::chrono::milliseconds wait) {
  wtimeout(stdscr, static_cast<int>(wait.count()));
  const int key = getch();
  switch (key) {
    case ERR:
      return kNoKey;
    case KEY_RESIZE:
      return kResized;
    case KEY_UP:
      return kKeyUp;
    case KEY_DOWN:
      return kKeyDown;
    case KEY_LEFT:
      return kKeyLeft;
    case KEY_RIGHT:
      return kKeyRight;
    case KEY_ENTER:
    case '\n':
    case '\r':
      return kKeyEnter;
    default:
      return key;
  }
}

}  // namespace trnsim::neuron_top
