#include "driver/remote/convert.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>

#include "driver/remote/convert_debug.h"

namespace trnsim::driver::remote {
namespace {

namespace dma = simulator::dma;

Status Invalid(const std::string& message, const std::string& field) {
  return InvalidError("neurond message: " + message + " " + field);
}

Status CheckNonNegative(int value, const char* field) {
  if (value < 0) return Invalid(std::to_string(value) + " is negative:", field);
  return Status::Ok();
}

// offset + size must not wrap around 2^64.
Status CheckRange(uint64_t offset, uint64_t size, const char* field) {
  if (size > std::numeric_limits<uint64_t>::max() - offset) {
    return Invalid(
        "offset " + std::to_string(offset) + " + size " + std::to_string(size) + " overflows:",
        field);
  }
  return Status::Ok();
}

}  // namespace

// --- Status and enums -----------------------------------------------------------------------

void ToProto(const Status& status, v1::NrtStatus* out) {
  out->set_code(static_cast<uint32_t>(status.code()));
  out->set_message(status.message());
}

Status StatusFromProto(const v1::NrtStatus& in) {
  if (!IsKnownStatusCode(in.code())) {
    return InvalidError("neurond reply carries unknown status code " + std::to_string(in.code()) +
                        ": " + in.message());
  }
  if (in.code() == 0) return Status::Ok();
  return Status(static_cast<StatusCode>(in.code()), in.message());
}

v1::MemoryCategory ToProto(driver::MemoryCategory category) {
  // The wire numbers are the enum's plus one, so 0 means "unset".
  return static_cast<v1::MemoryCategory>(static_cast<int>(category) + 1);
}

StatusOr<driver::MemoryCategory> MemoryCategoryFromProto(int value) {
  if (value < v1::MEMORY_CATEGORY_TENSOR || value > v1::MEMORY_CATEGORY_MISC)
    return Invalid("memory category " + std::to_string(value) + " is unset or unknown:",
                   "category");
  return static_cast<driver::MemoryCategory>(value - 1);
}

v1::Dtype ToProto(isa::Dtype dtype) { return static_cast<v1::Dtype>(dtype); }

StatusOr<isa::Dtype> DtypeFromProto(int value) {
  if (value <= 0 || value >= isa::kDtypeCount)
    return Invalid("dtype " + std::to_string(value) + " is unset or unknown:", "dtype");
  return static_cast<isa::Dtype>(value);
}

v1::DmaOp ToProto(dma::Op op) { return static_cast<v1::DmaOp>(static_cast<int>(op) + 1); }

StatusOr<dma::Op> DmaOpFromProto(int value) {
  if (value < v1::DMA_OP_COPY || value > v1::DMA_OP_TRANSPOSE)
    return Invalid("DMA op " + std::to_string(value) + " is unset or unknown:", "op");
  return static_cast<dma::Op>(value - 1);
}

// --- Memory ---------------------------------------------------------------------------------

void ToProto(const driver::AllocationRequest& in, v1::AllocationRequest* out) {
  out->set_chip(in.chip);
  out->set_hbm(in.hbm);
  out->set_size_bytes(in.size_bytes);
  out->set_alignment_bytes(in.alignment_bytes);
  out->set_owner_core(in.owner_core);
  out->set_category(ToProto(in.category));
  out->set_owner_model_id(in.owner_model_id);
}

StatusOr<driver::AllocationRequest> AllocationRequestFromProto(const v1::AllocationRequest& in) {
  TRNSIM_RETURN_IF_ERROR(CheckNonNegative(in.chip(), "AllocationRequest.chip"));
  TRNSIM_RETURN_IF_ERROR(CheckNonNegative(in.hbm(), "AllocationRequest.hbm"));
  TRNSIM_RETURN_IF_ERROR(CheckNonNegative(in.owner_core(), "AllocationRequest.owner_core"));
  if (in.size_bytes() == 0) return Invalid("size 0:", "AllocationRequest.size_bytes");
  const uint64_t align = in.alignment_bytes();
  if (align == 0 || (align & (align - 1)) != 0)
    return Invalid(std::to_string(align) + " is not a power of two:",
                   "AllocationRequest.alignment_bytes");
  TRNSIM_ASSIGN_OR_RETURN(driver::MemoryCategory category, MemoryCategoryFromProto(in.category()));
  driver::AllocationRequest out;
  out.chip = in.chip();
  out.hbm = in.hbm();
  out.size_bytes = in.size_bytes();
  out.alignment_bytes = align;
  out.owner_core = in.owner_core();
  out.category = category;
  out.owner_model_id = in.owner_model_id();
  return out;
}

void ToProto(const driver::AllocationInfo& in, v1::AllocationInfo* out) {
  out->set_handle(in.handle);
  out->set_chip(in.chip);
  out->set_hbm(in.hbm);
  out->set_device_address(in.device_address);
  out->set_size_bytes(in.size_bytes);
  out->set_owner_core(in.owner_core);
  out->set_category(ToProto(in.category));
}

StatusOr<driver::AllocationInfo> AllocationInfoFromProto(const v1::AllocationInfo& in) {
  if (in.handle() == driver::kInvalidMemoryHandle)
    return Invalid("handle 0:", "AllocationInfo.handle");
  TRNSIM_RETURN_IF_ERROR(CheckNonNegative(in.chip(), "AllocationInfo.chip"));
  TRNSIM_RETURN_IF_ERROR(CheckNonNegative(in.hbm(), "AllocationInfo.hbm"));
  TRNSIM_RETURN_IF_ERROR(CheckNonNegative(in.owner_core(), "AllocationInfo.owner_core"));
  if (in.size_bytes() == 0) return Invalid("size 0:", "AllocationInfo.size_bytes");
  TRNSIM_RETURN_IF_ERROR(CheckRange(in.device_address(), in.size_bytes(), "AllocationInfo"));
  TRNSIM_ASSIGN_OR_RETURN(driver::MemoryCategory category, MemoryCategoryFromProto(in.category()));
  driver::AllocationInfo out;
  out.handle = in.handle();
  out.chip = in.chip();
  out.hbm = in.hbm();
  out.device_address = in.device_address();
  out.size_bytes = in.size_bytes();
  out.owner_core = in.owner_core();
  out.category = category;
  return out;
}

void ToProto(const driver::HbmUsage& in, v1::HbmUsage* out) {
  out->set_used_bytes(in.used_bytes);
  out->set_capacity_bytes(in.capacity_bytes);
}

StatusOr<driver::HbmUsage> HbmUsageFromProto(const v1::HbmUsage& in) {
  if (in.used_bytes() > in.capacity_bytes())
    return Invalid("used " + std::to_string(in.used_bytes()) + " bytes exceed the capacity " +
                       std::to_string(in.capacity_bytes()) + ":",
                   "HbmUsage");
  return driver::HbmUsage{in.used_bytes(), in.capacity_bytes()};
}

// --- Programs -------------------------------------------------------------------------------

void ToProto(const dma::Endpoint& in, v1::DmaEndpoint* out) {
  out->set_var_id(in.var_id);
  out->set_offset(in.offset);
  out->mutable_steps()->Assign(in.steps.begin(), in.steps.end());
  out->mutable_sizes()->Assign(in.sizes.begin(), in.sizes.end());
  out->set_dtype(ToProto(in.dtype));
}

StatusOr<dma::Endpoint> EndpointFromProto(const v1::DmaEndpoint& in) {
  if (in.steps_size() != in.sizes_size() || in.sizes_size() > 4)
    return Invalid(std::to_string(in.steps_size()) + " steps and " +
                       std::to_string(in.sizes_size()) + " sizes (equal counts, at most 4):",
                   "DmaEndpoint");
  TRNSIM_ASSIGN_OR_RETURN(isa::Dtype dtype, DtypeFromProto(in.dtype()));
  dma::Endpoint out;
  out.var_id = in.var_id();
  out.offset = in.offset();
  out.steps.assign(in.steps().begin(), in.steps().end());
  out.sizes.assign(in.sizes().begin(), in.sizes().end());
  out.dtype = dtype;
  return out;
}

void ToProto(const dma::Descriptor& in, v1::DmaDescriptor* out) {
  out->Clear();
  out->set_id(in.id);
  out->set_queue(in.queue);
  out->set_op(ToProto(in.op));
  for (const dma::Endpoint& source : in.sources) ToProto(source, out->add_sources());
  ToProto(in.dest, out->mutable_dest());
  out->set_scale(in.scale);
  out->set_constant(in.constant);
  out->set_transpose_rows(in.transpose_rows);
  out->set_transpose_cols(in.transpose_cols);
  out->set_transpose_element_size(in.transpose_element_size);
  if (in.semaphore) out->set_semaphore(*in.semaphore);
  out->set_semaphore_increment(in.semaphore_increment);
  if (in.event) out->set_event(*in.event);
}

StatusOr<dma::Descriptor> DescriptorFromProto(const v1::DmaDescriptor& in) {
  const std::string where = "DmaDescriptor " + std::to_string(in.id());
  if (in.queue() < 0)
    return Invalid("queue " + std::to_string(in.queue()) + " is negative:", where);
  if (in.sources_size() < 1 || in.sources_size() > 16)
    return Invalid(std::to_string(in.sources_size()) + " sources (1 to 16):", where);
  if (!in.has_dest()) return Invalid("no destination:", where);
  dma::Descriptor out;
  out.id = in.id();
  out.queue = in.queue();
  TRNSIM_ASSIGN_OR_RETURN(out.op, DmaOpFromProto(in.op()));
  for (const v1::DmaEndpoint& source : in.sources()) {
    TRNSIM_ASSIGN_OR_RETURN(dma::Endpoint endpoint, EndpointFromProto(source));
    out.sources.push_back(std::move(endpoint));
  }
  TRNSIM_ASSIGN_OR_RETURN(out.dest, EndpointFromProto(in.dest()));
  out.scale = in.scale();
  out.constant = in.constant();
  out.transpose_rows = in.transpose_rows();
  out.transpose_cols = in.transpose_cols();
  out.transpose_element_size = in.transpose_element_size();
  if (in.has_semaphore()) out.semaphore = in.semaphore();
  out.semaphore_increment = in.semaphore_increment();
  if (in.has_event()) out.event = in.event();
  return out;
}

void ToProto(const driver::ProgramImage& in, v1::ProgramImage* out) {
  out->Clear();
  for (int e = 0; e < isa::kEngineCount; ++e) {
    out->add_streams()->assign(in.streams[e].begin(), in.streams[e].end());
    v1::DmaDescriptorList* list = out->add_descriptors();
    for (const dma::Descriptor& d : in.descriptors.per_engine[e])
      ToProto(d, list->add_descriptors());
  }
}

StatusOr<driver::ProgramImage> ProgramImageFromProto(const v1::ProgramImage& in) {
  if (in.streams_size() != isa::kEngineCount || in.descriptors_size() != isa::kEngineCount)
    return Invalid(std::to_string(in.streams_size()) + " streams and " +
                       std::to_string(in.descriptors_size()) + " descriptor lists (one per " +
                       "engine, " + std::to_string(isa::kEngineCount) + "):",
                   "ProgramImage");
  driver::ProgramImage out;
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const std::string& stream = in.streams(e);
    out.streams[e].assign(stream.begin(), stream.end());
    std::vector<dma::Descriptor>& list = out.descriptors.per_engine[e];
    for (const v1::DmaDescriptor& d : in.descriptors(e).descriptors()) {
      TRNSIM_ASSIGN_OR_RETURN(dma::Descriptor descriptor, DescriptorFromProto(d));
      // DescriptorTable::Find binary-searches, so ids must be strictly increasing.
      if (!list.empty() && descriptor.id <= list.back().id)
        return Invalid("descriptor ids not strictly increasing (" + std::to_string(list.back().id) +
                           " then " + std::to_string(descriptor.id) + ") on engine",
                       std::string(isa::EngineName(static_cast<isa::Engine>(e))));
      list.push_back(std::move(descriptor));
    }
  }
  return out;
}

