#include "decode/Translator.h"

#include "data/Batch.h"
#include "decode/ContinuousGreedySearch.h"
#include "decode/ForcedDecoding.h"

#include <algorithm>
#include <numeric>

namespace nmt {

Translator::Translator(TranslationModel& model, TranslatorOptions options, c10::Device device)
    : model_(model), options_(std::move(options)), device_(device) {}

std::vector<std::string> Translator::targetPieces(const Hypothesis& hypothesis) const {
  std::vector<std::string> pieces;
  for (int id : hypothesis.tokens) pieces.push_back(model_.targetBpe->idToPiece(id));
  if (hypothesis.finished) pieces.push_back("</s>");
  return pieces;
}

std::vector<int> Translator::readSource(const std::string& sentence, Translation& t) const {
  auto ids = model_.sourceBpe->encodeIds(sentence);
  t.inputPieces = ids.size();
  if (model_.maxInputLength > 0 && ids.size() > model_.maxInputLength) {
    ids.resize(model_.maxInputLength);
    t.truncated = true;
  }
  // pieces as written (an unknown character shows itself, not <unk>)
  t.sourcePieces = model_.sourceBpe->encodePieces(sentence);
  t.sourcePieces.resize(ids.size());
  t.sourcePieces.push_back("</s>");
  t.sourceIds = ids;
  return ids;
}

void Translator::takeGreedy(Translation& t, Hypothesis hypothesis) const {
  if (options_.keepAttention) t.attention = hypothesis.attention;
  t.texts.push_back(model_.targetBpe->decodeIds(hypothesis.tokens));
  t.hypotheses.push_back(std::move(hypothesis));
}

std::vector<std::size_t> Translator::readSources(const std::vector<std::string>& sentences,
                                                 std::vector<Translation>& out, std::vector<EncodedPair>& sources) const {
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    sources[i] = {readSource(sentences[i], out[i]), {}, i + 1};
    if (!sources[i].source.empty()) todo.push_back(i);
  }
  return todo;
}

std::vector<Translation> Translator::align(const std::vector<std::string>& sentences,
                                           const std::vector<std::string>& references) {
  c10::InferenceMode inference;
  std::vector<Translation> out(sentences.size());
  std::vector<EncodedPair> sources(sentences.size());
  for (std::size_t i : readSources(sentences, out, sources)) {
    Hypothesis h;
    h.tokens = model_.targetBpe->encodeIds(references.at(i));
    h.finished = true;
    auto forced = forcedDecode(model_.model, sources[i].source, h.tokens, device_);
    h.score = forced.score;
    out[i].attention = forced.attention;
    out[i].hypotheses.push_back(std::move(h));
    out[i].texts.push_back(references[i]);
  }
  return out;
}

void Translator::translateGreedyContinuously(const std::vector<std::size_t>& todo,
                                             const std::vector<EncodedPair>& sources, std::vector<Translation>& out) {
  ContinuousGreedySearch search(model_.model, options_.limits, device_, options_.batchSize);
  std::size_t next = 0;
  while (next < todo.size() || search.live() > 0 || search.waiting() > 0) {
    // a batch's worth encoded ahead (in one encoder batch), so that ended rows are replaced at once
    if (next < todo.size() && search.waiting() < options_.batchSize) {
      const std::size_t end = std::min(todo.size(), next + options_.batchSize);
      std::vector<EncodedPair> group;
      std::vector<std::size_t> tags;
      for (; next < end; ++next) {
        group.push_back(sources[todo[next]]);
        tags.push_back(todo[next]);
      }
      search.add(group, tags, std::vector<bool>(tags.size(), options_.keepAttention));
    }
    for (auto& [i, hypothesis] : search.step()) takeGreedy(out[i], std::move(hypothesis));
  }
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& sentences) {
  c10::InferenceMode inference;
  std::vector<Translation> out(sentences.size());
  std::vector<EncodedPair> sources(sentences.size());
  auto todo = readSources(sentences, out, sources);

  // longest first, so each batch holds sentences of similar length
  std::stable_sort(todo.begin(), todo.end(),
                   [&](std::size_t a, std::size_t b) { return sources[a].source.size() > sources[b].source.size(); });
  if (options_.beam.beamSize <= 1 && model_.model->decoder().takesNewcomers())
    translateGreedyContinuously(todo, sources, out);
  else
    translateInBatches(todo, sources, out);
  return out;
}

void Translator::translateInBatches(const std::vector<std::size_t>& todo, const std::vector<EncodedPair>& sources,
                                    std::vector<Translation>& out) {
  for (std::size_t start = 0; start < todo.size(); start += options_.batchSize) {
    const std::vector<std::size_t> rows(todo.begin() + start,
                                        todo.begin() + std::min(todo.size(), start + options_.batchSize));
    const Batch batch = makeBatch(sources, rows, device_);
    if (options_.beam.beamSize <= 1) {
      auto hyps = greedySearch(model_.model, batch, options_.limits, options_.keepAttention);
      for (std::size_t r = 0; r < hyps.size(); ++r)
        takeGreedy(out[batch.examples[r]], std::move(hyps[r]));
      continue;
    }
    auto nbests = beamSearch(model_.model, batch, options_.limits, options_.beam);
    for (std::size_t r = 0; r < nbests.size(); ++r) {
      const std::size_t i = batch.examples[r];
      out[i].hypotheses = std::move(nbests[r]);
      for (const auto& h : out[i].hypotheses) out[i].texts.push_back(model_.targetBpe->decodeIds(h.tokens));
      if (options_.keepAttention && !out[i].hypotheses.empty())
        out[i].attention = forcedDecode(model_.model, sources[i].source, out[i].hypotheses[0].tokens, device_).attention;
      // forced decoding always ends with </s>; drop that row when the hypothesis was cut
      if (out[i].attention.defined() && !out[i].hypotheses[0].finished)
        out[i].attention = out[i].attention.narrow(0, 0, out[i].attention.size(0) - 1);
    }
  }
}

}  // namespace nmt
