#pragma once

#include "kernels/Int8Linear.h"

namespace nmt::test {

// The process's int8 activations and products, put back when a test ends, however it ends.
struct Int8ActivationsRestored {
  Int8Activations activations = int8Activations();
  Int8Products products = int8Products();
  ~Int8ActivationsRestored() {
    setInt8Activations(activations);
    setInt8Products(products);
  }
};

}  // namespace nmt::test
