#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <string>

namespace nmt {

// The named values at the top of an archive that torch::serialize::OutputArchive saved (a model's
// config and weights: saveModel, checkpoints), read with LibTorch's own unpickler and zip reader but
// not its TorchScript loader: torch::serialize::InputArchive compiles the archive's module class and
// LibTorch's version upgraders first, half of a model's loading time for nothing a translation reads.
// Nested archives (an optimizer's state) are kept as they are and not offered here: training reads
// those through InputArchive.
class ArchiveValues {
 public:
  // Throws c10::Error when `path` is not such an archive (the caller names the file).
  explicit ArchiveValues(const std::string& path);
  ~ArchiveValues();
  ArchiveValues(const ArchiveValues&) = delete;
  ArchiveValues& operator=(const ArchiveValues&) = delete;

  // The tensor or text saved under `key`; false when there is none of that kind.
  bool tryRead(const std::string& key, at::Tensor& tensor) const;
  bool tryRead(const std::string& key, std::string& text) const;

 private:
  struct Values;
  std::unique_ptr<Values> values_;
};

}  // namespace nmt
