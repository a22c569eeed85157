/*
 * trace.c - the derivation of one output element (reference/trace.h).
 */
#include "reference/trace.h"
