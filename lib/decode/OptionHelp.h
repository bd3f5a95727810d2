#pragma once

// One help text per translation option that both front ends offer (the runtime's: util/RuntimeOptionTable.h), for nmt-translate's (and
// nmt-serve's) --help and the Python module's docstrings alike. Other options' names are marked
// `like-this`; each front end spells them its own way (spelledOptions).
namespace nmt::help {

inline constexpr const char* kBeam = "beam size, 1 to 100 (1: greedy search, batched)";
inline constexpr const char* kLengthPenalty =
    "beam search: rank by log-probability / ((5 + length) / 6)^alpha (0: raw log-probability; at most 10)";
inline constexpr const char* kMaxRatio = "a translation has at most `max-ratio` x source pieces + 10 (0 to 1000)";
inline constexpr const char* kBatchSize =
    "sentences per batch, sorted by length, 1 to 1024 (beam search: K rows each, at most 1024 rows; with int8, "
    "`batch-size` / K sentences)";
inline constexpr const char* kShortlist =
    "on: score only the target pieces each batch's sources shortlist (the model directory's shortlist.bin, made by "
    "nmt-train or nmt-shortlist): faster, slightly other translations; off: the whole vocabulary; auto: on when the "
    "directory has a shortlist";
inline constexpr const char* kInt8 =
    "on: run the linear layers with int8 weights on the CPU (every layer where oneDNN's int8 products are found, "
    "else the output layer; quantized once at load; the model file stays fp32): faster, slightly other scores; off: "
    "float32; auto: on where every layer runs in int8 (the CPU, fp32, oneDNN)";
inline constexpr const char* kWeights = "which weights of the model directory: best.pt or last.pt";

}  // namespace nmt::help
