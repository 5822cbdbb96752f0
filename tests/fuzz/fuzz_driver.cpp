#include "fuzz_driver.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "base/errors.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace kl::fuzz {

namespace fs = std::filesystem;

namespace {

constexpr unsigned kInputSeconds = 10;  // one input running longer than this is a hang
constexpr size_t kMaxInput = 1 << 18;

// The input being executed, for the crash handlers (async-signal-safe writes only).
const char* g_data = nullptr;
size_t g_size = 0;
char g_crash_path[4096];
char g_replay_name[4096];  // --replay: the file being replayed (named on a crash)

void write_current_input() {
    int fd = ::open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    size_t done = 0;
    while (g_data && done < g_size) {
        ssize_t n = ::write(fd, g_data + done, g_size - done);
        if (n <= 0) break;
        done += size_t(n);
    }
    ::close(fd);
    if (g_replay_name[0]) {
        const char r[] = "fuzz: FINDING while replaying ";
        (void)!::write(2, r, sizeof r - 1);
        (void)!::write(2, g_replay_name, std::strlen(g_replay_name));
        (void)!::write(2, "\n", 1);
        return;
    }
    const char msg[] = "fuzz: FINDING: the input is in ";
    (void)!::write(2, msg, sizeof msg - 1);
    (void)!::write(2, g_crash_path, std::strlen(g_crash_path));
    (void)!::write(2, "\n", 1);
}

extern "C" void on_crash_signal(int sig) {
    const char* what =
        sig == SIGALRM ? "fuzz: an input ran longer than the time limit (hang)\n" : "fuzz: crash signal\n";
    (void)!::write(2, what, std::strlen(what));
    write_current_input();
    _exit(1);
}

void install_handlers() {
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_set_death_callback(write_current_input);  // ASan/UBSan report, then this
#endif
    static std::vector<char> alt(1 << 16);
    stack_t ss{};
    ss.ss_sp = alt.data();
    ss.ss_size = alt.size();
    sigaltstack(&ss, nullptr);  // a stack overflow must still reach the handler
    struct sigaction sa {};
    sa.sa_handler = on_crash_signal;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, nullptr);
#if !defined(__SANITIZE_ADDRESS__)
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
#endif
}

// Runs one input; returns an empty string or a description of the finding.
std::string execute(const Target& t, const std::string& input) {
    g_data = input.data();
    g_size = input.size();
    alarm(kInputSeconds);
    std::string finding;
    try {
        t.run(input);
    } catch (const kl::Error&) {
        // the input was refused with a clear message: the expected outcome for bad input
    } catch (const std::exception& e) {
        finding = std::string("exception that is not kl::Error: ") + e.what();
    } catch (...) { finding = "unknown exception"; }
    alarm(0);
    return finding;
}

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> load_corpus(const std::vector<std::string>& dirs, const Target& t) {
    std::vector<fs::path> files;
    for (const auto& d : dirs) {
        std::error_code ec;
        if (fs::is_regular_file(d, ec)) {
            files.push_back(d);
            continue;
        }
        for (auto it = fs::recursive_directory_iterator(d, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            if (!it->is_regular_file(ec)) continue;
            std::string ext = it->path().extension().string();
            if (t.extensions.empty() || std::find(t.extensions.begin(), t.extensions.end(), ext) != t.extensions.end())
                files.push_back(it->path());
        }
    }
    std::sort(files.begin(), files.end());  // the same seed gives the same run
    std::vector<std::string> out;
    for (const auto& f : files) {
        std::string s = read_all(f);
        if (s.size() <= kMaxInput) out.push_back(s);
    }
    return out;
}

class Mutator {
  public:
    Mutator(uint64_t seed, const std::vector<std::string>& corpus, const std::vector<std::string>& dict)
        : rng_(seed), corpus_(corpus), dict_(dict) {
        for (const char* s : {"0",
                              "-1",
                              "1",
                              "2",
                              "3",
                              "9223372036854775807",
                              "-9223372036854775808",
                              "9223372036854775808",
                              "18446744073709551616",
                              "4294967296",
                              "2147483648",
                              "1e308",
                              "1.5",
                              "-0",
                              "NaN",
                              "null",
                              "true",
                              "\"\"",
                              "[]",
                              "{}",
                              "..",
                              "../../..",
                              "/dev/zero",
                              "/etc/passwd",
                              "\\u0000",
                              "<script>",
                              "javascript:"})
            extremes_.push_back(s);
    }

    std::string next() {
        std::string s = pick(corpus_);
        int n = 1 + int(below(8));
        for (int i = 0; i < n; ++i) mutate(s);
        if (s.size() > kMaxInput) s.resize(kMaxInput);
        return s;
    }

  private:
    uint64_t below(uint64_t n) { return n ? rng_() % n : 0; }
    const std::string& pick(const std::vector<std::string>& v) { return v[below(v.size())]; }
    size_t pos(const std::string& s) { return below(s.size() + 1); }

    void mutate(std::string& s) {
        switch (below(11)) {
            case 0:  // flip a bit
                if (!s.empty()) s[below(s.size())] ^= char(1u << below(8));
                break;
            case 1:  // any byte
                if (!s.empty()) s[below(s.size())] = char(below(256));
                break;
            case 2:  // insert bytes
                s.insert(pos(s), std::string(1 + below(4), char(below(256))));
                break;
            case 3: {  // delete a range
                if (s.empty()) break;
                size_t a = below(s.size());
                s.erase(a, 1 + below(std::min<size_t>(64, s.size() - a)));
                break;
            }
            case 4: {  // duplicate a range
                if (s.empty()) break;
                size_t a = below(s.size()), len = 1 + below(std::min<size_t>(128, s.size() - a));
                s.insert(pos(s), s.substr(a, len));
                break;
            }
            case 5: {  // splice with another corpus file
                const std::string& o = pick(corpus_);
                size_t a = pos(s), b = below(o.size() + 1);
                s = s.substr(0, a) + o.substr(b);
                break;
            }
            case 6:
            case 7:  // dictionary token
                if (!dict_.empty()) s.insert(pos(s), pick(dict_));
                break;
            case 8: {  // an extreme number or path over a digit run, or inserted
                size_t a = pos(s);
                size_t e = a;
                while (e < s.size() && (std::isdigit(static_cast<unsigned char>(s[e])) || s[e] == '-')) ++e;
                s.replace(a, e - a, pick(extremes_));
                break;
            }
            case 9: {  // deep nesting or a long run: stack and time limits
                static const char* opens[] = {"(", "[", "{\"a\":", "-", "!", "[[", "a"};
                std::string unit = opens[below(sizeof opens / sizeof *opens)];
                size_t times = 1 + below(below(2) ? 100 : 20000);
                std::string run;
                for (size_t i = 0; i < times && run.size() < kMaxInput / 2; ++i) run += unit;
                s.insert(pos(s), run);
                break;
            }
            default: {  // swap two bytes
                if (s.size() < 2) break;
                std::swap(s[below(s.size())], s[below(s.size())]);
            }
        }
    }

    std::mt19937_64 rng_;
    const std::vector<std::string>& corpus_;
    const std::vector<std::string>& dict_;
    std::vector<std::string> extremes_;
};

int replay(const Target& t, const std::vector<std::string>& paths) {
    int runs = 0;
    for (const auto& p : paths) {
        std::vector<fs::path> files;
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            for (const auto& e : fs::directory_iterator(p, ec))
                if (e.is_regular_file()) files.push_back(e.path());
        } else {
            files.push_back(p);
        }
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            std::snprintf(g_crash_path, sizeof g_crash_path, "%s", "/dev/null");
            std::snprintf(g_replay_name, sizeof g_replay_name, "%s", f.c_str());
            std::string input = read_all(f);
            std::string finding = execute(t, input);
            ++runs;
            if (!finding.empty()) {
                std::fprintf(stderr, "fuzz_%s: %s: %s\n", t.name.c_str(), f.c_str(), finding.c_str());
                return 1;
            }
        }
    }
    std::printf("fuzz_%s: replayed %d input%s, no finding\n", t.name.c_str(), runs, runs == 1 ? "" : "s");
    return 0;
}

}  // namespace

