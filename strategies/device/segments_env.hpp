#pragma once
// A segmented twin's forced cut from an environment variable: "G" or "G,ROOM" (segments per
// walk, trades recorded per segment; 0 = auto). Lets a timing run force the cuts of a twin
// the registry makes with default options. Host-compiler-safe header.
namespace tpeopt::gpu {

struct SegmentsSetting {
  int segments = 0;  ///< 0 = auto
  int room = 0;      ///< 0 = auto
};

/// The variable `name`'s setting ({0, 0} when unset or empty). Throws Error naming the
/// variable when it is not G or G,ROOM in whole numbers.
SegmentsSetting segments_from_env(const char* name);

}  // namespace tpeopt::gpu
