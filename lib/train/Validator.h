#pragma once

#include "data/EncodedCorpus.h"
#include "decode/DecodeLimits.h"
#include "model/Seq2Seq.h"

#include <string>
#include <vector>

namespace nmt {

class BpeModel;

struct ValidationResult {
  double loss = 0.0;        // cross-entropy per target token, teacher-forced, no smoothing
  double perplexity = 0.0;  // exp(loss)
  double bleu = 0.0;        // corpus BLEU of greedy translations against the raw references
};

// Scores a model on a held-out set: loss and perplexity with teacher forcing, BLEU of its own
// greedy translations (decoded back to text) against the reference sentences.
class Validator {
 public:
  Validator(std::vector<EncodedPair> pairs, std::vector<std::string> references, const BpeModel& targetBpe,
            std::size_t batchTokens, c10::Device device, DecodeLimits limits = {});

  // Runs in eval mode without autograd and puts the model back in training mode.
  ValidationResult run(Seq2Seq& model) const;
  std::size_t size() const { return pairs_.size(); }

 private:
  std::vector<EncodedPair> pairs_;
  std::vector<std::string> references_;
  const BpeModel& targetBpe_;
  BatchPlan batches_;
  c10::Device device_;
  DecodeLimits limits_;
};

}  // namespace nmt
