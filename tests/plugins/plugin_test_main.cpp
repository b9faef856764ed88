// plugin_test_main.cpp — installs the log capture before any test creates a backend logger.
#include <gtest/gtest.h>

#include "plugin_test_support.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  vc::plugins::testing::LogCapture::install();
  return RUN_ALL_TESTS();
}
