#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace nmt::serve {

// One line of --api-keys FILE: "KEY [CHARACTERS]" (a character quota; none: unlimited).
struct ApiKey {
  std::string key;
  std::optional<std::size_t> quota;
};

// The keys of an --api-keys file: one a line, optionally followed by a character quota; '#' starts a
// comment. InputError naming the file and line for a bad line or a key given twice.
std::vector<ApiKey> readApiKeys(const std::string& path);

struct AccessLimits {
  std::size_t requestsPerMinute = 0;  // per key (per client address without keys); 0: unlimited
  std::size_t maxCharacters = 0;      // per request; 0: unlimited
};

// Who may translate, how often and how much: the keys (compared in constant time), each key's
// character quota (counted since the server started), and a request rate per client (a token bucket
// of requestsPerMinute, refilled continuously). Nothing here decodes: a request is admitted or refused
// before its sentences reach a model. Thread-safe.
class AccessControl {
 public:
  AccessControl(std::vector<ApiKey> keys, AccessLimits limits);

  bool keysRequired() const { return !keys_.empty(); }
  const AccessLimits& limits() const { return limits_; }

  enum class Verdict { kAdmitted, kKeyMissing, kKeyWrong, kTooManyRequests, kTooManyCharacters, kQuotaExceeded };

  // Who asks: the key presented (may be empty) checked against every key in constant time.
  struct Identity {
    Verdict verdict = Verdict::kAdmitted;  // or kKeyMissing, kKeyWrong
    long key = -1;                         // its index, -1 without keys
    std::string client;                    // what the limits count by: "key N", or the address without keys
  };
  Identity identify(const std::string& presentedKey, const std::string& address) const;

  struct Admission {
    Verdict verdict = Verdict::kAdmitted;  // or kTooManyRequests, kTooManyCharacters, kQuotaExceeded
    double retryAfterSeconds = 0;          // kTooManyRequests: when the next request would be admitted
  };
  // The rate, the characters and the quota, in that order, for an identified client; an admitted
  // request's characters count against its key's quota at once.
  Admission admit(const Identity& who, std::size_t characters);

  // Characters counted against the key presented, and its quota (0: none, or no such key).
  std::pair<std::size_t, std::size_t> usage(const std::string& presentedKey) const;

  // Whether two keys are equal, in time that depends on their lengths only, not on where they differ.
  static bool sameKey(const std::string& a, const std::string& b);
  // The key in an Authorization header: "DeepL-Auth-Key KEY" or "Bearer KEY"; "" otherwise.
  static std::string keyOfAuthorization(const std::string& header);

 private:
  // The index of the key presented, checked against every key in constant time; -1 when none matches.
  long find(const std::string& presented) const;
  bool takeToken(const std::string& client, std::chrono::steady_clock::time_point now, double& retryAfter);

  struct Bucket {
    double tokens = 0;
    std::chrono::steady_clock::time_point updated;
  };
  std::vector<ApiKey> keys_;
  AccessLimits limits_;
  mutable std::mutex mutex_;
  std::vector<std::size_t> used_;  // characters per key
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace nmt::serve
