#include "serve/JsonBody.h"

#include "serve/TranslateRequest.h"
#include "util/Utf8.h"

#include <fmt/core.h>

namespace nmt::serve {

nlohmann::json parseJsonObject(const std::string& body) {
  if (const auto at = firstInvalidUtf8(body))
    throw RequestError(400, fmt::format("the request body is not valid UTF-8 (byte {})", *at + 1));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    throw RequestError(400, fmt::format("invalid JSON at byte {}", e.byte));
  }
  if (!doc.is_object()) throw RequestError(400, "the request must be a JSON object");
  return doc;
}

}  // namespace nmt::serve
