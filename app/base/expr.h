// Integer expressions used by ladder manifests for launch geometry, shared memory, scratch
// sizes, constraints and traffic models ("cdiv(n, TPB * EPT)", "BM % TM == 0").
//
// - Values are int64; division is integer division (toward zero); x / 0 is an error.
// - Operators: + - * / % ( ) < <= > >= == != && || ! and unary minus.
// - Functions: cdiv(a,b), min(a,b), max(a,b), pow2(x) (1 if x is a power of two), log2(x).
// - Names are looked up in a Scope at evaluation time; an unknown name is an error that
//   names it. `names()` lists the names an expression uses, so manifests are validated at load.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace kl {

using Scope = std::map<std::string, int64_t>;

class Expr {
  public:
    struct Node;
    Expr() = default;
    // Throws kl::InputError("expression '...': <problem> at column N") on a syntax error.
    static Expr parse(const std::string& text);
    int64_t eval(const Scope& scope) const;  // throws kl::InputError on unknown names, x/0
    const std::string& text() const { return text_; }
    std::set<std::string> names() const;
    bool empty() const { return !root_; }

  private:
    std::string text_;
    std::shared_ptr<const Node> root_;
};

}  // namespace kl
