#include "AccessControl.h"

#include "util/InputError.h"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace nmt::serve {
namespace {

constexpr std::size_t kMaxBuckets = 65536;  // clients tracked at once; full buckets are forgotten beyond

// Whether a and b are equal, in time that depends on their lengths only, not on where they differ.
bool sameInConstantTime(const std::string& a, const std::string& b) {
  const std::size_t n = std::max(a.size(), b.size());
  unsigned difference = a.size() == b.size() ? 0u : 1u;
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = static_cast<unsigned char>(i < a.size() ? a[i] : 0);
    const auto y = static_cast<unsigned char>(i < b.size() ? b[i] : 0);
    difference |= static_cast<unsigned>(x ^ y);
  }
  return difference == 0;
}

}  // namespace

std::vector<ApiKey> readApiKeys(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("--api-keys {}: cannot be read", path));
  std::vector<ApiKey> keys;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::string key, quota, extra;
    if (!(fields >> key)) continue;
    fields >> quota >> extra;
    const auto where = fmt::format("{}:{}", path, number);
    if (!extra.empty()) throw InputError(fmt::format("{}: expected KEY [CHARACTERS], found more", where));
    if (key.size() < 8) throw InputError(fmt::format("{}: a key of {} characters; use 8 or more", where, key.size()));
    ApiKey k{key, std::nullopt};
    if (!quota.empty()) {
      if (!std::all_of(quota.begin(), quota.end(), [](char c) { return c >= '0' && c <= '9'; }) || quota.size() > 15)
        throw InputError(fmt::format("{}: the quota must be a whole number of characters, not '{}'", where, quota));
      k.quota = std::stoull(quota);
    }
    for (const auto& other : keys)
      if (other.key == key) throw InputError(fmt::format("{}: the key is given twice", where));
    keys.push_back(std::move(k));
  }
  if (keys.empty()) throw InputError(fmt::format("--api-keys {}: no keys in it", path));
  return keys;
}

bool AccessControl::sameKey(const std::string& a, const std::string& b) { return sameInConstantTime(a, b); }

AccessControl::AccessControl(std::vector<ApiKey> keys, AccessLimits limits)
    : keys_(std::move(keys)), limits_(limits), used_(keys_.size(), 0) {}

std::string AccessControl::keyOfAuthorization(const std::string& header) {
  for (const std::string scheme : {"DeepL-Auth-Key ", "Bearer "})
    if (header.size() > scheme.size() && header.compare(0, scheme.size(), scheme) == 0) return header.substr(scheme.size());
  return {};
}

long AccessControl::find(const std::string& presented) const {
  long found = -1;
  for (std::size_t i = 0; i < keys_.size(); ++i)  // every key, no early exit
    if (sameInConstantTime(presented, keys_[i].key)) found = static_cast<long>(i);
  return found;
}

bool AccessControl::takeToken(const std::string& client, std::chrono::steady_clock::time_point now, double& retryAfter) {
  const double capacity = static_cast<double>(limits_.requestsPerMinute);
  const double perSecond = capacity / 60.0;
  if (buckets_.size() >= kMaxBuckets && !buckets_.count(client)) {
    for (auto it = buckets_.begin(); it != buckets_.end();) {  // forget clients whose buckets have filled up
      const double seconds = std::chrono::duration<double>(now - it->second.updated).count();
      it = it->second.tokens + seconds * perSecond >= capacity ? buckets_.erase(it) : std::next(it);
    }
  }
  auto [it, added] = buckets_.try_emplace(client, Bucket{capacity, now});
  Bucket& bucket = it->second;
  const double seconds = std::chrono::duration<double>(now - bucket.updated).count();
  bucket.tokens = std::min(capacity, bucket.tokens + seconds * perSecond);
  bucket.updated = now;
  if (bucket.tokens >= 1.0) {
    bucket.tokens -= 1.0;
    return true;
  }
  retryAfter = (1.0 - bucket.tokens) / perSecond;
  return false;
}

AccessControl::Identity AccessControl::identify(const std::string& presentedKey, const std::string& address) const {
  if (!keysRequired()) return {Verdict::kAdmitted, -1, address};
  if (presentedKey.empty()) return {Verdict::kKeyMissing, -1, address};
  const long key = find(presentedKey);
  if (key < 0) return {Verdict::kKeyWrong, -1, address};
  return {Verdict::kAdmitted, key, fmt::format("key {}", key + 1)};
}

AccessControl::Admission AccessControl::admit(const Identity& who, std::size_t characters) {
  Admission a;
  std::lock_guard<std::mutex> lock(mutex_);
  if (limits_.requestsPerMinute > 0 && !takeToken(who.client, std::chrono::steady_clock::now(), a.retryAfterSeconds)) {
    a.verdict = Verdict::kTooManyRequests;
    return a;
  }
  if (limits_.maxCharacters > 0 && characters > limits_.maxCharacters) {
    a.verdict = Verdict::kTooManyCharacters;
    return a;
  }
  if (who.key >= 0) {
    auto& used = used_[static_cast<std::size_t>(who.key)];
    const auto& quota = keys_[static_cast<std::size_t>(who.key)].quota;
    if (quota && used + characters > *quota) {
      a.verdict = Verdict::kQuotaExceeded;
      return a;
    }
    used += characters;
  }
  return a;
}

std::pair<std::size_t, std::size_t> AccessControl::usage(const std::string& presentedKey) const {
  const long key = keysRequired() ? find(presentedKey) : -1;
  if (key < 0) return {0, 0};
  std::lock_guard<std::mutex> lock(mutex_);
  return {used_[static_cast<std::size_t>(key)], keys_[static_cast<std::size_t>(key)].quota.value_or(0)};
}

}  // namespace nmt::serve
