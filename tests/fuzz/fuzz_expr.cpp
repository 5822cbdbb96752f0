// Fuzz target: the manifest expression parser and evaluator (app/base/expr.*), with every
// name bound to extreme values (0, -1, INT64_MIN, INT64_MAX ...).
#include <cstdint>
#include <limits>

#include "base/errors.h"
#include "base/expr.h"
#include "fuzz_driver.h"

int main(int argc, char** argv) {
    kl::fuzz::Target t;
    t.name = "expr";
    t.extensions = {".expr"};
    t.dictionary = {
        "cdiv(", "min(", "max(", "pow2(", "log2(", "(",  ")",  ",",  "+", "-", "*",   "/",     "%",
        "<",     "<=",   ">",    ">=",    "==",    "!=", "&&", "||", "!", "n", "TPB", "esize", "9223372036854775807"};
    t.run = [](const std::string& text) {
        kl::Expr e = kl::Expr::parse(text);
        const int64_t values[] = {
            0, 1, -1, 2, 3, 1024, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
        for (int64_t v : values) {
            kl::Scope scope;
            for (const auto& n : e.names()) scope[n] = v;
            try {
                e.eval(scope);
            } catch (const kl::InputError&) {
                // overflow, division by zero, log2 of a negative: refused with a message
            }
        }
    };
    return kl::fuzz::main_for(t, argc, argv);
}
