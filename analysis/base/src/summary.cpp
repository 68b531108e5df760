#include "mpimon/base/summary.hpp"

#include <cmath>
#include <numeric>

namespace mpimon {

double mean_of(std::span<const double> values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double sample_sd(std::span<const double> values, double mean) {
  double sum_of_squares = 0;
  for (double v : values) sum_of_squares += (v - mean) * (v - mean);
  return std::sqrt(sum_of_squares / static_cast<double>(values.size() - 1));
}

}  // namespace mpimon
