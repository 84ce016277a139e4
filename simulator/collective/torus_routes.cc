#include "simulator/collective/torus_routes.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

namespace trnsim::simulator::collective {
namespace {

constexpr int kNorth = 0, kWest = 1, kSouth = 2, kEast = 3;

int Neighbour(const InstanceSpec& spec, int chip, int port) {
  const int rows = spec.torus_rows, cols = spec.torus_cols;
  int r = chip / cols, c = chip % cols;
  switch (port) {
    case kNorth:
      r = (r + rows - 1) % rows;
      break;
    case kWest:
      c = (c + cols - 1) % cols;
      break;
    case kSouth:
      r = (r + 1) % rows;
      break;
    default:
      c = (c + 1) % cols;
      break;
  }
  return r * cols + c;
}

// Depth-first search for a Hamiltonian cycle of the torus whose complement (the other two
// links of every chip) is a Hamiltonian cycle too. Edges are undirected, named by the chip and
// port they leave from going east or south (so each torus edge has one name).
class Decomposer {
 public:
  explicit Decomposer(const InstanceSpec& spec)
      : spec_(spec),
        n_(spec.chip_count),
        used_(static_cast<size_t>(n_) * 4, false),
        visited_(static_cast<size_t>(n_), false) {}

  std::vector<std::vector<int>> Run() {
    path_ = {0};
    visited_[0] = true;
    if (!Extend()) return {};
    return {path_, complement_};
  }

 private:
  // The canonical (east/south) name of the edge leaving `chip` by `port`.
  int EdgeId(int chip, int port) const {
    if (port == kEast || port == kSouth) return chip * 4 + port;
    return Neighbour(spec_, chip, port) * 4 + (port == kWest ? kEast : kSouth);
  }

  bool Extend() {
    if (++steps_ > kStepBudget) return false;
    const int at = path_.back();
    for (int port = 0; port < 4; ++port) {
      const int next = Neighbour(spec_, at, port);
      const int edge = EdgeId(at, port);
      if (used_[edge]) continue;
      if (static_cast<int>(path_.size()) == n_) {
        if (next != 0) continue;
        used_[edge] = true;
        if (ComplementIsOneCycle()) return true;
        used_[edge] = false;
        continue;
      }
      if (visited_[next]) continue;
      used_[edge] = true;
      visited_[next] = true;
      path_.push_back(next);
      if (Extend()) return true;
      path_.pop_back();
      visited_[next] = false;
      used_[edge] = false;
    }
    return false;
  }

  bool ComplementIsOneCycle() {
    complement_ = {0};
    std::vector<bool> edge_taken(used_);
    int at = 0;
    for (;;) {
      int next = -1;
      for (int port = 0; port < 4 && next < 0; ++port) {
        const int edge = EdgeId(at, port);
        if (edge_taken[edge]) continue;
        edge_taken[edge] = true;
        next = Neighbour(spec_, at, port);
      }
      if (next < 0) return false;
      if (next == 0) return static_cast<int>(complement_.size()) == n_;
      complement_.push_back(next);
      at = next;
    }
  }

  static constexpr long kStepBudget = 2'000'000;
  const InstanceSpec& spec_;
  const int n_;
  std::vector<bool> used_;
  std::vector<bool> visited_;
  std::vector<int> path_;
  std::vector<int> complement_;
  long steps_ = 0;
};

// The decomposition of a whole rows x cols torus, computed once per shape.
std::vector<std::vector<int>> WholeTorusRings(const InstanceSpec& spec) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::vector<std::vector<int>>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(spec.torus_rows, spec.torus_cols);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, Decomposer(spec).Run()).first;
  return it->second;
}

}  // namespace

std::vector<DirectedLink> RouteDimensionOrder(const InstanceSpec& spec, int from, int to) {
  const int rows = spec.torus_rows, cols = spec.torus_cols;
  std::vector<DirectedLink> links;
  int at = from;
  const int dc = ((to % cols) - (from % cols) + cols) % cols;
  const int col_port = dc <= cols - dc ? kEast : kWest;
  for (int k = 0, n = std::min(dc, cols - dc); k < n; ++k) {
    links.push_back({at, col_port});
    at = Neighbour(spec, at, col_port);
  }
  const int dr = ((to / cols) - (from / cols) + rows) % rows;
  const int row_port = dr <= rows - dr ? kSouth : kNorth;
  for (int k = 0, n = std::min(dr, rows - dr); k < n; ++k) {
    links.push_back({at, row_port});
    at = Neighbour(spec, at, row_port);
  }
  return links;
}

std::vector<std::vector<int>> TorusRings(const InstanceSpec& spec, std::span<const int> chips) {
  const bool whole = static_cast<int>(chips.size()) == spec.chip_count &&
                     spec.chip_count == spec.torus_rows * spec.torus_cols;
  if (whole && spec.torus_rows >= 3 && spec.torus_cols >= 3) {
    std::vector<std::vector<int>> rings = WholeTorusRings(spec);
    if (!rings.empty()) return rings;
  }
  std::vector<int> ring(chips.begin(), chips.end());
  const int cols = spec.torus_cols;
  auto serpentine = [cols](int chip) {
    const int r = chip / cols, c = chip % cols;
    return r * cols + (r % 2 == 0 ? c : cols - 1 - c);
  };
  std::sort(ring.begin(), ring.end(), [&](int a, int b) { return serpentine(a) < serpentine(b); });
  return {ring};
}

}  // namespace trnsim::simulator::collective
