// Definitions of the few llama/ggml functions common_params_parser_init and the probed handlers call, so that
// arg.cpp, common.cpp and log.cpp link without libllama/libggml (every other symbol is left unresolved and never
// called). ggml_type_name returns ggml's own names for the types kv_cache_types lists.
#include <cstddef>
#include <string>
#include <vector>
#include "common.h"
#include "sampling.h"
#include "speculative.h"
extern "C" size_t llama_max_devices(void) { return 16; }
char common_sampler_type_to_chr(enum common_sampler_type) { return 'x'; }
std::string common_sampler_type_to_str(enum common_sampler_type) { return "x"; }
extern "C" const char * llama_flash_attn_type_name(enum llama_flash_attn_type) { return "auto"; }
#include "ggml.h"
extern "C" const char * ggml_type_name(enum ggml_type t) {
    switch (t) { case GGML_TYPE_F32: return "f32"; case GGML_TYPE_F16: return "f16"; case GGML_TYPE_BF16: return "bf16";
    case GGML_TYPE_Q8_0: return "q8_0"; case GGML_TYPE_Q4_0: return "q4_0"; case GGML_TYPE_Q4_1: return "q4_1";
    case GGML_TYPE_IQ4_NL: return "iq4_nl"; case GGML_TYPE_Q5_0: return "q5_0"; case GGML_TYPE_Q5_1: return "q5_1";
    default: return "other"; } }
extern "C" int32_t llama_chat_builtin_templates(const char **, size_t) { return 0; }
std::string common_speculative_type_name_str(const std::vector<enum common_speculative_type> &) { return "x"; }
const char * common_speculative_all_types_str() { return "x"; }
extern "C" bool llama_supports_gpu_offload(void) { return true; }
