/* satsweep-launch: runs a simulation program so that it dies with the job that started it.
 *
 *   satsweep-launch PROGRAM [ARGUMENT]...
 *
 * It sets PR_SET_PDEATHSIG to SIGKILL, which execve keeps, then becomes PROGRAM: a job killed
 * (the OOM killer, a batch system, kill -9) takes its program along, though the program runs in
 * a process group of its own (engine/program.py, _run_group). It does what
 * `setpriv --pdeathsig KILL --` does, in one small exec instead of util-linux's setpriv and its
 * libraries: about 1 ms less at each run's start. setup.sh builds it into
 * <prefix>/libexec/satsweep-launch; without it satsweep uses setpriv.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: satsweep-launch PROGRAM [ARGUMENT]...\n", stderr);
    return 2;
  }
  pid_t parent = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
    perror("satsweep-launch: prctl(PR_SET_PDEATHSIG)");
    return 126;
  }
  if (getppid() != parent) /* the job died before the signal was set: as if it took us along */
    return 128 + SIGKILL;
  execvp(argv[1], argv + 1);
  fprintf(stderr, "satsweep-launch: cannot run %s: %s\n", argv[1], strerror(errno));
  return errno == ENOENT ? 127 : 126;
}
