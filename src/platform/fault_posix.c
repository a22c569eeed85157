/*
 * fault_posix.c - fault.h on POSIX: SIGSEGV and SIGBUS on an alternate
 * stack (a plug-in that overflowed its own stack is still told apart).
 */
#define _DEFAULT_SOURCE /* SA_ONSTACK, sigaltstack */
#include "platform/fault.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static access_fault_handler the_handler;
static pid_t the_process; /* the one that asked: a fork of it (a plug-in's) crashes as such */
static char fault_stack[1 << 16];

static void on_fault(int signal_number, siginfo_t *info, void *unused)
{
    (void)unused;
    signal(signal_number, SIG_DFL); /* if the handler returns, the access crashes again */
    if (info->si_code > 0 && the_handler &&
        getpid() == the_process) /* raised by the processor, not sent */
        the_handler((uintptr_t)info->si_addr);
}

void fault_catch_access(access_fault_handler handler)
{
    static const int signals[] = {SIGSEGV, SIGBUS};
    struct sigaction action;
    stack_t stack;
    size_t i;
    the_handler = handler;
    the_process = getpid();
    stack.ss_sp = fault_stack;
    stack.ss_size = sizeof fault_stack;
    stack.ss_flags = 0;
    sigaltstack(&stack, NULL);
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (i = 0; i < sizeof signals / sizeof *signals; ++i)
        sigaction(signals[i], &action, NULL);
}

void process_exit_now(int code)
{
    _exit(code);
}
