#include "tools/neuron_profile/capture.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "common/env.h"
#include "nrt/nrt.h"
#include "nrt/nrt_experimental.h"
#include "nrt/nrt_profile.h"
#include "nrt/nrt_sys_trace.h"
#include "runtime/neff/header.h"
#include "runtime/neff/npy.h"
#include "simulator/isa/dtype.h"

namespace trnsim::neuron_profile {
namespace {

StatusOr<std::vector<uint8_t>> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidError("cannot read '" + path + "'");
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// The array data of a *.npy file, or the whole of any other file.
StatusOr<std::vector<uint8_t>> ReadInput(const std::string& path) {
  TRNSIM_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFile(path));
  if (!neff::IsNpyFileName(path)) return bytes;
  TRNSIM_ASSIGN_OR_RETURN(neff::NpyArray array, neff::ParseNpy(bytes, path));
  return std::vector<uint8_t>(bytes.begin() + static_cast<ptrdiff_t>(array.data_offset),
                              bytes.end());
}

// numpy's name for an element type; bfloat16 and the fp8 types have none, so they are written as
// unsigned integers of their width. nrt_dtype_t values are isa::Dtype's.
std::string NpyDescr(nrt_dtype_t dtype) {
  const auto d = static_cast<isa::Dtype>(dtype);
  if (std::optional<std::string_view> native = isa::DtypeNpyDescr(d)) return std::string(*native);
  return isa::DtypeSize(d) == 2 ? "<u2" : "|u1";
}

Status WriteFile(const std::string& path, std::span<const uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return InvalidError("cannot write '" + path + "'");
  return Status::Ok();
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
    if (tracing_) nrt_sys_trace_stop();
    if (initialised_) nrt_close();
  }

