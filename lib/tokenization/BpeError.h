#pragma once

#include <stdexcept>

namespace nmt {

// A failure of the tokenization step: bridge not found, model missing or corrupt, training failed.
class BpeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace nmt
