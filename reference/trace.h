#ifndef DMLREF_TRACE_H
#define DMLREF_TRACE_H
#include "reference/reference.h"
#endif