void ToProto(const driver::ModelOwner& in, v1::LoadProgramHeader* out) {
  out->set_model_id(in.id);
  out->set_model_name(in.name);
  out->set_model_uuid(in.uuid);
  if (in.physical_core >= 0) out->set_physical_core(in.physical_core);
}

StatusOr<driver::ModelOwner> ModelOwnerFromProto(const v1::LoadProgramHeader& in) {
  driver::ModelOwner out;
  // Checked and kept whether or not the program names a model (it is fault injection's).
  if (in.has_physical_core()) {
    if (in.physical_core() < 0) {
      return Invalid("negative physical core " + std::to_string(in.physical_core()) + " in",
                     "LoadProgramHeader.physical_core");
    }
    out.physical_core = in.physical_core();
  }
  if (in.model_id() == 0) {
    if (!in.model_name().empty() || !in.model_uuid().empty()) {
      return Invalid("a model name or uuid without a model id:", "LoadProgramHeader.model_id");
    }
    return out;
  }
  const std::string& uuid = in.model_uuid();
  const bool hex = std::all_of(uuid.begin(), uuid.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
  if (!uuid.empty() && (uuid.size() != kModelUuidChars || !hex)) {
    return Invalid("not empty nor " + std::to_string(kModelUuidChars) + " lowercase hex digits:",
                   "LoadProgramHeader.model_uuid");
  }
  out.id = in.model_id();
  out.name = in.model_name().substr(0, kMaxModelNameBytes);
  out.uuid = uuid;
  return out;
}

std::string SerializeProgramImage(const driver::ProgramImage& image) {
  v1::ProgramImage message;
  ToProto(image, &message);
  return message.SerializeAsString();
}

StatusOr<driver::ProgramImage> ParseProgramImage(std::string_view bytes) {
  v1::ProgramImage message;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return Invalid(std::to_string(bytes.size()) + " bytes do not parse as a", "ProgramImage");
  return ProgramImageFromProto(message);
}

// --- Executions -----------------------------------------------------------------------------

void ToProto(const driver::VarBinding& in, v1::VarBinding* out) {
  out->set_var_id(in.var_id);
  out->set_memory(in.memory);
  out->set_offset(in.offset);
  out->set_size(in.size);
  out->set_output(in.output);
}

StatusOr<driver::VarBinding> VarBindingFromProto(const v1::VarBinding& in) {
  const std::string where = "VarBinding of var " + std::to_string(in.var_id());
  // A binding of 0 bytes may name no memory: the variable is empty (driver/device.h).
  if (in.memory() == driver::kInvalidMemoryHandle && in.size() != 0)
    return Invalid("memory handle 0:", where);
  TRNSIM_RETURN_IF_ERROR(CheckRange(in.offset(), in.size(), where.c_str()));
  return driver::VarBinding{in.var_id(), in.memory(), in.offset(), in.size(), in.output()};
}

void ToProto(const driver::CoreExecution& in, v1::CoreExecution* out) {
  out->Clear();
  out->set_program(in.program);
  out->set_chip(in.chip);
  out->set_physical_core(in.physical_core);
  for (const driver::VarBinding& var : in.vars) ToProto(var, out->add_vars());
}

StatusOr<driver::CoreExecution> CoreExecutionFromProto(const v1::CoreExecution& in) {
  if (in.program() == driver::kInvalidProgramHandle)
    return Invalid("program handle 0:", "CoreExecution.program");
  TRNSIM_RETURN_IF_ERROR(CheckNonNegative(in.chip(), "CoreExecution.chip"));
  TRNSIM_RETURN_IF_ERROR(CheckNonNegative(in.physical_core(), "CoreExecution.physical_core"));
  driver::CoreExecution out;
  out.program = in.program();
  out.chip = in.chip();
  out.physical_core = in.physical_core();
  std::set<uint32_t> seen;
  for (const v1::VarBinding& var : in.vars()) {
    TRNSIM_ASSIGN_OR_RETURN(driver::VarBinding binding, VarBindingFromProto(var));
    if (!seen.insert(binding.var_id).second)
      return Invalid("var " + std::to_string(binding.var_id) + " bound twice in",
                     "CoreExecution.vars");
    out.vars.push_back(binding);
  }
  return out;
}

void ToProto(const driver::ExecutionRequestOptions& in, v1::ExecutionOptions* out) {
  out->set_host_timeout_ms(in.host_timeout.count() > 0 ? uint64_t(in.host_timeout.count()) : 0);
  out->set_stochastic_rounding(in.stochastic_rounding);
  out->mutable_rounding_seeds()->Assign(in.rounding_seeds.begin(), in.rounding_seeds.end());
  out->set_record_trace(in.trace != nullptr);
  if (in.collective) {
    v1::CollectiveMembership* c = out->mutable_collective();
    c->set_communicator(in.collective->communicator);
    c->set_rank(in.collective->rank);
    c->set_world_size(in.collective->world_size);
    c->set_execution_sequence(in.collective->execution_sequence);
  }
}

StatusOr<driver::ExecutionRequestOptions> ExecutionOptionsFromProto(
    const v1::ExecutionOptions& in) {
  using Rep = std::chrono::milliseconds::rep;
  if (in.host_timeout_ms() > kMaxHostTimeoutMs)
    return Invalid(std::to_string(in.host_timeout_ms()) + " ms is out of range (at most " +
                       std::to_string(kMaxHostTimeoutMs) + "):",
                   "ExecutionOptions.host_timeout_ms");
  static_assert(kMaxHostTimeoutMs <= uint64_t(std::numeric_limits<Rep>::max()));
  driver::ExecutionRequestOptions out;
  out.host_timeout = std::chrono::milliseconds(static_cast<Rep>(in.host_timeout_ms()));
  out.stochastic_rounding = in.stochastic_rounding();
  out.rounding_seeds.assign(in.rounding_seeds().begin(), in.rounding_seeds().end());
  if (in.has_collective()) {
    const v1::CollectiveMembership& c = in.collective();
    if (c.world_size() == 0 || c.rank() >= c.world_size()) {
      return Invalid("rank " + std::to_string(c.rank()) + " of a world of " +
                         std::to_string(c.world_size()) + " is impossible:",
                     "ExecutionOptions.collective");
    }
    out.collective = driver::CollectiveMembership{c.communicator(), c.rank(), c.world_size(),
                                                  c.execution_sequence()};
  }
  return out;
}

void ToProto(const driver::ExecutionResult& in, v1::ExecutionResult* out) {
  out->Clear();
  out->set_duration_ps(in.duration_ps);
  out->set_events(in.events);
  for (const driver::CoreStats& c : in.cores) {
    v1::CoreStats* cs = out->add_cores();
    cs->set_core(c.core);
    cs->set_duration_ps(c.duration_ps);
    for (const driver::EngineStats& e : c.engines) {
      v1::EngineStats* es = cs->add_engines();
      es->set_busy_ps(e.busy_ps);
      es->set_wait_ps(e.wait_ps);
      es->set_instructions(e.instructions);
      es->set_flops(e.flops);
    }
    for (const driver::QueueStats& q : c.queues) {
      v1::QueueStats* qs = cs->add_queues();
      qs->set_transfers(q.transfers);
      qs->set_bytes(q.bytes);
      qs->set_busy_ps(q.busy_ps);
    }
    cs->set_hbm_read_bytes(c.hbm_read_bytes);
    cs->set_hbm_write_bytes(c.hbm_write_bytes);
    cs->set_instructions(c.instructions);
    cs->set_device_start_ps(c.device_start_ps);
  }
  ToProto(in.debug_prints, out);
  out->set_debug_prints_dropped(in.debug_prints_dropped);
}

StatusOr<driver::ExecutionResult> ExecutionResultFromProto(const v1::ExecutionResult& in) {
  driver::ExecutionResult out;
  out.duration_ps = in.duration_ps();
  out.events = in.events();
  for (const v1::CoreStats& cs : in.cores()) {
    TRNSIM_RETURN_IF_ERROR(CheckNonNegative(cs.core(), "CoreStats.core"));
    if (cs.engines_size() != isa::kEngineCount)
      return Invalid(std::to_string(cs.engines_size()) + " engine entries (one per engine, " +
                         std::to_string(isa::kEngineCount) + ") in",
                     "CoreStats of core " + std::to_string(cs.core()));
    driver::CoreStats c;
    c.core = cs.core();
    c.duration_ps = cs.duration_ps();
    for (int e = 0; e < isa::kEngineCount; ++e) {
      const v1::EngineStats& es = cs.engines(e);
      c.engines[e] = driver::EngineStats{es.busy_ps(), es.wait_ps(), es.instructions(), es.flops()};
    }
    for (const v1::QueueStats& qs : cs.queues())
      c.queues.push_back(driver::QueueStats{qs.transfers(), qs.bytes(), qs.busy_ps()});
    c.hbm_read_bytes = cs.hbm_read_bytes();
    c.hbm_write_bytes = cs.hbm_write_bytes();
    c.instructions = cs.instructions();
    c.device_start_ps = cs.device_start_ps();
    out.cores.push_back(std::move(c));
  }
  TRNSIM_ASSIGN_OR_RETURN(out.debug_prints, DebugPrintsFromProto(in, out.cores.size()));
  out.debug_prints_dropped = in.debug_prints_dropped();
  return out;
}

}  // namespace trnsim::driver::remote
