// Table: neuron-ls's bordered text table (tools-driver-facts.md §1.3).
//  - Each title is split at its first space over two header lines ("NEURON DEVICE" ->
//    "NEURON" / "DEVICE"; a one-word title has an empty second line); each half is centred in
//    its cell, an odd leftover space going to the right.
//  - A column is as wide as its longest content (title halves included) plus 2; data cells are
//    left-aligned after one space.
//  - Borders: "+---+" lines above and below the header, at the end, and where AddSeparator
//    asks; cells are separated by '|'.
// Cells are measured in bytes: content is ASCII.
//
// Thread safety: none; a Table is built and rendered by one thread.
#pragma once

#include <string>
#include <vector>

namespace trnsim::neuron_ls {

class Table {
 public:
  explicit Table(std::vector<std::string> titles);

  // `cells` has one entry per title (missing ones are empty, extra ones an abort).
  void AddRow(std::vector<std::string> cells);
  // A border line after the rows added so far (not doubled at the end).
  void AddSeparator();

  std::string Render() const;

 private:
  std::vector<std::string> titles_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a separator
};

}  // namespace trnsim::neuron_ls
