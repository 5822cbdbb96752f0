#include "report/figure_files.h"

#include <unistd.h>

#include <filesystem>

#include "base/errors.h"
#include "base/file_set.h"
#include "plot/file_write.h"

namespace kl::report {

namespace fs = std::filesystem;

std::string results_copy_path(const std::string& figure_path) {
    fs::path p(figure_path);
    return (p.parent_path() / (p.stem().string() + ".results.json")).string();
}

void check_writable_folder(const std::string& folder, const std::string& path) {
    std::string f = folder.empty() ? "." : folder;
    std::error_code ec;
    if (!fs::exists(f, ec)) throw InputError("cannot write '" + path + "': folder '" + f + "' does not exist");
    if (!fs::is_directory(f, ec)) throw InputError("cannot write '" + path + "': '" + f + "' is not a folder");
    if (access(f.c_str(), W_OK | X_OK) != 0)
        throw InputError("cannot write '" + path + "': folder '" + f + "' is not writable");
}

std::string render_or_throw(const plot::Figure& figure, plot::ExportFormat format, const plot::ExportOptions& options,
                            const std::string& what) {
    std::string error;
    auto bytes = plot::render_to_bytes(figure, format, options, &error);
    if (!bytes) throw InputError("cannot render " + what + ": " + error);
    return *bytes;
}

void write_figure_with_results(const plot::Figure& figure, const std::string& path, plot::ExportFormat format,
                               const plot::ExportOptions& options, const std::string& results_bytes) {
    if (path.empty()) throw InputError("-o: the output file name is empty");
    check_writable_folder(fs::path(path).parent_path().string(), path);
    std::string bytes = render_or_throw(figure, format, options, "'" + path + "'");
    std::string copy = results_copy_path(path);
    if (fs::absolute(copy) == fs::absolute(path))
        throw InputError("cannot write '" + path + "': the results copy would overwrite it");
    // Both files or neither: a failed results copy must not cost the previous figure.
    InterruptGuard guard;
    FileSet files;
    files.stage(path, bytes);
    files.stage(copy, results_bytes);
    files.commit();
}

}  // namespace kl::report
