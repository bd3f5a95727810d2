// CTranslate2 one line at a time, for bench/vs-ct2.sh --latency: reads space-separated pieces a line from
// standard input, translates each alone (greedy, as ct2-translator with the script's options), and writes
// its pieces a line, flushed, before reading the next. CTranslate2's own CLI flushes only at the end.
// Built by vs-ct2.sh against CTranslate2 4.8.1's headers and the peer's libctranslate2.
//   ct2_lines MODEL_DIR COMPUTE_TYPE INTRA_THREADS
#include <ctranslate2/translator.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char* argv[]) {
  if (argc != 4) {
    std::cerr << "usage: ct2_lines MODEL_DIR COMPUTE_TYPE INTRA_THREADS\n";
    return 2;
  }
  ctranslate2::ReplicaPoolConfig pool;
  pool.num_threads_per_replica = std::stoul(argv[3]);
  ctranslate2::Translator translator(argv[1], ctranslate2::Device::CPU, ctranslate2::str_to_compute_type(argv[2]),
                                     {0}, false, pool);
  ctranslate2::TranslationOptions options;
  options.beam_size = 1;
  options.min_decoding_length = 0;
  options.max_decoding_length = 256;
  options.suppress_sequences = {{"<pad>"}, {"<s>"}};
  std::string line;
  while (std::getline(std::cin, line)) {
    std::vector<std::string> pieces;
    std::istringstream in(line);
    for (std::string piece; in >> piece;) pieces.push_back(piece);
    const auto results = translator.translate_batch({pieces}, options);
    const auto& out = results[0].output();
    for (std::size_t i = 0; i < out.size(); ++i) std::cout << (i ? " " : "") << out[i];
    std::cout << std::endl;
  }
  return 0;
}
