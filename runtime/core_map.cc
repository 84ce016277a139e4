#include "runtime/core_map.h"

namespace trnsim::runtime {

CoreLocation CoreMap::Locate(int vnc) const {
  const simulator::ChipSpec& chip = *config_.instance->chip;
  CoreLocation loc;
  loc.absolute_vnc = config_.first_visible_vnc + vnc;
  loc.first_physical = loc.absolute_vnc * config_.lnc;
  loc.physical_count = config_.lnc;
  loc.chip = loc.first_physical / chip.physical_cores;
  loc.hbm = chip.HbmStackOfCore(loc.first_physical % chip.physical_cores);
  return loc;
}

}  // namespace trnsim::runtime
