// A small recursive-descent parser (precedence climbing) for manifest expressions.
#include "base/expr.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <vector>

#include "base/checked_int.h"
#include "base/errors.h"

namespace kl {

namespace {
// Limits that keep a hostile manifest from exhausting the stack or the screen: nesting deeper
// than this (parentheses, unary operators, operands of one chain) is refused at parse time,
// and messages quote at most kQuoteChars of the expression.
constexpr int kMaxDepth = 100;
constexpr size_t kMaxLength = 4096;
constexpr size_t kQuoteChars = 80;

std::string quote_expr(const std::string& s) { return s.size() <= kQuoteChars ? s : s.substr(0, kQuoteChars) + "..."; }
}  // namespace

struct Expr::Node {
    enum Kind { Number, Name, Unary, Binary, Call } kind;
    int64_t value = 0;
    int height = 1;    // of the subtree: evaluation recurses this deep
    std::string text;  // name, operator or function
    std::vector<std::shared_ptr<const Node>> kids;
};

namespace {

using NodePtr = std::shared_ptr<const Expr::Node>;

class Parser {
  public:
    explicit Parser(const std::string& s) : s_(s) {}

    NodePtr parse_all() {
        if (s_.size() > kMaxLength) fail("longer than " + std::to_string(kMaxLength) + " characters");
        NodePtr n = parse_binary(0);
        skip_space();
        if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
        return n;
    }

  private:
    const std::string& s_;
    size_t pos_ = 0;
    int depth_ = 0;

    // Counts nesting on the way down; every recursive rule holds one.
    struct Nest {
        Parser& p;
        explicit Nest(Parser& parser) : p(parser) {
            if (++p.depth_ > kMaxDepth) p.fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
        }
        ~Nest() { --p.depth_; }
    };

