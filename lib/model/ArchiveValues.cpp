#include "model/ArchiveValues.h"

#include <ATen/core/ivalue.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/serialization/import_read.h>

#include <unordered_map>

namespace nmt {

struct ArchiveValues::Values {
  c10::IValue byName;  // a name -> value dictionary

  // The value saved under `key`; None when there is none.
  c10::IValue valueOf(const std::string& key) const {
    const auto dictionary = byName.toGenericDict();
    const auto found = dictionary.find(key);
    return found == dictionary.end() ? c10::IValue() : found->value();
  }
};

ArchiveValues::ArchiveValues(const std::string& path) : values_(std::make_unique<Values>()) {
  caffe2::serialize::PyTorchStreamReader reader(path);
  // Each class the pickle names (the archive's module, and those of nested archives) becomes an
  // empty class of that name, and each object of it keeps its saved attributes, a name -> value
  // dictionary, in its one slot.
  auto unit = std::make_shared<torch::jit::CompilationUnit>();
  std::unordered_map<std::string, c10::ClassTypePtr> classes;
  auto resolveType = [&](const c10::QualifiedName& name) {
    auto& type = classes[name.qualifiedName()];
    if (!type) type = c10::ClassType::create(name, unit);
    return c10::StrongTypePtr(unit, type);
  };
  auto loadObject = [](const c10::StrongTypePtr& type, c10::IValue state) {
    auto object = c10::ivalue::Object::create(type, 1);
    object->setSlot(0, std::move(state));
    return object;
  };
  const auto root = torch::jit::readArchiveAndTensors("data", "", "", resolveType, loadObject, c10::Device(c10::kCPU),
                                                      reader);
  TORCH_CHECK(root.isObject(), "the archive holds no module");
  const auto state = root.toObject()->getSlot(0);
  TORCH_CHECK(state.isGenericDict(), "the archive's module has no attributes");
  values_->byName = state;
}

ArchiveValues::~ArchiveValues() = default;

bool ArchiveValues::tryRead(const std::string& key, at::Tensor& tensor) const {
  const auto value = values_->valueOf(key);
  if (!value.isTensor()) return false;
  tensor = value.toTensor();
  return true;
}

bool ArchiveValues::tryRead(const std::string& key, std::string& text) const {
  const auto value = values_->valueOf(key);
  if (!value.isString()) return false;
  text = value.toStringRef();
  return true;
}

}  // namespace nmt
