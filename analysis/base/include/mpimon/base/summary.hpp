#pragma once
// The mean and the sample standard deviation of a set of values: the one place they are computed
// (the statistics of the results library, the random draws of placement).

#include <span>

namespace mpimon {

/// The arithmetic mean; `values` must not be empty.
double mean_of(std::span<const double> values);
/// The sample standard deviation (n - 1 in the denominator) around `mean`; needs two values or more.
double sample_sd(std::span<const double> values, double mean);

}  // namespace mpimon
