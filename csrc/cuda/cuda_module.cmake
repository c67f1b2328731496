# Builds fastamfm._cuda: one static library of kernels (one .cu + .cuh per kernel
# family in this folder) and a pybind11 module that only converts and dispatches.
# Included from the root CMakeLists.txt when a CUDA compiler is found.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  # Ampere and Hopper SASS, plus Hopper PTX for newer devices to JIT.
  set(CMAKE_CUDA_ARCHITECTURES 80-real 90)
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)

file(GLOB FASTAMFM_CUDA_KERNELS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cu)
add_library(fastamfm_cuda_kernels STATIC ${FASTAMFM_CUDA_KERNELS})
target_include_directories(fastamfm_cuda_kernels PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_compile_options(fastamfm_cuda_kernels PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-O3 --expt-relaxed-constexpr -Xcompiler=-Wall>)
target_link_libraries(fastamfm_cuda_kernels PUBLIC CUDA::cudart_static)

file(GLOB FASTAMFM_CUDA_BINDINGS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
pybind11_add_module(_cuda ${FASTAMFM_CUDA_BINDINGS})
target_link_libraries(_cuda PRIVATE fastamfm_cuda_kernels fastamfm_core)
if(SKBUILD)
  install(TARGETS _cuda DESTINATION fastamfm)
else()
  set_target_properties(_cuda PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${FASTAMFM_MODULE_DIR})
endif()
message(STATUS "fastamfm: building the CUDA module for architectures ${CMAKE_CUDA_ARCHITECTURES}")
