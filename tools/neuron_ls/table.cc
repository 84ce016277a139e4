#include "tools/neuron_ls/table.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace trnsim::neuron_ls {
namespace {

std::pair<std::string, std::string> SplitTitle(const std::string& title) {
  const size_t space = title.find(' ');
  if (space == std::string::npos) return {title, ""};
  return {title.substr(0, space), title.substr(space + 1)};
}

std::string Centred(const std::string& text, size_t width) {
  const size_t left = (width - text.size()) / 2;
  return std::string(left, ' ') + text + std::string(width - left - text.size(), ' ');
}

std::string LeftAligned(const std::string& text, size_t width) {
  return " " + text + std::string(width - 1 - text.size(), ' ');
}

}  // namespace

Table::Table(std::vector<std::string> titles) : titles_(std::move(titles)) {}

void Table::AddRow(std::vector<std::string> cells) {
  if (cells.size() > titles_.size()) std::abort();  // a caller's bug, never input
  cells.resize(titles_.size());
  rows_.push_back(std::move(cells));
}

void Table::AddSeparator() {
  if (!rows_.empty() && !rows_.back().empty()) rows_.emplace_back();
}

std::string Table::Render() const {
  std::vector<std::pair<std::string, std::string>> halves;
  std::vector<size_t> widths;
  for (const std::string& title : titles_) {
    halves.push_back(SplitTitle(title));
    widths.push_back(std::max(halves.back().first.size(), halves.back().second.size()));
  }
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (size_t& width : widths) width += 2;

  std::string border = "+";
  for (size_t width : widths) border += std::string(width, '-') + "+";
  border += "\n";
  auto line = [&](auto cell) {
    std::string text = "|";
    for (size_t c = 0; c < widths.size(); ++c) text += cell(c) + "|";
    return text + "\n";
  };

  std::string out = border;
  out += line([&](size_t c) { return Centred(halves[c].first, widths[c]); });
  out += line([&](size_t c) { return Centred(halves[c].second, widths[c]); });
  out += border;
  for (const auto& row : rows_) {
    out += row.empty() ? border : line([&](size_t c) { return LeftAligned(row[c], widths[c]); });
  }
  if (rows_.empty() || !rows_.back().empty()) out += border;
  return out;
}

}  // namespace trnsim::neuron_ls
