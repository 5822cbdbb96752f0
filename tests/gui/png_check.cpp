// png_check MIN_WIDTH MIN_HEIGHT FILE...: check_png.py's test of a screenshot, in C++ for the
// tests that check many (gui.screenshot_all: 145 screenshots took Python's pure-Python PNG decoder
// 185 s of CPU on CI's two cores, this under a second). FILE must be an 8-bit PNG of at least
// MIN_WIDTH x MIN_HEIGHT with at least 64 distinct colours and a standard deviation of its channel
// values (0..1) above 0.05. One FAIL line per file that is not; exit 1 if any, 2 on bad usage.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_set>

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

namespace {

// Nothing if the PNG at path passes, else the FAIL line.
std::string check(const char* path, int min_w, int min_h) {
    const std::string where = std::string("FAIL: ") + path + ": ";
    FILE* f = std::fopen(path, "rb");
    if (!f) return where + "not an image (" + std::strerror(errno) + ")";
    int w = 0, h = 0, ch = 0;
    if (stbi_is_16_bit_from_file(f)) {
        std::fclose(f);
        return where + "not an image (16-bit PNG)";
    }
    unsigned char* px = stbi_load_from_file(f, &w, &h, &ch, 0);
    std::fclose(f);
    if (!px) return where + "not an image (" + stbi_failure_reason() + ")";
    std::unordered_set<uint32_t> colours;
    double total = 0, total_sq = 0;
    const size_t n = static_cast<size_t>(w) * h * ch;
    for (size_t i = 0; i < n; i += ch) {
        uint32_t c = 0;
        for (int k = 0; k < ch; ++k) {
            c = c << 8 | px[i + k];
            total += px[i + k];
            total_sq += static_cast<double>(px[i + k]) * px[i + k];
        }
        colours.insert(c);
    }
    stbi_image_free(px);
    if (w < min_w || h < min_h)
        return where + std::to_string(w) + "x" + std::to_string(h) + " is smaller than " + std::to_string(min_w) + "x" +
               std::to_string(min_h);
    if (colours.size() < 64) return where + "only " + std::to_string(colours.size()) + " colours: blank?";
    const double mean = total / n / 255, sd = std::sqrt(std::max(0.0, total_sq / n / 65025 - mean * mean));
    if (sd <= 0.05) {
        char line[64];
        std::snprintf(line, sizeof line, "standard deviation %.3f: blank?", sd);
        return where + line;
    }
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: png_check MIN_WIDTH MIN_HEIGHT FILE...\n");
        return 2;
    }
    const int min_w = std::atoi(argv[1]), min_h = std::atoi(argv[2]);
    int failed = 0;
    for (int i = 3; i < argc; ++i) {
        const std::string line = check(argv[i], min_w, min_h);
        if (!line.empty()) std::printf("%s\n", line.c_str()), ++failed;
    }
    return failed ? 1 : 0;
}
