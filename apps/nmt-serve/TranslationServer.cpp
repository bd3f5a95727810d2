#include "TranslationServer.h"

#include "serve/JsonResponses.h"
#include "util/Stopwatch.h"

#include <fmt/core.h>

// The page, embedded at build time from page/index.html (cmake/EmbedFile.cmake).
extern const unsigned char nmt_serve_index_html[];
extern const unsigned long nmt_serve_index_html_size;

namespace nmt::serve {
namespace {

HttpResponse json(std::string body, int status = 200) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

HttpResponse error(int status, const std::string& message) { return json(errorResponse(message), status); }

}  // namespace

TranslationServer::TranslationServer(std::vector<ServedModel> models, RequestLimits limits)
    : models_(std::move(models)), limits_(limits) {}

void TranslationServer::handle(HttpRequest request, Respond respond) {
  const std::string path = request.path();
  const bool get = request.method == "GET";
  if (get && path == "/") {
    HttpResponse page;
    page.contentType = "text/html; charset=utf-8";
    page.body.assign(reinterpret_cast<const char*>(nmt_serve_index_html), nmt_serve_index_html_size);
    return respond(std::move(page));
  }
  if (get && path == "/health") {
    ServeCounters total;
    for (const auto& m : models_) {
      const auto c = m.translator->counters();
      total.requests += c.requests;
      total.sentences += c.sentences;
      total.batches += c.batches;
      total.largestBatch = std::max(total.largestBatch, c.largestBatch);
    }
    return respond(json(healthResponse(total)));
  }
  if (get && path == "/ready")
    return respond(ready_ ? json(R"({"ready":true})") : error(503, "not ready: starting or stopping"));
  if (get && path == "/v1/models") {
    std::vector<ModelInfo> info;
    for (const auto& m : models_) {
      const auto& config = m.translator->model().model->config();
      info.push_back({m.name, m.directory, config.encoder, config.decoder, config.cell,
                      m.translator->model().maxInputLength, m.translator->shortlist(), m.translator->model().int8});
    }
    return respond(json(modelsResponse(info)));
  }
  if (request.method == "POST" && path == "/v1/translate") return translate(request.body, std::move(respond));
  respond(error(404, fmt::format("no such endpoint: {} {}", request.method, path)));
}

ServedModel& TranslationServer::model(const std::string& name) {
  if (name.empty()) return models_.front();
  for (auto& m : models_)
    if (m.name == name) return m;
  std::string names;
  for (const auto& m : models_) names += (names.empty() ? "" : ", ") + m.name;
  throw RequestError(404, fmt::format("unknown model \"{}\" (this server has: {})", name, names));
}

void TranslationServer::translate(const std::string& body, Respond respond) {
  const Stopwatch clock;
  try {
    auto parsed = parseTranslateRequest(body, limits_);
    auto& served = model(parsed.model);
    ++inFlight_;
    const bool attention = parsed.decoding.keepAttention, alternatives = parsed.guidance.alternatives > 0;
    const auto nbest = static_cast<std::size_t>(parsed.decoding.nbest);
    auto done = [this, respond, clock, attention, alternatives, nbest, name = served.name](
                    std::vector<ServedTranslation> translations, std::exception_ptr failure) {
      HttpResponse answer;
      if (failure) {
        try {
          std::rethrow_exception(failure);
        } catch (const std::exception& e) {
          answer = error(500, e.what());
        }
      } else {
        answer = json(translateResponse(translations, attention, nbest, name, clock.seconds() * 1000.0, alternatives));
        ++answered_;
      }
      --inFlight_;
      respond(std::move(answer));
    };
    try {
      served.translator->submit(std::move(parsed.texts), parsed.decoding, std::move(parsed.guidance), std::move(done));
    } catch (...) {
      --inFlight_;
      throw;
    }
  } catch (const RequestError& e) {
    respond(error(e.status(), e.what()));
  }
}

void TranslationServer::warmUp() {
  for (auto& m : models_) m.translator->warmUp();
}

}  // namespace nmt::serve
