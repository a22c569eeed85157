/*
 * fault_windows.c - fault.h on Windows: a vectored exception handler, first
 * in line, for access violations (ExceptionInformation[1] is the address)
 * and in-page errors.
 */
#include "platform/fault.h"

#include <windows.h>

static access_fault_handler the_handler;

static LONG CALLBACK on_exception(EXCEPTION_POINTERS *e)
{
    const EXCEPTION_RECORD *r = e->ExceptionRecord;
    if ((r->ExceptionCode == EXCEPTION_ACCESS_VIOLATION ||
         r->ExceptionCode == EXCEPTION_IN_PAGE_ERROR) &&
        r->NumberParameters >= 2 && the_handler)
        the_handler((uintptr_t)r->ExceptionInformation[1]);
    return EXCEPTION_CONTINUE_SEARCH; /* a crash of its own: as it would have been */
}

void fault_catch_access(access_fault_handler handler)
{
    the_handler = handler;
    AddVectoredExceptionHandler(1, on_exception);
}

void process_exit_now(int code)
{
    TerminateProcess(GetCurrentProcess(), (UINT)code); /* ends this thread too */
    ExitProcess((UINT)code);                           /* (never reached) */
}
