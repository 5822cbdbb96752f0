#include <gtest/gtest.h>

#include "base/errors.h"
#include "base/expr.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_expr {

using kl::Expr;

TEST(Expr, ArithmeticAndPrecedence) {
    kl::Scope s{{"n", 1000}, {"TPB", 256}, {"EPT", 4}};
    EXPECT_EQ(Expr::parse("cdiv(n, TPB * EPT)").eval(s), 1);
    EXPECT_EQ(Expr::parse("2 + 3 * 4").eval(s), 14);
    EXPECT_EQ(Expr::parse("(2 + 3) * 4").eval(s), 20);
    EXPECT_EQ(Expr::parse("-n + 1").eval(s), -999);
    EXPECT_EQ(Expr::parse("n / 3").eval(s), 333);
    EXPECT_EQ(Expr::parse("n % 3").eval(s), 1);
    EXPECT_EQ(Expr::parse("min(TPB, EPT) + max(TPB, EPT)").eval(s), 260);
    EXPECT_EQ(Expr::parse("log2(TPB)").eval(s), 8);
    EXPECT_EQ(Expr::parse("pow2(TPB) && !pow2(n)").eval(s), 1);
    EXPECT_EQ(Expr::parse("TPB * EPT <= 1024 || 0").eval(s), 1);
    EXPECT_EQ(Expr::parse("TPB >= 512").eval(s), 0);
}

TEST(Expr, ShortCircuitGuardsDivisionByZero) {
    kl::Scope s{{"x", 0}};
    EXPECT_EQ(Expr::parse("x > 0 && 64 % x == 0").eval(s), 0);
    EXPECT_THROW(Expr::parse("64 % x").eval(s), kl::InputError);
}

TEST(Expr, NamesAreListed) {
    auto names = Expr::parse("cdiv(n, TPB * EPT) + esize").names();
    EXPECT_EQ(names, (std::set<std::string>{"n", "TPB", "EPT", "esize"}));
}

TEST(Expr, ErrorsNameTheProblem) {
    try {
        Expr::parse("n + * 2");
        FAIL() << "expected a syntax error";
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("column"), std::string::npos) << e.what();
    }
    try {
        Expr::parse("TBP * 2").eval({{"TPB", 1}});
        FAIL();
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("unknown name 'TBP'"), std::string::npos) << e.what();
    }
    EXPECT_THROW(Expr::parse("foo(1, 2)"), kl::InputError);
    EXPECT_THROW(Expr::parse("cdiv(1)"), kl::InputError);
    EXPECT_THROW(Expr::parse("(1 + 2"), kl::InputError);
    EXPECT_THROW(Expr::parse(""), kl::InputError);
}

}  // namespace kl_test_expr
