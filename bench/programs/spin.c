/* A program under the engine contract that only burns CPU: a run spins for --seconds of its
 * own CPU time (fixed work, as a simulation's), so that a sweep's overhead competes with it for
 * the cores. bench/bench_overhead.py compiles it with `cc -O2`.
 *
 *   spin --describe
 *   spin --seconds=0.05 --x=7 --run=3 --out=result.json
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *DESCRIPTION =
    "{\"name\": \"spin\", \"version\": \"1.0\","
    " \"parameters\": ["
    "{\"name\": \"seconds\", \"type\": \"float\", \"default\": 0.05, \"minimum\": 0,"
    " \"unit\": \"s\", \"help\": \"CPU seconds a run spins\"},"
    "{\"name\": \"x\", \"type\": \"int\", \"default\": 0, \"help\": \"a factor without effect\"}],"
    " \"summary\": [{\"name\": \"y\", \"type\": \"float\", \"help\": \"a number from --run\"}],"
    " \"tables\": {},"
    " \"cost\": {\"per\": [\"seconds\"], \"seconds\": 1.0}}";

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  double seconds = 0.05;
  long x = 0, run = 1;
  const char *out = NULL;
  if (argc == 2 && strcmp(argv[1], "--describe") == 0) {
    puts(DESCRIPTION);
    return 0;
  }
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--seconds=", 10) == 0) seconds = atof(argv[i] + 10);
    else if (strncmp(argv[i], "--x=", 4) == 0) x = atol(argv[i] + 4);
    else if (strncmp(argv[i], "--run=", 6) == 0) run = atol(argv[i] + 6);
    else if (strncmp(argv[i], "--out=", 6) == 0) out = argv[i] + 6;
    else {
      fprintf(stderr, "spin: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (out == NULL) {
    fputs("spin: --out=FILE is required\n", stderr);
    return 2;
  }
  volatile double sink = 0;
  double start = cpu_seconds();
  while (cpu_seconds() - start < seconds)
    for (int i = 0; i < 1000; i++) sink += i * 1e-9;
  FILE *f = fopen(out, "w");
  if (f == NULL) {
    perror(out);
    return 1;
  }
  fprintf(f, "{\"params\": {\"seconds\": %.17g, \"x\": %ld}, \"summary\": {\"y\": %ld}}\n",
          seconds, x, run % 97);
  return fclose(f) == 0 ? 0 : 1;
}
