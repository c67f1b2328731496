/* LD_PRELOAD shim: the process sees FAKE_CORES processors (default 16) through get_nprocs
 * and sysconf, which std::thread::hardware_concurrency and os.cpu_count read. A 2-core CI
 * machine then runs the thread counts of the 16-core GPU machine wherever fastamfm asks for
 * "every core" (workers=-1, the default; NgramModel::build always).
 *
 *   cc -shared -fPIC -O1 -o libfake_cores.so fake_cores.c -ldl
 *   FAKE_CORES=16 LD_PRELOAD=$PWD/libfake_cores.so python3 -c "import os; print(os.cpu_count())"
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>
static int cores(void) { const char *v = getenv("FAKE_CORES"); return v ? atoi(v) : 16; }
int get_nprocs(void) { return cores(); }
int get_nprocs_conf(void) { return cores(); }
long sysconf(int name) {
  static long (*real)(int);
  if (name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF) return cores();
  if (!real) real = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
  return real(name);
}
