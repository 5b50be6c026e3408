// ASSERT_CUDA for the GPU tests of every folder: a failed CUDA call fails the test with the call,
// the error's name and its description. Test code only (GoogleTest, CUDA runtime).
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#define ASSERT_CUDA(expr)                                                           \
  do {                                                                              \
    const cudaError_t err_ = (expr);                                                \
    ASSERT_EQ(err_, cudaSuccess) << #expr << ": " << cudaGetErrorName(err_) << " (" \
                                 << cudaGetErrorString(err_) << ")";                \
  } while (0)