int main_for(const Target& target, int argc, char** argv) {
    double seconds = 10;
    uint64_t seed = 1;
    std::vector<std::string> corpus_dirs, replay_paths;
    std::string out = ".";
    bool replaying = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "fuzz_%s: %s needs a value\n", target.name.c_str(), a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--seconds")
            seconds = std::atof(value().c_str());
        else if (a == "--seed")
            seed = std::strtoull(value().c_str(), nullptr, 10);
        else if (a == "--corpus")
            corpus_dirs.push_back(value());
        else if (a == "--out")
            out = value();
        else if (a == "--replay")
            replaying = true;
        else if (replaying)
            replay_paths.push_back(a);
        else {
            std::fprintf(stderr,
                         "usage: fuzz_%s --seconds N --seed S --corpus DIR... [--out DIR] | --replay FILE_OR_DIR...\n",
                         target.name.c_str());
            return 2;
        }
    }
    install_handlers();
    if (target.setup) target.setup();
    if (replaying) return replay(target, replay_paths);

    std::vector<std::string> corpus = load_corpus(corpus_dirs, target);
    if (corpus.empty()) {
        std::fprintf(stderr, "fuzz_%s: no corpus files found (give --corpus DIR)\n", target.name.c_str());
        return 2;
    }
    std::snprintf(g_crash_path, sizeof g_crash_path, "%s/crash-%s-seed%llu.input", out.c_str(), target.name.c_str(),
                  static_cast<unsigned long long>(seed));
    Mutator m(seed, corpus, target.dictionary);
    auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    uint64_t execs = 0;
    // The corpus itself first (it must all pass), then mutations until the time is up.
    for (const auto& c : corpus) {
        std::string finding = execute(target, c);
        ++execs;
        if (!finding.empty()) {
            write_current_input();
            std::fprintf(stderr, "fuzz_%s: %s (a corpus file)\n", target.name.c_str(), finding.c_str());
            return 1;
        }
    }
    while (elapsed() < seconds) {
        std::string input = m.next();
        std::string finding = execute(target, input);
        ++execs;
        if (!finding.empty()) {
            write_current_input();
            std::fprintf(stderr, "fuzz_%s: %s after %llu executions (seed %llu)\n", target.name.c_str(),
                         finding.c_str(), static_cast<unsigned long long>(execs),
                         static_cast<unsigned long long>(seed));
            return 1;
        }
    }
    std::printf("fuzz_%s: %llu executions in %.1f s (seed %llu, %zu corpus files), no finding\n", target.name.c_str(),
                static_cast<unsigned long long>(execs), elapsed(), static_cast<unsigned long long>(seed),
                corpus.size());
    return 0;
}

}  // namespace kl::fuzz
