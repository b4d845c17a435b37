# locate_torch(): make find_package(Torch) work without flags.
#
# Order, the same as scripts/setup.sh uses: a Torch_DIR or CMAKE_PREFIX_PATH
# given by the user; the per-user virtual environment that setup.sh creates
# (${XDG_CACHE_HOME:-~/.cache}/cifar-train/torch-2.11.0); a python3 on the
# PATH that imports torch. The chosen prefix is appended to CMAKE_PREFIX_PATH.
function(locate_torch)
  if(Torch_DIR OR DEFINED ENV{Torch_DIR})
    return()
  endif()
  find_package(Torch 2 QUIET)
  if(Torch_FOUND)
    return()
  endif()
  if(DEFINED ENV{XDG_CACHE_HOME})
    set(cache "$ENV{XDG_CACHE_HOME}")
  else()
    set(cache "$ENV{HOME}/.cache")
  endif()
  set(candidates "${cache}/cifar-train/torch-2.11.0/bin/python")
  find_program(system_python NAMES python3)
  if(system_python)
    list(APPEND candidates "${system_python}")
  endif()
  foreach(python IN LISTS candidates)
    if(NOT EXISTS "${python}")
      continue()
    endif()
    execute_process(
      COMMAND "${python}" -c "import torch.utils; print(torch.utils.cmake_prefix_path, end='')"
      OUTPUT_VARIABLE prefix
      RESULT_VARIABLE rc
      ERROR_QUIET)
    if(rc EQUAL 0 AND EXISTS "${prefix}/Torch/TorchConfig.cmake")
      message(STATUS "cifar-train: using LibTorch from ${python}: ${prefix}")
      set(CMAKE_PREFIX_PATH "${CMAKE_PREFIX_PATH};${prefix}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR
    "LibTorch not found. Run scripts/setup.sh (it installs torch==2.11.0 into "
    "${cache}/cifar-train/torch-2.11.0), or pass -DTorch_DIR=/path/to/share/cmake/Torch.")
endfunction()

# find_package(Torch), without the two warnings the wheel's config prints on
# every configure that do not concern a C++ consumer: CMAKE_CUDA_ARCHITECTURES
# (set by CMake's CUDA language support; torch uses TORCH_CUDA_ARCH_LIST) and
# "library kineto not found" (the profiler library, which the wheel links into
# libtorch itself). Every other message passes through.
function(message)
  if(CIFAR_FILTER_TORCH_WARNINGS AND "${ARGV0}" STREQUAL "WARNING"
     AND ("${ARGV1}" MATCHES "CMAKE_CUDA_ARCHITECTURES" OR "${ARGV1}" MATCHES "library kineto not found"))
    return()
  endif()
  _message(${ARGV0} "${ARGV1}" "${ARGV2}" "${ARGV3}" "${ARGV4}")
endfunction()

macro(find_package_torch_quietly)
  set(CIFAR_FILTER_TORCH_WARNINGS ON)
  find_package(Torch 2 REQUIRED)
  set(CIFAR_FILTER_TORCH_WARNINGS OFF)
endmacro()
