// umsync's compiled part, for the test programs built with UMSYNC_SEPARATE_COMPILATION
// (test/CMakeLists.txt): the one file of such a program that includes it.
#include <umsync/separate_compilation.hpp>
