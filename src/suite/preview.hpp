#pragma once

#include <cstddef>
#include <string>

#include "config/test_config.hpp"
#include "suite/scenario.hpp"

// What a dry run says of a step, without starting anything.
namespace conform::suite {

// How many connector runs a step makes.
struct RunCount {
    std::size_t runs = 1;
    bool exact = true;  // false: depends on what the connector emits (checkpoints, keys)
};

// How many connector runs `step` makes for each run of the step it resumes (or once).
RunCount runs_per_step(const Step& step, const config::ResumeSampling& sampling);

// "read, split halves, resume from full (middle checkpoint)".
std::string describe_step(const Step& step);

}  // namespace conform::suite
