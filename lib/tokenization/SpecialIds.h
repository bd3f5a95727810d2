#pragma once

namespace nmt {

// Ids reserved in every BPE model the toolkit trains, so that models, batches and decoders
// agree without looking them up.
struct SpecialIds {
  static constexpr int kPad = 0;  // padding, never produced by encode
  static constexpr int kUnk = 1;  // any character the model has not seen
  static constexpr int kBos = 2;  // beginning of sentence: first decoder input
  static constexpr int kEos = 3;  // end of sentence: appended to sources and targets
  static constexpr int kCount = 4;

  // Not words: no translation produces <pad> or <s> (an early model may rank them first). The
  // searches (leaveOutUnproducible) and the shortlists leave them out.
  static constexpr bool producible(int id) { return id != kPad && id != kBos; }
};

}  // namespace nmt