    [[noreturn]] void fail(const std::string& what) {
        throw InputError("expression '" + quote_expr(s_) + "': " + what + " at column " + std::to_string(pos_ + 1));
    }
    void skip_space() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    static int precedence(const std::string& op) {
        if (op == "||") return 1;
        if (op == "&&") return 2;
        if (op == "==" || op == "!=") return 3;
        if (op == "<" || op == "<=" || op == ">" || op == ">=") return 4;
        if (op == "+" || op == "-") return 5;
        if (op == "*" || op == "/" || op == "%") return 6;
        return -1;
    }
    std::string peek_operator() {
        skip_space();
        static const char* ops[] = {"||", "&&", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%"};
        for (const char* op : ops)
            if (s_.compare(pos_, std::char_traits<char>::length(op), op) == 0) return op;
        return "";
    }
    NodePtr parse_binary(int min_prec) {
        Nest nest(*this);
        NodePtr lhs = parse_unary();
        for (;;) {
            std::string op = peek_operator();
            int prec = op.empty() ? -1 : precedence(op);
            if (prec < 0 || prec < min_prec) return lhs;
            pos_ += op.size();
            NodePtr rhs = parse_binary(prec + 1);
            auto n = std::make_shared<Expr::Node>();
            n->kind = Expr::Node::Binary;
            n->text = op;
            n->height = 1 + std::max(lhs->height, rhs->height);
            if (n->height > kMaxDepth) fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
            n->kids = {lhs, rhs};
            lhs = n;
        }
    }
    NodePtr parse_unary() {
        Nest nest(*this);
        skip_space();
        if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '!')) {
            auto n = std::make_shared<Expr::Node>();
            n->kind = Expr::Node::Unary;
            n->text = std::string(1, s_[pos_++]);
            n->kids = {parse_unary()};
            n->height = 1 + n->kids[0]->height;
            return n;
        }
        return parse_primary();
    }
    NodePtr parse_primary() {
        skip_space();
        if (pos_ >= s_.size()) fail("unexpected end");
        char c = s_[pos_];
        if (c == '(') {
            ++pos_;
            NodePtr n = parse_binary(0);
            skip_space();
            if (pos_ >= s_.size() || s_[pos_] != ')') fail("missing ')'");
            ++pos_;
            return n;
        }
        auto n = std::make_shared<Expr::Node>();
        if (std::isdigit(static_cast<unsigned char>(c))) {
            size_t start = pos_;
            while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
            n->kind = Expr::Node::Number;
            try {
                n->value = std::stoll(s_.substr(start, pos_ - start));
            } catch (...) { fail("number out of range"); }
            return n;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t start = pos_;
            while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
            n->text = s_.substr(start, pos_ - start);
            skip_space();
            if (pos_ < s_.size() && s_[pos_] == '(') {
                ++pos_;
                n->kind = Expr::Node::Call;
                skip_space();
                if (pos_ < s_.size() && s_[pos_] == ')') {
                    ++pos_;
                } else {
                    for (;;) {
                        n->kids.push_back(parse_binary(0));
                        skip_space();
                        if (pos_ < s_.size() && s_[pos_] == ',') {
                            ++pos_;
                            continue;
                        }
                        if (pos_ < s_.size() && s_[pos_] == ')') {
                            ++pos_;
                            break;
                        }
                        fail("expected ',' or ')' in call of " + n->text);
                    }
                }
                size_t want = (n->text == "pow2" || n->text == "log2") ? 1 : 2;
                bool known = n->text == "cdiv" || n->text == "min" || n->text == "max" || want == 1;
                if (!known) fail("unknown function '" + n->text + "'");
                if (n->kids.size() != want)
                    fail(n->text + "() takes " + std::to_string(want) + " argument" + (want == 1 ? "" : "s"));
                for (const auto& k : n->kids) n->height = std::max(n->height, 1 + k->height);
                if (n->height > kMaxDepth) fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
            } else {
                n->kind = Expr::Node::Name;
            }
            return n;
        }
        fail("unexpected '" + std::string(1, c) + "'");
    }
};

int64_t evaluate(const Expr::Node& n, const Scope& scope, const std::string& text) {
    auto err = [&](const std::string& what) { return InputError("expression '" + quote_expr(text) + "': " + what); };
    auto overflow = [&](int64_t a, const std::string& op, int64_t b) {
        return err(std::to_string(a) + " " + op + " " + std::to_string(b) + " does not fit in a 64-bit integer");
    };
    int64_t r = 0;
    switch (n.kind) {
        case Expr::Node::Number: return n.value;
        case Expr::Node::Name: {
            auto it = scope.find(n.text);
            if (it == scope.end()) throw err("unknown name '" + n.text + "'");
            return it->second;
        }
        case Expr::Node::Unary: {
            int64_t v = evaluate(*n.kids[0], scope, text);
            if (n.text == "!") return v == 0;
            if (!checked_neg(v, &r)) throw err("-(" + std::to_string(v) + ") does not fit in a 64-bit integer");
            return r;
        }
        case Expr::Node::Call: {
            int64_t a = evaluate(*n.kids[0], scope, text);
            if (n.text == "pow2") return a > 0 && (a & (a - 1)) == 0;
            if (n.text == "log2") {
                if (a <= 0) throw err("log2 of " + std::to_string(a));
                int64_t r = 0;
                while (a > 1) {
                    a >>= 1;
                    ++r;
                }
                return r;
            }
            int64_t b = evaluate(*n.kids[1], scope, text);
            if (n.text == "min") return a < b ? a : b;
            if (n.text == "max") return a > b ? a : b;
            if (b == 0) throw err("cdiv by zero");
            if (!checked_cdiv(a, b, &r))
                throw err("cdiv(" + std::to_string(a) + ", " + std::to_string(b) +
                          ") does not fit in a 64-bit integer");
            return r;
        }
        case Expr::Node::Binary: {
            const std::string& op = n.text;
            int64_t a = evaluate(*n.kids[0], scope, text);
            if (op == "&&" && !a) return 0;  // short-circuit so guards like "x > 0 && 64 % x == 0" work
            if (op == "||" && a) return 1;
            int64_t b = evaluate(*n.kids[1], scope, text);
            if (op == "+" || op == "-" || op == "*") {
                bool ok = op == "+" ? checked_add(a, b, &r) : op == "-" ? checked_sub(a, b, &r) : checked_mul(a, b, &r);
                if (!ok) throw overflow(a, op, b);
                return r;
            }
            if (op == "/" || op == "%") {
                if (b == 0) throw err("division by zero");
                if (!(op == "/" ? checked_div(a, b, &r) : checked_mod(a, b, &r))) throw overflow(a, op, b);
                return r;
            }
            if (op == "<") return a < b;
            if (op == "<=") return a <= b;
            if (op == ">") return a > b;
            if (op == ">=") return a >= b;
            if (op == "==") return a == b;
            if (op == "!=") return a != b;
            if (op == "&&" || op == "||") return b != 0;
        }
    }
    throw err("internal: bad node");
}

void collect_names(const Expr::Node& n, std::set<std::string>& out) {
    if (n.kind == Expr::Node::Name) out.insert(n.text);
    for (const auto& k : n.kids) collect_names(*k, out);
}

}  // namespace

Expr Expr::parse(const std::string& text) {
    Expr e;
    e.text_ = text;
    Parser p(text);
    e.root_ = p.parse_all();
    return e;
}

int64_t Expr::eval(const Scope& scope) const {
    if (!root_) throw InputError("empty expression");
    return evaluate(*root_, scope, text_);
}

std::set<std::string> Expr::names() const {
    std::set<std::string> out;
    if (root_) collect_names(*root_, out);
    return out;
}

}  // namespace kl
