#include "tools/neuron_ls/topology.h"

#include <cstdio>

namespace trnsim::neuron_ls {
namespace {

// UTF-8 spellings of the drawing's characters.
constexpr const char* kDash = "\u2013";      // EN DASH, drawn twice per link
constexpr const char* kRight = "\u25BA";     // BLACK RIGHT-POINTING POINTER
constexpr const char* kLeft = "\u25C4";      // BLACK LEFT-POINTING POINTER
constexpr const char* kUp = "\u25B2";        // BLACK UP-POINTING TRIANGLE
constexpr const char* kDown = "\u25BC";      // BLACK DOWN-POINTING TRIANGLE
constexpr const char* kVertical = "\u2502";  // BOX DRAWINGS LIGHT VERTICAL

// Cell centres sit at column 6 + 9·c: "*––►" (4) then "[" and "%2d" put the units digit at 6,
// and each further cell adds "]◄––►[" plus the cell (9 columns).
constexpr int kFirstCentre = 6;
constexpr int kCellPitch = 9;

std::string Cell(int device) {
  char text[16];
  std::snprintf(text, sizeof(text), "[%2d ]", device);
  return text;
}

// One line with `mark` under each of `cols` cell centres.
std::string Marks(int cols, const char* mark) {
  std::string line;
  int column = 0;
  for (int c = 0; c < cols; ++c) {
    const int centre = kFirstCentre + c * kCellPitch;
    line += std::string(centre - column, ' ') + mark;
    column = centre + 1;
  }
  return line + "\n";
}

std::string Torus(int rows, int cols) {
  const std::string link = std::string(kDash) + kDash;
  std::string out = Marks(cols, "*") + Marks(cols, kVertical) + Marks(cols, kDown);
  for (int r = 0; r < rows; ++r) {
    if (r > 0) out += Marks(cols, kUp) + Marks(cols, kVertical) + Marks(cols, kDown);
    out += "*" + link + kRight;
    for (int c = 0; c < cols; ++c) {
      if (c > 0) out += kLeft + link + kRight;
      out += Cell(r * cols + c);
    }
    out += kLeft + link + "*\n";
  }
  out += Marks(cols, kUp) + Marks(cols, kVertical) + Marks(cols, "*");
  out += "\nLegend:\n*" + link + kRight + " = Wrap-around link\n";
  return out;
}

}  // namespace

std::string TopologyDrawing(const simulator::InstanceSpec& spec) {
  std::string out = "\nNeuron Device Topology\n";
  switch (spec.topology) {
    case simulator::TopologyKind::kTorus2d:
      return out + Torus(spec.torus_rows, spec.torus_cols);
    case simulator::TopologyKind::kSwitched:
      for (int d = 0; d < spec.chip_count; ++d) {
        out += Cell(d) + " " + kLeft + std::string(kDash) + kDash + kRight +
               " every other device (NeuronSwitch)\n";
      }
      return out;
    case simulator::TopologyKind::kSingleChip:
      break;
  }
  for (int d = 0; d < spec.chip_count; ++d) out += Cell(d) + "\n";
  return out;
}

}  // namespace trnsim::neuron_ls
