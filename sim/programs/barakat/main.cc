// barakat: short TCP transfers and slow start (Barakat & Altman 2000) in ns-3.
// The engine contract (contract/program.h): `barakat --help`, `barakat --describe`,
// `barakat --name=value ... [--run=R] [--seed=S] [--out=FILE]`.
#include "barakat-config.h"
#include "barakat-scenario.h"

#include "contract/program.h"

int
main(int argc, char* argv[])
{
    return satsweep::RunProgram<barakat::Config>({.name = "barakat",
                                                  .version = SATSWEEP_PROGRAM_VERSION,
                                                  .parameters = barakat::Parameters(),
                                                  .outputs = barakat::Outputs(),
                                                  .cost = barakat::Cost(),
                                                  .run = &barakat::RunScenario},
                                                 argc,
                                                 argv);
}
