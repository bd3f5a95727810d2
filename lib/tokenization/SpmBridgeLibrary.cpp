#include "SpmBridgeLibrary.h"

#include "BpeError.h"
#include "util/FileSystem.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace nmt {
namespace {

constexpr const char* kBridgeFile = "libnmt_spm_bridge.so";

std::vector<std::string> candidatePaths() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("NMT_SPM_BRIDGE"); env && *env) out.emplace_back(env);
  const std::string exe = files::executablePath();
  if (!exe.empty()) {
    const std::string bin = files::parentDirectory(exe);
    out.push_back(bin + "/" + kBridgeFile);
    out.push_back(files::parentDirectory(bin) + "/lib/nmt/" + kBridgeFile);
  }
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&candidatePaths), &info) && info.dli_fname) {
    const std::string self = files::canonicalPath(info.dli_fname);
    if (!self.empty()) out.push_back(files::parentDirectory(self) + "/" + kBridgeFile);
  }
  return out;
}

template <typename Fn>
void resolve(void* handle, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!fn) throw BpeError(std::string("SentencePiece bridge lacks symbol ") + name);
}

SpmBridgeLibrary loadBridge() {
  std::string tried;
  void* handle = nullptr;
  for (const auto& path : candidatePaths()) {
    if (!files::exists(path)) {
      tried += " " + path;
      continue;
    }
    // DEEPBIND keeps SentencePiece bound to its own protobuf copy, LOCAL keeps its symbols
    // away from LibTorch's.
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!handle) throw BpeError(std::string("cannot load SentencePiece bridge: ") + dlerror());
    break;
  }
  if (!handle)
    throw BpeError("cannot find " + std::string(kBridgeFile) + " (looked at" + tried +
                   "); set NMT_SPM_BRIDGE to its path");

  using AbiFn = int (*)();
  AbiFn abi = nullptr;
  resolve(handle, "nmt_spm_abi_version", abi);
  if (abi() != NMT_SPM_BRIDGE_ABI) throw BpeError("SentencePiece bridge has a different ABI version; rebuild nmt");

  SpmBridgeLibrary lib{};
  resolve(handle, "nmt_spm_train", lib.train);
  resolve(handle, "nmt_spm_load", lib.load);
  resolve(handle, "nmt_spm_destroy", lib.destroy);
  resolve(handle, "nmt_spm_vocab_size", lib.vocabSize);
  resolve(handle, "nmt_spm_id_to_piece", lib.idToPiece);
  resolve(handle, "nmt_spm_piece_to_id", lib.pieceToId);
  resolve(handle, "nmt_spm_encode_ids", lib.encodeIds);
  resolve(handle, "nmt_spm_encode_pieces", lib.encodePieces);
  resolve(handle, "nmt_spm_decode_ids", lib.decodeIds);
  resolve(handle, "nmt_spm_decode_pieces", lib.decodePieces);
  resolve(handle, "nmt_spm_free", lib.free);
  return lib;  // the handle stays open for the life of the process
}

}  // namespace

const SpmBridgeLibrary& SpmBridgeLibrary::get() {
  static const SpmBridgeLibrary lib = loadBridge();
  return lib;
}

}  // namespace nmt
