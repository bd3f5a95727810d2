#include "TextTranslations.h"

#include "util/Utf8.h"

#include <fmt/core.h>

namespace nmt::serve {

PreparedTexts prepareTexts(ModelSet& models, const TextTranslationRequest& request, const RequestLimits& limits) {
  const auto choice = models.languages.choose(request.source, request.target);
  PreparedTexts p;
  p.model = &models.model(choice.model);
  p.source = choice.source;
  p.sourceWasAuto = request.source.empty();
  p.segments = std::make_unique<TextSegments>(request.texts, request.html);
  const auto& sentences = p.segments->sentences();
  if (sentences.size() > limits.maxSentences)
    throw RequestError(413, fmt::format("{} sentences (lines and runs of text), more than this server's limit of {}",
                                        sentences.size(), limits.maxSentences));
  for (std::size_t i = 0; i < sentences.size(); ++i)
    if (const auto problem = controlCharacterProblem(sentences[i]); !problem.empty())
      throw RequestError(400, fmt::format("sentence {} of the text has a {}", i + 1, problem));
  p.alternatives = request.alternatives;
  p.guidance.text.splitSentences = request.splitSentences;
  if (p.alternatives > 0) {  // the n-best list of a beam just wide enough
    p.decoding.beamSize = static_cast<int64_t>(p.alternatives) + 1;
    p.decoding.nbest = p.decoding.beamSize;
  }
  return p;
}

void translateTexts(PreparedTexts prepared, TextsDone done) {
  auto shared = std::make_shared<PreparedTexts>(std::move(prepared));
  auto& translator = *shared->model->translator;
  translator.submit(shared->segments->sentences(), shared->decoding, shared->guidance,
                    [shared, done = std::move(done)](std::vector<ServedTranslation> translations,
                                                     std::exception_ptr failure) {
                      if (failure) return done({}, failure);
                      // the k-th hypothesis of each sentence (the best where it has fewer)
                      const auto choice = [&](std::size_t k) {
                        std::vector<std::string> texts;
                        for (const auto& t : translations)
                          texts.push_back(t.hypotheses.empty() ? std::string()
                                                               : t.hypotheses[std::min(k, t.hypotheses.size() - 1)].text);
                        return shared->segments->join(texts);
                      };
                      TextTranslationResult result;
                      result.texts = choice(0);
                      result.source = shared->source;
                      result.sourceWasAuto = shared->sourceWasAuto;
                      if (shared->alternatives > 0) {
                        result.alternatives.resize(result.texts.size());
                        for (std::size_t k = 1; k <= shared->alternatives; ++k) {
                          const auto texts = choice(k);
                          for (std::size_t i = 0; i < texts.size(); ++i) result.alternatives[i].push_back(texts[i]);
                        }
                      }
                      done(std::move(result), nullptr);
                    });
}

}  // namespace nmt::serve
