/* A native backtrace on a fatal signal, for a Python process (LD_PRELOAD this library).
 *
 * The lent GPU machine has no gdb and glibc >= 2.35 no longer ships libSegFault.so, so
 * the device run compiles this file and preloads it into its test processes. Its
 * constructor installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (on an
 * alternate stack, so a stack overflow is reported too). Python's faulthandler, enabled
 * later by -X faulthandler, prints the Python traceback first and then passes the signal
 * on to this handler, which writes the faulting thread's native frames
 * (backtrace_symbols_fd: "module(function+offset) [address]"), the load addresses of the
 * fastamfm modules (from /proc/self/maps, so addr2line can resolve module offsets), and
 * re-raises the signal with its default action (the process still dies of it).
 *
 *   cc -shared -fPIC -O1 -g -o libsegv_backtrace.so segv_backtrace.c
 *   LD_PRELOAD=$PWD/libsegv_backtrace.so python3 -X faulthandler -m pytest ...
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static char alt_stack[1 << 16];

static void put(const char *text) {
  ssize_t ignored = write(2, text, strlen(text));
  (void)ignored;
}

static void put_number(long value) {
  char digits[24];
  int i = (int)sizeof digits;
  int negative = value < 0;
  unsigned long v = negative ? (unsigned long)(-value) : (unsigned long)value;
  digits[--i] = '\0';
  do {
    digits[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v && i > 1);
  if (negative) digits[--i] = '-';
  put(digits + i);
}

/* The lines of /proc/self/maps that name a fastamfm module (read with plain syscalls). */
static void put_module_maps(void) {
  char buffer[8192], line[1024];
  size_t used = 0;
  int fd = open("/proc/self/maps", O_RDONLY);
  if (fd < 0) return;
  ssize_t got;
  while ((got = read(fd, buffer, sizeof buffer)) > 0) {
    for (ssize_t i = 0; i < got; ++i) {
      if (used < sizeof line - 1) line[used++] = buffer[i];
      if (buffer[i] == '\n') {
        line[used] = '\0';
        if (strstr(line, "fastamfm") && strstr(line, ".so")) put(line);
        used = 0;
      }
    }
  }
  close(fd);
}

static void on_fatal_signal(int signum, siginfo_t *info, void *context) {
  (void)context;
  void *frames[128];
  put("\n=== native backtrace (segv_backtrace): signal ");
  put_number(signum);
  put(" in thread ");
  put_number((long)syscall(SYS_gettid));
  put(", fault address 0x");
  {
    char hex[19];
    unsigned long a = (unsigned long)info->si_addr;
    int i = 18;
    hex[i] = '\0';
    do {
      hex[--i] = "0123456789abcdef"[a & 15];
      a >>= 4;
    } while (a && i > 0);
    put(hex + i);
  }
  put(" ===\n");
  int n = backtrace(frames, 128);
  backtrace_symbols_fd(frames, n, 2);
  put("=== fastamfm modules mapped (start-end perms offset dev inode path) ===\n");
  put_module_maps();
  put("=== end of native backtrace ===\n");
  signal(signum, SIG_DFL);
  raise(signum);
}

__attribute__((constructor)) static void install(void) {
  void *warm[2];
  backtrace(warm, 2); /* loads libgcc's unwinder now, not inside the handler */
  stack_t stack;
  memset(&stack, 0, sizeof stack);
  stack.ss_sp = alt_stack;
  stack.ss_size = sizeof alt_stack;
  sigaltstack(&stack, NULL);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_fatal_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i) sigaction(signals[i], &action, NULL);
}
