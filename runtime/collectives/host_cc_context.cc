#include "runtime/collectives/host_cc_context.h"

#include <numeric>

#include "simulator/collective/collective_compute.h"

namespace trnsim::runtime::collectives {
namespace {

namespace sc = simulator::collective;

sc::CollectiveCall CallFor(const HostCcContext& context, uint64_t output_bytes) {
  sc::CollectiveCall call;
  call.kind = context.kind;
  call.op = context.op;
  call.dtype = context.dtype;
  call.group.size = uint32_t(context.group.size());
  call.group.stride = 1;
  call.output_bytes = output_bytes;
  return call;
}

}  // namespace

Status ValidateHostCc(const HostCcContext& context, const std::vector<uint64_t>& sizes_in,
                      const std::vector<uint64_t>& sizes_out) {
  if (sizes_in.empty()) return InvalidError("the input list holds no tensor");
  if (sizes_in.size() != sizes_out.size()) {
    return InvalidError("the input list holds " + std::to_string(sizes_in.size()) +
                        " tensors and the output list " + std::to_string(sizes_out.size()));
  }
  for (size_t i = 0; i < sizes_in.size(); ++i) {
    sc::CollectiveCall call = CallFor(context, sizes_out[i]);
    call.input.resize(sizes_in[i]);
    Status valid = sc::ValidateCall(call, uint32_t(context.group.size()));
    if (!valid.ok()) {
      return Status(valid.code(), "tensor " + std::to_string(i) + " of the lists: " +
                                      valid.message());
    }
  }
  return Status::Ok();
}

std::vector<std::vector<uint8_t>> ComputeHostCc(const HostCcContext& context,
                                                const std::vector<uint8_t>& gathered,
                                                const std::vector<uint64_t>& sizes_in,
                                                const std::vector<uint64_t>& sizes_out) {
  const size_t members = context.group.size();
  const uint64_t block = std::accumulate(sizes_in.begin(), sizes_in.end(), uint64_t{0});
  std::vector<std::vector<uint8_t>> outputs;
  uint64_t offset = 0;  // of tensor i within a member's block
  for (size_t i = 0; i < sizes_in.size(); ++i) {
    std::vector<sc::CollectiveCall> calls(members, CallFor(context, sizes_out[i]));
    std::vector<const sc::CollectiveCall*> ordered;
    for (size_t m = 0; m < members; ++m) {
      const uint8_t* first = gathered.data() + m * block + offset;
      calls[m].input.assign(first, first + sizes_in[i]);
      ordered.push_back(&calls[m]);
    }
    std::vector<std::vector<uint8_t>> all = sc::ComputeOutputs(ordered);
    outputs.push_back(std::move(all[context.position]));
    offset += sizes_in[i];
  }
  return outputs;
}

}  // namespace trnsim::runtime::collectives
