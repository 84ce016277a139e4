// IoBinding: which caller tensor each of a model's declared inputs and outputs is bound to for
// one execution (nrt_execute's input and output tensor sets).
//
// Bind checks, before anything runs, every tensor the NEFF declares (Model::tensors()):
//  - the input set holds each input by name, the output set each output (NRT_INVALID naming
//    the tensor and the set it is missing from);
//  - the bound tensor has storage and exactly the declared size (NRT_INVALID naming the tensor,
//    the expected and the actual bytes).
// Names in a set that the NEFF does not declare are ignored, as AWS's runtime ignores them
// (frameworks pass one set to several models).
//
// Thread safety: a value type; the tensors must stay alive while in use (an execution pins them:
// Executions::Pin via TensorTable::Bind).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "common/status_or.h"
#include "runtime/neff/neff.h"
#include "runtime/tensor.h"
#include "runtime/tensor_set.h"

namespace trnsim::runtime::execution {

class IoBinding {
 public:
  static StatusOr<IoBinding> Bind(const std::vector<neff::TensorDecl>& declared,
                                  const TensorSet& inputs, const TensorSet& outputs);

  // The tensor bound to the declared tensor `name`, or nullptr for an undeclared name.
  Tensor* Find(const std::string& name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : it->second;
  }
  // Every bound tensor (a tensor bound to several names appears once per name).
  std::vector<Tensor*> tensors() const {
    std::vector<Tensor*> all;
    all.reserve(tensors_.size());
    for (const auto& [name, tensor] : tensors_) all.push_back(tensor);
    return all;
  }

 private:
  std::unordered_map<std::string, Tensor*> tensors_;
};

}  // namespace trnsim::runtime::execution
