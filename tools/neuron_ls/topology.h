// neuron-ls --topology's drawing (tools-driver-facts.md §1.5), after the short table:
// a blank line, "Neuron Device Topology", the drawing, a blank line and the legend.
//  - kTorus2d: the rows×cols grid, cells "[%2d ]", horizontal links "◄––►", each row framed by
//    "*––►" and "◄––*" (wrap-around), vertical links "▲" / "│" / "▼" under each cell's centre
//    (columns 6, 15, 24, … ), a "*" / "│" / "▼" top edge and a "▲" / "│" / "*" bottom edge;
//    legend "Legend:" then "*––► = Wrap-around link".
//  - kSwitched: one line per device naming it and "every other device (NeuronSwitch)" — trnsim's
//    own form: AWS documents no drawing for a switched instance.
//  - kSingleChip: "[ 0 ]" alone, no legend.
// Lines carry no trailing spaces. Output is UTF-8.
//
// Thread safety: pure function.
#pragma once

#include <string>

#include "simulator/spec/instance_spec.h"

namespace trnsim::neuron_ls {

std::string TopologyDrawing(const simulator::InstanceSpec& spec);

}  // namespace trnsim::neuron_ls
