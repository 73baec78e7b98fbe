#include "util/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <vector>

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#include <thread>
#define VQ_HAVE_THREADS 1
#endif

namespace vq {

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& job, unsigned threads) {
#ifdef VQ_HAVE_THREADS
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
#else
  threads = 1;
#endif
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, count));
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) job(i);
    return;
  }
#ifdef VQ_HAVE_THREADS
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(count);
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        job(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
#endif
}

}  // namespace vq
