#pragma once

#include "data/EncodedCorpus.h"
#include "data/LengthBucketBatcher.h"
#include "data/PreparedCorpus.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstddef>
#include <vector>

namespace nmt {

// Padded, batch-first tensors for one batch. Sources are `ids </s>`, targets `<s> ids </s>`,
// both padded with SpecialIds::kPad. Rows are ordered by decreasing source length, which
// packed RNN input wants.
struct Batch {
  at::Tensor source;         // [B, S] int64, on the batch's device
  at::Tensor sourceMask;     // [B, S] bool, true at real tokens
  at::Tensor sourceLengths;  // [B] int64, kept on the CPU: pack_padded_sequence reads it there
  at::Tensor target;         // [B, T] int64 on the device; decoder input target[:, :-1], gold target[:, 1:]
  at::Tensor targetMask;     // [B, T] bool
  at::Tensor targetLengths;  // [B] int64 on the CPU, counting <s> and </s>
  std::vector<std::size_t> examples;  // the corpus index of each row
  std::size_t sourceTokens = 0;       // real tokens (with </s>), padding not counted
  std::size_t targetTokens = 0;       // real tokens (with <s> and </s>)

  std::size_t size() const { return examples.size(); }
  // What the decoder reads, target[:, :-1] (<s> first), and what it is scored against, target[:, 1:].
  at::Tensor decoderInput() const { return target.narrow(1, 0, target.size(1) - 1); }
  at::Tensor gold() const { return target.narrow(1, 1, target.size(1) - 1); }
};

// Collates the given examples into a Batch on `device`.
Batch makeBatch(const std::vector<EncodedPair>& pairs, std::vector<std::size_t> examples, const c10::Device& device);
Batch makeBatch(const PreparedCorpus& corpus, std::vector<std::size_t> examples, const c10::Device& device);
// Sources alone (each a sentence's BPE ids, without </s>), for translation: targets are `<s> </s>`.
Batch makeSourceBatch(const std::vector<std::vector<int>>& sources, std::vector<std::size_t> examples,
                      const c10::Device& device);

}  // namespace nmt
