#include "verify/parallel_chunks.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace flashscope::verify {

int ChunkCount(int64_t n, int64_t min_chunk) {
  if (n <= 0) return 1;
  const int64_t by_size = std::max<int64_t>(1, n / std::max<int64_t>(1, min_chunk));
  return static_cast<int>(std::min<int64_t>(by_size, kMaxChunks));
}

void ForEachChunk(int64_t n, int64_t min_chunk,
                  const std::function<void(int chunk, int64_t begin, int64_t end)>& fn) {
  const int chunks = ChunkCount(n, min_chunk);
  if (chunks == 1) {
    fn(0, 0, std::max<int64_t>(n, 0));
    return;
  }
  const int threads = std::min<int>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<int> next{0};
  auto work = [&]() {
    for (int c = next++; c < chunks; c = next++) {
      fn(c, ChunkBegin(n, chunks, c), ChunkBegin(n, chunks, c + 1));
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace flashscope::verify
