// macro_use.cpp — macro_use.c as C++ (see there).
#include "macro_use.c"
