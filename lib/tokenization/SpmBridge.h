/* Plain-C boundary around SentencePiece.
 *
 * Debian's libsentencepiece carries its own protobuf-lite and exports its symbols, while
 * LibTorch loads the system libprotobuf: a process linking both crashes before main. So only
 * the bridge library (libnmt_spm_bridge.so) links SentencePiece, and BpeModel loads it with
 * dlopen(RTLD_LOCAL | RTLD_DEEPBIND). Nothing C++ crosses this boundary: no exceptions, no
 * std types. Every buffer the bridge returns is freed with nmt_spm_free.
 *
 * Functions returning int return 0 on success; on failure they return non-zero and, when
 * `error` is not NULL, set *error to a message to be freed with nmt_spm_free.
 */
#ifndef NMT_SPM_BRIDGE_H
#define NMT_SPM_BRIDGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NMT_SPM_BRIDGE_ABI 1

typedef struct nmt_spm_model nmt_spm_model;

int nmt_spm_abi_version(void);

/* Trains a model from SentencePiece trainer options given as key/value pairs. */
int nmt_spm_train(const char* const* keys, const char* const* values, size_t count,
                  unsigned seed, char** error);

int nmt_spm_load(const char* path, nmt_spm_model** model, char** error);
void nmt_spm_destroy(nmt_spm_model* model);

int nmt_spm_vocab_size(const nmt_spm_model* model);
/* Returns -1 for an id out of range; *piece is NUL-terminated. */
int nmt_spm_id_to_piece(const nmt_spm_model* model, int id, char** piece);
/* Returns the unknown id for a piece not in the vocabulary. */
int nmt_spm_piece_to_id(const nmt_spm_model* model, const char* piece, size_t length);

int nmt_spm_encode_ids(const nmt_spm_model* model, const char* text, size_t length,
                       int** ids, size_t* count, char** error);
/* Pieces come back as `count` NUL-terminated strings laid end to end in *pieces. */
int nmt_spm_encode_pieces(const nmt_spm_model* model, const char* text, size_t length,
                          char** pieces, size_t* count, char** error);
int nmt_spm_decode_ids(const nmt_spm_model* model, const int* ids, size_t count,
                       char** text, size_t* length, char** error);
/* `pieces` as returned by nmt_spm_encode_pieces. */
int nmt_spm_decode_pieces(const nmt_spm_model* model, const char* pieces, size_t count,
                          char** text, size_t* length, char** error);

void nmt_spm_free(void* buffer);

#ifdef __cplusplus
}
#endif

#endif
