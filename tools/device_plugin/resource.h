// The three resources trnsim-device-plugin can serve, named as AWS's Neuron device plugin names
// them (awsdocs-neuron: containers/tutorials/k8s-setup, "Deploy Neuron Device Plugin"):
//  - aws.amazon.com/neuron: whole Neuron devices (AWS keeps it for existing installations);
//  - aws.amazon.com/neurondevice: whole Neuron devices (AWS's recommended device resource);
//  - aws.amazon.com/neuroncore: logical NeuronCores.
// Each is its own kubelet plugin endpoint: a unix socket in kubelet's device-plugin directory
// named by EndpointName (trnsim's choice, "trnsim-<short name>.sock").
//
// Thread safety: pure functions over constant data.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"

namespace trnsim::device_plugin {

enum class Resource : int { kNeuron = 0, kNeuronDevice = 1, kNeuronCore = 2 };

// Every resource, in the order above (the default of --resources).
std::vector<Resource> AllResources();

// "aws.amazon.com/neuron", "aws.amazon.com/neurondevice", "aws.amazon.com/neuroncore".
std::string ResourceName(Resource resource);
// "neuron", "neurondevice", "neuroncore": what --resources takes.
std::string ShortName(Resource resource);
// "trnsim-neuron.sock", ...: the socket file name in kubelet's directory (RegisterRequest's
// endpoint).
std::string EndpointName(Resource resource);
// True for the two device resources (one kubelet device per Neuron device).
bool IsDeviceResource(Resource resource);

// A short name or the full resource name; anything else is NRT_INVALID listing the known ones.
StatusOr<Resource> ParseResource(std::string_view text);

}  // namespace trnsim::device_plugin
