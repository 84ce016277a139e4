// TensorSet: what an nrt_tensor_set_t names — a map from I/O name to tensor, used to bind a
// model's inputs and outputs. Adding an existing name replaces its tensor. The set does not own
// its tensors: they must stay alive while the set names them.
#pragma once

#include <map>
#include <string>

#include "runtime/tensor.h"

namespace trnsim::runtime {

class TensorSet {
 public:
  void Add(const std::string& name, Tensor* tensor) { tensors_[name] = tensor; }
  // The tensor bound to `name`, or nullptr.
  Tensor* Find(const std::string& name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : it->second;
  }
  // Drops every binding to `tensor` (it is being freed).
  void Forget(const Tensor* tensor) {
    std::erase_if(tensors_, [tensor](const auto& entry) { return entry.second == tensor; });
  }
  const std::map<std::string, Tensor*>& entries() const { return tensors_; }

 private:
  std::map<std::string, Tensor*> tensors_;
};

}  // namespace trnsim::runtime
