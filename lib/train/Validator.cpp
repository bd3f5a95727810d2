#include "train/Validator.h"

#include "decode/GreedySearch.h"
#include "eval/Bleu.h"
#include "tokenization/BpeModel.h"
#include "tokenization/SpecialIds.h"
#include "train/LabelSmoothedLoss.h"

#include <cmath>

namespace nmt {

Validator::Validator(std::vector<EncodedPair> pairs, std::vector<std::string> references, const BpeModel& targetBpe,
                     std::size_t batchTokens, c10::Device device, DecodeLimits limits)
    : pairs_(std::move(pairs)),
      references_(std::move(references)),
      targetBpe_(targetBpe),
      device_(device),
      limits_(limits) {
  BatchingOptions batching;
  batching.batchTokens = batchTokens;
  batching.shuffle = false;
  batches_ = LengthBucketBatcher(batchLengths(pairs_), batching).epoch(0);
}

ValidationResult Validator::run(Seq2Seq& model) const {
  model->eval();
  c10::InferenceMode inference;
  double nll = 0.0;
  int64_t tokens = 0;
  std::vector<std::string> hypotheses(pairs_.size());
  for (const auto& rows : batches_) {
    const Batch batch = makeBatch(pairs_, {rows.begin(), rows.end()}, device_);
    const auto out = model->forward(batch, 1.0);
    const auto gold = batch.gold();
    const auto terms = labelSmoothedLoss(out.logits, gold, 0.0, SpecialIds::kPad);
    nll += terms.nll.item<double>();
    tokens += terms.tokens;
    const auto translations = greedySearch(model, batch, limits_, false, nullptr, /*scores=*/false);
    for (std::size_t r = 0; r < translations.size(); ++r)
      hypotheses[batch.examples[r]] = targetBpe_.decodeIds(translations[r].ids);
  }
  model->train();
  ValidationResult result;
  result.loss = tokens > 0 ? nll / static_cast<double>(tokens) : 0.0;
  result.perplexity = std::exp(result.loss);
  result.bleu = corpusBleu(hypotheses, {references_}).score;
  return result;
}

}  // namespace nmt
