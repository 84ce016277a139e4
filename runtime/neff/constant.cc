// ConstantData: the bytes of a "file" variable's constant.
#include "runtime/neff/neff_io.h"
#include "runtime/neff/npy.h"

namespace trnsim::neff {

StatusOr<std::span<const uint8_t>> ConstantData(const Subgraph& sg, const Variable& var) {
  if (var.type != VariableType::kFile) {
    return InvalidError(sg.name + "/def.json: var \"" + var.name +
                        "\" is not a \"file\" variable; it has no constant");
  }
  const std::string path = sg.name + "/" + var.file_name;
  auto it = sg.files.find(var.file_name);
  if (it == sg.files.end()) {
    return InvalidError("missing constant file " + path + " (named by " + sg.name +
                        "/def.json var \"" + var.name + "\")");
  }
  std::span<const uint8_t> data(it->second);
  if (IsNpyFileName(var.file_name)) {
    TRNSIM_ASSIGN_OR_RETURN(NpyArray npy, ParseNpy(data, path));
    data = data.subspan(npy.data_offset);
  }
  if (data.size() != var.size) {
    return InvalidError(path + ": " + std::to_string(data.size()) +
                        (IsNpyFileName(var.file_name) ? " bytes of array data" : " bytes") +
                        ", but variable \"" + var.name + "\" is " + std::to_string(var.size) +
                        " bytes");
  }
  return data;
}

}  // namespace trnsim::neff
