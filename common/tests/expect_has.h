// EXPECT_HAS(text, part): the test's output or message holds `part`; on failure it prints the whole
// text, which is what one needs to see when a message changed. For tests only.
#pragma once

#include <gtest/gtest.h>

#include <string>

#define EXPECT_HAS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "in: " << (text)
