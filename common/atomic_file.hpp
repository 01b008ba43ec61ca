#pragma once
// Replacing a file so that readers (and a later resume) see the old or the new
// contents, never a mix: write a temporary file beside it, optionally fsync, rename.
#include <filesystem>
#include <string_view>

namespace tpeopt {

/// Writes `text` to `path` atomically. `durable`: fsync the data before the rename
/// (for files a resume relies on). Throws tpeopt::Error naming the file; leaves no
/// temporary file behind on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view text, bool durable);

}  // namespace tpeopt
