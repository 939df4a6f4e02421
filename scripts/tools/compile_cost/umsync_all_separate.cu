// compile-cost: umsync_all.cu built with UMSYNC_SEPARATE_COMPILATION, as every file but one
// of a program that links umsync's compiled part (umsync/separate_compilation.hpp) is.
#define UMSYNC_SEPARATE_COMPILATION
#include "umsync_all.cu"
