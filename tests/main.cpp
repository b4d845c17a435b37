// main.cpp: the Catch2 runner for the unit tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
