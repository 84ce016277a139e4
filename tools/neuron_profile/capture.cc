#include "tools/neuron_profile/capture.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <span>
#include <vector>

#include "common/env.h"
#include "nrt/nrt.h"
#include "nrt/nrt_experimental.h"
#include "nrt/nrt_profile.h"
#include "runtime/neff/header.h"

namespace trnsim::neuron_profile {
namespace {

StatusOr<std::vector<uint8_t>> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidError("cannot read '" + path + "'");
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

Status Nrt(NRT_STATUS status, const std::string& step) {
  if (status == NRT_SUCCESS) return Status::Ok();
  return Status(static_cast<StatusCode>(status),
                step + " failed: " + nrt_get_status_as_str(status));
}

// Everything capture allocates, released in reverse on every path.
class Session {
 public:
  ~Session() {
    for (nrt_tensor_t*& t : tensors_) nrt_tensor_free(&t);
    if (inputs_) nrt_destroy_tensor_set(&inputs_);
    if (outputs_) nrt_destroy_tensor_set(&outputs_);
    if (info_) nrt_free_model_tensor_info(info_);
    if (model_) nrt_unload(model_);
    if (initialised_) nrt_close();
  }

  Status Run(const CaptureArgs& args, const std::vector<uint8_t>& neff) {
    TRNSIM_RETURN_IF_ERROR(Nrt(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), "nrt_init"));
    initialised_ = true;
    TRNSIM_RETURN_IF_ERROR(
        Nrt(nrt_load(neff.data(), neff.size(), -1, -1, &model_), "nrt_load(" + args.neff + ")"));
    TRNSIM_RETURN_IF_ERROR(Nrt(nrt_get_model_tensor_info(model_, &info_), "tensor info"));
    TRNSIM_RETURN_IF_ERROR(Nrt(nrt_allocate_tensor_set(&inputs_), "nrt_allocate_tensor_set"));
    TRNSIM_RETURN_IF_ERROR(Nrt(nrt_allocate_tensor_set(&outputs_), "nrt_allocate_tensor_set"));
    std::map<std::string, std::string> files(args.inputs.begin(), args.inputs.end());
    for (uint64_t i = 0; i < info_->tensor_count; ++i) {
      const nrt_tensor_info_t& t = info_->tensor_array[i];
      const bool input = t.usage == NRT_TENSOR_USAGE_INPUT;
      nrt_tensor_t* tensor = nullptr;
      TRNSIM_RETURN_IF_ERROR(
          Nrt(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, t.size, t.name, &tensor),
              std::string("allocating tensor ") + t.name));
      tensors_.push_back(tensor);
      TRNSIM_RETURN_IF_ERROR(
          Nrt(nrt_add_tensor_to_tensor_set(input ? inputs_ : outputs_, t.name, tensor),
              "nrt_add_tensor_to_tensor_set"));
      if (!input) continue;
      auto file = files.find(t.name);
      if (file == files.end()) {
        TRNSIM_RETURN_IF_ERROR(Nrt(nrt_tensor_memset(tensor, 0, 0, t.size), "nrt_tensor_memset"));
        continue;
      }
      TRNSIM_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFile(file->second));
      if (bytes.size() != t.size) {
        return InvalidError("input '" + file->first + "' from '" + file->second + "' has " +
                            std::to_string(bytes.size()) + " bytes; the model wants " +
                            std::to_string(t.size));
      }
      TRNSIM_RETURN_IF_ERROR(Nrt(nrt_tensor_write(tensor, bytes.data(), 0, bytes.size()),
                                 "nrt_tensor_write(" + file->first + ")"));
      files.erase(file);
    }
    if (!files.empty()) {
      return InvalidError("the model has no input named '" + files.begin()->first + "'");
    }
    TRNSIM_RETURN_IF_ERROR(
        Nrt(nrt_profile_start(model_, args.session.c_str()), "nrt_profile_start"));
    NRT_STATUS executed = nrt_execute(model_, inputs_, outputs_);
    // The profile is written even when the execution failed: it shows where it stopped.
    Status stopped = Nrt(nrt_profile_stop(args.session.c_str()), "nrt_profile_stop");
    TRNSIM_RETURN_IF_ERROR(Nrt(executed, "nrt_execute"));
    return stopped;
  }

 private:
  bool initialised_ = false;
  nrt_model_t* model_ = nullptr;
  nrt_tensor_info_array_t* info_ = nullptr;
  nrt_tensor_set_t* inputs_ = nullptr;
  nrt_tensor_set_t* outputs_ = nullptr;
  std::vector<nrt_tensor_t*> tensors_;
};

}  // namespace

Status Capture(const CaptureArgs& args) {
  TRNSIM_ASSIGN_OR_RETURN(std::vector<uint8_t> neff, ReadFile(args.neff));
  StatusOr<neff::Header> header = neff::DecodeHeader(neff);
  if (!header.ok())
    return Status(header.status().code(), args.neff + ": " + header.status().message());
  // Run the NEFF at its own LNC unless the user chose one.
  const Environment env = Environment::FromProcess();
  if (!env.Raw(EnvVar::kLogicalNcConfig) && !env.Raw(EnvVar::kVirtualCoreSize)) {
    setenv("NEURON_LOGICAL_NC_CONFIG", std::to_string(header->lnc_size).c_str(), 1);
  }
  Session session;
  return session.Run(args, neff);
}

}  // namespace trnsim::neuron_profile