  Status Run(const CaptureArgs& args, const std::vector<uint8_t>& neff) {
    TRNSIM_RETURN_IF_ERROR(Nrt(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), "nrt_init"));
    initialised_ = true;
    if (!args.system_trace) return RunModel(args, neff);
    TRNSIM_RETURN_IF_ERROR(StartSystemTrace());
    Status ran = RunModel(args, neff);
    // The trace is written whatever happened: it shows where the run stopped.
    Status written = WriteSystemTrace(args.session);
    TRNSIM_RETURN_IF_ERROR(ran);
    return written;
  }

 private:
  Status StartSystemTrace() {
    nrt_sys_trace_config_t* config = nullptr;
    TRNSIM_RETURN_IF_ERROR(Nrt(nrt_sys_trace_config_allocate(&config), "system-trace config"));
    nrt_sys_trace_config_set_defaults(config);
    Status started = Nrt(nrt_sys_trace_start(config), "nrt_sys_trace_start");
    nrt_sys_trace_config_free(config);
    tracing_ = started.ok();
    return started;
  }

  Status WriteSystemTrace(const std::string& path) {
    char* buffer = nullptr;
    size_t size = 0;
    Status fetched = Nrt(nrt_sys_trace_fetch_events(&buffer, &size, nullptr),
                         "nrt_sys_trace_fetch_events");
    Status written = fetched;
    if (fetched.ok()) {
      written = WriteFile(path, std::span(reinterpret_cast<const uint8_t*>(buffer), size));
    }
    nrt_sys_trace_buffer_free(buffer);
    tracing_ = false;
    Status stopped = Nrt(nrt_sys_trace_stop(), "nrt_sys_trace_stop");
    TRNSIM_RETURN_IF_ERROR(written);
    return stopped;
  }

  Status RunModel(const CaptureArgs& args, const std::vector<uint8_t>& neff) {
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
      TRNSIM_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadInput(file->second));
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
    for (int n = 1; n <= args.num_exec; ++n) {
      TRNSIM_RETURN_IF_ERROR(ExecuteOnce(args, n));
    }
    return Status::Ok();
  }

  // Execution `n` (1-based) of the capture: profiled when it is the nth, checked and saved as
  // asked.
  Status ExecuteOnce(const CaptureArgs& args, int n) {
    const bool profiled = !args.system_trace && n == args.profile_nth_exec;
    const bool saved = args.system_trace ? n == args.num_exec : profiled;
    if (profiled) {
      TRNSIM_RETURN_IF_ERROR(
          Nrt(nrt_profile_start(model_, args.session.c_str()), "nrt_profile_start"));
    }
    const std::string step = "nrt_execute (execution " + std::to_string(n) + ")";
    Status executed = Nrt(nrt_execute(model_, inputs_, outputs_), step);
    // The profile is written even when the execution failed: it shows where it stopped.
    if (profiled) {
      TRNSIM_RETURN_IF_ERROR(Nrt(nrt_profile_stop(args.session.c_str()), "nrt_profile_stop"));
    }
    if (!executed.ok()) {
      if (!args.ignore_exec_errors) return executed;
      std::fprintf(stderr, "neuron-profile: %s (ignored)\n", executed.ToString().c_str());
      return Status::Ok();
    }
    if (!args.check_output_determinism && !(saved && (args.save_output || args.save_output_npy)))
      return Status::Ok();
    TRNSIM_ASSIGN_OR_RETURN(std::vector<std::vector<uint8_t>> outputs, ReadOutputs());
    if (args.check_output_determinism) {
      if (first_outputs_.empty()) {
        first_outputs_ = outputs;
        first_ok_ = n;
      } else {
        TRNSIM_RETURN_IF_ERROR(CompareOutputs(outputs, n));
      }
    }
    if (saved) TRNSIM_RETURN_IF_ERROR(SaveOutputs(args, outputs));
    return Status::Ok();
  }

  // Every output tensor's bytes, in tensor-info order (outputs only).
  StatusOr<std::vector<std::vector<uint8_t>>> ReadOutputs() {
    std::vector<std::vector<uint8_t>> outputs;
    size_t index = 0;
    for (uint64_t i = 0; i < info_->tensor_count; ++i) {
      const nrt_tensor_info_t& t = info_->tensor_array[i];
      nrt_tensor_t* tensor = tensors_[index++];
      if (t.usage == NRT_TENSOR_USAGE_INPUT) continue;
      std::vector<uint8_t> bytes(t.size);
      TRNSIM_RETURN_IF_ERROR(Nrt(nrt_tensor_read(tensor, bytes.data(), 0, bytes.size()),
                                 std::string("nrt_tensor_read(") + t.name + ")"));
      outputs.push_back(std::move(bytes));
    }
    return outputs;
  }

  Status CompareOutputs(const std::vector<std::vector<uint8_t>>& outputs, int n) const {
    size_t k = 0;
    for (uint64_t i = 0; i < info_->tensor_count; ++i) {
      const nrt_tensor_info_t& t = info_->tensor_array[i];
      if (t.usage == NRT_TENSOR_USAGE_INPUT) continue;
      const std::vector<uint8_t>& got = outputs[k];
      const std::vector<uint8_t>& want = first_outputs_[k];
      ++k;
      for (size_t b = 0; b < got.size(); ++b) {
        if (got[b] != want[b]) {
          return FailureError("output '" + std::string(t.name) + "' of execution " +
                              std::to_string(n) + " differs from execution " +
                              std::to_string(first_ok_) + " at byte " + std::to_string(b));
        }
      }
    }
    return Status::Ok();
  }

  Status SaveOutputs(const CaptureArgs& args, const std::vector<std::vector<uint8_t>>& outputs) {
    if (!args.save_output && !args.save_output_npy) return Status::Ok();
    const std::filesystem::path dir = std::filesystem::path(args.session).parent_path();
    size_t k = 0;
    for (uint64_t i = 0; i < info_->tensor_count; ++i) {
      const nrt_tensor_info_t& t = info_->tensor_array[i];
      if (t.usage == NRT_TENSOR_USAGE_INPUT) continue;
      const std::vector<uint8_t>& bytes = outputs[k++];
      std::string stem = "output_" + std::string(t.name);
      for (char& c : stem) {
        if (c == '/') c = '_';
      }
      if (args.save_output) {
        TRNSIM_RETURN_IF_ERROR(WriteFile((dir / (stem + ".bin")).string(), bytes));
      }
      if (args.save_output_npy) {
        std::vector<uint64_t> shape(t.shape, t.shape + t.ndim);
        const std::string descr = NpyDescr(t.dtype);
        uint64_t elements = 1;
        for (uint64_t d : shape) elements *= d;
        const uint64_t item = static_cast<uint64_t>(std::stoi(descr.substr(2)));
        // A shape that does not account for every byte is written flat, one byte per element.
        const bool consistent = t.ndim > 0 && elements * item == bytes.size();
        std::vector<uint8_t> npy =
            consistent ? neff::MakeNpy(descr, shape, bytes)
                       : neff::MakeNpy("|u1", {static_cast<uint64_t>(bytes.size())}, bytes);
        TRNSIM_RETURN_IF_ERROR(WriteFile((dir / (stem + ".npy")).string(), npy));
      }
    }
    return Status::Ok();
  }

  std::vector<std::vector<uint8_t>> first_outputs_;
  int first_ok_ = 0;
  bool initialised_ = false;
  bool tracing_ = false;
  nrt_model_t* model_ = nullptr;
  nrt_tensor_info_array_t* info_ = nullptr;
  nrt_tensor_set_t* inputs_ = nullptr;
  nrt_tensor_set_t* outputs_ = nullptr;
  std::vector<nrt_tensor_t*> tensors_;
};

}  // namespace

Status Capture(const CaptureArgs& args) {
  if (args.num_exec < 1) {
    return InvalidError("--num-exec must be at least 1, not " + std::to_string(args.num_exec));
  }
  if (args.profile_nth_exec < 1 || args.profile_nth_exec > args.num_exec) {
    return InvalidError("--profile-nth-exec " + std::to_string(args.profile_nth_exec) +
                        " is not between 1 and --num-exec " + std::to_string(args.num_exec));
  }
  if (args.check_output_determinism && args.num_exec < 2) {
    return InvalidError("--check-output-determinism needs --num-exec of at least 2");
  }
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
