// Lists llama-server's options as its own parser builds them (common_params_parser_init with
// LLAMA_EXAMPLE_SERVER), then probes the value handlers of -sm, -ctk, -ctv, -fa and -ngl with a fixed word list.
#include "arg.h"
#include "common.h"
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
int main() {
    common_params params;
    auto ctx = common_params_parser_init(params, LLAMA_EXAMPLE_SERVER, nullptr);
    for (auto & opt : ctx.options) {
        for (auto a : opt.args) printf("%s ", a);
#ifdef HAS_NEG
        printf("| neg:");
        for (auto a : opt.args_neg) printf(" %s", a);
#endif
        printf(" | %s | %s\n", opt.env ? opt.env : "-",
               opt.handler_void ? "void" :
#ifdef HAS_NEG
               opt.handler_bool ? "bool" :
#endif
               opt.handler_int ? "int" : opt.handler_string ? "string" : "str_str");
    }
    const std::vector<std::string> probes = {"none", "layer", "row", "tensor", "graph", "f32", "f16", "bf16", "q8_0",
        "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1", "fp8", "q8", "on", "off", "auto", "true", "false", "enabled",
        "disabled", "yes", "1", "0", "-1", "99", "all", "foo"};
    for (auto & opt : ctx.options) {
        std::string name = opt.args.back();
        if (name != "--split-mode" && name != "--cache-type-k" && name != "--cache-type-v" &&
            name != "--flash-attn" && name != "--n-gpu-layers") continue;
        printf("values %s:", name.c_str());
        for (auto & p : probes) {
            try {
                if (opt.handler_int) opt.handler_int(params, std::stoi(p));  // the parser converts int values
                else if (opt.handler_string) opt.handler_string(params, p);
                else continue;
                printf(" %s", p.c_str());
            } catch (...) {}
        }
        printf("\n");
    }
}
