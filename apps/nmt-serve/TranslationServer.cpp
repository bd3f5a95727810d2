#include "TranslationServer.h"

#include "TextTranslations.h"
#include "serve/DeepLApi.h"
#include "serve/FormFields.h"
#include "serve/JsonResponses.h"
#include "serve/LibreTranslateApi.h"
#include "util/Stopwatch.h"
#include "util/Utf8.h"

#include <fmt/core.h>

#include <cmath>
#include <strings.h>

// The page, embedded at build time from page/index.html (cmake/EmbedFile.cmake).
extern const unsigned char nmt_serve_index_html[];
extern const unsigned long nmt_serve_index_html_size;

namespace nmt::serve {
namespace {

using Verdict = AccessControl::Verdict;
using Api = TranslationServer::Api;

HttpResponse answer(std::string body, int status = 200) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

HttpResponse error(Api api, int status, const std::string& message) {
  return answer(api == Api::kDeepL ? deeplError(message) : errorResponse(message), status);
}

// What a refused client is told, in its API's words.
HttpResponse refusal(Api api, Verdict verdict, double retryAfter, std::size_t characters, std::size_t maxCharacters) {
  switch (verdict) {
    case Verdict::kKeyMissing:
    case Verdict::kKeyWrong:
      if (api == Api::kLibre) return error(api, 403, "Invalid API key");
      if (api == Api::kDeepL) return error(api, 403, "Authorization failure, check auth_key");
      return verdict == Verdict::kKeyMissing
                 ? error(api, 401, "an API key is needed: Authorization: Bearer KEY")
                 : error(api, 403, "the API key is not valid");
    case Verdict::kTooManyRequests: {
      auto r = api == Api::kLibre   ? error(api, 429, "Too many request limits violations")
               : api == Api::kDeepL ? error(api, 429, "Too many requests")
                                    : error(api, 429, "too many requests: this server's rate limit was reached");
      r.headers.emplace_back("Retry-After", std::to_string(static_cast<long>(std::ceil(retryAfter))));
      return r;
    }
    case Verdict::kTooManyCharacters:
      if (api == Api::kLibre)
        return error(api, 400, fmt::format("Invalid request: request ({}) exceeds text limit ({})", characters, maxCharacters));
      if (api == Api::kDeepL) return error(api, 413, "Request Entity Too Large");
      return error(api, 413, fmt::format("{} characters, more than this server's limit of {} a request", characters,
                                         maxCharacters));
    case Verdict::kQuotaExceeded:
      if (api == Api::kLibre) return error(api, 403, "API key quota exceeded");
      if (api == Api::kDeepL) {
        auto r = error(api, 456, "Quota Exceeded");
        r.reason = "Quota Exceeded";
        return r;
      }
      return error(api, 403, "the API key's character quota is used up");
    case Verdict::kAdmitted: break;
  }
  return error(api, 500, "internal error");
}

const char* refusalReason(Verdict verdict) {
  switch (verdict) {
    case Verdict::kKeyMissing:
    case Verdict::kKeyWrong: return "key";
    case Verdict::kTooManyRequests: return "rate";
    case Verdict::kTooManyCharacters: return "characters";
    case Verdict::kQuotaExceeded: return "quota";
    case Verdict::kAdmitted: break;
  }
  return "other";
}

bool isForm(const HttpRequest& request) {
  const std::string type = request.header("Content-Type");
  return strncasecmp(type.c_str(), "application/x-www-form-urlencoded", 33) == 0;
}

std::size_t characters(const std::vector<std::string>& texts) {
  std::size_t count = 0;
  for (const auto& t : texts) count += codePoints(t);
  return count;
}

std::string headerKey(const HttpRequest& request) {
  return AccessControl::keyOfAuthorization(request.header("Authorization"));
}

// The route's name in the metrics: a fixed set, never the client's path.
std::string routeName(const std::string& path) {
  static const std::pair<const char*, const char*> kRoutes[] = {
      {"/", "page"},
      {"/health", "health"},
      {"/ready", "ready"},
      {"/metrics", "metrics"},
      {"/v1/models", "models"},
      {"/v1/translate", "translate"},
      {"/v1/reload", "reload"},
      {"/translate", "libretranslate"},
      {"/languages", "libretranslate_languages"},
      {"/v2/translate", "deepl_translate"},
      {"/v2/languages", "deepl_languages"},
      {"/v2/usage", "deepl_usage"}};
  for (const auto& [known, name] : kRoutes)
    if (path == known) return name;
  return "other";
}

}  // namespace

TranslationServer::TranslationServer(std::shared_ptr<ModelSet> models, Settings settings, AccessControl& access,
                                     ServerMetrics& metrics, std::function<std::size_t()> openConnections)
    : models_(std::move(models)),
      settings_(std::move(settings)),
      access_(access),
      metrics_(metrics),
      openConnections_(std::move(openConnections)) {}

std::shared_ptr<ModelSet> TranslationServer::models() const { return std::atomic_load(&models_); }

std::shared_ptr<ModelSet> TranslationServer::replaceModels(std::shared_ptr<ModelSet> models) {
  return std::atomic_exchange(&models_, std::move(models));
}

std::vector<Respond> TranslationServer::takeReloadRequests() {
  std::lock_guard<std::mutex> lock(reloadMutex_);
  return std::exchange(reloadRequests_, {});
}

std::vector<Respond> TranslationServer::closeReloads() {
  std::lock_guard<std::mutex> lock(reloadMutex_);
  reloadsClosed_ = true;
  return std::exchange(reloadRequests_, {});
}

Respond TranslationServer::recorded(const std::string& route, Respond respond) const {
  return [this, route, respond = std::move(respond), clock = Stopwatch()](HttpResponse response) {
    metrics_.answered(route, response.status, clock.seconds());
    respond(std::move(response));
  };
}

void TranslationServer::handle(HttpRequest request, Respond plainRespond) {
  const std::string path = request.path();
  const bool get = request.method == "GET", post = request.method == "POST";
  Respond respond = recorded(routeName(path), std::move(plainRespond));
  if (get && path == "/") {
    HttpResponse page;
    page.contentType = "text/html; charset=utf-8";
    page.body.assign(reinterpret_cast<const char*>(nmt_serve_index_html), nmt_serve_index_html_size);
    return respond(std::move(page));
  }
  if (get && path == "/health") {
    ServeCounters total;
    for (const auto& m : models()->models) {
      const auto c = m.translator->counters();
      total.requests += c.requests;
      total.sentences += c.sentences;
      total.batches += c.batches;
      total.largestBatch = std::max(total.largestBatch, c.largestBatch);
    }
    return respond(answer(healthResponse(total)));
  }
  if (get && path == "/ready")
    return respond(ready_ ? answer(R"({"ready":true})") : error(Api::kOwn, 503, "not ready: starting or stopping"));
  if (get && path == "/metrics") {
    HttpResponse text = answer(metricsText());
    text.contentType = "text/plain; version=0.0.4; charset=utf-8";
    return respond(std::move(text));
  }
  if (get && path == "/v1/models") {
    std::vector<ModelInfo> info;
    for (const auto& m : models()->models) {
      const auto& model = m.translator->model();
      const auto& config = model.model->config();
      info.push_back({m.name, model.languages.source, model.languages.target, config.encoder, config.decoder,
                      config.cell, model.maxInputLength, m.translator->shortlist(), model.int8});
    }
    return respond(answer(modelsResponse(info)));
  }
  if (get && path == "/languages") return respond(answer(libreLanguagesResponse(models()->languages)));
  if (get && (path == "/v2/languages" || path == "/v2/usage")) {
    const auto who = access_.identify(headerKey(request), request.remoteAddress);
    if (who.verdict != Verdict::kAdmitted) {
      metrics_.refused(refusalReason(who.verdict));
      return respond(refusal(Api::kDeepL, who.verdict, 0, 0, 0));
    }
    if (path == "/v2/usage") return deeplUsage(request, std::move(respond));
    try {
      return respond(answer(deeplLanguagesResponse(models()->languages, FormFields(request.query()).first("type"))));
    } catch (const RequestError& e) {
      return respond(error(Api::kDeepL, e.status(), e.what()));
    }
  }
  if (post && path == "/v1/translate") return translate(request, std::move(respond));
  if (post && path == "/translate") return libreTranslate(request, std::move(respond));
  if (post && path == "/v2/translate") return deeplTranslate(request, std::move(respond));
  if (post && path == "/v1/reload") return reload(request, std::move(respond));
  respond(error(Api::kOwn, 404, fmt::format("no such endpoint: {} {}", request.method, path)));
}

void TranslationServer::translate(const HttpRequest& request, Respond respond) {
  const Stopwatch clock;
  const auto who = access_.identify(headerKey(request), request.remoteAddress);
  if (who.verdict != Verdict::kAdmitted) {
    metrics_.refused(refusalReason(who.verdict));
    return respond(refusal(Api::kOwn, who.verdict, 0, 0, 0));
  }
  auto set = models();
  try {
    auto parsed = parseTranslateRequest(request.body, settings_.limits);
    auto& served = set->model(parsed.model);
    const std::size_t chars = characters(parsed.texts);
    if (const auto admission = access_.admit(who, chars); admission.verdict != Verdict::kAdmitted) {
      metrics_.refused(refusalReason(admission.verdict));
      return respond(refusal(Api::kOwn, admission.verdict, admission.retryAfterSeconds, chars,
                             access_.limits().maxCharacters));
    }
    const bool attention = parsed.decoding.keepAttention, alternatives = parsed.guidance.alternatives > 0;
    const auto nbest = static_cast<std::size_t>(parsed.decoding.nbest);
    const auto sentences = parsed.texts.size();
    auto done = [this, set, respond, clock, attention, alternatives, nbest, sentences, chars, name = served.name](
                    std::vector<ServedTranslation> translations, std::exception_ptr failure) {
      if (failure) {
        try {
          std::rethrow_exception(failure);
        } catch (const std::exception& e) {
          return respond(error(Api::kOwn, 500, e.what()));
        }
      }
      metrics_.translated(name, sentences, chars);
      ++answered_;
      respond(answer(translateResponse(translations, attention, nbest, name, clock.seconds() * 1000.0, alternatives)));
    };
    served.translator->submit(std::move(parsed.texts), parsed.decoding, std::move(parsed.guidance), std::move(done));
  } catch (const RequestError& e) {
    respond(error(Api::kOwn, e.status(), e.what()));
  }
}

void TranslationServer::libreTranslate(const HttpRequest& request, Respond respond) {
  try {
    const auto maxAlternatives = static_cast<std::size_t>(settings_.limits.maxBeam - 1);
    auto parsed = parseLibreTranslateRequest(request.body, isForm(request), maxAlternatives);
    auto shape = [parsed](const TextTranslationResult& result) { return libreTranslateResponse(parsed, result); };
    translateTexts(Api::kLibre, request, std::move(parsed), std::move(shape), respond);  // (respond kept for the catch)
  } catch (const RequestError& e) {  // LibreTranslate says 400 for every request it cannot take
    respond(error(Api::kLibre, 400, e.status() == 413 ? std::string("Invalid request: ") + e.what() : e.what()));
  }
}

void TranslationServer::deeplTranslate(const HttpRequest& request, Respond respond) {
  try {
    if (access_.keysRequired() && headerKey(request).empty() && !request.header("Authorization").empty()) {
      metrics_.refused("key");
      return respond(refusal(Api::kDeepL, Verdict::kKeyWrong, 0, 0, 0));  // an Authorization of another scheme
    }
    translateTexts(Api::kDeepL, request, parseDeepLRequest(request.body, isForm(request)), deeplTranslateResponse,
                   respond);
  } catch (const RequestError& e) {
    respond(error(Api::kDeepL, e.status(), e.what()));
  }
}

void TranslationServer::translateTexts(Api api, const HttpRequest& request, TextTranslationRequest parsed,
                                       std::function<std::string(const TextTranslationResult&)> shape,
                                       const Respond& respond) {
  auto set = models();
  const auto key = headerKey(request);
  const auto who = access_.identify(key.empty() ? parsed.apiKey : key, request.remoteAddress);
  if (who.verdict != Verdict::kAdmitted) {
    metrics_.refused(refusalReason(who.verdict));
    return respond(refusal(api, who.verdict, 0, 0, 0));
  }
  auto prepared = prepareTexts(*set, parsed, settings_.limits);
  const std::size_t chars = prepared.segments->characters();
  if (const auto admission = access_.admit(who, chars); admission.verdict != Verdict::kAdmitted) {
    metrics_.refused(refusalReason(admission.verdict));
    return respond(refusal(api, admission.verdict, admission.retryAfterSeconds, chars, access_.limits().maxCharacters));
  }
  const std::size_t sentences = prepared.segments->sentences().size();
  const std::string name = prepared.model->name;
  nmt::serve::translateTexts(std::move(prepared), [this, api, set, respond, shape = std::move(shape), sentences, chars,
                                                   name](TextTranslationResult result, std::exception_ptr failure) {
    if (failure) {
      try {
        std::rethrow_exception(failure);
      } catch (const std::exception& e) {
        return respond(error(api, 500, e.what()));
      }
    }
    metrics_.translated(name, sentences, chars);
    ++answered_;
    respond(answer(shape(result)));
  });
}

void TranslationServer::deeplUsage(const HttpRequest& request, Respond respond) {
  constexpr std::size_t kNoLimit = 1000000000000;  // DeepL's clients expect a number: a trillion for none
  const auto [used, quota] = access_.usage(headerKey(request));
  respond(answer(deeplUsageResponse(used, quota > 0 ? quota : kNoLimit)));
}

void TranslationServer::reload(const HttpRequest& request, Respond respond) {
  if (settings_.adminKey.empty())
    return respond(error(Api::kOwn, 403, "reloading over HTTP needs nmt-serve --admin-key-file (or send SIGHUP)"));
  if (!AccessControl::sameKey(headerKey(request), settings_.adminKey)) {
    metrics_.refused("key");
    return respond(error(Api::kOwn, 403, "the admin key is not valid (Authorization: Bearer KEY)"));
  }
  {
    std::lock_guard<std::mutex> lock(reloadMutex_);
    if (!reloadsClosed_) return reloadRequests_.push_back(std::move(respond));
  }
  respond(error(Api::kOwn, 503, "stopping: no reload"));
}

std::string TranslationServer::metricsText() const {
  ServerMetrics::Gauges gauges;
  gauges.openConnections = openConnections_();
  gauges.ready = ready_;
  const auto set = models();
  for (const auto& m : set->models) {
    const auto& model = m.translator->model();
    const auto c = m.translator->counters();
    gauges.models.push_back({m.name, model.languages.source, model.languages.target, model.model->config().encoder,
                             model.model->config().decoder, model.int8, m.translator->shortlist(), c.queued, c.batches,
                             c.sentences, c.largestBatch, set->loadedAt});
  }
  return metrics_.render(gauges);
}

void TranslationServer::warmUp(ModelSet& models) {
  for (auto& m : models.models) m.translator->warmUp();
}

}  // namespace nmt::serve
