#include "tools/device_plugin/resource.h"

namespace trnsim::device_plugin {

std::vector<Resource> AllResources() {
  return {Resource::kNeuron, Resource::kNeuronDevice, Resource::kNeuronCore};
}

std::string ShortName(Resource resource) {
  switch (resource) {
    case Resource::kNeuron:
      return "neuron";
    case Resource::kNeuronDevice:
      return "neurondevice";
    case Resource::kNeuronCore:
      return "neuroncore";
  }
  return "neuron";  // unreachable: every enumerator is handled above
}

std::string ResourceName(Resource resource) { return "aws.amazon.com/" + ShortName(resource); }

std::string EndpointName(Resource resource) { return "trnsim-" + ShortName(resource) + ".sock"; }

bool IsDeviceResource(Resource resource) { return resource != Resource::kNeuronCore; }

StatusOr<Resource> ParseResource(std::string_view text) {
  for (Resource resource : AllResources()) {
    if (text == ShortName(resource) || text == ResourceName(resource)) return resource;
  }
  return InvalidError("unknown resource '" + std::string(text) +
                      "': expected neuron, neurondevice or neuroncore (or aws.amazon.com/<name>)");
}

}  // namespace trnsim::device_plugin
