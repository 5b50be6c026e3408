// What a path is when it is not a regular file, in words, for the messages of readers
// (reports/input_file.cc) and writers (the --out checks): "a FIFO (named pipe)", ...
#pragma once

#include <sys/stat.h>

namespace flashscope::reports {

inline const char* FileKindName(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  return "not a regular file";
}

}  // namespace flashscope::reports
