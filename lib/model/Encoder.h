#pragma once

#include "model/EncoderOutput.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace nmt {

// What every encoder kind offers; makeEncoderDecoder (ModelFactory.h) picks the kind.
class Encoder {
 public:
  virtual ~Encoder() = default;

  // source [B, S] int64, lengths [B] int64 on the CPU, mask [B, S] bool (true at real tokens).
  virtual EncoderOutput encode(const at::Tensor& source, const at::Tensor& lengths, const at::Tensor& mask) = 0;
  virtual int64_t outputSize() const = 0;
  // Whether its embeddings are multiplied by sqrt(E) when read (they start smaller: Seq2Seq::initialize).
  virtual bool scalesEmbeddings() const = 0;
  // From now on its linear layers run in int8 where it has any it can (Int8Linear; --int8,
  // translation only): nothing for an encoder without (an LSTM's cells are LibTorch's).
  virtual void quantize() {}

  // Capability: per-layer, per-head self-attention [B, H, S, S] of the last encode while
  // keepAttention is on; an encoder without attention heads keeps none.
  virtual bool hasSelfAttentionHeads() const { return false; }
  virtual void keepAttention(bool) {}
  virtual const std::vector<at::Tensor>& selfAttentionHeads() const { return noAttentionHeads(); }
};

}  // namespace nmt
