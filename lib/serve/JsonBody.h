#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace nmt::serve {

// A request body read as one JSON object: RequestError 400 "the request body is not valid UTF-8 (byte N)",
// "invalid JSON at byte N" or "the request must be a JSON object" otherwise. Every API's JSON bodies.
nlohmann::json parseJsonObject(const std::string& body);

}  // namespace nmt::serve
